"""Ranks, consensus ranking, bootstrap intervals, Kendall's tau and the MOOD batch AP.

Case-level resampling works on per-case :class:`~napari_mood.core.curves.CurveAccumulator`
histograms: a resample's pooled histogram is the multiplicity-weighted sum of the case
histograms, so no voxel is touched again.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from napari_mood.core.curves import CurveAccumulator, merge_accumulators
from napari_mood.core.metrics import UndefinedMetricWarning, average_precision_from_histograms
from napari_mood.core.seed import DEFAULT_SEED

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
    n_boot: int = 1000,
    seed: int = 0,
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

    NaN when fewer than two methods or when one ranking is all tied.

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
    >>> kendall_tau_b({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2})
    0.3333333333333333
    """
    names = _same_names([rank_a, rank_b])
    a = np.array([rank_a[name] for name in names], dtype=np.float64)
    b = np.array([rank_b[name] for name in names], dtype=np.float64)
    upper = np.triu_indices(a.size, k=1)
    sign_a = np.sign(a[:, None] - a[None, :])[upper]
    sign_b = np.sign(b[:, None] - b[None, :])[upper]
    untied = float(np.count_nonzero(sign_a)) * float(np.count_nonzero(sign_b))
    if untied == 0:
        return math.nan
    return float(np.sum(sign_a * sign_b) / math.sqrt(untied))


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
    if n_cases < 1:
        raise ValueError("need at least one case")
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


def _zero_if_no_positive(aps: np.ndarray, *, what: str) -> np.ndarray:
    missing = np.isnan(aps)
    if missing.any():
        warnings.warn(
            f"{int(missing.sum())} of {aps.size} {what} had no positive voxel; "
            "their AP is 0.0 (as scikit-learn returns)",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    return np.where(missing, 0.0, aps)


def bootstrap_ap(
    accumulators_per_case: Sequence[CurveAccumulator],
    *,
    n_boot: int = 1000,
    seed: int = 0,
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
    n_cases = len(accumulators_per_case)
    _check_bootstrap(n_cases, n_boot, ci)
    pos, total = _case_matrices(accumulators_per_case)
    draws = _case_draws(n_cases, n_boot=n_boot, seed=seed)
    offsets = (np.arange(n_boot) * n_cases)[:, None]
    weights = np.bincount((draws + offsets).reshape(-1), minlength=n_boot * n_cases)
    weights = weights.reshape(n_boot, n_cases).astype(np.float64)
    everything = np.ones((1, n_cases))
    aps = _weighted_aps(np.concatenate([everything, weights]), pos, total)
    aps = _zero_if_no_positive(aps, what="AP evaluations (full set + resamples)")
    return _result(aps[0], aps[1:], ci=ci, seed=seed)


# --------------------------------------------------------------------------- MOOD batches


@dataclass(frozen=True, eq=False)
class BatchAP:
    """AP of the MOOD challenge batch procedure (``bootstrap_dir``).

    ``splits[k]`` are the indices of batch ``k`` into the label folder's listing,
    ``entries[k]`` the listed names they point to, ``scored[k]`` the readable cases
    among them and ``scores[k]`` their pooled AP (NaN when no entry of the batch could be
    read). ``mean`` is the mean over the batches that have a score (the challenge score).
    """

    mean: float
    scores: tuple[float, ...]
    splits: tuple[tuple[int, ...], ...]
    seed: int
    entries: tuple[tuple[str, ...], ...] = ()
    scored: tuple[tuple[str, ...], ...] = ()


class BatchWarning(UserWarning):
    """A challenge batch could not be formed as asked (the official scorer would stop)."""


def mood_splits(
    n_entries: int, *, n_runs: int = 10, batch_size: int = 2, seed: int = DEFAULT_SEED
) -> tuple[tuple[int, ...], ...]:
    """Index batches drawn exactly like MOOD ``scripts/evalresults.py bootstrap_dir``.

    Equivalent to ``random.seed(seed)`` followed by ``n_runs`` calls of
    ``random.sample(range(n_entries), k=batch_size)`` (without touching the global
    generator). The indices point into the label folder's listing,
    ``sorted(os.listdir(folder))``, every entry included.

    Parameters
    ----------
    n_entries : int
        Length of the label folder's listing.
    n_runs : int
        Number of batches.
    batch_size : int
        Entries per batch, in ``[1, n_entries]``.
    seed : int
        Seed of Python's :class:`random.Random`, as the official script uses.

    Returns
    -------
    tuple of tuple of int
        ``n_runs`` batches of ``batch_size`` indices.

    Raises
    ------
    ValueError
        When ``batch_size`` or ``n_runs`` is out of range.

    Examples
    --------
    >>> mood_splits(5, n_runs=2, batch_size=2, seed=123)
    ((0, 2), (0, 3))
    """
    if not 1 <= batch_size <= n_entries:
        raise ValueError(f"batch_size must be in [1, n_entries={n_entries}], got {batch_size}")
    if n_runs < 1:
        raise ValueError(f"n_runs must be >= 1, got {n_runs}")
    generator = random.Random(seed)
    return tuple(tuple(generator.sample(range(n_entries), k=batch_size)) for _ in range(n_runs))


def check_splits(splits: Sequence[Sequence[int]], n_entries: int) -> tuple[tuple[int, ...], ...]:
    """Validate batches (e.g. an official ``splits.json``) against a listing's length.

    Indices are read as the official ``bootstrap_dir`` reads them (numpy indexing of the
    listing): integers in ``[-n_entries, n_entries)``, negative ones counted from the end;
    they are returned normalised to ``[0, n_entries)``. An empty batch is kept (it scores
    NaN, see :func:`listing_batch_ap`).

    Parameters
    ----------
    splits : sequence of sequence of int
        The batches, as lists of indices.
    n_entries : int
        Length of the listing the indices point into.

    Returns
    -------
    tuple of tuple of int
        The batches with indices in ``[0, n_entries)``.

    Raises
    ------
    ValueError
        When ``splits`` is empty, a batch is not a list, or an index is not an integer
        or out of range.

    Examples
    --------
    >>> check_splits([[0, -1], []], 3)
    ((0, 2), ())
    """
    if isinstance(splits, (str, bytes, Mapping)) or not splits:
        raise ValueError("splits must be a non-empty list of batches")
    batches = []
    for batch in splits:
        if isinstance(batch, (str, bytes, Mapping)) or not isinstance(batch, Sequence):
            raise ValueError(f"each batch must be a list of indices, got {batch!r}")
        for i in batch:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise ValueError(f"split index {i!r} is not an integer")
            if not -n_entries <= i < n_entries:
                raise ValueError(
                    f"split index {i} is outside the {n_entries} entries of the label folder"
                )
        batches.append(tuple(int(i) % n_entries for i in batch))
    return tuple(batches)


def listing_batch_ap(
    listing: Sequence[str],
    accumulators: Mapping[str, CurveAccumulator],
    *,
    n_runs: int = 10,
    batch_size: int = 2,
    seed: int = DEFAULT_SEED,
    splits: Sequence[Sequence[int]] | None = None,
) -> BatchAP:
    """Return the MOOD challenge score: mean pooled AP over random batches of label-folder entries.

    Exactly ``bootstrap_dir``: batches index ``listing`` (``sorted(os.listdir(label_dir))``,
    stray and hidden entries included; :func:`mood_splits`, or ``splits``, e.g. an
    official ``splits.json``), and within a batch the entries that cannot be scored
    (stray files, unreadable labels: absent from ``accumulators``) are skipped, so a
    batch may hold fewer than ``batch_size`` cases. Where the official procedure stops
    with an error, this says so with a :class:`BatchWarning` and goes on:

    - ``batch_size`` larger than the listing: each batch takes every entry;
    - a batch with no scorable entry: its AP is NaN and it is left out of the mean.

    A batch without a positive scores 0.0 (as scikit-learn), with one
    :class:`UndefinedMetricWarning` saying how many.

    Parameters
    ----------
    listing : sequence of str
        The label folder's entries, sorted as ``os.listdir`` gives them.
    accumulators : mapping of str to CurveAccumulator
        One accumulator per scorable entry of ``listing``.
    n_runs : int
        Number of batches drawn (when ``splits`` is None).
    batch_size : int
        Entries per batch drawn.
    seed : int
        Seed of the draw.
    splits : sequence of sequence of int, optional
        Batches to use instead of drawing them (checked with :func:`check_splits`).

    Returns
    -------
    BatchAP
        The batches, the AP of each and their mean.

    Examples
    --------
    >>> accs = {}
    >>> for name, scores, labels in [("a", [0.9, 0.1], [1, 0]), ("b", [0.2, 0.6], [1, 0])]:
    ...     accs[name] = CurveAccumulator()
    ...     accs[name].add(np.array(scores), np.array(labels))
    >>> batch = listing_batch_ap([".DS_Store", "a", "b"], accs, splits=[[0, 1], [1, 2]])
    >>> batch.scored, batch.scores
    ((('a',), ('a', 'b')), (1.0, 0.8333333333333333))
    """
    if splits is None:
        size = batch_size
        if batch_size > len(listing):
            size = len(listing)
            warnings.warn(
                f"batch size {batch_size} is larger than the {len(listing)} entries of the "
                "label folder: each batch takes every entry (the official scorer stops here)",
                BatchWarning,
                stacklevel=2,
            )
        splits = mood_splits(len(listing), n_runs=n_runs, batch_size=size, seed=seed)
    batches = check_splits(splits, len(listing))
    entries = tuple(tuple(listing[i] for i in batch) for batch in batches)
    scored = tuple(tuple(n for n in names if n in accumulators) for names in entries)
    empty = np.array([not names for names in scored])
    aps = np.full(len(batches), math.nan)
    if not empty.all():
        pooled = [_pooled_ap([accumulators[n] for n in names]) for names in scored if names]
        aps[~empty] = _zero_if_no_positive(np.array(pooled), what="batches")
    if empty.any():
        warnings.warn(
            f"{int(empty.sum())} of {len(batches)} batches hold no readable case: their AP is "
            "NaN and they are left out of the mean (the official scorer stops with ValueError "
            "here)",
            BatchWarning,
            stacklevel=2,
        )
    finite = aps[np.isfinite(aps)]
    return BatchAP(
        mean=float(np.mean(finite)) if finite.size else math.nan,
        scores=tuple(float(ap) for ap in aps),
        splits=batches,
        seed=seed,
        entries=entries,
        scored=scored,
    )


def batch_average_precision(
    accumulators_per_case: Sequence[CurveAccumulator],
    *,
    n_runs: int = 10,
    batch_size: int = 2,
    seed: int = DEFAULT_SEED,
    splits: Sequence[Sequence[int]] | None = None,
) -> BatchAP:
    """:func:`listing_batch_ap` when every listed entry is a readable case (in order).

    Parameters
    ----------
    accumulators_per_case : sequence of CurveAccumulator
        One accumulator per case, in listing order.
    n_runs, batch_size, seed, splits
        As in :func:`listing_batch_ap`.

    Returns
    -------
    BatchAP
        The batches, the AP of each and their mean.

    Examples
    --------
    >>> accs = []
    >>> for scores, labels in [([0.9, 0.1], [1, 0]), ([0.2, 0.6], [1, 0])]:
    ...     acc = CurveAccumulator()
    ...     acc.add(np.array(scores), np.array(labels))
    ...     accs.append(acc)
    >>> batch_average_precision(accs, n_runs=1, batch_size=2).scores
    (0.8333333333333333,)
    """
    names = [str(i) for i in range(len(accumulators_per_case))]
    return listing_batch_ap(
        names,
        dict(zip(names, accumulators_per_case, strict=True)),
        n_runs=n_runs,
        batch_size=batch_size,
        seed=seed,
        splits=splits,
    )


def _pooled_ap(accumulators: Sequence[CurveAccumulator]) -> float:
    _, pos, total = merge_accumulators(accumulators).histogram()
    return float(average_precision_from_histograms(pos[None, :], total[None, :])[0])
