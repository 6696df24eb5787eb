"""Label images kept as runs of equal values (C order) while that is the smaller form.

A viewer keeps a labelling per (map, threshold) so that its panels share it (the
objects layer, the review's regions). Dense, a 512^3 labelling is 256 MiB (uint16) or
512 MiB (uint32, over 65,535 objects); its objects are blobs and specks in a mostly empty
volume, so runs of one value along the last axis are long and few: the maps of the
viewer benchmark at 0.5 and 0.7 take 0.3 to 400 MiB as runs. :func:`compact` keeps an
image as :class:`RunLengths` when that takes at most half its bytes, else as it is;
:func:`dense` gives the array back, equal element for element.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["RunLengths", "compact", "concatenate_runs", "count_runs", "dense", "run_bytes"]

RUN_CHUNK = 1 << 24
"""Elements compared per step while looking for runs (a 16 MiB bool temporary)."""


@dataclass(frozen=True, eq=False)
class RunLengths:
    """A C-ordered array as runs: ``values[i]`` repeated ``lengths[i]`` times.

    Attributes
    ----------
    shape : tuple of int
        Shape of the array.
    values : ndarray
        Value of each run, in the array's dtype.
    lengths : ndarray of uint32 (int64 past 2**32 elements)
        Length of each run.
    """

    shape: tuple[int, ...]
    values: np.ndarray
    lengths: np.ndarray

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes + self.lengths.nbytes)

    def dense(self) -> np.ndarray:
        """The array, C-ordered."""
        return np.repeat(self.values, self.lengths).reshape(self.shape)


def compact(
    labels: np.ndarray, *, worth: float = 0.5, count: int | None = None
) -> np.ndarray | RunLengths:
    """``labels`` as :class:`RunLengths` when they take at most ``worth`` of its bytes.

    Parameters
    ----------
    labels : ndarray
        A C-contiguous label image (else it is returned as it is).
    worth : float
        Largest fraction of the dense bytes the runs may take.
    count : int, optional
        The number of runs (:func:`count_runs`) when already known.

    Returns
    -------
    ndarray or RunLengths

    Examples
    --------
    >>> image = np.zeros((4, 100), dtype=np.uint16); image[1:3, 10:90] = 7
    >>> runs = compact(image)
    >>> runs.lengths.tolist(), runs.values.tolist(), bool((dense(runs) == image).all())
    ([110, 80, 20, 80, 110], [0, 7, 0, 7, 0], True)
    """
    if labels.size == 0 or not labels.flags.c_contiguous:
        return labels
    lengths_dtype = _lengths_dtype(labels.size)
    budget = worth * labels.nbytes / (labels.itemsize + np.dtype(lengths_dtype).itemsize)
    count = count_runs(labels) if count is None else count
    if count > budget:  # counted first: giving up costs no memory
        return labels
    flat = labels.reshape(-1)
    values = np.empty(count, dtype=labels.dtype)
    ends: np.ndarray = np.empty(count, dtype=lengths_dtype)  # each run's end, then its length
    values[0] = flat[0]
    at = 0
    for start in range(0, flat.size - 1, RUN_CHUNK):
        changes = np.flatnonzero(_changed(flat, start)) + (start + 1)  # where runs start
        ends[at : at + changes.size] = changes
        values[at + 1 : at + 1 + changes.size] = flat[changes]
        at += changes.size
    ends[-1] = flat.size
    _differences(ends)
    return RunLengths(tuple(labels.shape), values, ends)


def concatenate_runs(
    runs: Iterable[RunLengths], shape: tuple[int, ...], *, total: int | None = None
) -> RunLengths:
    """Consecutive pieces' runs (in C order) as one :class:`RunLengths` of ``shape``.

    Runs that continue across two pieces are joined, so the result's runs are maximal
    when each piece's are. The result is written into arrays of ``total`` runs (the
    pieces' sum, counted first when not given), so the pieces can be handed over one
    at a time by an iterator that lets each go: no other temporary is made.

    Examples
    --------
    >>> a, b = compact(np.array([[0, 0, 5, 5]]), worth=np.inf), compact(np.array([[5, 0, 0, 0]]), worth=np.inf)
    >>> joined = concatenate_runs([a, b], (2, 4))
    >>> joined.values.tolist(), joined.lengths.tolist(), joined.dense().tolist()
    ([0, 5, 0], [2, 3, 3], [[0, 0, 5, 5], [5, 0, 0, 0]])
    """
    if total is None:
        runs = list(runs)
        total = sum(piece.values.size for piece in runs)
    values: np.ndarray | None = None
    lengths: np.ndarray = np.empty(total, dtype=_lengths_dtype(int(np.prod(shape))))
    at = 0
    for piece in runs:
        if values is None:
            values = np.empty(total, dtype=piece.values.dtype)
        skip = int(at > 0 and piece.values.size > 0 and values[at - 1] == piece.values[0])
        if skip:  # the last run goes on into this piece
            lengths[at - 1] += piece.lengths[0]
        end = at + piece.values.size - skip
        values[at:end] = piece.values[skip:]
        lengths[at:end] = piece.lengths[skip:]
        at = end
    if values is None:
        raise ValueError("no runs to concatenate")
    return RunLengths(shape, values[:at], lengths[:at])  # at most one spare run per piece


def count_runs(labels: np.ndarray) -> int:
    """Runs of equal values in a C-contiguous array, in C order (0 when it is empty).

    Examples
    --------
    >>> count_runs(np.array([[0, 0, 7], [7, 0, 0]]))
    3
    """
    flat = labels.reshape(-1)
    if flat.size == 0:
        return 0
    chunks = range(0, flat.size - 1, RUN_CHUNK)
    return 1 + sum(int(np.count_nonzero(_changed(flat, start))) for start in chunks)


def run_bytes(count: int, size: int, dtype: np.dtype) -> int:
    """Bytes of ``count`` runs of an array of ``size`` elements of ``dtype``."""
    return count * (np.dtype(dtype).itemsize + np.dtype(_lengths_dtype(size)).itemsize)


def _lengths_dtype(size: int) -> type:
    return np.uint32 if size < 2**32 else np.int64


def _differences(ends: np.ndarray) -> None:
    """Turn increasing run ends into run lengths, in place (a chunk at a time, last first)."""
    for stop in range(ends.size, 1, -RUN_CHUNK):
        start = max(1, stop - RUN_CHUNK)
        ends[start:stop] -= ends[start - 1 : stop - 1]  # numpy buffers the overlap


def _changed(flat: np.ndarray, start: int) -> np.ndarray:
    """Where element ``start + i + 1`` differs from the one before, for a chunk."""
    part = flat[start : start + RUN_CHUNK + 1]
    return part[1:] != part[:-1]


def dense(labels: np.ndarray | RunLengths) -> np.ndarray:
    """The array behind :func:`compact`'s result (itself when it was kept dense)."""
    return labels.dense() if isinstance(labels, RunLengths) else labels
