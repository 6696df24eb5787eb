"""Tests for napari_mood.core.compare: difference masks, comparison tables, rank intervals."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.metrics import average_precision_score, roc_auc_score

from napari_mood.core.compare import (
    A_ONLY,
    B_ONLY,
    BOTH,
    case_comparison,
    dataset_comparison,
    difference,
    rank_intervals,
)
from napari_mood.core.curves import CurveAccumulator, curve_from_arrays
from napari_mood.core.metrics import UndefinedMetricWarning, best_threshold, fpr_at_tpr
from napari_mood.core.objects import match_objects
from napari_mood.core.ranking import bootstrap_ap, rank_methods
from napari_mood.core.results import EvaluationOptions
from napari_mood.core.scores import flag
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.evaluation import evaluate
from tests.conftest import make_mood_folder
from tests.reference_scorer import clip_float16

FAST = settings(max_examples=40, deadline=None)


def _flags_numpy(scores: np.ndarray, threshold: float) -> np.ndarray:
    return flag(clip_float16(scores), threshold)


# --------------------------------------------------------------------------- difference


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_difference_counts_equal_numpy(dtype):
    rng = np.random.default_rng(1)
    a = rng.random((9, 8, 7)).astype(dtype)
    b = rng.random((9, 8, 7)).astype(dtype)
    result = difference(a, b, threshold_a=0.4, threshold_b=0.7)
    fa, fb = _flags_numpy(a, 0.4), _flags_numpy(b, 0.7)
    assert result.a_only == np.count_nonzero(fa & ~fb)
    assert result.b_only == np.count_nonzero(~fa & fb)
    assert result.both == np.count_nonzero(fa & fb)
    assert result.labels.dtype == np.uint8
    np.testing.assert_array_equal(result.labels == A_ONLY, fa & ~fb)
    np.testing.assert_array_equal(result.labels == B_ONLY, ~fa & fb)
    np.testing.assert_array_equal(result.labels == BOTH, fa & fb)
    np.testing.assert_array_equal(result.labels == 0, ~fa & ~fb)


def test_difference_uses_float16_values_and_greater_or_equal():
    # float16(0.1) = 0.09998: not flagged at 0.1; exactly 0.5 is flagged at 0.5
    a = np.array([0.1, 0.5, 0.49, 2.0, -1.0], dtype=np.float32)
    result = difference(a, np.zeros_like(a), threshold_a=0.1, threshold_b=0.5)
    assert result.labels.tolist() == [0, A_ONLY, A_ONLY, A_ONLY, 0]
    result = difference(a, a, threshold_a=0.5, threshold_b=0.5)
    assert result.labels.tolist() == [0, BOTH, 0, BOTH, 0]
    assert (result.a_only, result.b_only, result.both) == (0, 0, 2)


def test_difference_leaves_inputs_alone():
    a = np.array([[-0.5, 0.7], [1.5, 0.2]], dtype=np.float32)
    before = a.copy()
    difference(a, a, threshold_a=0.1, threshold_b=0.9)
    np.testing.assert_array_equal(a, before)


def test_difference_rejects_bad_input():
    with pytest.raises(ValueError, match="differ in shape"):
        difference(np.zeros((2, 3)), np.zeros((3, 2)), threshold_a=0.5, threshold_b=0.5)
    with pytest.raises(ValueError, match="NaN"):
        difference(np.array([np.nan]), np.zeros(1), threshold_a=0.5, threshold_b=0.5)
    with pytest.raises(ValueError, match="NaN"):
        difference(np.zeros(1), np.zeros(1), threshold_a=math.nan, threshold_b=0.5)


@FAST
@given(
    scores=hnp.arrays(np.float32, (4, 5), elements=st.floats(0, 1, width=32)),
    low=st.floats(0, 1),
    high=st.floats(0, 1),
)
def test_raising_a_threshold_never_flags_more(scores, low, high):
    low, high = sorted((low, high))
    other = scores[::-1]
    at_low = difference(scores, other, threshold_a=low, threshold_b=0.5)
    at_high = difference(scores, other, threshold_a=high, threshold_b=0.5)
    assert at_high.a_only + at_high.both <= at_low.a_only + at_low.both
    assert at_high.b_only + at_high.both == at_low.b_only + at_low.both
    assert at_low.a_only + at_low.b_only + at_low.both <= scores.size


# --------------------------------------------------------------------------- case table


def _case() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.default_rng(3)
    gt = np.zeros((10, 12, 8), dtype=bool)
    gt[2:5, 3:6, 2:4] = True
    gt[7:9, 8:10, 5:7] = True
    good = np.where(gt, 0.8, 0.1) + rng.normal(0, 0.05, gt.shape)
    noisy = rng.random(gt.shape) * 0.7 + gt * 0.3
    return gt, {"good": good.astype(np.float32), "noisy": noisy.astype(np.float32)}


def test_case_comparison_equals_the_metrics():
    gt, maps = _case()
    thresholds = {"good": 0.5, "noisy": 0.6}
    table = case_comparison(maps, gt, thresholds=thresholds, name="c")
    assert (table.scope, table.name, table.n_cases) == ("case", "c", 1)
    assert [r.method for r in table.rows] == ["good", "noisy"]
    for method, scores in maps.items():
        row = table.row(method)
        curve = curve_from_arrays(scores, gt)
        # scikit-learn on the float16 values the MOOD scorer reads
        quantised = clip_float16(scores).ravel()
        assert row.pixel_ap == pytest.approx(average_precision_score(gt.ravel(), quantised))
        assert row.auroc == pytest.approx(roc_auc_score(gt.ravel(), quantised))
        assert row.fpr95 == pytest.approx(fpr_at_tpr(curve, tpr=0.95))
        assert (row.best_dice_threshold, row.best_dice) == best_threshold(curve)
        match = match_objects(scores, gt, threshold=thresholds[method])
        assert (row.object_tp, row.object_fp, row.object_fn) == (
            match.counts.tp,
            match.counts.fp,
            match.counts.fn,
        )
        assert row.object_f1 == match.counts.f1
        assert row.object_threshold == thresholds[method]
        assert row.sample_ap is None and row.rank_low is None and row.ap_low is None
    expected = rank_methods({m: table.row(m).pixel_ap for m in maps})
    assert {r.method: r.rank for r in table.rows} == expected
    assert table.row("good").rank == 1


def test_healthy_case_has_no_pixel_metrics_and_no_rank():
    gt = np.zeros((6, 6, 6), dtype=bool)
    scores = np.zeros(gt.shape, np.float32)
    scores[1:3, 1:3, 1:3] = 0.9
    table = case_comparison({"m": scores}, gt, thresholds={"m": 0.5})  # no warning either
    row = table.row("m")
    assert all(math.isnan(v) for v in (row.pixel_ap, row.auroc, row.fpr95, row.best_dice))
    assert row.rank is None
    assert (row.object_tp, row.object_fp, row.object_fn) == (0, 1, 0)


def test_table_row_names_the_methods():
    gt, maps = _case()
    table = case_comparison(maps, gt, thresholds={"good": 0.5, "noisy": 0.5})
    with pytest.raises(KeyError, match="good"):
        table.row("missing")


# --------------------------------------------------------------------------- ranks


def _accumulators(seed: int, n_cases: int, quality: float) -> list[CurveAccumulator]:
    """The same labels whatever ``seed``; noise from ``seed``; case 0 is healthy."""
    labels_rng, noise_rng = np.random.default_rng(0), np.random.default_rng(seed)
    out = []
    for index in range(n_cases):
        labels = labels_rng.random((6, 6, 5)) < 0.1
        if index == 0:
            labels[:] = False  # some resamples have no positive voxel
        scores = quality * labels + noise_rng.random(labels.shape)
        acc = CurveAccumulator()
        acc.add(scores, labels)
        out.append(acc)
    return out


def test_rank_intervals_equal_a_loop_over_resamples():
    accs = {
        "a": _accumulators(1, 4, 0.9),
        "b": _accumulators(2, 4, 0.5),
        "c": _accumulators(3, 4, 0.0),
    }
    result = rank_intervals(accs, n_boot=200, seed=7)
    with pytest.warns(UndefinedMetricWarning, match="no positive voxel"):
        boots = {m: bootstrap_ap(a, n_boot=200, seed=7) for m, a in accs.items()}
    per_resample = [rank_methods({m: float(boots[m].samples[k]) for m in accs}) for k in range(200)]
    for method in accs:
        ranks = np.array([r[method] for r in per_resample])
        got = result[method]
        assert got.ap == boots[method].estimate
        assert (got.ap_low, got.ap_high) == (boots[method].low, boots[method].high)
        assert got.low == int(np.quantile(ranks, 0.025, method="lower"))
        assert got.high == int(np.quantile(ranks, 0.975, method="higher"))
        assert got.low <= got.rank <= got.high
    assert [result[m].rank for m in "abc"] == [1, 2, 3]


def test_rank_intervals_need_the_same_cases():
    with pytest.raises(ValueError, match="same"):
        rank_intervals({"a": _accumulators(0, 3, 0.5), "b": _accumulators(0, 2, 0.5)})
    with pytest.raises(ValueError, match="same"):
        rank_intervals({"a": []})


# --------------------------------------------------------------------------- dataset


@pytest.fixture
def evaluation(tmp_path: Path):
    rng = np.random.default_rng(5)
    labels, good, bad = {}, {}, {}
    for index in range(3):
        mask = np.zeros((8, 9, 7), dtype=bool)
        if index:
            mask[2:5, 3:6, 2:5] = True
        labels[f"case_{index}"] = mask
        good[f"case_{index}"] = (mask * 0.7 + rng.random(mask.shape) * 0.3).astype(np.float32)
        bad[f"case_{index}"] = rng.random(mask.shape).astype(np.float32)
    dataset, preds = make_mood_folder(
        tmp_path,
        labels,
        {"good": good, "bad": bad},
        sample_labels={"case_0": "0", "case_1": "1", "case_2": "1"},
        sample_scores={
            "good": {"case_0": "0.1", "case_1": "0.9", "case_2": "0.8"},
            "bad": {"case_0": "0.9", "case_1": "0.1", "case_2": "0.5"},
        },
    )
    options = EvaluationOptions(
        tasks=("pixel", "sample", "object"), object_threshold={"good": 0.6, "bad": 0.9}
    )
    return evaluate(
        discover_dataset(dataset), methods=discover_methods(preds), options=options, workers=1
    ).result


def test_dataset_comparison_equals_the_evaluation(evaluation):
    table = dataset_comparison(evaluation, n_boot=100, seed=3)
    assert (table.scope, table.name, table.n_cases) == ("dataset", evaluation.dataset, 3)
    for name, summary in evaluation.methods.items():
        row = table.row(name)
        p, c = summary.pixel, summary.object.counts
        assert (row.pixel_ap, row.auroc, row.fpr95) == (p.ap, p.auroc, p.fpr95)
        assert (row.best_dice, row.best_dice_threshold) == (p.best_dice, p.best_dice_threshold)
        assert (row.object_tp, row.object_fp, row.object_fn, row.object_f1) == (
            c.tp,
            c.fp,
            c.fn,
            c.f1,
        )
        assert row.object_threshold == c.threshold
        assert row.sample_ap == summary.sample.ap
        with pytest.warns(UndefinedMetricWarning, match="no positive voxel"):
            boot = bootstrap_ap(
                tuple(evaluation.case_accumulators[name].values()), n_boot=100, seed=3
            )
        assert (row.ap_low, row.ap_high) == (boot.low, boot.high)
    assert table.row("good").object_threshold == 0.6
    assert (table.row("good").rank, table.row("bad").rank) == (1, 2)
