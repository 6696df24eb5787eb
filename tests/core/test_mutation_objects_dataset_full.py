"""Dataset counting (core.objects.dataset): rules the full mutation run left open.

Pinned against hand-worked values and the documented messages: the default limit of
``distinct_value_thresholds`` (1024 values pass, 1025 raise, message word for word), the
message of ``best_object_threshold`` for cases with different thresholds, and that an
explicit ``size_window`` is the one ``best_object_threshold`` counts with.

Batch E: the messages of ``describe_case`` / ``count_objects`` word for word (no case, no
threshold, unknown connectivity, cases of different connectivity or mode, a threshold not
described); that a described case keeps its mode; that the size window keeps an object of
exactly ``lo`` or ``hi`` voxels that matches a GT object (``lo <= size <= hi``, as in
``match_objects``); and that the sizes and counts a ``LevelObjects`` keeps are int64 with
``hit_gt`` a tuple on every path (objects that hit, objects that cannot, no object at all).
All expected values are worked out by hand on maps of a few voxels.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.objects.dataset import (
    best_object_threshold,
    count_objects,
    describe_case,
    distinct_value_thresholds,
)


def _values(n: int) -> np.ndarray:
    # k / 2048 for k = 1..n: exact in float16 (spacing 2**-11 up to 1), so n distinct values
    return (np.arange(1, n + 1) / 2048).reshape(1, n)


def test_1024_distinct_values_are_within_the_default_limit():
    thresholds = distinct_value_thresholds([_values(1024)])
    np.testing.assert_array_equal(thresholds, np.arange(1, 1025) / 2048)


def test_1025_distinct_values_raise_with_the_documented_message():
    with pytest.raises(ValueError) as raised:
        distinct_value_thresholds([_values(1025)])
    assert str(raised.value) == (
        "score maps hold more than max_values=1024 distinct values; "
        "use default_threshold_grid() for continuous maps"
    )


def _case(thresholds: list[float]):
    gt = np.zeros((10, 10), dtype=bool)
    gt[2:4, 2:4] = True  # one GT object of 4 voxels: default window (2, 8)
    score = np.where(gt, 0.9, 0.0)
    score[8, 8] = 0.9  # a 1-voxel speck far from the GT
    return describe_case(score, gt, thresholds=thresholds, connectivity="full")


def test_cases_with_different_thresholds_are_refused_with_the_documented_message():
    with pytest.raises(ValueError) as raised:
        best_object_threshold([_case([0.5]), _case([0.5, 0.6])])
    assert str(raised.value) == "cases were described with different thresholds"


def test_best_threshold_counts_with_the_given_size_window():
    # window (0, inf) keeps the 1-voxel speck: TP 1, FP 1, FN 0 -> F1 = 2 / (2 + 1);
    # the default window (2, 8) would discard it (F1 1)
    best = best_object_threshold([_case([0.5])], size_window=(0.0, math.inf))
    assert best.size_window == (0.0, math.inf)
    assert (best.tp, best.fp, best.fn, best.discarded) == (1, 1, 0, 0)
    assert best.f1 == pytest.approx(2 / 3)


# --- batch E -----------------------------------------------------------------------------


def _block_case(thresholds=(0.5,), **kwargs):
    # GT: one 2 x 2 block (4 voxels) at rows/cols 2..3; the score flags the block only (0.9)
    gt = np.zeros((8, 8), dtype=bool)
    gt[2:4, 2:4] = True
    return describe_case(np.where(gt, 0.9, 0.0), gt, thresholds=list(thresholds), **kwargs)


def test_counting_no_case_raises_the_documented_message():
    with pytest.raises(ValueError) as raised:
        count_objects([], threshold=0.5)
    assert str(raised.value) == "cases is empty"


def test_describing_with_no_threshold_raises_the_documented_message():
    gt = np.zeros((4, 4), dtype=bool)
    with pytest.raises(ValueError) as raised:
        describe_case(np.zeros((4, 4)), gt, thresholds=[])
    assert str(raised.value) == "thresholds is empty; use default_threshold_grid() for example"


def test_an_unknown_connectivity_is_refused_naming_the_argument():
    gt = np.zeros((4, 4), dtype=bool)
    with pytest.raises(ValueError) as raised:
        describe_case(np.zeros((4, 4)), gt, thresholds=[0.5], connectivity="corner")
    assert str(raised.value) == "connectivity must be one of 'full', 'face'; got 'corner'"


@pytest.mark.parametrize(
    ("second", "shown"),
    [({"connectivity": "face"}, "('face', 'mood')"), ({"mode": "exact"}, "('full', 'exact')")],
)
def test_cases_described_differently_are_refused_with_the_documented_message(second, shown):
    cases = [_block_case(), _block_case(**second)]
    with pytest.raises(ValueError) as raised:
        count_objects(cases, threshold=0.5)
    assert str(raised.value) == (
        f"cases were described with different connectivity or mode: ('full', 'mood') vs {shown}"
    )


def test_a_described_case_keeps_its_mode():
    assert _block_case(mode="exact").mode == "exact"
    assert _block_case(mode="mood").mode == "mood"


def test_a_threshold_not_described_names_the_first_and_last_described_ones():
    gt = np.zeros((8, 8), dtype=bool)
    gt[2:4, 2:4] = True
    case = describe_case(np.where(gt, 0.9, 0.0), gt, thresholds=[0.6, 0.2, 0.4], name="a")
    with pytest.raises(ValueError) as raised:
        count_objects([case], threshold=0.5)
    # thresholds are sorted: 0.2, 0.4, 0.6
    assert str(raised.value) == (
        "threshold 0.5 was not described for case 'a'; described: 0.2 .. 0.6 (3 values)"
    )


def test_a_matching_object_of_exactly_lo_voxels_is_kept():
    gt = np.zeros((8, 8), dtype=bool)
    gt[2:4, 2:4] = True  # 4 voxels
    score = np.zeros((8, 8))
    score[2, 2] = score[2, 3] = score[3, 2] = 0.9  # an L of 3 voxels inside the GT block
    # 0.5 * 4 < 3 < 2 * 4 and its COM (7/3, 7/3) lies in the block: it matches the GT;
    # window (3, 8): 3 <= 3 keeps it, so TP 1, FP 0, FN 0, nothing discarded
    case = describe_case(score, gt, thresholds=[0.5])
    counts = count_objects([case], threshold=0.5, size_window=(3, 8))
    assert (counts.tp, counts.fp, counts.fn, counts.discarded) == (1, 0, 0, 0)


def test_a_matching_object_of_exactly_hi_voxels_is_kept():
    # the predicted block is the GT block (4 voxels); window (2, 4): 4 <= 4 keeps it
    counts = count_objects([_block_case()], threshold=0.5, size_window=(2, 4))
    assert (counts.tp, counts.fp, counts.fn, counts.discarded) == (1, 0, 0, 0)


def test_a_level_keeps_int64_sizes_and_counts_of_objects_that_hit_and_that_cannot():
    gt = np.zeros((8, 8), dtype=bool)
    gt[2:4, 2:4] = True
    score = np.where(gt, 0.9, 0.0)
    score[6, 6] = 0.9  # a 1-voxel speck: 2 * 1 <= 4, it can match no GT object
    (level,) = describe_case(score, gt, thresholds=[0.5]).levels
    # the block hits GT 0; the speck goes to the histogram: one object of 1 voxel
    assert level.n_flagged == 5
    assert level.hit_sizes.tolist() == [4] and level.hit_gt == ((0,),)
    assert level.other_sizes.tolist() == [1] and level.other_counts.tolist() == [1]
    assert level.hit_sizes.dtype == np.int64
    assert level.other_sizes.dtype == np.int64
    assert level.other_counts.dtype == np.int64


def test_a_level_without_hits_keeps_an_empty_int64_array_and_an_empty_tuple():
    gt = np.zeros((8, 8), dtype=bool)
    gt[2:4, 2:4] = True
    score = np.zeros((8, 8))
    score[6, 6] = 0.9  # only a 1-voxel speck: no candidate for the 4-voxel GT object
    (level,) = describe_case(score, gt, thresholds=[0.5]).levels
    assert level.hit_gt == () and isinstance(level.hit_gt, tuple)
    assert level.hit_sizes.size == 0 and level.hit_sizes.dtype == np.int64
    assert level.other_sizes.tolist() == [1] and level.other_counts.tolist() == [1]


def test_an_empty_level_keeps_empty_int64_arrays_and_an_empty_tuple():
    # nothing scores >= 0.95: no flagged voxel, no object
    (_, level) = _block_case(thresholds=(0.5, 0.95)).levels
    assert level.n_flagged == 0
    assert level.hit_gt == () and isinstance(level.hit_gt, tuple)
    for values in (level.hit_sizes, level.other_sizes, level.other_counts):
        assert values.size == 0 and values.dtype == np.int64
