"""Tests for napari_mood.core.ranking: ranks, consensus, bootstrap, Kendall, MOOD batches."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score

from napari_mood.core.batches import BatchWarning, batch_average_precision, mood_splits
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.metrics import UndefinedMetricWarning
from napari_mood.core.ranking import bootstrap_ap, consensus_rank, kendall_tau_b, rank_methods

FAST = settings(max_examples=60, deadline=None)


def _cases(n: int, *, seed: int = 0, empty_every: int = 3) -> list[tuple[np.ndarray, ...]]:
    """Random cases; every ``empty_every``-th case (from 0) has no positive voxel."""
    rng = np.random.default_rng(seed)
    cases: list[tuple[np.ndarray, ...]] = []
    for index in range(n):
        scores = rng.random((5, 6, 4))
        labels = rng.random((5, 6, 4)) < scores * 0.4
        if empty_every and index % empty_every == 0:
            labels[:] = False
        cases.append((scores, labels))
    return cases


def _accumulators(cases: list[tuple[np.ndarray, ...]], mode: str = "mood") -> list:
    out = []
    for scores, labels in cases:
        acc = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
        acc.add(scores, labels)
        out.append(acc)
    return out


def _sklearn_pooled_ap(cases: list[tuple[np.ndarray, ...]], indices: list[int]) -> float:
    """What MOOD eval_list does: concatenate float16-clipped voxels, call sklearn."""
    values = np.concatenate([cases[i][0].astype(np.float16).ravel() for i in indices])
    labels = np.concatenate([cases[i][1].ravel() for i in indices])
    return float(average_precision_score(labels, np.clip(values.astype(np.float64), 0, 1)))


# ----------------------------------------------------------------------------- ranks


def test_rank_methods_min_ranks_and_nan_last() -> None:
    values = {"a": 0.9, "b": 0.7, "c": 0.7, "d": 0.1, "e": math.nan}
    assert rank_methods(values) == {"a": 1, "b": 2, "c": 2, "d": 4, "e": 5}
    assert rank_methods(values, higher_is_better=False) == {
        "a": 4,
        "b": 2,
        "c": 2,
        "d": 1,
        "e": 5,
    }
    assert rank_methods({"x": math.nan, "y": math.nan}) == {"x": 1, "y": 1}
    assert rank_methods({}) == {}


@FAST
@given(
    st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.9, math.nan, -math.inf]), min_size=1, max_size=9),
    st.booleans(),
)
def test_rank_methods_matches_scipy_rankdata(values: list[float], higher: bool) -> None:
    named = {f"m{i}": v for i, v in enumerate(values)}
    keys = -np.array(values) if higher else np.array(values)
    keys = np.where(np.isnan(keys), np.inf, keys)  # scipy: NaN -> worst; inf ties handled below
    expected = scipy.stats.rankdata(keys, method="min")
    ranks = rank_methods(named, higher_is_better=higher)
    n_valid = int(np.sum(~np.isnan(values)))
    for i, value in enumerate(values):
        if math.isnan(value):
            assert ranks[f"m{i}"] == n_valid + 1
        elif np.isfinite(keys[i]):
            assert ranks[f"m{i}"] == expected[i]


def test_consensus_rank_sum_then_first_places_then_name() -> None:
    rankings = [
        {"a": 1, "b": 2, "c": 3, "d": 4},
        {"a": 3, "b": 2, "c": 1, "d": 4},
        {"a": 2, "b": 2, "c": 2, "d": 1},
    ]
    # sums: a 6, b 6, c 6, d 9; first places: a 1, c 1, b 0; second places: a 1, c 1
    assert consensus_rank(rankings) == {"a": 1, "c": 2, "b": 3, "d": 4}


def test_consensus_rank_is_strict_and_deterministic() -> None:
    rankings = [{"z": 1, "y": 2}, {"z": 2, "y": 1}]
    assert consensus_rank(rankings) == {"y": 1, "z": 2}
    assert consensus_rank(list(reversed(rankings))) == {"y": 1, "z": 2}


def test_consensus_rank_validation() -> None:
    with pytest.raises(ValueError, match="at least one"):
        consensus_rank([])
    with pytest.raises(ValueError, match="different methods"):
        consensus_rank([{"a": 1}, {"b": 1}])


# ----------------------------------------------------------------------------- Kendall


@FAST
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=2, max_size=12))
def test_kendall_tau_b_matches_scipy(pairs: list[tuple[int, int]]) -> None:
    rank_a = {f"m{i}": a for i, (a, _) in enumerate(pairs)}
    rank_b = {f"m{i}": b for i, (_, b) in enumerate(pairs)}
    a, b = zip(*pairs, strict=True)
    if len(set(a)) == 1 or len(set(b)) == 1:
        assert math.isnan(kendall_tau_b(rank_a, rank_b))
        return
    expected = scipy.stats.kendalltau(a, b, variant="b").statistic
    assert kendall_tau_b(rank_a, rank_b) == pytest.approx(expected, abs=1e-12)


def test_kendall_tau_b_hand_values_and_validation() -> None:
    same = {"a": 1, "b": 2, "c": 3}
    assert kendall_tau_b(same, same) == 1.0
    assert kendall_tau_b(same, {"a": 3, "b": 2, "c": 1}) == -1.0
    assert math.isnan(kendall_tau_b({"a": 1}, {"a": 1}))
    assert math.isnan(kendall_tau_b({}, {}))
    # a tie in one ranking, counted by hand: pairs ab tied in a, ac and bc concordant;
    # tau-b = (2 - 0) / sqrt((3 - 1) * (3 - 0))
    tied = {"a": 1, "b": 1, "c": 2}
    assert kendall_tau_b(tied, same) == pytest.approx(2 / math.sqrt(6), abs=1e-12)
    assert math.isnan(kendall_tau_b(tied, {"a": 5, "b": 5, "c": 5}))  # one ranking all tied
    assert math.isnan(kendall_tau_b(same, {"a": 1, "b": math.nan, "c": 3}))  # NaN propagates
    with pytest.raises(ValueError, match="must rank the same methods"):
        kendall_tau_b(same, {"a": 1, "b": 2})


# ----------------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("mode", ["mood", "exact"])
def test_bootstrap_ap_samples_equal_pooled_sklearn_ap(mode: str) -> None:
    cases = _cases(6, seed=1)
    result = bootstrap_ap(_accumulators(cases, mode), n_boot=20, seed=7)
    draws = np.random.default_rng(7).integers(0, 6, size=(20, 6))
    dtype = np.float16 if mode == "mood" else np.float32

    def pooled(indices: list[int]) -> float:
        values = np.concatenate([cases[i][0].astype(dtype).ravel() for i in indices])
        labels = np.concatenate([cases[i][1].ravel() for i in indices])
        if not labels.any():
            return 0.0
        return float(average_precision_score(labels, values.astype(np.float64)))

    assert result.estimate == pytest.approx(pooled(list(range(6))), abs=1e-9)
    expected = [pooled(list(row)) for row in draws]
    np.testing.assert_allclose(result.samples, expected, atol=1e-9)
    assert result.low <= result.high


def test_bootstrap_ap_is_seeded() -> None:
    accs = _accumulators(_cases(5, seed=2, empty_every=0))
    first = bootstrap_ap(accs, n_boot=30, seed=3)
    np.testing.assert_array_equal(first.samples, bootstrap_ap(accs, n_boot=30, seed=3).samples)
    assert not np.array_equal(first.samples, bootstrap_ap(accs, n_boot=30, seed=4).samples)


def test_bootstrap_ap_chunks_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    import napari_mood.core.ranking as ranking

    accs = _accumulators(_cases(4, seed=5, empty_every=0))
    whole = bootstrap_ap(accs, n_boot=25, seed=1)
    monkeypatch.setattr(ranking, "_BOOT_CELLS", 10)
    np.testing.assert_allclose(bootstrap_ap(accs, n_boot=25, seed=1).samples, whole.samples)
    monkeypatch.setattr(ranking, "_DENSE_CELLS", 0)  # sparse products
    np.testing.assert_allclose(bootstrap_ap(accs, n_boot=25, seed=1).samples, whole.samples)


def test_bootstrap_ap_without_positives_warns_once_and_scores_zero() -> None:
    accs = _accumulators(_cases(3, empty_every=1))
    with pytest.warns(UndefinedMetricWarning, match="11 of 11") as record:
        result = bootstrap_ap(accs, n_boot=10)
    assert len(record) == 1
    assert (result.estimate, result.low, result.high) == (0.0, 0.0, 0.0)


def test_bootstrap_ap_validation() -> None:
    with pytest.raises(ValueError, match="at least one case"):
        bootstrap_ap([])
    with pytest.raises(ValueError, match="ci"):
        bootstrap_ap(_accumulators(_cases(2)), ci=0.0)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_ap(_accumulators(_cases(2)), n_boot=0)


# ----------------------------------------------------------------------------- MOOD batches


def test_mood_splits_reproduce_global_random_sample_and_leave_it_alone() -> None:
    state = random.getstate()
    try:
        random.seed(123)
        idx_list = list(range(9))
        expected = [random.sample(idx_list, k=3) for _ in range(10)]  # as bootstrap_dir
        random.seed(999)
        marker = random.random()
        random.seed(999)
        splits = mood_splits(9, n_runs=10, batch_size=3, seed=123)
        assert random.random() == marker  # global generator untouched
    finally:
        random.setstate(state)
    assert [list(s) for s in splits] == expected


def test_batch_average_precision_matches_bootstrap_dir_procedure() -> None:
    cases = _cases(7, seed=3)
    result = batch_average_precision(_accumulators(cases), n_runs=6, batch_size=3, seed=42)
    state = random.getstate()
    try:
        random.seed(42)
        splits = [random.sample(list(range(7)), k=3) for _ in range(6)]
    finally:
        random.setstate(state)
    expected = []
    for split in splits:
        labels = np.concatenate([cases[i][1].ravel() for i in split])
        expected.append(_sklearn_pooled_ap(cases, split) if labels.any() else 0.0)
    assert [list(s) for s in result.splits] == splits
    np.testing.assert_allclose(result.scores, expected, atol=1e-9)
    assert result.mean == pytest.approx(np.mean(expected), abs=1e-12)


def test_batch_average_precision_with_given_splits() -> None:
    cases = _cases(4, seed=6)
    result = batch_average_precision(_accumulators(cases), splits=[[1, 2], [2, 1, 1]])
    assert result.splits == ((1, 2), (2, 1, 1))
    assert result.scores[0] == pytest.approx(_sklearn_pooled_ap(cases, [1, 2]), abs=1e-9)
    assert result.scores[1] == pytest.approx(_sklearn_pooled_ap(cases, [2, 1, 1]), abs=1e-9)


def test_batch_without_positives_scores_zero_with_one_warning() -> None:
    cases = _cases(4, seed=8)  # cases 0 and 3 have no positive voxel
    with pytest.warns(UndefinedMetricWarning, match="1 of 2 batches") as record:
        result = batch_average_precision(_accumulators(cases), splits=[[0, 3], [1, 2]])
    assert len(record) == 1
    assert result.scores[0] == 0.0
    assert result.mean == pytest.approx(result.scores[1] / 2)


def test_batch_average_precision_validation() -> None:
    accs = _accumulators(_cases(3))
    with pytest.warns(BatchWarning, match="batch size 4 is larger than the 3 entries"):
        result = batch_average_precision(accs, batch_size=4, n_runs=2)
    assert all(sorted(batch) == [0, 1, 2] for batch in result.splits)
    with pytest.raises(ValueError, match="n_runs"):
        batch_average_precision(accs, n_runs=0)
    with pytest.raises(ValueError, match="outside the 3 entries"):
        batch_average_precision(accs, splits=[[0, 3]])
    with pytest.raises(ValueError, match="non-empty"):
        batch_average_precision(accs, splits=[])
    for bad in ([[0.0, 1]], [[True]], ["01"], [0, 1]):
        with pytest.raises(ValueError):
            batch_average_precision(accs, splits=bad)


def test_split_indices_read_as_numpy_indexing() -> None:
    """Negative indices count from the end (numpy indexing, as ``bootstrap_dir``)."""
    accs = _accumulators(_cases(3))
    wrapped = batch_average_precision(accs, splits=[[-1, -3]])
    plain = batch_average_precision(accs, splits=[[2, 0]])
    assert wrapped.splits == ((2, 0),) and wrapped.scores == plain.scores


def test_empty_batch_is_nan_and_left_out_of_the_mean() -> None:
    accs = _accumulators(_cases(3))
    with pytest.warns(BatchWarning, match="1 of 2 batches hold no readable case"):
        result = batch_average_precision(accs, splits=[[], [0, 1]])
    assert math.isnan(result.scores[0]) and result.mean == result.scores[1]
