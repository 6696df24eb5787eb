"""Tests for napari_mood.core.readout against independent counts and the core's other paths."""

from __future__ import annotations

import math
from pathlib import Path

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from napari_mood.core.curves import CurveAccumulator, curve_from_arrays
from napari_mood.core.metrics import confusion_at
from napari_mood.core.objects import default_threshold_grid, labelled_match, match_objects
from napari_mood.core.readout import (
    BestThreshold,
    MethodMatch,
    best_case_threshold,
    best_dataset_thresholds,
    match_method_names,
    readout_from_match,
    threshold_readout,
    voxel_readout,
)
from napari_mood.core.results import EvaluationOptions
from napari_mood.core.scores import display_threshold, gt_mask
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.evaluation import evaluate
from tests.conftest import make_mood_folder

FAST = settings(max_examples=60, deadline=None)
F16_BELOW_0_3 = 0.2998046875  # float16(0.2999): must not be flagged at 0.2999


@pytest.fixture
def case() -> tuple[np.ndarray, np.ndarray]:
    """Two GT blobs, one found well, one missed; a false-positive blob; float16 noise."""
    rng = np.random.default_rng(3)
    gt = np.zeros((20, 24, 18), dtype=np.uint8)
    gt[3:8, 4:9, 3:7] = 1
    gt[12:15, 14:18, 10:13] = 1
    scores = (rng.random(gt.shape) * 0.3).astype(np.float16)
    scores[3:8, 4:9, 3:7] = np.float16(0.8)
    scores[12:15, 14:18, 10:13] = np.float16(0.45)
    scores[15:18, 2:5, 12:15] = np.float16(0.7)
    return scores, gt


def _flag_count(scores: np.ndarray, threshold: float) -> int:
    """Independent count: float16 values compared exactly with a float64 threshold."""
    return int(np.count_nonzero(scores.astype(np.float64) >= threshold))


@pytest.mark.parametrize("threshold", [0.0, 0.2, F16_BELOW_0_3, 0.2999, 0.44, 0.5, 0.75, 1.0])
def test_readout_equals_independent_counts(case, threshold: float) -> None:
    scores, gt = case
    readout = threshold_readout(scores, gt, threshold=threshold, voxel_volume=1.5)
    flagged = _flag_count(scores, threshold)
    assert readout.flagged == flagged
    assert readout.n_voxels == scores.size
    assert readout.flagged_percent == pytest.approx(100 * flagged / scores.size)
    assert readout.flagged_mm3 == pytest.approx(1.5 * flagged)
    expected_dice = confusion_at(curve_from_arrays(scores, gt.astype(bool)), threshold).dice
    assert readout.dice == pytest.approx(expected_dice, nan_ok=True)
    match = match_objects(scores, gt, threshold=threshold)
    counts = readout.objects
    assert counts is not None
    assert (counts.tp, counts.fp, counts.fn) == (match.counts.tp, match.counts.fp, match.counts.fn)


def test_readout_hand_derived(case) -> None:
    scores, gt = case
    readout = threshold_readout(scores, gt, threshold=0.5)
    # flagged: blob 1 (100 voxels, all GT) + the FP blob (27 voxels); GT: 100 + 36 voxels
    assert readout.flagged == 127
    assert readout.dice == pytest.approx(2 * 100 / (127 + 136))
    assert readout.objects is not None
    assert (readout.objects.tp, readout.objects.fp, readout.objects.fn) == (1, 1, 1)
    assert readout.flagged_mm3 is None


def test_readout_without_gt_counts_only(case) -> None:
    scores, _ = case
    readout = threshold_readout(scores, threshold=0.5, voxel_volume=8.0)
    assert (readout.flagged, readout.flagged_mm3) == (127, 127 * 8.0)
    assert readout.dice is None and readout.objects is None


def test_readout_on_a_normal_case() -> None:
    gt = np.zeros((10, 10, 10), dtype=np.uint8)
    scores = np.zeros(gt.shape, dtype=np.float16)
    nothing = threshold_readout(scores, gt, threshold=0.5)
    assert nothing.flagged == 0 and math.isnan(nothing.dice)
    scores[1:3, 1:3, 1:3] = 0.9
    scores[6:8, 6:8, 6:8] = 0.9
    some = threshold_readout(scores, gt, threshold=0.5)
    assert some.dice == 0.0
    assert some.objects is not None
    assert (some.objects.tp, some.objects.fp, some.objects.fn) == (0, 2, 0)


def test_readout_checks_its_input(case) -> None:
    scores, gt = case
    with pytest.raises(ValueError, match="threshold"):
        threshold_readout(scores, gt, threshold=math.nan)
    with pytest.raises(ValueError, match="shape"):
        threshold_readout(scores, gt[:-1], threshold=0.5)
    with pytest.raises(ValueError, match="mode"):
        threshold_readout(scores, gt, threshold=0.5, mode="fast")  # type: ignore[arg-type]


@FAST
@given(
    scores=hnp.arrays(np.float16, (6, 5, 4), elements=st.floats(0, 1, width=16)),
    low=st.floats(0, 1),
    high=st.floats(0, 1),
)
def test_raising_the_threshold_never_adds_voxels(scores, low: float, high: float) -> None:
    low, high = sorted((low, high))
    assert threshold_readout(scores, threshold=high).flagged <= (
        threshold_readout(scores, threshold=low).flagged
    )


@FAST
@given(
    scores=hnp.arrays(np.float16, 64, elements=st.floats(0, 1, width=16)),
    threshold=st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0, F16_BELOW_0_3])),
)
def test_display_threshold_draws_exactly_the_flagged_voxels(scores, threshold: float) -> None:
    values = scores.astype(np.float64)
    shown = display_threshold(threshold)
    flagged = values >= threshold
    np.testing.assert_array_equal(values >= shown, flagged)
    if threshold > 0:  # the viewer draws scores strictly above the lower contrast limit
        np.testing.assert_array_equal(values > shown, flagged)
    assert shown <= threshold


def test_display_threshold_edges() -> None:
    assert display_threshold(1.0) == 0.999755859375  # between float16 0.99951171875 and 1.0
    assert display_threshold(0.0) == 0.0
    assert display_threshold(0.44) == 0.44  # not a float16 value: already drawn as flagged
    assert 0.49975586 < display_threshold(0.5) < 0.5
    for outside in (1.5, -0.1):  # thresholds are numbers in [0, 1]
        with pytest.raises(ValueError, match=r"in \[0, 1\]"):
            display_threshold(outside)


def test_gt_mask_reads_labels() -> None:
    assert gt_mask(np.array([0, 1, 2, 0.4, 0.6])).tolist() == [False, True, True, False, True]
    as_bool = np.array([True, False])
    assert gt_mask(as_bool) is as_bool


def test_best_case_dice_is_the_brute_force_best(case) -> None:
    scores, gt = case
    best = best_case_threshold(scores, gt, by="dice")
    values64, truth = scores.astype(np.float64), gt.astype(bool)
    values = np.unique(values64)
    dice = [
        2
        * np.count_nonzero((values64 >= t) & truth)
        / (np.count_nonzero(values64 >= t) + truth.sum())
        for t in values
    ]
    top = max(dice)
    assert best.value == pytest.approx(top)
    assert best.threshold == max(float(t) for t, d in zip(values, dice, strict=True) if d == top)
    assert best.criterion == "dice"


def test_best_case_object_f1_is_the_brute_force_best(case) -> None:
    scores, gt = case
    best = best_case_threshold(scores, gt, by="object_f1")
    f1 = {
        float(t): match_objects(scores, gt, threshold=float(t)).counts.f1
        for t in default_threshold_grid()
    }
    top = max(v for v in f1.values() if not math.isnan(v))
    assert best.value == pytest.approx(top)
    assert best.threshold == max(t for t, v in f1.items() if v == top)  # ties: highest


def test_best_case_threshold_needs_anomalous_voxels(case) -> None:
    scores, gt = case
    with pytest.raises(ValueError, match="toy dataset"):
        best_case_threshold(scores, np.zeros_like(gt), by="dice")
    with pytest.raises(ValueError, match="by"):
        best_case_threshold(scores, gt, by="f2")  # type: ignore[arg-type]


def test_match_method_names_says_what_is_missing() -> None:
    assert match_method_names(["b", "a", "z"], {"a": 1, "b": 2}) == MethodMatch(("b", "a"), ("z",))
    assert match_method_names([], ["a"]) == MethodMatch((), ())


def test_best_dataset_thresholds_read_the_evaluation(tmp_path: Path, case) -> None:
    scores, gt = case
    noisy = np.clip(scores.astype(np.float32) + 0.1, 0, 1)
    dataset, preds = make_mood_folder(
        tmp_path,
        {"c0": gt, "c1": np.zeros_like(gt)},
        {
            "good": {"c0": scores.astype(np.float32), "c1": np.zeros(gt.shape, np.float32)},
            "noisy": {"c0": noisy},
        },
    )
    options = EvaluationOptions(tasks=("pixel", "object"), object_threshold="auto")
    with pytest.warns(UserWarning, match="no pixel map"):  # noisy has no map for c1
        result = evaluate(
            discover_dataset(dataset), methods=discover_methods(preds), options=options, workers=1
        ).result
    by_f1 = best_dataset_thresholds(result, by="object_f1")
    by_dice = best_dataset_thresholds(result, by="dice")
    for name in ("good", "noisy"):
        summary = result.methods[name]
        assert summary.object is not None and summary.pixel is not None
        assert by_f1[name] == BestThreshold(
            summary.object.counts.threshold, summary.object.counts.f1, "object_f1"
        )
        assert by_dice[name] == BestThreshold(
            summary.pixel.best_dice_threshold, summary.pixel.best_dice, "dice"
        )
    # c0: GT blobs at 0.8 (100 voxels) and float16(0.45) = 0.44995 (36), an FP blob at 0.7
    assert (by_f1["good"].threshold, by_f1["good"].value) == (0.44, pytest.approx(0.8))
    with pytest.warns(UserWarning, match="no pixel map"):
        pixel_only = evaluate(
            discover_dataset(dataset),
            methods=discover_methods(preds),
            options=EvaluationOptions(tasks=("pixel",)),
            workers=1,
        ).result
    assert best_dataset_thresholds(pixel_only, by="object_f1") == {}


@pytest.mark.parametrize("threshold", [0.0, 0.2, F16_BELOW_0_3, 0.2999, 0.44, 0.5, 0.75, 1.0])
def test_readout_from_match_equals_threshold_readout(case, threshold: float) -> None:
    scores, gt = case
    found = labelled_match(scores, gt, threshold=threshold)
    assert readout_from_match(found, voxel_volume=1.5) == threshold_readout(
        scores, gt, threshold=threshold, voxel_volume=1.5
    )


def test_readout_from_match_on_a_normal_case() -> None:
    scores = np.zeros((5, 5))
    scores[2, 2] = 0.9
    normal = np.zeros((5, 5), bool)
    for value in (0.5, 0.95):  # something flagged: Dice 0; nothing: NaN
        found = readout_from_match(labelled_match(scores, normal, threshold=value))
        expected = threshold_readout(scores, normal, threshold=value)
        assert found.flagged == expected.flagged and found.objects == expected.objects
        assert found.dice == expected.dice or (math.isnan(found.dice) and math.isnan(expected.dice))


def _histograms(scores: np.ndarray, gt: np.ndarray | None) -> CurveAccumulator:
    acc = CurveAccumulator()
    acc.add(scores, np.zeros(scores.shape, bool) if gt is None else gt_mask(gt))
    return acc


@FAST
@given(
    scores=hnp.arrays(
        st.sampled_from([np.float16, np.float32, np.float64]),
        (5, 6, 4),
        elements=st.floats(-0.5, 1.5, width=16),
    ),
    gt=hnp.arrays(np.uint8, (5, 6, 4), elements=st.integers(0, 1)),
    threshold=st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, F16_BELOW_0_3, 0.2999])),
    with_gt=st.booleans(),
)
def test_voxel_readout_equals_the_full_readout(scores, gt, threshold, with_gt) -> None:
    """Flagged voxels, volume and Dice from the histograms = the labelling readout."""
    truth = gt if with_gt else None
    full = threshold_readout(scores, truth, threshold=threshold, voxel_volume=0.5)
    fast = voxel_readout(
        _histograms(scores, truth), threshold=threshold, voxel_volume=0.5, with_gt=with_gt
    )
    assert (fast.threshold, fast.n_voxels, fast.flagged, fast.flagged_mm3) == (
        full.threshold,
        full.n_voxels,
        full.flagged,
        full.flagged_mm3,
    )
    if with_gt:
        assert fast.dice == full.dice or (math.isnan(fast.dice) and math.isnan(full.dice))
    else:
        assert fast.dice is None
    assert fast.objects is None


def test_voxel_readout_reads_any_threshold_from_one_histogram(case) -> None:
    scores, gt = case
    acc = _histograms(scores, gt)
    for threshold in (0.0, F16_BELOW_0_3, 0.2999, 0.45, 0.4499, 1.0):
        readout = voxel_readout(acc, threshold=threshold)
        assert readout.flagged == _flag_count(scores, threshold)
        tp = int(np.count_nonzero((scores.astype(np.float64) >= threshold) & (gt > 0)))
        assert readout.dice == pytest.approx(2 * tp / (readout.flagged + int(gt.sum())))
    with pytest.raises(ValueError):
        voxel_readout(acc, threshold=1.5)
