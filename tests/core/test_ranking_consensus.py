"""Consensus optimality, missing scores, batch bootstrap of rankings (hand loops as oracles)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from napari_mood.core.ranking import (
    bootstrap_consensus,
    consensus_rank,
    kendall_tau_b,
    rank_methods,
    ranking_distance,
    score_ranks,
)

NAMES = ["a", "b", "c", "d"]


@given(st.lists(st.permutations([1, 2, 3, 4]), min_size=1, max_size=5))
def test_consensus_minimises_summed_squared_distance(perms):
    rankings = [dict(zip(NAMES, p, strict=True)) for p in perms]
    best = min(
        sum(ranking_distance(dict(zip(NAMES, c, strict=True)), r) for r in rankings)
        for c in itertools.permutations([1, 2, 3, 4])
    )
    found = consensus_rank(rankings)
    assert sum(ranking_distance(found, r) for r in rankings) == best
    assert sorted(found.values()) == [1, 2, 3, 4]


def test_score_ranks_missing_is_zero_ties_min():
    ranks = score_ranks({"a": 0.7, "b": float("nan"), "c": 0.7, "d": 0.0}, NAMES)
    assert ranks == {"a": 1, "b": 3, "c": 1, "d": 3}


def _hand_bootstrap(datasets, methods, n_boot, seed):
    """The documented procedure written as plain loops."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_boot):
        rankings = []
        for scores in datasets:
            n = len(next(iter(scores.values())))
            draw = rng.integers(0, n, size=n)
            means = {}
            for m in methods:
                picked = [scores[m][i] for i in draw if m in scores and not np.isnan(scores[m][i])]
                means[m] = float(np.mean(picked)) if picked else 0.0
            rankings.append(rank_methods(means))
        merged = consensus_rank(rankings) if len(rankings) > 1 else rankings[0]
        out.append([merged[m] for m in methods])
    return np.array(out)


def test_bootstrap_consensus_equals_hand_loop():
    brain = {"a": [0.9, 0.1, 0.5], "b": [0.4, 0.6, float("nan")], "c": [0.3, 0.3, 0.3]}
    abdomen = {"a": [0.2, 0.8], "b": [0.5, 0.4]}  # c missing: scores 0
    methods = ["a", "b", "c"]
    got = bootstrap_consensus([brain, abdomen], methods, n_boot=50, seed=3)
    np.testing.assert_array_equal(got, _hand_bootstrap([brain, abdomen], methods, 50, 3))
    single = bootstrap_consensus([brain], methods, n_boot=50, seed=3)
    np.testing.assert_array_equal(single, _hand_bootstrap([brain], methods, 50, 3))
    assert set(np.unique(single)) <= {1, 2, 3}
    with pytest.raises(ValueError, match="different numbers of batches"):
        bootstrap_consensus([{"a": [1.0], "b": [1.0, 2.0]}], ["a", "b"])


@given(
    st.lists(st.integers(1, 4), min_size=4, max_size=4),
    st.lists(st.integers(1, 4), min_size=4, max_size=4),
)
def test_kendall_tau_b_equals_scipy_with_ties(a, b):
    ours = kendall_tau_b(dict(zip(NAMES, a, strict=True)), dict(zip(NAMES, b, strict=True)))
    theirs = scipy.stats.kendalltau(a, b, variant="b").statistic
    np.testing.assert_allclose(ours, theirs, equal_nan=True)
