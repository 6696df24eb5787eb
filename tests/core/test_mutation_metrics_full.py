"""Survivors of the full mutation run of core.metrics (voxel AP, AUROC, per-slice scores).

Expectations come from scikit-learn's ``average_precision_score``, from the float16
reading of the restated official scorer (``tests/reference_scorer.py``), from counts and
Dice worked out by hand and from the messages a user reads, word for word.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from napari_mood.core.curves import curve_from_arrays, curve_from_histogram
from napari_mood.core.metrics import (
    UndefinedMetricWarning,
    auroc_from_curve,
    average_precision_from_curve,
    best_threshold,
    slice_scores,
    zero_undefined_aps,
)
from tests.reference_scorer import clip_float16

MODES = ["mood", "exact"]


def _as_scored(values: list[float], mode: str) -> list[float]:
    """Scores as each mode keeps them: float16 (mood) or float32 (exact), as Python floats."""
    dtype = np.float16 if mode == "mood" else np.float32
    return [float(dtype(v)) for v in values]


# ----------------------------------------------------------------------- messages


def test_the_no_positive_ap_warning_word_for_word() -> None:
    curve = curve_from_arrays(np.array([0.2, 0.7]), np.array([0, 0]))
    message = "no positive voxel: average precision is undefined, returning 0.0"
    with pytest.warns(UndefinedMetricWarning, match=f"^{re.escape(message)}$"):
        assert average_precision_from_curve(curve) == 0.0


@pytest.mark.parametrize("labels", [[0, 0], [1, 1]])
def test_the_one_class_auroc_warning_word_for_word(labels: list[int]) -> None:
    curve = curve_from_arrays(np.array([0.2, 0.7]), np.array(labels))
    message = "only one class present: AUROC is undefined, returning NaN"
    with pytest.warns(UndefinedMetricWarning, match=f"^{re.escape(message)}$"):
        assert math.isnan(auroc_from_curve(curve))


def test_best_threshold_of_an_empty_curve_says_why_word_for_word() -> None:
    empty = curve_from_histogram(np.empty(0), np.empty(0, np.int64), np.empty(0, np.int64))
    message = "the curve has no operating point (no voxel was scored)"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        best_threshold(empty)


def test_zeroed_aps_warning_word_for_word() -> None:
    message = "2 of 3 batches had no positive voxel; their AP is 0.0 (as scikit-learn returns)"
    with pytest.warns(UndefinedMetricWarning, match=f"^{re.escape(message)}$"):
        zeroed = zero_undefined_aps(np.array([0.5, np.nan, np.nan]), what="batches")
    assert zeroed.tolist() == [0.5, 0.0, 0.0]


# ----------------------------------------------------------------------- per slice


@pytest.mark.parametrize("mode", MODES)
def test_slice_counts_ap_and_dice_by_hand(mode: str) -> None:
    """Rows are slices (axis 0); threshold 0.5.

    row 0: one positive at rank 2 -> AP = 1/2; flags 0.9, 0.6 (1 TP): Dice 2/(1 + 2)
    row 1: positives at ranks 1 and 4 (the LOWEST score) -> AP = (1/1 + 2/4) / 2 = 0.75;
           flags 0.8, 0.7 (1 TP): Dice 2/(2 + 2)
    row 2: no positive -> AP NaN without any warning; flags 0.5, 0.5: Dice 0/(0 + 2)
    """
    scores = np.array([[0.9, 0.6, 0.3, 0.1], [0.8, 0.7, 0.4, 0.2], [0.5, 0.5, 0.1, 0.2]])
    labels = np.array([[0, 1, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0]], bool)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 for the row without positives must not warn
        result = slice_scores(scores, labels, axis=0, threshold=0.5, mode=mode)  # type: ignore[arg-type]
    assert result.gt_voxels.tolist() == [1, 2, 0]
    assert result.flagged_voxels.tolist() == [2, 2, 2]
    np.testing.assert_allclose(result.dice, [2 / 3, 0.5, 0.0], rtol=1e-12)
    assert result.ap[:2].tolist() == [0.5, 0.75] and math.isnan(result.ap[2])
    for row in range(2):
        assert result.ap[row] == pytest.approx(average_precision_score(labels[row], scores[row]))


@pytest.mark.parametrize("mode", MODES)
def test_slice_counts_are_integers(mode: str) -> None:
    # counts written to tables read "2", not "2.0"; mood-mode flagged counts come from a
    # weighted bincount (floats)
    scores = np.array([[0.9, 0.6], [0.1, 0.7]])
    labels = np.array([[1, 0], [0, 0]], bool)
    result = slice_scores(scores, labels, axis=0, threshold=0.5, mode=mode)  # type: ignore[arg-type]
    assert result.gt_voxels.dtype == np.int64 and result.flagged_voxels.dtype == np.int64
    assert result.gt_voxels.tolist() == [1, 0] and result.flagged_voxels.tolist() == [2, 1]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [0, -1])
def test_one_dimensional_scores_are_slices_of_one_voxel(mode: str, axis: int) -> None:
    """Each voxel is a slice: flagged at >= 0.5; Dice 1 (hit), 0 (missed / false alarm),
    NaN (neither); AP 1 where the voxel is positive, NaN elsewhere; max = mean = score."""
    values = [0.9, 0.2, 0.6, 0.1]
    labels = np.array([1, 1, 0, 0], bool)
    result = slice_scores(np.array(values), labels, axis=axis, threshold=0.5, mode=mode)  # type: ignore[arg-type]
    assert result.axis == 0
    assert result.gt_voxels.tolist() == [1, 1, 0, 0]
    assert result.flagged_voxels.tolist() == [1, 0, 1, 0]
    assert result.dice[:3].tolist() == [1.0, 0.0, 0.0] and math.isnan(result.dice[3])
    assert result.ap[:2].tolist() == [1.0, 1.0] and np.isnan(result.ap[2:]).all()
    assert result.max_score.tolist() == _as_scored(values, mode)
    assert result.mean_score.tolist() == _as_scored(values, mode)


@pytest.mark.parametrize("mode", MODES)
def test_nan_is_counted_over_the_whole_map_before_any_slice_is_scored(mode: str) -> None:
    # 70 slices of 2 voxels: more than one group of 64 slices; one NaN in the first
    # slice and one in the last, so a count per group would say 1
    scores = np.full((70, 2), 0.5)
    scores[0, 0] = scores[69, 1] = np.nan
    with pytest.raises(ValueError, match=r"^scores contain 2 NaN value\(s\)"):
        slice_scores(scores, np.zeros((70, 2), bool), axis=0, threshold=0.5, mode=mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
def test_slices_larger_than_a_chunk_share_equal_sklearn_and_hand_counts(mode: str) -> None:
    # 40,000 voxels a slice: fewer than 64 slices fit in one 2**21-voxel chunk
    rng = np.random.default_rng(37)
    scores = rng.random((3, 200, 200))
    labels = rng.random((3, 200, 200)) < 0.05
    result = slice_scores(scores, labels, axis=0, threshold=0.5, mode=mode)  # type: ignore[arg-type]
    scored = [
        clip_float16(s).astype(np.float64) if mode == "mood" else s.astype(np.float32)
        for s in scores
    ]
    for i in range(3):
        flagged = scored[i] >= 0.5  # 0.5 is exact in float16 and float32
        tp = int(np.count_nonzero(flagged & labels[i]))
        assert result.gt_voxels[i] == np.count_nonzero(labels[i])
        assert result.flagged_voxels[i] == np.count_nonzero(flagged)
        assert result.dice[i] == pytest.approx(2 * tp / (labels[i].sum() + flagged.sum()))
        expected_ap = average_precision_score(labels[i].ravel(), scored[i].ravel())
        assert result.ap[i] == pytest.approx(expected_ap, rel=1e-12)
        assert result.max_score[i] == pytest.approx(float(scored[i].max()), rel=1e-12)
        assert result.mean_score[i] == pytest.approx(scored[i].astype(np.float64).mean(), rel=1e-9)
