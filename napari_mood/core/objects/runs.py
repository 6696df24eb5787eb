"""Label images kept as runs of equal values (C order) while that is the smaller form.

A viewer keeps a labelling per (map, threshold) so that its panels share it (the
objects layer, the review's regions). Dense, a 512^3 labelling is 256 MiB (uint16) or
512 MiB (uint32, over 65,535 objects); its objects are blobs and specks in a mostly empty
volume, so runs of one value along the last axis are long and few: the maps of the
viewer benchmark at 0.5 and 0.7 take 0.3 to 400 MiB as runs. :func:`compact` keeps an
image as :class:`RunLengths` when that takes at most half its bytes, else as it is;
:func:`dense` gives the array back, equal element for element (or writes it into a
given array, a few thousand runs at a time). :class:`RunWriter` joins the runs of
consecutive pieces (a labelling's slabs) into one result as they come, so the pieces
and the result are not held twice over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "RunLengths",
    "RunWriter",
    "compact",
    "concatenate_runs",
    "count_runs",
    "dense",
    "run_bytes",
]

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
        """The values' dtype."""
        return self.values.dtype

    @property
    def nbytes(self) -> int:
        """Bytes held by the runs."""
        return int(self.values.nbytes + self.lengths.nbytes)

    def dense(self, out: np.ndarray | None = None) -> np.ndarray:
        """Return the array, C-ordered.

        Written into ``out`` (C-contiguous, of ``shape``) when given, a few thousand runs
        at a time (no temporary of the array's size).

        Parameters
        ----------
        out : numpy.ndarray, optional
            Where to write the array.

        Returns
        -------
        numpy.ndarray
            The array (``out`` when given).
        """
        if out is None:
            return np.repeat(self.values, self.lengths).reshape(self.shape)
        flat = out.reshape(-1)  # a view for a C-contiguous out
        at = 0
        for start in range(0, self.values.size, _DECODE_RUNS):
            values = self.values[start : start + _DECODE_RUNS]
            lengths = self.lengths[start : start + _DECODE_RUNS]
            total = int(lengths.sum())
            if total <= RUN_CHUNK:
                flat[at : at + total] = np.repeat(values, lengths)
            else:  # long runs: each written in place
                for value, length in zip(values.tolist(), lengths.tolist(), strict=True):
                    flat[at : at + length] = value
                    at += length
                continue
            at += total
        return out


_DECODE_RUNS = 4096
"""Runs decoded per step by :meth:`RunLengths.dense` into a given array."""


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


class RunWriter:
    """Pieces' runs (consecutive, in C order) written one after another into one result.

    A run that goes on from one piece into the next is joined, so the result's runs are
    maximal when each piece's are. The arrays hold ``capacity`` runs (an upper bound:
    pages never written are never made resident) and are cut to the runs written by
    :meth:`result`, in place, so the pieces and the result are never held twice over.

    Parameters
    ----------
    capacity : int
        At most this many runs will be written.
    dtype : dtype
        Type of the values.
    size : int
        Number of elements of the whole array (it picks the lengths' type).
    """

    def __init__(self, capacity: int, dtype: np.dtype, size: int) -> None:
        self._values: np.ndarray = np.empty(capacity, dtype=dtype)
        self._lengths: np.ndarray = np.empty(capacity, dtype=_lengths_dtype(size))
        self._at = 0

    @property
    def nbytes(self) -> int:
        """Bytes of the runs written so far."""
        return self._at * (self._values.itemsize + self._lengths.itemsize)

    def add(self, piece: RunLengths) -> None:
        """Write the runs of the next piece (raises ValueError past the capacity).

        Parameters
        ----------
        piece : RunLengths
            The runs of the next piece in C order; a run continuing the last one is joined.
        """
        values, lengths, at = piece.values, piece.lengths, self._at
        skip = int(at > 0 and values.size > 0 and self._values[at - 1] == values[0])
        if skip:  # the last run goes on into this piece
            self._lengths[at - 1] += lengths[0]
        end = at + values.size - skip
        if end > self._values.size:
            raise ValueError(f"{end} runs written, more than the capacity {self._values.size}")
        self._values[at:end] = values[skip:]
        self._lengths[at:end] = lengths[skip:]
        self._at = end

    def result(self, shape: tuple[int, ...]) -> RunLengths:
        """Return the runs written, as the :class:`RunLengths` of an array of ``shape``.

        Parameters
        ----------
        shape : tuple of int
            Shape of the whole array.

        Returns
        -------
        RunLengths
            The runs; the writer is empty afterwards.
        """
        values, lengths, at = self._values, self._lengths, self._at
        self._values, self._lengths = values[:0].copy(), lengths[:0].copy()
        self._at = 0
        for arr in (values, lengths):
            arr.resize(at, refcheck=False)  # cut in place (no view of it exists)
        return RunLengths(shape, values, lengths)


def concatenate_runs(runs: Sequence[RunLengths], shape: tuple[int, ...]) -> RunLengths:
    """Join consecutive pieces' runs (in C order) into one :class:`RunLengths` of ``shape``.

    Written with a :class:`RunWriter`.

    Parameters
    ----------
    runs : sequence of RunLengths
        Consecutive pieces, at least one.
    shape : tuple of int
        Shape of the whole array.

    Returns
    -------
    RunLengths
        The joined runs.

    Raises
    ------
    ValueError
        When ``runs`` is empty.

    Examples
    --------
    >>> a, b = compact(np.array([[0, 0, 5, 5]]), worth=np.inf), compact(np.array([[5, 0, 0, 0]]), worth=np.inf)
    >>> joined = concatenate_runs([a, b], (2, 4))
    >>> joined.values.tolist(), joined.lengths.tolist(), joined.dense().tolist()
    ([0, 5, 0], [2, 3, 3], [[0, 0, 5, 5], [5, 0, 0, 0]])
    """
    if not runs:
        raise ValueError("no runs to concatenate")
    total = sum(piece.values.size for piece in runs)
    writer = RunWriter(total, runs[0].values.dtype, int(np.prod(shape)))
    for piece in runs:
        writer.add(piece)
    return writer.result(shape)


def count_runs(labels: np.ndarray) -> int:
    """Count the runs of equal values in a C-contiguous array, in C order (0 when it is empty).

    Parameters
    ----------
    labels : numpy.ndarray
        A C-contiguous array.

    Returns
    -------
    int
        The number of runs.

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
    """Bytes of ``count`` runs of an array of ``size`` elements of ``dtype``.

    Parameters
    ----------
    count : int
        Number of runs.
    size : int
        Number of elements of the array (decides the lengths' type).
    dtype : numpy.dtype
        Type of the values.

    Returns
    -------
    int
        Bytes of the values and lengths.
    """
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
    """Return the array behind :func:`compact`'s result (itself when it was kept dense).

    Parameters
    ----------
    labels : numpy.ndarray or RunLengths
        What :func:`compact` returned.

    Returns
    -------
    numpy.ndarray
        The dense array.
    """
    return labels.dense() if isinstance(labels, RunLengths) else labels
