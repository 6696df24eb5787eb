"""Dataset counting (core.objects.dataset): rules the full mutation run left open.

Pinned against hand-worked values and the documented messages: the default limit of
``distinct_value_thresholds`` (1024 values pass, 1025 raise, message word for word), the
message of ``best_object_threshold`` for cases with different thresholds, and that an
explicit ``size_window`` is the one ``best_object_threshold`` counts with.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.objects.dataset import (
    best_object_threshold,
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
