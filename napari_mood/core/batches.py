"""The MOOD challenge's batch AP: the official scorer's ``bootstrap_dir`` procedure.

The cases are drawn into batches (:func:`mood_splits`, as the official script seeds
Python's :mod:`random`, or an official ``splits.json`` checked by :func:`check_splits`);
each batch's AP is that of its pooled per-case histograms, and the challenge score is
the mean over the batches (:func:`batch_average_precision`, :func:`listing_batch_ap`).
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from napari_mood.core._checks import check_integer, check_mapping, check_sequence
from napari_mood.core.curves import CurveAccumulator, merge_accumulators
from napari_mood.core.metrics import (
    average_precision_from_histograms,
    zero_undefined_aps,
)
from napari_mood.core.seed import DEFAULT_SEED

__all__ = [
    "BatchAP",
    "BatchWarning",
    "batch_average_precision",
    "check_splits",
    "listing_batch_ap",
    "mood_splits",
]


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
    n_entries = check_integer("n_entries", n_entries, minimum=1)
    _check_draw(n_runs=n_runs, batch_size=batch_size, seed=seed)
    if batch_size > n_entries:
        raise ValueError(f"batch_size must be in [1, n_entries={n_entries}], got {batch_size}")
    generator = random.Random(seed)
    return tuple(tuple(generator.sample(range(n_entries), k=batch_size)) for _ in range(n_runs))


def _check_draw(*, n_runs: object, batch_size: object, seed: object) -> None:
    """Check the options of a batch draw, each error naming its option (before any data)."""
    check_integer("n_runs", n_runs, minimum=1)
    check_integer("batch_size", batch_size, minimum=1)
    check_integer("seed", seed, minimum=0)


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
    if isinstance(splits, (str, bytes, Mapping)) or not isinstance(splits, Sequence) or not splits:
        raise ValueError("splits must be a non-empty list of batches")
    batches = []
    for batch in splits:
        if isinstance(batch, (str, bytes, Mapping)) or not isinstance(batch, Sequence):
            raise ValueError(f"each batch of splits must be a list of indices, got {batch!r}")
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
    if splits is None:  # they draw the batches; given splits, they are unused
        _check_draw(n_runs=n_runs, batch_size=batch_size, seed=seed)
    listing = check_sequence("listing", listing, str, "entry names (str)")
    accumulators = check_mapping(
        "accumulators", accumulators, CurveAccumulator, "a CurveAccumulator"
    )
    if not listing:
        raise ValueError("listing must name at least one entry of the label folder; got none")
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
        aps[~empty] = zero_undefined_aps(np.array(pooled), what="batches")
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
    if splits is None:  # they draw the batches; given splits, they are unused
        _check_draw(n_runs=n_runs, batch_size=batch_size, seed=seed)
    cases = check_sequence(
        "accumulators_per_case", accumulators_per_case, CurveAccumulator, "a CurveAccumulator"
    )
    if not cases:
        raise ValueError("accumulators_per_case must hold one CurveAccumulator per case; got none")
    names = [str(i) for i in range(len(cases))]
    return listing_batch_ap(
        names,
        dict(zip(names, cases, strict=True)),
        n_runs=n_runs,
        batch_size=batch_size,
        seed=seed,
        splits=splits,
    )


def _pooled_ap(accumulators: Sequence[CurveAccumulator]) -> float:
    _, pos, total = merge_accumulators(accumulators).histogram()
    return float(average_precision_from_histograms(pos[None, :], total[None, :])[0])
