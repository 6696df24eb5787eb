"""Ranks, consensus ranking, Kendall's tau and bootstrap intervals of the AP.

Case-level resampling works on per-case :class:`~napari_mood.core.curves.CurveAccumulator`
histograms: a resample's pooled histogram is the multiplicity-weighted sum of the case
histograms, so no voxel is touched again. The MOOD challenge's batch AP is
:mod:`napari_mood.core.batches`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from napari_mood.core._checks import (
    check_instance,
    check_integer,
    check_mapping,
    check_number,
    check_sequence,
)
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.metrics import average_precision_from_histograms, zero_undefined_aps
from napari_mood.core.seed import DEFAULT_RESAMPLES, DEFAULT_SEED

_RANK_TYPES = (int, float, np.integer, np.floating)

_BOOT_CELLS = 1 << 22  # (resamples x bins) cells per vectorised chunk
_DENSE_CELLS = 1 << 23  # (cases x bins) cells below which case histograms are made dense

# --------------------------------------------------------------------------- ranks


def rank_methods(values: Mapping[str, float], *, higher_is_better: bool = True) -> dict[str, int]:
    """Rank methods by a value; ties share the MIN rank (1, 2, 2, 4); NaN ranks last.

    All NaN methods share the rank after the last non-NaN one.

    Parameters
    ----------
    values : mapping of str to float
        One value per method (NaN allowed).
    higher_is_better : bool
        Whether the highest value ranks first.

    Returns
    -------
    dict of str to int
        The rank of each method, 1 the best.

    Examples
    --------
    >>> rank_methods({"a": 0.9, "b": 0.5, "c": 0.9, "d": float("nan")})
    {'a': 1, 'b': 3, 'c': 1, 'd': 4}
    """
    check_mapping("values", values, _RANK_TYPES, "a number")
    check_instance("higher_is_better", higher_is_better, bool, "True or False")
    names = list(values)
    raw = np.array([values[name] for name in names], dtype=np.float64)
    keys = -raw if higher_is_better else raw
    valid = ~np.isnan(keys)
    ordered = np.sort(keys[valid])
    ranks = np.where(valid, np.searchsorted(ordered, keys, side="left") + 1, ordered.size + 1)
    return {name: int(rank) for name, rank in zip(names, ranks, strict=True)}


def _same_names(mappings: Sequence[Mapping[str, object]]) -> list[str]:
    names = sorted(mappings[0])
    for mapping in mappings[1:]:
        if sorted(mapping) != names:
            raise ValueError(f"rankings cover different methods: {names} vs {sorted(mapping)}")
    return names


def consensus_rank(rankings: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """Combine rankings by the sum of ranks into a strict ranking 1..n.

    Ties in the rank sum are broken by more first places, then more second places, and
    so on; remaining ties by method name (alphabetical), so the result is deterministic.

    Ordering by the rank sum is the consensus that minimises the summed distance
    :func:`ranking_distance` (squared rank differences, the Euclidean consensus of
    challengeR) to the given rankings among all strict rankings: expanding the squares,
    only ``-2 sum_m c_m S_m`` depends on the consensus ``c`` (``S_m`` the rank sum of
    method ``m``), which the rearrangement inequality makes smallest by giving the
    smallest ranks to the smallest sums.

    Parameters
    ----------
    rankings : sequence of mapping of str to int
        At least one ranking, all of the same methods.

    Returns
    -------
    dict of str to int
        A strict ranking ``1..n`` of the methods.

    Raises
    ------
    ValueError
        When ``rankings`` is empty or the rankings rank different methods.

    Examples
    --------
    >>> consensus_rank([{"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 1, "c": 2}])
    {'a': 2, 'b': 1, 'c': 3}
    """
    rankings = check_sequence("rankings", rankings, Mapping, "a mapping of names to ranks")
    for index, ranking in enumerate(rankings):
        check_mapping(f"rankings[{index}]", ranking, _RANK_TYPES, "a rank (a number)")
    if not rankings:
        raise ValueError("need at least one ranking")
    names = _same_names(rankings)
    n = len(names)

    def key(name: str) -> tuple[int, tuple[int, ...], str]:
        ranks = [int(r[name]) for r in rankings]
        places = tuple(-ranks.count(place) for place in range(1, n + 1))
        return sum(ranks), places, name

    ordered = sorted(names, key=key)
    position = {name: i + 1 for i, name in enumerate(ordered)}
    return {name: position[name] for name in names}


def ranking_distance(rank_a: Mapping[str, float], rank_b: Mapping[str, float]) -> float:
    """Squared Euclidean distance of two rankings: ``sum_m (a_m - b_m) ** 2``.

    Parameters
    ----------
    rank_a, rank_b : mapping of str to float
        Two rankings of the same methods.

    Returns
    -------
    float
        The sum of squared rank differences.

    Raises
    ------
    ValueError
        When the rankings rank different methods.

    Examples
    --------
    >>> ranking_distance({"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 2, "c": 1})
    8.0
    """
    names = _same_names([rank_a, rank_b])
    return float(sum((float(rank_a[n]) - float(rank_b[n])) ** 2 for n in names))


def score_ranks(scores: Mapping[str, float | None], methods: Sequence[str]) -> dict[str, int]:
    """Rank ``methods`` by score, higher first; a missing, None or NaN score counts 0.

    Ties share the minimum rank (challengeR's ``ties.method = "min"``).

    Parameters
    ----------
    scores : mapping of str to float or None
        The score of each method that has one.
    methods : sequence of str
        The methods to rank.

    Returns
    -------
    dict of str to int
        The rank of each of ``methods``, 1 the best.

    Examples
    --------
    >>> score_ranks({"a": 0.5, "b": None, "c": 0.5}, ["a", "b", "c", "d"])
    {'a': 1, 'b': 3, 'c': 1, 'd': 3}
    """
    values = {}
    for name in methods:
        value = scores.get(name)
        values[name] = 0.0 if value is None or math.isnan(value) else float(value)
    return rank_methods(values)


def bootstrap_consensus(
    batch_scores: Sequence[Mapping[str, Sequence[float]]],
    methods: Sequence[str],
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> np.ndarray:
    """Consensus ranks of ``methods`` over resampled batches: ``(n_boot, len(methods))``.

    Each element of ``batch_scores`` is one ranking's per-batch scores (e.g. the batch APs
    of one dataset and task; every method has the same batches). Per resample, each
    ranking draws its batches with replacement (``numpy.random.default_rng(seed)``, the
    same draw for every method), scores each method by the mean over the drawn batches
    (NaN batches left out; a method without batches or scores scores 0), ranks them with
    :func:`score_ranks` and merges the rankings with :func:`consensus_rank`. With one
    ranking this is that ranking's bootstrap (ties "min").

    Parameters
    ----------
    batch_scores : sequence of mapping of str to sequence of float
        Per ranking, the per-batch scores of each method.
    methods : sequence of str
        The methods to rank.
    n_boot : int
        Number of resamples (at least 1).
    seed : int
        Seed of the resampling.

    Returns
    -------
    numpy.ndarray
        int64 ranks, one row per resample, one column per method.

    Raises
    ------
    ValueError
        When ``n_boot`` is below 1.

    Examples
    --------
    >>> ranks = bootstrap_consensus([{"a": [0.9, 0.8], "b": [0.1, 0.2]}], ["a", "b"], n_boot=5)
    >>> ranks.tolist()
    [[1, 2], [1, 2], [1, 2], [1, 2], [1, 2]]
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    rng = np.random.default_rng(seed)
    tables = [_batch_table(scores, methods) for scores in batch_scores]
    out = np.zeros((n_boot, len(methods)), dtype=np.int64)
    for b in range(n_boot):
        rankings = []
        for table in tables:
            draw = rng.integers(0, table.shape[1], size=table.shape[1])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a method's batches all NaN
                means = np.nanmean(table[:, draw], axis=1)
            rankings.append(score_ranks(dict(zip(methods, means.tolist(), strict=True)), methods))
        merged = consensus_rank(rankings) if len(rankings) > 1 else rankings[0]
        out[b] = [merged[m] for m in methods]
    return out


def _batch_table(scores: Mapping[str, Sequence[float]], methods: Sequence[str]) -> np.ndarray:
    """``(methods, batches)`` scores; a method without scores has 0 in every batch."""
    sizes = {len(v) for v in scores.values() if len(v)}
    if len(sizes) > 1:
        raise ValueError(f"methods have different numbers of batches: {sorted(sizes)}")
    n = sizes.pop() if sizes else 0
    table = np.zeros((len(methods), max(n, 1)))  # no batches at all: one batch of zeros
    for i, name in enumerate(methods):
        values = scores.get(name)
        if values is not None and len(values):
            table[i] = np.array([math.nan if v is None else v for v in values], dtype=np.float64)
    return table


def kendall_tau_b(rank_a: Mapping[str, float], rank_b: Mapping[str, float]) -> float:
    """Kendall's tau-b between two rankings of the same methods (ties accounted for).

    Computed by :func:`scipy.stats.kendalltau` (``variant="b"``). NaN when fewer than two
    methods, when one ranking is all tied, or when a rank is NaN (scipy's ``"propagate"``).

    Parameters
    ----------
    rank_a, rank_b : mapping of str to float
        Two rankings of the same methods.

    Returns
    -------
    float
        Tau-b in [-1, 1], or NaN.

    Raises
    ------
    ValueError
        When the rankings rank different methods.

    Examples
    --------
    >>> round(kendall_tau_b({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2}), 4)
    0.3333
    """
    check_mapping("rank_a", rank_a, _RANK_TYPES, "a rank (a number)")
    check_mapping("rank_b", rank_b, _RANK_TYPES, "a rank (a number)")
    if sorted(rank_a) != sorted(rank_b):
        raise ValueError(
            f"rank_a and rank_b must rank the same methods; got {sorted(rank_a)} "
            f"and {sorted(rank_b)}"
        )
    names = _same_names([rank_a, rank_b])
    a = np.array([rank_a[name] for name in names], dtype=np.float64)
    b = np.array([rank_b[name] for name in names], dtype=np.float64)
    if a.size < 2:  # scipy would warn that the sample is too small, then give NaN
        return math.nan
    from scipy import stats  # imported on first use: scipy.stats takes a while to import

    return float(stats.kendalltau(a, b, variant="b").statistic)


# --------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """A point estimate with a percentile bootstrap interval.

    ``samples`` holds the ``n_boot`` resampled statistics; ``low`` / ``high`` are their
    ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles (linear interpolation).
    """

    estimate: float
    low: float
    high: float
    ci: float
    n_boot: int
    seed: int
    samples: np.ndarray


def _check_bootstrap(n_cases: int, n_boot: int, ci: float) -> None:
    check_integer("n_boot", n_boot)
    check_number("ci", ci)
    if n_cases < 1:
        raise ValueError("accumulators_per_case must hold at least one case; got none")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must be in (0, 1), got {ci}")


def _case_draws(n_cases: int, *, n_boot: int, seed: int) -> np.ndarray:
    """``(n_boot, n_cases)`` case indices drawn with replacement."""
    return np.random.default_rng(seed).integers(0, n_cases, size=(n_boot, n_cases))


def _result(estimate: float, samples: np.ndarray, *, ci: float, seed: int) -> BootstrapResult:
    low, high = np.quantile(samples, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0])
    samples.flags.writeable = False
    return BootstrapResult(
        estimate=float(estimate),
        low=float(low),
        high=float(high),
        ci=ci,
        n_boot=samples.size,
        seed=seed,
        samples=samples,
    )


def _case_matrices(
    accumulators: Sequence[CurveAccumulator],
) -> tuple[scipy.sparse.csr_array, scipy.sparse.csr_array]:
    """Sparse ``(n_cases, n_values)`` pos / total counts on the union of score values."""
    tables = [acc.histogram() for acc in accumulators]
    present = [np.flatnonzero(total) for _, _, total in tables]
    values = [t[0][keep] for t, keep in zip(tables, present, strict=True)]
    grid, columns = np.unique(np.concatenate(values), return_inverse=True)
    rows = np.repeat(np.arange(len(tables)), [v.size for v in values])
    shape = (len(tables), grid.size)

    def matrix(which: int) -> scipy.sparse.csr_array:
        data = np.concatenate([t[which][keep] for t, keep in zip(tables, present, strict=True)])
        return scipy.sparse.csr_array((data.astype(np.float64), (rows, columns)), shape=shape)

    return matrix(1), matrix(2)


def _pool(weights: np.ndarray, counts: np.ndarray | scipy.sparse.csr_array) -> np.ndarray:
    """``weights @ counts``: pooled (resamples x values) histograms."""
    if isinstance(counts, np.ndarray):
        return weights @ counts
    return np.asarray((counts.T @ weights.T).T)


def _weighted_aps(
    weights: np.ndarray, pos: scipy.sparse.csr_array, total: scipy.sparse.csr_array
) -> np.ndarray:
    """AP of each multiplicity row of ``weights`` (NaN where the resample has no positive)."""
    counts: tuple[np.ndarray | scipy.sparse.csr_array, ...] = (pos, total)
    if pos.shape[0] * pos.shape[1] <= _DENSE_CELLS:  # small enough: dense BLAS products
        counts = (pos.toarray(), total.toarray())
    step = max(1, _BOOT_CELLS // max(pos.shape[1], 1))
    out = []
    for start in range(0, weights.shape[0], step):
        chunk = weights[start : start + step]
        out.append(average_precision_from_histograms(*(_pool(chunk, c) for c in counts)))
    return np.concatenate(out)


def bootstrap_ap(
    accumulators_per_case: Sequence[CurveAccumulator],
    *,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    ci: float = 0.95,
) -> BootstrapResult:
    """Case-bootstrap interval of the pooled voxel AP.

    Each resample draws ``n_cases`` cases with replacement
    (``numpy.random.default_rng(seed)``) and scores the AP of their pooled voxels; the
    estimate is the pooled AP of all cases. A resample (or the whole set) without any
    positive voxel scores 0.0, with one :class:`UndefinedMetricWarning` saying how many.

    Parameters
    ----------
    accumulators_per_case : sequence of CurveAccumulator
        One accumulator per case, all of one mode.
    n_boot : int
        Number of resamples.
    seed : int
        Seed of the resampling.
    ci : float
        Coverage of the interval, in (0, 1).

    Returns
    -------
    BootstrapResult
        The pooled AP of all cases, the interval and the resampled APs.

    Raises
    ------
    ValueError
        When there is no case or ``n_boot`` or ``ci`` is invalid.

    Examples
    --------
    >>> accs = []
    >>> for scores, labels in [([0.9, 0.1], [1, 0]), ([0.2, 0.6], [1, 0])]:
    ...     acc = CurveAccumulator()
    ...     acc.add(np.array(scores), np.array(labels))
    ...     accs.append(acc)
    >>> r = bootstrap_ap(accs, n_boot=100, seed=0)
    >>> round(r.estimate, 4), 0.5 <= r.low <= r.high <= 1.0
    (0.8333, True)
    """
    accumulators_per_case = check_sequence(
        "accumulators_per_case", accumulators_per_case, CurveAccumulator, "a CurveAccumulator"
    )
    check_integer("seed", seed, minimum=0)
    n_cases = len(accumulators_per_case)
    _check_bootstrap(n_cases, n_boot, ci)
    pos, total = _case_matrices(accumulators_per_case)
    draws = _case_draws(n_cases, n_boot=n_boot, seed=seed)
    offsets = (np.arange(n_boot) * n_cases)[:, None]
    weights = np.bincount((draws + offsets).reshape(-1), minlength=n_boot * n_cases)
    weights = weights.reshape(n_boot, n_cases).astype(np.float64)
    everything = np.ones((1, n_cases))
    aps = _weighted_aps(np.concatenate([everything, weights]), pos, total)
    aps = zero_undefined_aps(aps, what="AP evaluations (full set + resamples)")
    return _result(aps[0], aps[1:], ci=ci, seed=seed)
