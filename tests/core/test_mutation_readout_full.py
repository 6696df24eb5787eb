"""Readouts and best thresholds by hand (survivors of the full mutation run of core.readout)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.objects import ObjectCounts, labelled_match
from napari_mood.core.readout import (
    BestThreshold,
    best_case_threshold,
    best_dataset_thresholds,
    readout_from_match,
    threshold_readout,
    voxel_readout,
)
from napari_mood.core.results import (
    DatasetEvaluation,
    EvaluationOptions,
    MethodSummary,
    ObjectSummary,
    PixelSummary,
)


def _near_float16_tie() -> tuple[np.ndarray, np.ndarray]:
    # float16 spacing near 0.6 is 2**-11: 0.6 and 0.6001 both read as 0.60009765625 ("mood"),
    # while float32 ("exact") keeps 0.6001 > 0.6
    assert np.float16(0.6) == np.float16(0.6001) and np.float32(0.6001) > np.float32(0.6)
    gt = np.zeros((4, 4), bool)
    gt[0, 0] = True
    scores = np.full((4, 4), 0.1)
    scores[0, 0], scores[3, 3] = 0.6001, 0.6
    return scores, gt


def test_best_case_threshold_defaults_to_dice() -> None:
    scores, gt = _near_float16_tie()
    assert best_case_threshold(scores, gt).criterion == "dice"


def test_best_case_dice_reads_scores_in_the_given_mode() -> None:
    scores, gt = _near_float16_tie()
    # "mood": the best cut flags the GT voxel and its float16 twin: Dice 2 * 1 / (2 + 1)
    mood = best_case_threshold(scores, gt, by="dice", mode="mood")
    assert mood.value == pytest.approx(2 / 3)
    # "exact": a cut at 0.6001 flags the GT voxel alone: Dice 1
    exact = best_case_threshold(scores, gt, by="dice", mode="exact")
    assert exact.value == 1.0
    assert exact.threshold == pytest.approx(0.6001, abs=1e-6)


def test_best_case_object_f1_reads_scores_in_the_given_mode() -> None:
    # float16(0.5999) = float16(0.6) = 0.60009765625: "mood" still finds the object at 0.60,
    # "exact" last finds it at 0.59 (ties go to the highest threshold)
    assert np.float16(0.5999) == np.float16(0.6)
    gt = np.zeros((4, 4), bool)
    gt[1, 1] = True
    scores = np.where(gt, 0.5999, 0.0)
    mood = best_case_threshold(scores, gt, by="object_f1", mode="mood")
    exact = best_case_threshold(scores, gt, by="object_f1", mode="exact")
    assert (mood.threshold, mood.value, mood.criterion) == (0.6, 1.0, "object_f1")
    assert (exact.threshold, exact.value, exact.criterion) == (0.59, 1.0, "object_f1")


def test_best_case_object_f1_follows_the_connectivity() -> None:
    # GT: one voxel (1, 1) at 0.375; a normal voxel (2, 2), touching it at a corner, at 0.875.
    # Cuts <= 0.37 flag both. "face": two objects, TP + FP -> F1 = 2 / (2 + 1) = 2/3.
    # "full": one object of 2 voxels against a GT of 1: not |P| < 2|G| -> FP + FN, F1 0;
    # cuts 0.38 .. 0.87 flag the FP alone, higher ones nothing: F1 0 everywhere.
    gt = np.zeros((4, 4), bool)
    gt[1, 1] = True
    scores = np.zeros((4, 4))
    scores[1, 1], scores[2, 2] = 0.375, 0.875
    face = best_case_threshold(scores, gt, by="object_f1", connectivity="face")
    full = best_case_threshold(scores, gt, by="object_f1", connectivity="full")
    assert (face.threshold, face.value) == (0.37, pytest.approx(2 / 3))
    assert full.value == 0.0


def test_best_case_threshold_messages() -> None:
    scores, gt = _near_float16_tie()
    with pytest.raises(ValueError, match=r"^by must be one of 'dice', 'object_f1'; got 'f2'$"):
        best_case_threshold(scores, gt, by="f2")  # type: ignore[arg-type]
    message = (
        r"^the ground truth has no anomalous voxel, so no threshold is best on this case; "
        r"choose the threshold on a toy dataset instead$"
    )
    with pytest.raises(ValueError, match=message):
        best_case_threshold(scores, np.zeros_like(gt))


def _evaluation() -> DatasetEvaluation:
    pixel = PixelSummary(0.9, 0.95, 0.8, 0.7, 0.4, 2, (), ())
    counts = ObjectCounts.from_tally(0.3, (3, 1, 1, 0, 0), (0.0, float("inf")))
    methods = {"m": MethodSummary("m", pixel, None, ObjectSummary(counts, auto=True))}
    return DatasetEvaluation("toy", ("a",), methods, (), (), EvaluationOptions(), {})


def test_best_dataset_thresholds_default_to_object_f1() -> None:
    # F1 = 2 TP / (2 TP + FP + FN) = 6 / 8 at 0.3
    assert best_dataset_thresholds(_evaluation()) == {
        "m": BestThreshold(0.3, pytest.approx(0.75), "object_f1")  # type: ignore[arg-type]
    }
    assert best_dataset_thresholds(_evaluation(), by="dice") == {
        "m": BestThreshold(0.4, 0.7, "dice")
    }


def test_best_dataset_thresholds_names_the_by_option() -> None:
    with pytest.raises(ValueError, match=r"^by must be one of 'dice', 'object_f1'; got 'ap'$"):
        best_dataset_thresholds(_evaluation(), by="ap")  # type: ignore[arg-type]


def test_readout_from_match_reports_the_given_threshold() -> None:
    # matched at 0.5; 0.6 flags the same voxels (0.9 and 0.1 only): the readout and its
    # object counts both say 0.6
    gt = np.zeros((6, 6), bool)
    gt[1:3, 1:3] = True
    found = readout_from_match(
        labelled_match(np.where(gt, 0.9, 0.1), gt, threshold=0.5), threshold=0.6
    )
    assert found.threshold == 0.6
    assert found.objects is not None and found.objects.threshold == 0.6
    assert (found.flagged, found.dice) == (4, 1.0)
    with pytest.raises(ValueError, match="threshold"):
        readout_from_match(labelled_match(np.where(gt, 0.9, 0.1), gt, threshold=0.5), threshold=2.0)


def test_threshold_readout_reads_scores_in_the_given_mode() -> None:
    # the GT voxel scores 0.5999: float16 0.60009765625 >= 0.6 ("mood"), float32 < 0.6 ("exact")
    gt = np.zeros((4, 4), bool)
    gt[1, 1] = True
    scores = np.where(gt, 0.5999, 0.0)
    mood = threshold_readout(scores, gt, threshold=0.6, mode="mood")
    exact = threshold_readout(scores, gt, threshold=0.6, mode="exact")
    assert mood.objects is not None and exact.objects is not None
    assert (mood.flagged, mood.dice, mood.objects.tp, mood.objects.fn) == (1, 1.0, 1, 0)
    assert (exact.flagged, exact.dice, exact.objects.tp, exact.objects.fn) == (0, 0.0, 0, 1)


def test_voxel_readout_of_a_normal_case_with_nothing_flagged_has_a_nan_dice() -> None:
    # the module's policy: an empty GT and nothing flagged give Dice NaN (0 / 0), not an error
    acc = CurveAccumulator()
    acc.add(np.array([0.1, 0.2, 0.3]), np.zeros(3))
    readout = voxel_readout(acc, threshold=0.5)
    assert readout.flagged == 0
    assert math.isnan(readout.dice)
