"""Exact precision-recall and ROC curves from score histograms.

Every curve here is built from a table of *distinct score values* with, for each value,
the number of voxels (``total``) and of positive voxels (``pos``) carrying it. Two modes:

``"mood"``
    Scores are quantised exactly as the official MOOD scorer does (float16, clipped to
    [0, 1]); the table is two int64 histograms over the ``N_CODES`` float16 codes, so its
    memory does not depend on the number of voxels or cases.
``"exact"``
    Scores are clipped to [0, 1] in float32 without float16 quantisation; the table holds
    only the distinct values seen, so its memory grows with the number of distinct values.

Tables add up, so a :class:`CurveAccumulator` can take case after case (or be merged with
one filled elsewhere) and still yield the exact curve of the pooled voxels. Ties share one
operating point, as in ``sklearn.metrics.precision_recall_curve``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.core._checks import check_array, check_instance
from napari_mood.core._float16 import memory_order_axes as memory_order_axes
from napari_mood.core._float16 import memory_walk, walked
from napari_mood.core.scores import (
    N_CODES,
    ScoreMode,
    check_mode,
    code_values,
    gt_mask,
    nan_error,
    to_exact_values,
    to_mood_codes,
)

_CHUNK = 1 << 18  # voxels per bincount call: int64 temporaries of 2 MiB stay in cache
_STREAM_VOXELS = 1 << 24  # voxels per slab of CurveAccumulator.add (~50 MiB of temporaries)


_Table = tuple[np.ndarray, np.ndarray, np.ndarray]  # (values, pos, total), ascending values


def check_curve(curve: object) -> Curve:
    """Return ``curve``; TypeError naming the argument unless it is a :class:`Curve`.

    Parameters
    ----------
    curve : Curve
        The argument given where a curve is expected.

    Returns
    -------
    Curve
        ``curve``.
    """
    return check_instance(  # type: ignore[no-any-return]
        "curve", curve, Curve, "a Curve (from curve_from_arrays or CurveAccumulator.curve)"
    )


def _slabs(shape: tuple[int, ...]) -> list[tuple[Any, ...]]:
    """Slabs along the first axis of at most :data:`_STREAM_VOXELS` voxels (one: the whole).

    Scores are read slab by slab, so the temporaries (codes, label checks) of any array,
    a view of terabytes included, stay bounded; the tables of the slabs add up.
    """
    size = int(np.prod(shape, dtype=np.int64))
    if size <= _STREAM_VOXELS or len(shape) < 1 or shape[0] < 2:
        return [(Ellipsis,)]
    rows = max(1, _STREAM_VOXELS // max(1, size // shape[0]))
    return [(slice(first, first + rows),) for first in range(0, shape[0], rows)]


def _nan_count(scores: np.ndarray) -> int:
    return int(np.count_nonzero(np.isnan(scores))) if scores.dtype.kind == "f" else 0


def check_labels(labels: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Return binary ``labels`` of ``shape`` as a bool array.

    Strict :func:`~napari_mood.core.scores.gt_mask`: values other than 0 and 1 raise
    ValueError.

    Parameters
    ----------
    labels : numpy.ndarray
        Ground truth of 0s and 1s (or bools).
    shape : tuple of int
        The shape of the scores ``labels`` goes with.

    Returns
    -------
    numpy.ndarray
        ``labels`` as bool.

    Raises
    ------
    ValueError
        When the shapes differ or ``labels`` holds a value other than 0 and 1.
    """
    arr = np.asarray(labels)
    if arr.shape != shape:
        raise ValueError(f"labels shape {arr.shape} differs from scores shape {shape}")
    return gt_mask(arr, strict=True)


def code_histograms(codes: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(pos, total)`` int64 histograms over the ``N_CODES`` float16 codes.

    Both arrays are walked in the memory order of ``codes``, flipped axes included (a
    display view of a map), a slab of rows at a time: no full-size copy is made.

    Parameters
    ----------
    codes : numpy.ndarray
        Float16 score codes (uint16), any shape and memory layout.
    labels : numpy.ndarray
        Bool ground truth of the same shape.

    Returns
    -------
    pos : numpy.ndarray
        Per code, the number of GT voxels with that code.
    total : numpy.ndarray
        Per code, the number of voxels with that code.
    """
    walk = memory_walk(codes)
    kept = [n for n in codes.shape if n != 1] or [1]  # slabs along a real axis (views)
    walk_codes = walked(codes, walk).reshape(kept)
    walk_labels = walked(labels, walk).reshape(kept)
    pos = np.zeros(N_CODES, dtype=np.int64)
    total = np.zeros(N_CODES, dtype=np.int64)
    per_row = max(1, walk_codes[:1].size)
    rows = max(1, _CHUNK // per_row)
    for first in range(0, walk_codes.shape[0], rows):
        slab_codes = walk_codes[first : first + rows].reshape(-1)
        slab_labels = walk_labels[first : first + rows].reshape(-1)
        for start in range(0, slab_codes.size, _CHUNK):
            stop = start + _CHUNK
            count_codes(slab_codes[start:stop], slab_labels[start:stop], pos, total)
    return pos, total


def count_codes(codes: np.ndarray, labels: np.ndarray, pos: np.ndarray, total: np.ndarray) -> None:
    """Add the 1-D ``codes`` to the histograms of :func:`code_histograms`, in place.

    ``labels`` (bool, beside ``codes``) says which go to ``pos``; all go to ``total``.

    Parameters
    ----------
    codes : numpy.ndarray
        1-D float16 score codes.
    labels : numpy.ndarray
        1-D bools beside ``codes``.
    pos, total : numpy.ndarray
        The histograms to add to (int64, ``N_CODES`` bins); modified in place.
    """
    total += np.bincount(codes, minlength=N_CODES)
    pos += np.bincount(codes[labels], minlength=N_CODES)


def _exact_table(
    values: np.ndarray, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    flat = values.reshape(-1)
    distinct, total = np.unique(flat, return_counts=True)
    pos_values, pos_counts = np.unique(flat[labels.reshape(-1)], return_counts=True)
    pos = np.zeros(distinct.size, dtype=np.int64)
    pos[np.searchsorted(distinct, pos_values)] = pos_counts
    return distinct.astype(np.float64), pos, total.astype(np.int64)


def _merge_tables(
    tables: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tables = list(tables)
    values = np.unique(np.concatenate([t[0] for t in tables]))
    pos = np.zeros(values.size, dtype=np.int64)
    total = np.zeros(values.size, dtype=np.int64)
    for table_values, table_pos, table_total in tables:
        where = np.searchsorted(values, table_values)  # distinct within a table: no clash
        pos[where] += table_pos
        total[where] += table_total
    return values, pos, total


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class Curve:
    """Operating points of a score map against binary labels.

    Attributes
    ----------
    thresholds : ndarray of float64
        Distinct score values, in DESCENDING order. Operating point ``i`` flags every
        voxel whose score is ``>= thresholds[i]``.
    tp, fp : ndarray of int64
        Cumulative true / false positives at each operating point.
    n_pos, n_neg : int
        Numbers of positive and negative voxels.
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: int
    n_neg: int

    @property
    def n_total(self) -> int:
        """Number of voxels."""
        return self.n_pos + self.n_neg

    @property
    def precision(self) -> np.ndarray:
        """``tp / (tp + fp)`` at each operating point (never 0/0: every point flags a voxel)."""
        return self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> np.ndarray:
        """True-positive rate ``tp / n_pos``; all NaN when there is no positive voxel."""
        if self.n_pos == 0:
            return np.full(self.tp.shape, np.nan)
        return self.tp / self.n_pos

    @property
    def tpr(self) -> np.ndarray:
        """Alias of :attr:`recall`."""
        return self.recall

    @property
    def fpr(self) -> np.ndarray:
        """False-positive rate ``fp / n_neg``; all NaN when there is no negative voxel."""
        if self.n_neg == 0:
            return np.full(self.fp.shape, np.nan)
        return self.fp / self.n_neg

    def pr_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(recall, precision)`` for plotting, by increasing recall.

        The first point is ``(0, 1)`` (nothing flagged), as in scikit-learn; then one point
        per operating point. Plot it as a step curve (``drawstyle="steps-post"`` reversed,
        or ``where="pre"``) to show what average precision integrates.

        Returns
        -------
        recall, precision : numpy.ndarray
            The curve's points, recall increasing, starting at ``(0, 1)``.
        """
        return np.concatenate([[0.0], self.recall]), np.concatenate([[1.0], self.precision])


def curve_from_histogram(values: np.ndarray, pos: np.ndarray, total: np.ndarray) -> Curve:
    """Build a :class:`Curve` from a table sorted by ASCENDING distinct ``values``.

    Entries with ``total == 0`` are skipped: they are not operating points.

    Parameters
    ----------
    values : numpy.ndarray
        Distinct score values, ascending.
    pos : numpy.ndarray
        Per value, the number of GT voxels scored with it.
    total : numpy.ndarray
        Per value, the number of voxels scored with it.

    Returns
    -------
    Curve
        One operating point per value with voxels, highest threshold first.

    Examples
    --------
    >>> c = curve_from_histogram(np.array([0.1, 0.5, 0.9]), np.array([0, 1, 1]),
    ...                          np.array([2, 2, 1]))
    >>> c.thresholds.tolist(), c.tp.tolist(), c.fp.tolist()
    ([0.9, 0.5, 0.1], [1, 2, 2], [0, 1, 3])
    """
    present = np.flatnonzero(total)[::-1]
    pos_desc = np.asarray(pos, dtype=np.int64)[present]
    neg_desc = np.asarray(total, dtype=np.int64)[present] - pos_desc
    tp = np.cumsum(pos_desc)
    fp = np.cumsum(neg_desc)
    return Curve(
        thresholds=_readonly(np.asarray(values, dtype=np.float64)[present]),
        tp=_readonly(tp),
        fp=_readonly(fp),
        n_pos=int(tp[-1]) if tp.size else 0,
        n_neg=int(fp[-1]) if fp.size else 0,
    )


class CurveAccumulator:
    """Mergeable counts of (score, label) pairs from which exact curves are built.

    Parameters
    ----------
    mode : {"mood", "exact"}
        ``"mood"``: float16 quantisation as the official scorer (two int64 histograms of
        ``N_CODES`` bins, memory independent of the data). ``"exact"``: float32 scores,
        a sorted table of distinct values (memory grows with the distinct values).

    Examples
    --------
    >>> acc = CurveAccumulator()
    >>> acc.add(np.array([0.1, 0.9, 0.4]), np.array([False, True, False]))
    >>> acc.n_pos, acc.n_total
    (1, 3)
    >>> acc.curve().tp.tolist()
    [1, 1, 1]
    """

    def __init__(self, *, mode: ScoreMode = "mood") -> None:
        check_mode(mode)
        self._mode: ScoreMode = mode
        n_bins = N_CODES if mode == "mood" else 0
        # mood mode: the read-only code values, shared (a copy per accumulator would be a
        # third of the memory of the per-case histograms an evaluation keeps)
        self._values = code_values() if mode == "mood" else np.empty(0)
        self._pos = np.zeros(n_bins, dtype=np.int64)
        self._total = np.zeros(n_bins, dtype=np.int64)

    @property
    def mode(self) -> ScoreMode:
        """``"mood"`` or ``"exact"``."""
        return self._mode

    @property
    def n_pos(self) -> int:
        """Number of positive voxels added so far."""
        return int(self._pos.sum())

    @property
    def n_total(self) -> int:
        """Number of voxels added so far."""
        return int(self._total.sum())

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the shared code values in mood mode (smaller for workers)."""
        state = self.__dict__.copy()
        if self._mode == "mood":
            state["_values"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled accumulator, sharing the read-only mood code values again."""
        self.__dict__.update(state)
        if self._mode == "mood":
            self._values = code_values()

    def __repr__(self) -> str:
        """Show the mode and the positive and total voxel counts."""
        return f"CurveAccumulator(mode={self._mode!r}, n_pos={self.n_pos}, n_total={self.n_total})"

    def add(self, scores: np.ndarray, labels: np.ndarray) -> None:
        """Count the voxels of ``scores`` against the bool ``labels`` of the same shape.

        NaN scores raise ValueError: decide the NaN policy before calling. Inputs are not
        modified.

        Parameters
        ----------
        scores : numpy.ndarray
            A score map (or any array of scores).
        labels : numpy.ndarray
            Ground truth of the same shape, 0/1 or bool.

        Raises
        ------
        ValueError
            When the shapes differ, ``labels`` is not binary or a score is NaN.
        """
        scores = check_array("scores", scores)
        truth = check_array("labels", labels)
        if truth.shape != scores.shape:
            raise ValueError(f"labels shape {truth.shape} differs from scores shape {scores.shape}")
        slabs = _slabs(scores.shape)
        part = None  # the slabs' table so far: added to the counts once every slab is read
        try:
            for slab in slabs:
                table = self._table(scores[slab], truth[slab])
                part = table if part is None else self._sum(part, table)
        except ValueError:
            n_nan = sum(_nan_count(scores[slab]) for slab in slabs)
            if n_nan:  # the count of every slab, not of the first one holding a NaN
                raise nan_error(n_nan) from None
            raise
        if part is not None:
            self._values, self._pos, self._total = self._sum(self.histogram(), part)

    def _sum(self, first: _Table, second: _Table) -> _Table:
        """Return the table of the voxels of two tables (mood mode: shared code values)."""
        if self._mode == "mood":
            return self._values, first[1] + second[1], first[2] + second[2]
        return _merge_tables([first, second])

    def _table(self, scores: np.ndarray, labels: np.ndarray) -> _Table:
        """``(values, pos, total)`` of one slab (mood mode: the shared code values)."""
        truth = check_labels(labels, scores.shape)
        if self._mode == "mood":
            return (self._values, *code_histograms(to_mood_codes(scores), truth))
        return _exact_table(to_exact_values(scores), truth)

    def merge(self, other: CurveAccumulator) -> CurveAccumulator:
        """Return a new accumulator holding the counts of ``self`` and ``other``.

        Parameters
        ----------
        other : CurveAccumulator
            An accumulator of the same mode.

        Returns
        -------
        CurveAccumulator
            A new accumulator; ``self`` and ``other`` are unchanged.
        """
        return merge_accumulators([self, other])

    def copy(self) -> CurveAccumulator:
        """Return an independent copy.

        Returns
        -------
        CurveAccumulator
            An accumulator with the same mode and counts, sharing no array with this one.
        """
        return CurveAccumulator.from_histogram(*self.histogram(), mode=self._mode)

    def histogram(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return copies of ``(values, pos, total)``, sorted by ascending value.

        In mood mode ``values`` is every float16 value of the codes ``0..ONE_CODE`` (as
        float64), with zero counts where no voxel has that value; in exact mode only the
        distinct values seen. Restore with :meth:`from_histogram`.

        Returns
        -------
        values : numpy.ndarray
            Score values, ascending (float64).
        pos : numpy.ndarray
            Per value, the GT voxels counted (int64).
        total : numpy.ndarray
            Per value, all voxels counted (int64).
        """
        return self._values.copy(), self._pos.copy(), self._total.copy()

    @classmethod
    def from_histogram(
        cls,
        values: np.ndarray,
        pos: np.ndarray,
        total: np.ndarray,
        *,
        mode: ScoreMode = "mood",
    ) -> CurveAccumulator:
        """Rebuild an accumulator from the arrays returned by :meth:`histogram`.

        Parameters
        ----------
        values, pos, total : numpy.ndarray
            The table :meth:`histogram` returns.
        mode : {"mood", "exact"}
            The score mode the table was counted in.

        Returns
        -------
        CurveAccumulator
            An accumulator holding those counts.

        Raises
        ------
        ValueError
            When the arrays differ in length, counts are not ``0 <= pos <= total`` or the
            values do not fit ``mode``.
        TypeError
            When ``pos`` or ``total`` is not an integer array.
        """
        acc = cls(mode=mode)
        values, pos, total = _checked_table(values, pos, total, mode=mode)
        acc._values, acc._pos, acc._total = values, pos, total
        return acc

    def curve(self) -> Curve:
        """Return the exact :class:`Curve` of every voxel added so far.

        Returns
        -------
        Curve
            The precision-recall / ROC operating points of the counts.
        """
        return curve_from_histogram(self._values, self._pos, self._total)


def _checked_table(
    values: np.ndarray, pos: np.ndarray, total: np.ndarray, *, mode: ScoreMode
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values = np.array(values, dtype=np.float64)
    pos = np.array(pos)
    total = np.array(total)
    if not (values.ndim == pos.ndim == total.ndim == 1 and values.size == pos.size == total.size):
        raise ValueError("values, pos and total must be 1-D arrays of the same length")
    if not (np.issubdtype(pos.dtype, np.integer) and np.issubdtype(total.dtype, np.integer)):
        raise TypeError("pos and total must be integer arrays")
    if np.any(pos < 0) or np.any(pos > total):
        raise ValueError("counts must satisfy 0 <= pos <= total")
    if mode == "mood" and not np.array_equal(values, code_values()):
        raise ValueError("mood-mode values must be the N_CODES float16 code values")
    if mode == "mood":
        values = code_values()  # shared and read-only, as in a new accumulator
    if mode == "exact" and (
        np.any(np.diff(values) <= 0) or np.any(values < 0) or np.any(values > 1)
    ):
        raise ValueError("exact-mode values must be strictly increasing within [0, 1]")
    return values, pos.astype(np.int64), total.astype(np.int64)


def merge_accumulators(accumulators: Iterable[CurveAccumulator]) -> CurveAccumulator:
    """Return a new accumulator holding the counts of all ``accumulators`` (same mode).

    Parameters
    ----------
    accumulators : iterable of CurveAccumulator
        At least one accumulator, all of one mode.

    Returns
    -------
    CurveAccumulator
        A new accumulator; the inputs are unchanged.

    Raises
    ------
    ValueError
        When ``accumulators`` is empty or mixes modes.

    Examples
    --------
    >>> a, b = CurveAccumulator(), CurveAccumulator()
    >>> a.add(np.array([0.2]), np.array([True]))
    >>> b.add(np.array([0.7]), np.array([False]))
    >>> merge_accumulators([a, b]).n_total
    2
    """
    accs = list(accumulators)
    if not accs:
        raise ValueError("need at least one accumulator to merge")
    modes = {acc.mode for acc in accs}
    if len(modes) != 1:
        raise ValueError(f"cannot merge accumulators of different modes: {sorted(modes)}")
    mode = accs[0].mode
    if mode == "mood":
        pos = np.zeros(N_CODES, dtype=np.int64)
        total = np.zeros(N_CODES, dtype=np.int64)
        for acc in accs:
            pos += acc._pos
            total += acc._total
        return CurveAccumulator.from_histogram(code_values(), pos, total, mode="mood")
    merged = _merge_tables(acc.histogram() for acc in accs)
    return CurveAccumulator.from_histogram(*merged, mode="exact")


def curve_from_arrays(scores: np.ndarray, labels: np.ndarray, *, mode: ScoreMode = "mood") -> Curve:
    """Return the exact :class:`Curve` of ``scores`` against bool ``labels``.

    Parameters
    ----------
    scores : numpy.ndarray
        A score map (NaN raises ValueError).
    labels : numpy.ndarray
        Ground truth of the same shape, 0/1 or bool.
    mode : {"mood", "exact"}
        ``"mood"`` quantises scores to float16 as the official scorer does; ``"exact"``
        keeps their float32 values.

    Returns
    -------
    Curve
        One operating point per distinct score value.

    Examples
    --------
    >>> c = curve_from_arrays(np.array([0.3, 0.3, 0.8]), np.array([0, 1, 1]))
    >>> c.tp.tolist(), c.fp.tolist(), c.n_pos, c.n_neg
    ([1, 2], [0, 1], 2, 1)
    """
    check_mode(mode)
    acc = CurveAccumulator(mode=mode)
    acc.add(scores, labels)
    return acc.curve()
