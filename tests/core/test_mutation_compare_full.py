"""Comparison tables by hand (survivors of the full mutation run of core.compare).

Expectations are hand-worked (in the comments) or scikit-learn's, never the module's own.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from napari_mood.core.compare import (
    case_comparison,
    dataset_comparison,
    difference,
    rank_intervals,
)
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.objects import ObjectCounts
from napari_mood.core.ranking import bootstrap_ap
from napari_mood.core.results import (
    DatasetEvaluation,
    EvaluationOptions,
    MethodSummary,
    PixelSummary,
)

# --------------------------------------------------------------------------- case table


def test_case_table_ranks_by_ap_not_by_auroc() -> None:
    # 2 positives (P) among 10 voxels, scores high to low:
    # "spread": P, 8 negatives, P -> AP (1/1 + 2/10) / 2 = 0.6, AUROC (8 + 0) / 16 = 0.5
    # "middle": 3 negatives, P, P, 5 negatives -> AP (1/4 + 2/5) / 2 = 0.325, AUROC 10/16 = 0.625
    gt = np.zeros((2, 5), bool)
    gt[0, 0] = gt[1, 4] = True
    spread = np.array([[0.9, 0.8, 0.7, 0.6, 0.5], [0.4, 0.3, 0.2, 0.15, 0.05]], np.float32)
    middle = np.array([[0.45, 0.9, 0.8, 0.7, 0.3], [0.2, 0.15, 0.1, 0.05, 0.4]], np.float32)
    table = case_comparison(
        {"middle": middle, "spread": spread}, gt, thresholds={"middle": 0.5, "spread": 0.5}
    )
    for method, ap, roc in (("spread", 0.6, 0.5), ("middle", 0.325, 0.625)):
        row = table.row(method)
        assert row.pixel_ap == pytest.approx(ap)
        assert row.pixel_ap == pytest.approx(
            average_precision_score(gt.ravel(), locals()[method].ravel())
        )
        assert row.auroc == pytest.approx(roc)
        assert row.auroc == pytest.approx(roc_auc_score(gt.ravel(), locals()[method].ravel()))
    assert (table.row("spread").rank, table.row("middle").rank) == (1, 2)


def test_case_table_has_no_name_unless_given() -> None:
    gt = np.zeros((3, 3), bool)
    gt[1, 1] = True
    assert case_comparison({"m": gt * 0.9}, gt, thresholds={"m": 0.5}).name == ""


def test_constant_map_has_one_operating_point() -> None:
    # 2 GT voxels of 8, every score 0.5: one operating point (TPR 1, FPR 1, precision 2/8)
    # AP = 0.25, AUROC = 0.5, FPR@95 = 1.0, Dice at 0.5 = 2 * 2 / (2 + 8) = 0.4
    gt = np.zeros((2, 4), bool)
    gt[0, :2] = True
    row = case_comparison({"m": np.full((2, 4), 0.5)}, gt, thresholds={"m": 0.5}).row("m")
    assert (row.pixel_ap, row.auroc, row.fpr95) == pytest.approx((0.25, 0.5, 1.0))
    assert (row.best_dice, row.best_dice_threshold) == pytest.approx((0.4, 0.5))


def test_all_gt_case_has_no_auroc_and_no_warning() -> None:
    # no negative voxel: ROC undefined (NaN, silently, as the policy says); AP = 1
    gt = np.ones((3, 3), bool)
    row = case_comparison({"m": np.full((3, 3), 0.7)}, gt, thresholds={"m": 0.5}).row("m")
    assert math.isnan(row.auroc) and row.pixel_ap == 1.0


def test_case_table_uses_the_given_curves_and_counts() -> None:
    gt = np.zeros((4, 4), bool)
    gt[1:3, 1:3] = True
    scores = np.full((4, 4), 0.2)  # a constant map: AP 4/16 = 0.25 from the scores
    perfect = CurveAccumulator()
    perfect.add(np.where(gt, 0.9, 0.1), gt)  # the given curve: AP 1
    counts = ObjectCounts.from_tally(0.5, (7, 1, 2, 0, 0), (0.0, math.inf))
    row = case_comparison(
        {"m": scores}, gt, thresholds={"m": 0.5}, curves={"m": perfect}, counts={"m": counts}
    ).row("m")
    assert row.pixel_ap == 1.0
    # F1 = 2 TP / (2 TP + FP + FN) = 14 / 17
    assert (row.object_tp, row.object_fp, row.object_fn) == (7, 1, 2)
    assert row.object_f1 == pytest.approx(14 / 17)


def test_case_table_passes_the_connectivity_on() -> None:
    # two voxels touching at a corner, no GT: one FP object (full) or two (face)
    gt = np.zeros((4, 4, 4), bool)
    scores = np.zeros((4, 4, 4), np.float32)
    scores[0, 0, 0] = scores[1, 1, 1] = 0.9
    for connectivity, fp in (("full", 1), ("face", 2)):
        row = case_comparison(
            {"m": scores}, gt, thresholds={"m": 0.5}, connectivity=connectivity
        ).row("m")
        assert row.object_fp == fp


def test_case_table_passes_the_score_mode_on() -> None:
    # 0.5002 is 0.5 in float16 (spacing 2**-11 near 0.5), below the threshold 0.5001:
    # "mood": the positive ties the negative at 0.5 -> AP 1/2, and its object is missed;
    # "exact": 0.5002 > 0.5 -> AP 1, and 0.5002 >= 0.5001 -> its object is found
    gt = np.zeros((2, 5), bool)
    gt[0, 0] = True
    scores = np.full((2, 5), 0.1)
    scores[0, 0], scores[1, 4] = 0.5002, 0.5
    for mode, ap, tp in (("mood", 0.5, 0), ("exact", 1.0, 1)):
        row = case_comparison({"m": scores}, gt, thresholds={"m": 0.5001}, mode=mode).row("m")
        assert (row.pixel_ap, row.object_tp) == (pytest.approx(ap), tp)


# --------------------------------------------------------------------------- dataset table


def _acc(scores: list[float], labels: list[int]) -> CurveAccumulator:
    acc = CurveAccumulator()
    acc.add(np.array(scores), np.array(labels, bool))
    return acc


def _pixel(ap: float) -> PixelSummary:
    return PixelSummary(ap, 0.5, 0.25, 0.75, 0.6, 2, (), ())


def _evaluation(
    methods: dict[str, MethodSummary], accumulators: dict[str, dict[str, CurveAccumulator]]
) -> DatasetEvaluation:
    return DatasetEvaluation("toy", ("a", "b"), methods, (), (), EvaluationOptions(), accumulators)


def test_dataset_row_without_tasks_is_empty() -> None:
    table = dataset_comparison(_evaluation({"m": MethodSummary("m", None, None, None)}, {}))
    row = table.row("m")
    assert all(
        isinstance(v, float) and math.isnan(v)
        for v in (row.pixel_ap, row.auroc, row.fpr95, row.best_dice, row.best_dice_threshold)
    )
    assert (row.object_threshold, row.object_tp, row.object_fp, row.object_fn) == (None,) * 4
    assert (row.object_f1, row.sample_ap, row.rank) == (None, None, None)
    assert (row.rank_low, row.rank_high, row.ap_low, row.ap_high) == (None,) * 4


def test_dataset_rank_intervals_are_in_the_rows() -> None:
    # every case has a positive: "good" ranks it first (AP 1 in every resample), "bad"
    # last (AP < 1): ranks and both ends of their intervals are 1 and 2
    cases = {"a": ([0.9, 0.1, 0.2], [1, 0, 0]), "b": ([0.8, 0.3, 0.1], [1, 0, 0])}
    good = {c: _acc(s, y) for c, (s, y) in cases.items()}
    bad = {c: _acc([1 - v for v in s], y) for c, (s, y) in cases.items()}
    methods = {
        m: MethodSummary(m, _pixel(ap), None, None) for m, ap in (("good", 1.0), ("bad", 0.3))
    }
    table = dataset_comparison(_evaluation(methods, {"good": good, "bad": bad}), n_boot=50)
    assert table.row("good").pixel_ap == 1.0 and table.row("bad").pixel_ap == 0.3
    assert [(r.rank, r.rank_low, r.rank_high) for r in table.rows] == [(1, 1, 1), (2, 2, 2)]
    assert (table.row("good").ap_low, table.row("good").ap_high) == (1.0, 1.0)


def test_dataset_intervals_use_the_given_coverage() -> None:
    # the AP interval of an 80% coverage is the 10th-90th percentile of the same resamples
    rng = np.random.default_rng(4)
    accs = {f"c{i}": _acc(list(rng.random(12)), [1, 1, 1] + [0] * 9) for i in range(6)}
    evaluation = _evaluation({"m": MethodSummary("m", _pixel(0.5), None, None)}, {"m": accs})
    row = dataset_comparison(evaluation, n_boot=200, seed=9, ci=0.8).row("m")
    samples = bootstrap_ap(tuple(accs.values()), n_boot=200, seed=9).samples
    low, high = np.percentile(samples, [10, 90])
    assert (row.ap_low, row.ap_high) == pytest.approx((low, high))
    assert (row.ap_low, row.ap_high) != pytest.approx(tuple(np.percentile(samples, [2.5, 97.5])))


def test_no_rank_unless_every_method_has_cases() -> None:
    # "b" has no per-case accumulators: ranking "a" alone would call it first of one
    methods = {m: MethodSummary(m, _pixel(0.5), None, None) for m in ("a", "b")}
    evaluation = _evaluation(methods, {"a": {"a": _acc([0.9, 0.1], [1, 0])}})
    table = dataset_comparison(evaluation, n_boot=20)
    assert [(r.rank, r.rank_low, r.ap_low) for r in table.rows] == [(None, None, None)] * 2


def test_a_method_without_positives_gets_no_rank() -> None:
    # no GT voxel in any case: pixel AP undefined (NaN) -> no rank and no intervals (before:
    # rank 1 from the bootstrap's 0.0 AP, next to a NaN AP)
    healthy = {"a": _acc([0.9, 0.1], [0, 0]), "b": _acc([0.2, 0.3], [0, 0])}
    evaluation = _evaluation(
        {"m": MethodSummary("m", _pixel(math.nan), None, None)}, {"m": healthy}
    )
    row = dataset_comparison(evaluation, n_boot=20).row("m")
    assert (row.rank, row.rank_low, row.rank_high, row.ap_low, row.ap_high) == (None,) * 5


def _noisy_cases(seed: int, quality: float) -> list[CurveAccumulator]:
    """Six cases of 40 voxels, the same labels whatever ``seed`` (about a quarter positive)."""
    labels_rng, noise_rng = np.random.default_rng(0), np.random.default_rng(seed)
    out = []
    for _ in range(6):
        labels = labels_rng.random(40) < 0.25
        out.append(_acc(list(quality * labels + noise_rng.random(40)), list(labels)))
    return out


def test_rank_intervals_use_the_given_coverage() -> None:
    # "a" ranks second in about 27% of the resamples: its 80% rank interval is [1, 2]
    # (10th and 90th percentiles, counted here in a loop over the same resamples)
    accs = {"a": _noisy_cases(1, 0.6), "b": _noisy_cases(2, 0.5)}
    got = rank_intervals(accs, n_boot=200, seed=9, ci=0.8)
    boots = {m: bootstrap_ap(a, n_boot=200, seed=9).samples for m, a in accs.items()}
    ranks = np.array([1 + int(boots["b"][k] > boots["a"][k]) for k in range(200)])
    assert 0.1 < np.mean(ranks == 2) < 0.4
    low, high = np.quantile(ranks, 0.1, method="lower"), np.quantile(ranks, 0.9, method="higher")
    assert (got["a"].low, got["a"].high) == (low, high) == (1, 2)


def _loop_ranks_of_a(accs: dict[str, list[CurveAccumulator]]) -> np.ndarray:
    boots = {m: bootstrap_ap(a, n_boot=200, seed=9).samples for m, a in accs.items()}
    return np.array([1 + int(boots["b"][k] > boots["a"][k]) for k in range(200)])


def test_rank_intervals_cut_half_the_rest_on_each_side() -> None:
    # "a" ranks second in 55 of 200 resamples (sorted: 145 ones, then 55 twos).
    # ci 0.4: tails of 30 % each side; the 70th percentile (position 139.3) is a 1: [1, 1]
    # (tails of a third of the rest, 20 %, would reach the twos at position 159.2)
    accs = {"a": _noisy_cases(1, 0.6), "b": _noisy_cases(2, 0.5)}
    ranks = _loop_ranks_of_a(accs)
    assert np.count_nonzero(ranks == 2) == 55
    got = rank_intervals(accs, n_boot=200, seed=9, ci=0.4)
    assert (got["a"].low, got["a"].high) == (1, 1)


def test_rank_interval_high_end_rounds_up() -> None:
    # ci 0.4523: upper percentile 0.72615, position 0.72615 * 199 = 144.5 falls between the
    # last 1 (index 144) and the first 2 (index 145): "higher" takes 2 (interpolating
    # and truncating would give 1); the lower end, position 54.5, is a 1
    accs = {"a": _noisy_cases(1, 0.6), "b": _noisy_cases(2, 0.5)}
    ranks = _loop_ranks_of_a(accs)
    assert np.quantile(ranks, 1 - (1 - 0.4523) / 2, method="higher") == 2
    got = rank_intervals(accs, n_boot=200, seed=9, ci=0.4523)
    assert (got["a"].low, got["a"].high) == (1, 2)


def test_difference_keeps_both_thresholds() -> None:
    d = difference(np.array([0.9, 0.4]), np.array([0.9, 0.5]), threshold_a=0.3, threshold_b=0.7)
    assert (d.threshold_a, d.threshold_b) == (0.3, 0.7)
    assert d.labels.tolist() == [3, 1] and (d.a_only, d.b_only, d.both) == (1, 0, 1)


def test_rank_interval_low_end_is_a_rank_a_resample_gave() -> None:
    # Two identical copies of the better method share a rank (ties take the min rank), so
    # the worse method "x" ranks 1 or 3, never 2. Counted in a loop over the same
    # resamples: sorted, its ranks are k ones, then threes. ci 0.452 puts the lower
    # percentile (0.274 * 199 = 54.5) between the last 1 (index 54) and the first 3:
    # "lower" takes 1; interpolating would report 2, a rank no resample gave.
    better, worse = _noisy_cases(1, 0.6), _noisy_cases(2, 0.5)
    accs = {"x": worse, "y1": better, "y2": better}
    boots = {m: bootstrap_ap(a, n_boot=200, seed=9).samples for m, a in accs.items()}
    ranks = np.array([1 if boots["x"][k] >= boots["y1"][k] else 3 for k in range(200)])
    assert np.count_nonzero(ranks == 1) == 55
    assert int(np.quantile(ranks, (1 - 0.452) / 2)) == 2  # what interpolation would say
    got = rank_intervals(accs, n_boot=200, seed=9, ci=0.452)
    assert (got["x"].low, got["x"].high) == (1, 3)
    assert got["y1"].rank == got["y2"].rank == 1
