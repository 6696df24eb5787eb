"""Survivors of the full mutation run of core.ranking (ranks, consensus, bootstrap).

Expectations are worked out by hand (in the comments), taken from scipy / scikit-learn,
or read from the rule's own words (the messages a user reads, the documented fields of
a bootstrap result and the int64 ranks of a consensus bootstrap).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.stats
from sklearn.metrics import average_precision_score

from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.metrics import UndefinedMetricWarning
from napari_mood.core.ranking import (
    bootstrap_ap,
    bootstrap_consensus,
    consensus_rank,
    kendall_tau_b,
    rank_methods,
    ranking_distance,
)


def _case(scores: list[float], labels: list[int]) -> CurveAccumulator:
    acc = CurveAccumulator()
    acc.add(np.array(scores), np.array(labels, dtype=bool))
    return acc


def test_ranking_distance_squares_each_difference() -> None:
    # (1 - 2) ** 2 + (2 - 1) ** 2 = 2; (1 - 3) ** 2 + 0 + (3 - 1) ** 2 = 8
    assert ranking_distance({"a": 1, "b": 2}, {"a": 2, "b": 1}) == 2.0
    assert ranking_distance({"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 2, "c": 1}) == 8.0


def test_rank_methods_reads_unsigned_values_by_value() -> None:
    # 5 > 0, so b ranks first whatever integer type carries the values
    values = {"a": np.uint8(0), "b": np.uint8(5)}
    assert rank_methods(values) == {"a": 2, "b": 1}
    assert rank_methods(values, higher_is_better=False) == {"a": 1, "b": 2}


def test_kendall_tau_b_reads_unsigned_ranks_by_value() -> None:
    a = {"x": np.uint8(1), "y": np.uint8(2), "z": np.uint8(3)}
    b = {"x": np.uint8(3), "y": np.uint8(2), "z": np.uint8(1)}
    expected = scipy.stats.kendalltau([1, 2, 3], [3, 2, 1]).statistic  # -1: reversed order
    assert kendall_tau_b(a, b) == pytest.approx(expected)
    assert kendall_tau_b(b, a) == pytest.approx(expected)  # each side read by value


def test_consensus_rank_without_rankings_says_so() -> None:
    with pytest.raises(ValueError, match="^need at least one ranking$"):
        consensus_rank([])


def test_bootstrap_consensus_checks_n_boot_and_accepts_one() -> None:
    with pytest.raises(ValueError, match="^n_boot must be >= 1, got 0$"):
        bootstrap_consensus([{"a": [0.5]}], ["a"], n_boot=0)
    ranks = bootstrap_consensus([{"a": [0.9, 0.8], "b": [0.1, 0.2]}], ["a", "b"], n_boot=1)
    assert ranks.dtype == np.int64  # ranks are integers, as documented
    assert ranks.tolist() == [[1, 2]]  # a beats b in every batch


def test_bootstrap_consensus_without_any_batch_ties_every_method() -> None:
    # no method has a batch: every method scores 0 in every resample, all share rank 1
    ranks = bootstrap_consensus([{"a": [], "b": []}], ["a", "b"], n_boot=2)
    assert ranks.tolist() == [[1, 1], [1, 1]]


def test_bootstrap_consensus_draws_each_ranking_from_one_stream() -> None:
    # Ranking 1 has a single batch (b first). Ranking 2 has two batches: a scores [0, 1],
    # b scores 0.5 in both. a wins ranking 2 only if both draws pick batch 1 (mean 1);
    # the rank sums then tie at 3 with one first place each, and the name puts a first.
    # Otherwise b wins or ties ranking 2 and wins the consensus. The draws are the
    # documented ones: one default_rng(seed) stream, ranking by ranking, n draws from n
    # batches (a single batch has one possible draw).
    first = {"a": [0.1], "b": [0.9]}
    second = {"a": [0.0, 1.0], "b": [0.5, 0.5]}
    seed, n_boot = 3, 40
    rng = np.random.default_rng(seed)
    expected = []
    for _ in range(n_boot):
        rng.integers(0, 1, size=1)
        draw = rng.integers(0, 2, size=2)
        expected.append([1, 2] if draw.tolist() == [1, 1] else [2, 1])
    ranks = bootstrap_consensus([first, second], ["a", "b"], n_boot=n_boot, seed=seed)
    assert [1, 2] in expected  # the example reaches both outcomes
    assert ranks.tolist() == expected


@pytest.mark.parametrize(
    ("n_cases", "n_boot", "ci", "message"),
    [
        (0, 5, 0.95, "accumulators_per_case must hold at least one case; got none"),
        (1, 0, 0.95, "n_boot must be >= 1, got 0"),
        (1, 5, 1.0, "ci must be in (0, 1), got 1.0"),
        (1, 5, 1.5, "ci must be in (0, 1), got 1.5"),
        (1, 5, 0.0, "ci must be in (0, 1), got 0.0"),
    ],
)
def test_bootstrap_ap_checks_its_options(
    n_cases: int, n_boot: int, ci: float, message: str
) -> None:
    cases = [_case([0.9, 0.1], [1, 0])] * n_cases
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        bootstrap_ap(cases, n_boot=n_boot, ci=ci)


def test_bootstrap_ap_of_one_case_and_one_resample() -> None:
    # one case ranking its positive first: AP 1.0, and every resample is that case
    result = bootstrap_ap([_case([0.9, 0.1], [1, 0])], n_boot=1, seed=4, ci=0.5)
    assert (result.estimate, result.low, result.high) == (1.0, 1.0, 1.0)
    assert result.samples.tolist() == [1.0]


def test_bootstrap_result_records_its_options_and_freezes_samples() -> None:
    cases = [_case([0.9, 0.1], [1, 0]), _case([0.2, 0.6], [1, 0])]
    result = bootstrap_ap(cases, n_boot=7, seed=5, ci=0.8)
    assert (result.ci, result.n_boot, result.seed) == (0.8, 7, 5)
    assert result.samples.shape == (7,)
    assert not result.samples.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        result.samples[0] = 0.0


def test_bootstrap_ap_warns_in_words_when_no_set_has_a_positive() -> None:
    # one case without a positive voxel: the full set and the 3 resamples have none
    expected = (
        "4 of 4 AP evaluations (full set + resamples) had no positive voxel; "
        "their AP is 0.0 (as scikit-learn returns)"
    )
    with pytest.warns(UndefinedMetricWarning, match=f"^{re.escape(expected)}$"):
        result = bootstrap_ap([_case([0.9, 0.1], [0, 0])], n_boot=3)
    assert result.estimate == 0.0


def test_bootstrap_ap_with_an_empty_last_case() -> None:
    # a case without voxels adds nothing to any pool: every AP is the first case's, or
    # 0.0 (with a warning) for a resample that drew the empty case twice
    scores, labels = [0.9, 0.4, 0.6, 0.1], [1, 0, 1, 0]
    expected = average_precision_score(labels, scores)  # 1.0: both positives lead
    with pytest.warns(UndefinedMetricWarning, match="AP evaluations"):
        result = bootstrap_ap([_case(scores, labels), CurveAccumulator()], n_boot=20, seed=1)
    assert result.estimate == pytest.approx(expected)
    assert all(s == 0.0 or s == pytest.approx(expected) for s in result.samples)
