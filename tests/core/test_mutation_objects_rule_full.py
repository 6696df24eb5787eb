"""The one-to-one (Hungarian) assignment (core.objects.rule): rules the mutation run left open.

Pinned against hand-worked assignments on small tables of admissible pairs: an admissible
pair counts even without overlap (missing IoU counts 0, as documented), the higher IoU
wins between two otherwise equal pairs, a predicted object left without a free admissible
GT object stays FP, and the kind codes are uint8 (the codes of ``KINDS``: TP 1, FP 2).

Batch E: ``assign_many`` gives uint8 codes too, and ``check_window`` accepts ``lo == hi``
and refuses ``lo < 0`` and a NaN ``hi`` with the documented message (its docstring:
"refusing NaN, lo < 0 or lo > hi").
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.objects.rule import assign_many, assign_one_to_one, check_window

TP, FP = 1, 2  # KINDS.index(kind) + 1


def test_an_admissible_pair_without_overlap_is_still_a_match():
    # one pred, one GT, admissible, IoU missing (counts 0): the only pair is assigned
    out = assign_one_to_one(np.array([True]), [(0,)], {}, 1)
    assert out.pred_kind.tolist() == [TP]
    assert out.pred_matches == ((0,),) and out.gt_matches == ((0,),)


def test_a_pair_missing_from_the_iou_table_counts_zero():
    # preds 0 and 1 both admissible to GT 0 only; IoU 0.5 vs missing (0): pred 0 wins
    out = assign_one_to_one(np.array([True, True]), [(0,), (0,)], {(0, 0): 0.5}, 1)
    assert out.pred_kind.tolist() == [TP, FP]
    assert out.pred_matches == ((0,), ()) and out.gt_matches == ((0,),)


def test_a_pred_without_a_free_admissible_gt_stays_a_false_positive():
    # preds 0 and 1 may only take GT 0; pred 2 may take GT 0, 1 or 2. At most 2 pairs
    # (GT 0 takes one of preds 0/1); the most IoU: (0, 0) 0.5 + (2, 1) 0.3 = 0.8 beats
    # (1, 0) 0.2 + ... and (2, 2) 0.1, so pred 1 is FP and GT 2 stays unmatched
    iou = {(0, 0): 0.5, (1, 0): 0.2, (2, 1): 0.3, (2, 2): 0.1}
    out = assign_one_to_one(np.array([True, True, True]), [(0,), (0,), (0, 1, 2)], iou, 3)
    assert out.pred_kind.tolist() == [TP, FP, TP]
    assert out.pred_matches == ((0,), (), (1,))
    assert out.gt_matches == ((0,), (2,), ())


def test_kind_codes_are_uint8():
    out = assign_one_to_one(np.array([True, False]), [(0,), ()], {(0, 0): 1.0}, 1)
    assert out.pred_kind.dtype == np.uint8
    assert out.pred_kind.tolist() == [TP, 5]  # the second is discarded (code 5)


def test_assign_many_kind_codes_are_uint8():
    # pred 0 kept, admissible to GT 0: TP (1); pred 1 kept, nothing admissible: FP (2);
    # pred 2 not kept: discarded (5)
    out = assign_many(np.array([True, True, False]), [(0,), (), (0,)], 1)
    assert out.pred_kind.tolist() == [TP, FP, 5]
    assert out.pred_kind.dtype == np.uint8


def test_a_window_of_one_size_is_valid():
    assert check_window((3, 3)) == (3.0, 3.0)


def _refusal(window) -> str:
    with pytest.raises(ValueError) as raised:
        check_window(window)
    return str(raised.value)


def test_a_negative_lo_is_refused_with_the_documented_message():
    assert _refusal((-1.0, 5.0)) == (
        "size_window must be (lo, hi) with 0 <= lo <= hi (hi may be inf); got (-1.0, 5.0)"
    )


def test_a_nan_hi_is_refused_with_the_documented_message():
    assert _refusal((1.0, math.nan)) == (
        "size_window must be (lo, hi) with 0 <= lo <= hi (hi may be inf); got (1.0, nan)"
    )
