"""One labelling per (map, threshold), shared by the objects, readouts and review jobs.

Moving a threshold slider asks three widgets for the same thing: the connected components
of ``score >= threshold`` matched to the ground truth. :class:`LabellingCache` computes
that :class:`~napari_mood.core.objects.LabelledMatch` once and hands it to each of them.
It also keeps each map's voxel histograms against the GT
(:meth:`LabellingCache.histograms`, a :class:`~napari_mood.core.curves.CurveAccumulator`):
computed once per (map, GT), they answer every voxel count at any threshold (flagged
voxels, Dice, the case's pixel AP) without reading the volume again.

Key
    The *identity* of the map array and of the GT array (``id`` of the objects; entries
    hold weak references, so an entry never outlives its arrays and a recycled ``id``
    never hits a stale entry), the threshold's float16 *code*
    (:func:`~napari_mood.core.scores.threshold_code`: two thresholds between the same two
    stored values flag the same voxels and share an entry), the connectivity and the
    spacing. Arrays are taken as read-only: a map whose values change must be a new array
    (or call :meth:`LabellingCache.clear`).

Bounds
    At most ``max_entries`` entries and ``max_bytes`` bytes of label images; the least
    recently used entries go first. ``after_labelling`` is called after each labelling
    (a viewer gives the freed heap back to the system there:
    :func:`~napari_mood._napari._malloc.release_free_heap`).

Threads
    Thread-safe. A request for a key another thread is computing waits for that result
    instead of labelling again; a failed computation is not cached (the error is raised
    to every waiter). Labellings run one at a time: cc3d holds the GIL, so two at once
    take as long as one after the other, and would need their temporaries at the same
    time (up to about 0.9 GB each for a 512^3 map whose objects are specks).

Labels
    Readouts and comparison counts ask for ``labels=False``: a map whose label image
    would not fit as runs in half its dense bytes (specks everywhere) keeps none, and
    makes none, saving up to 0.5 GB per 512^3 map. The objects and review jobs ask for
    the label image; such an entry is then labelled again and replaced.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.objects import Connectivity, LabelledMatch, labelled_match
from napari_mood.core.scores import check_threshold, gt_mask, threshold_code

__all__ = ["LabellingCache", "labelled"]

DEFAULT_MAX_ENTRIES = 16
DEFAULT_MAX_BYTES = 1 << 30


@dataclass(eq=False)
class _Entry:
    score_ref: Any  # weakref.ref to the map array
    gt_ref: Any  # weakref.ref to the GT array, or None
    result: Future[Any]  # a LabelledMatch or a CurveAccumulator

    def alive(self) -> bool:
        return self.score_ref() is not None and (self.gt_ref is None or self.gt_ref() is not None)

    def nbytes(self) -> int:
        if not self.result.done() or self._failed():
            return 0
        return int(getattr(self.result.result(), "nbytes", 0))

    def _failed(self) -> bool:
        return self.result.exception() is not None


def _weak(arr: Any) -> Any:
    try:
        return weakref.ref(arr)
    except TypeError:  # not weak-referenceable (e.g. a scalar): never cached
        return None


def labelled(
    score: np.ndarray,
    gt: np.ndarray | None,
    *,
    threshold: float,
    connectivity: Connectivity = "full",
    spacing: Sequence[float] | None = None,
    labels: bool = True,
) -> LabelledMatch:
    """:func:`~napari_mood.core.objects.labelled_match` with an all-normal GT when None.

    ``labels`` False: the predicted label image is kept only when small as runs
    (``keep_dense=False``; enough for counts, readouts and records).

    Parameters
    ----------
    score : numpy.ndarray
        A score map.
    gt : numpy.ndarray or None
        Its ground truth.
    threshold : float
        The threshold.
    connectivity : {"full", "face"}
        Object connectivity.
    spacing : sequence of float, optional
        Voxel size in mm.
    labels : bool
        Whether a dense predicted label image is kept.

    Returns
    -------
    LabelledMatch
        The match and its labelling.
    """
    truth = np.zeros(np.shape(score), dtype=bool) if gt is None else gt
    return labelled_match(
        score,
        truth,
        threshold=threshold,
        connectivity=connectivity,
        spacing=spacing or None,
        keep_dense=labels,
    )


def _histograms(score: np.ndarray, gt: np.ndarray | None) -> CurveAccumulator:
    data = np.asarray(score)
    truth = np.zeros(data.shape, dtype=bool) if gt is None else gt_mask(np.asarray(gt))
    acc = CurveAccumulator()
    acc.add(data, truth)
    return acc


class LabellingCache:
    """Bounded, thread-safe cache of labelled matches (see the module docstring).

    Examples
    --------
    >>> cache = LabellingCache(max_entries=4)
    >>> score = np.zeros((6, 6)); score[1:3, 1:3] = 0.9
    >>> a = cache.get(score, None, threshold=0.3)
    >>> b = cache.get(score, None, threshold=0.30004)  # flags the same float16 values
    >>> a is b, b.match_at(0.30004).threshold, cache.stats()
    (True, 0.30004, (1, 1))
    """

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        after_labelling: Callable[[], object] | None = None,
    ) -> None:
        if max_entries < 1 or max_bytes < 0:
            raise ValueError("max_entries must be >= 1 and max_bytes >= 0")
        self._after = after_labelling
        self._max_entries = max_entries
        self._max_bytes = max_bytes
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._labelling = threading.Lock()  # one labelling at a time (see Threads)
        self._hits = 0
        self._misses = 0

    def __len__(self) -> int:
        """Return the number of entries held."""
        with self._lock:
            return len(self._entries)

    def stats(self) -> tuple[int, int]:
        """``(hits, misses)`` so far.

        Returns
        -------
        tuple of int
            Hits and misses.
        """
        with self._lock:
            return self._hits, self._misses

    def clear(self) -> None:
        """Drop every entry (e.g. when a map array was modified in place)."""
        with self._lock:
            self._entries.clear()

    def get(
        self,
        score: np.ndarray,
        gt: np.ndarray | None,
        *,
        threshold: float,
        connectivity: Connectivity = "full",
        spacing: Sequence[float] | None = None,
        labels: bool = True,
    ) -> LabelledMatch:
        """Return the labelled match of ``score`` at ``threshold``, computed at most once per key.

        Entries are shared between thresholds that flag the same voxels: the result
        reports the threshold it was computed at; ``result.match_at(threshold)`` and
        ``readout_from_match(result, threshold=threshold)`` report ``threshold``.

        ``labels`` False (counts and readouts): a dense label image is neither made nor
        kept (:func:`labelled`). An entry without its label image is labelled again,
        and replaced, when ``labels`` is asked for.

        Parameters
        ----------
        score : numpy.ndarray
            A score map.
        gt : numpy.ndarray or None
            Its ground truth.
        threshold : float
            The threshold.
        connectivity : {"full", "face"}
            Object connectivity.
        spacing : sequence of float, optional
            Voxel size in mm.
        labels : bool
            Whether the predicted label image is needed.

        Returns
        -------
        LabelledMatch
            The match, shared with other callers.
        """
        value = check_threshold(threshold)
        key = self._key(score, gt, value, connectivity, spacing)

        def compute() -> LabelledMatch:
            with self._labelling:
                try:
                    return labelled(
                        score,
                        gt,
                        threshold=value,
                        connectivity=connectivity,
                        spacing=spacing,
                        labels=labels,
                    )
                finally:
                    if self._after is not None:
                        self._after()

        found: LabelledMatch = self._cached(key, score, gt, compute)
        while labels and not found.has_labels:
            self._forget(key, found)
            found = self._cached(key, score, gt, compute)
        return found

    def histograms(self, score: np.ndarray, gt: np.ndarray | None) -> CurveAccumulator:
        """Voxel histograms of ``score`` (as MOOD reads it) against ``gt``, computed once.

        ``gt`` None: an all-normal ground truth (every count is a false positive).
        The accumulator is shared: copy it before adding to it.

        Parameters
        ----------
        score : numpy.ndarray
            A score map.
        gt : numpy.ndarray or None
            Its ground truth.

        Returns
        -------
        CurveAccumulator
            The shared accumulator.

        Examples
        --------
        >>> cache = LabellingCache()
        >>> score = np.array([[0.2, 0.9], [0.9, 0.4]]); gt = score > 0.5
        >>> acc = cache.histograms(score, gt)
        >>> acc is cache.histograms(score, gt), acc.n_pos, acc.n_total
        (True, 2, 4)
        """
        key = ("histograms", id(score), None if gt is None else id(gt))
        return self._cached(key, score, gt, lambda: _histograms(score, gt))

    def _cached(self, key: Hashable, score: Any, gt: Any, compute: Callable[[], Any]) -> Any:
        """Return the entry for ``key``, computed by ``compute`` at most once while it lives."""
        score_ref, gt_ref = _weak(score), None if gt is None else _weak(gt)
        if score_ref is None or (gt is not None and gt_ref is None):
            return compute()
        future, owner = self._claim(key, score_ref, gt_ref)
        if owner:
            self._compute(key, future, compute)
        return future.result()

    @staticmethod
    def _key(
        score: Any,
        gt: Any,
        value: float,
        connectivity: str,
        spacing: Sequence[float] | None,
    ) -> Hashable:
        spacing_key = tuple(float(s) for s in spacing) if spacing else ()
        gt_id = None if gt is None else id(gt)
        return (id(score), gt_id, threshold_code(value), connectivity, spacing_key)

    def _claim(self, key: Hashable, score_ref: Any, gt_ref: Any) -> tuple[Future, bool]:
        """Return the future for ``key`` and whether this caller must compute it."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.alive():
                self._entries.move_to_end(key)
                self._hits += 1
                return entry.result, False
            self._misses += 1
            future: Future[Any] = Future()
            self._entries[key] = _Entry(score_ref, gt_ref, future)
            return future, True

    def _forget(self, key: Hashable, result: Any) -> None:
        """Drop the entry for ``key`` if it still holds ``result``."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and (
                entry.result.done()
                and entry.result.exception() is None
                and entry.result.result() is result
            ):
                del self._entries[key]

    def _compute(self, key: Hashable, future: Future, compute: Callable[[], Any]) -> None:
        try:
            result = compute()
        except BaseException as error:
            with self._lock:
                if self._entries.get(key) is not None and self._entries[key].result is future:
                    del self._entries[key]
            future.set_exception(error)
            return
        future.set_result(result)
        self._evict()

    def _evict(self) -> None:
        """Drop dead entries, then the oldest until both bounds hold (never the newest).

        The byte bound counts label images only: it drops the oldest labelling, never a
        map's histograms (1 MiB each, kept while their map lives and the entry bound holds).
        """
        with self._lock:
            for key in [k for k, e in self._entries.items() if not e.alive()]:
                del self._entries[key]
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)
            newest = next(reversed(self._entries), None)
            while sum(e.nbytes() for e in self._entries.values()) > self._max_bytes:
                key = next(k for k, e in self._entries.items() if e.nbytes() > 0)
                if key == newest:
                    break
                del self._entries[key]
