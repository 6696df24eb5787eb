"""The objects of ``keys >= key``, labelled straight from the score map a slab at a time.

What a viewer's readout needs from a map at a threshold (its objects' sizes, centroids,
boxes and scores, and their label image for the objects layer) without the full-size
temporaries of labelling a mask: each slab of the map is put in C order
(:func:`~napari_mood.core._layout.c_contiguous`), compared with the threshold and
labelled (:class:`~napari_mood.core.objects.slabs.SlabLabeller`), its objects' scores
are folded in, and its provisional labels are kept as runs when small
(:func:`~napari_mood.core.objects.runs.compact`). Once the slabs are joined, the final
label image is written slab by slab inside the objects' box, as runs while they take at
most ``worth`` of its dense bytes, else as an array.

At 512^3 the mask, its C-ordered copy and the full-size provisional and final label
images (up to 1.3 GB together) are never made. The labels are those of
:func:`~napari_mood.core.objects.components.find_components` on ``keys >= key``, voxel
for voxel (tested).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from napari_mood.core._layout import c_contiguous
from napari_mood.core.objects.components import (
    Components,
    Connectivity,
    add_piece_scores,
    crop_offset,
    empty_components,
)
from napari_mood.core.objects.runs import (
    RunLengths,
    RunWriter,
    compact,
    count_runs,
    dense,
    run_bytes,
)
from napari_mood.core.objects.slabs import Joined, SlabLabeller, relabel
from napari_mood.core.scores import ScoreMode, key_values

__all__ = ["FlaggedObjects", "flagged_objects"]


@dataclass(frozen=True, eq=False)
class FlaggedObjects:
    """The objects of a score map at a threshold (:func:`flagged_objects`).

    Attributes
    ----------
    components : Components
        Crop (the objects' box), sizes, centroids and boxes; its ``labels`` is empty.
    labels : ndarray or RunLengths or None
        Object ids inside ``components.crop`` (0: background), C-ordered; uint16 when
        the objects fit, else uint32. None when not kept (``keep_dense`` False).
    peak, mean : ndarray of float64
        Highest and mean score (as read) of each object.
    """

    components: Components
    labels: np.ndarray | RunLengths | None
    peak: np.ndarray
    mean: np.ndarray


def flagged_objects(
    keys: np.ndarray,
    key: int | np.number,
    connectivity: Connectivity,
    *,
    mode: ScoreMode,
    worth: float = 0.5,
    keep_dense: bool = True,
) -> FlaggedObjects:
    """Label ``keys >= key`` a slab at a time; statistics, scores and the label image.

    Parameters
    ----------
    keys : ndarray, 2-D or 3-D
        A score map as ordered keys (:func:`~napari_mood.core.scores.score_keys`), in
        any memory order.
    key : number
        The threshold as a key (:func:`~napari_mood.core.scores.key_threshold`).
    connectivity : {"full", "face"}
        As :func:`~napari_mood.core.objects.label_objects`.
    mode : {"mood", "exact"}
        How the keys read as scores.
    worth : float
        The label image is kept as runs when they take at most this fraction of its
        dense bytes.
    keep_dense : bool
        Otherwise keep it as an array; False: keep no label image (``labels`` None),
        and drop the slabs' labels as soon as the runs cannot be worth it.

    Returns
    -------
    FlaggedObjects

    Examples
    --------
    >>> from napari_mood.core.scores import key_threshold, score_keys
    >>> keys = score_keys(np.array([[0.25, 0.75, 0.0], [0.5, 0.0, 0.5]]))
    >>> found = flagged_objects(keys, key_threshold(0.1), "face", mode="mood")
    >>> found.components.sizes.tolist(), found.peak.tolist(), found.mean.tolist()
    ([3, 1], [0.75, 0.5], [0.5, 0.5])
    >>> dense(found.labels).tolist()
    [[1, 1, 0], [1, 0, 2]]
    """
    volume = keys.reshape((1,) * (3 - keys.ndim) + keys.shape)
    labeller = SlabLabeller(volume.shape, 26 if connectivity == "full" else 6, stats=True)
    parts = _Parts(volume.size, worth, keep_dense)
    pieces: list[tuple[np.ndarray, np.ndarray]] = []
    for start in range(0, volume.shape[0], labeller.planes):
        values = c_contiguous(volume[start : start + labeller.planes])
        labels = labeller.add(values >= key)
        pieces.append(_slab_scores(labels, values, labeller.counts[-1], mode))
        parts.add(labels)
    joined = labeller.join()
    if joined.n == 0:
        empty = empty_components(keys.ndim)
        return FlaggedObjects(empty, empty.labels, np.zeros(0), np.zeros(0))
    crop = tuple(
        slice(int(lo), int(hi))
        for lo, hi in zip(joined.bbox_lo.min(0), joined.bbox_hi.max(0), strict=True)
    )
    image = parts.final(joined, crop)
    peak, mean = _object_scores(pieces, joined, keys.dtype, mode)
    drop = 3 - keys.ndim
    return FlaggedObjects(_components(joined, crop, drop), _squeezed(image, drop), peak, mean)


def _components(joined: Joined, crop: tuple[slice, ...], drop: int) -> Components:
    """Return the objects' columns, in a map of ``3 - drop`` dimensions (no label image)."""
    offset = crop_offset(crop)  # centroids rounded as find_components's: in the crop, shifted
    inside = (joined.sums - offset * joined.sizes[:, None]) / joined.sizes[:, None]
    return Components(
        crop=crop[drop:],
        labels=np.zeros((0,) * (3 - drop), dtype=joined.dtype),
        sizes=joined.sizes,
        centroids=(inside + offset)[:, drop:],
        bbox_lo=joined.bbox_lo[:, drop:],
        bbox_hi=joined.bbox_hi[:, drop:],
    )


class _Parts:
    """Each slab's provisional labels (runs when small) until the final ids are known.

    Counts the runs as it goes: the final image has at most as many (ids only merge);
    without ``keep_dense``, every slab is kept as runs until they take more than
    ``worth`` of the smallest final image (uint16 over the whole volume: 128 MiB at
    512^3 for ``worth`` 0.5); then the labels are dropped and no more are kept. So they
    never take more than that plus one slab. (A uint32 image's runs may take twice that
    and still be kept by ``keep_dense``; a counts-only labelling gives them up.)
    """

    def __init__(self, size: int, worth: float, keep_dense: bool) -> None:
        self._size = size
        self._worth = worth
        self._keep_dense = keep_dense
        self._parts: list[np.ndarray | RunLengths | None] | None = []
        self._runs = 0

    def add(self, labels: np.ndarray) -> None:
        count = count_runs(labels)
        self._runs += count
        if self._parts is None:
            return
        if self._keep_dense:
            self._parts.append(compact(labels, count=count))
            return
        if not self._worth_it(self._size, 2):
            self._parts = None  # the runs will take more than the budget
            return
        self._parts.append(compact(labels, worth=np.inf, count=count))  # always runs

    def _worth_it(self, size: int, itemsize: int) -> bool:
        dtype = np.uint16 if itemsize == 2 else np.uint32
        return run_bytes(self._runs, size, np.dtype(dtype)) <= self._worth * size * itemsize

    def final(self, joined: Joined, crop: tuple[slice, ...]) -> np.ndarray | RunLengths | None:
        """Return the final image inside ``crop``: runs, an array, or None (see the class).

        The runs counted so far bound the final image's from above. Without ``keep_dense``
        that bound decides (None when it is over ``worth``); with it, the final runs
        themselves decide as they are written, so an image whose runs fit is runs.
        """
        shape = tuple(s.stop - s.start for s in crop)
        size = int(np.prod(shape))
        if self._parts is None or not (
            self._keep_dense or self._worth_it(size, joined.dtype.itemsize)
        ):
            return None
        parts, self._parts = self._parts, None
        capacity = self._runs + int(np.prod(shape[:-1])) + 1  # see _final_labels
        return _final_labels(parts, joined, crop, self._worth, capacity)


def _slab_scores(
    labels: np.ndarray, keys: np.ndarray, n: int, mode: ScoreMode
) -> tuple[np.ndarray, np.ndarray]:
    """Highest key and sum of values of each provisional object of a slab (ids 1..n)."""
    peak = np.zeros(n + 1, dtype=keys.dtype)
    sums = np.zeros(n + 1)
    add_piece_scores(labels, keys, peak, sums, mode)
    return peak[1:], sums[1:]


def _object_scores(
    pieces: list[tuple[np.ndarray, np.ndarray]], joined: Joined, dtype: np.dtype, mode: ScoreMode
) -> tuple[np.ndarray, np.ndarray]:
    """Highest and mean score of each object, from its slabs' pieces."""
    peak = np.zeros(joined.n, dtype=dtype)
    np.maximum.at(peak, joined.index, np.concatenate([p for p, _ in pieces]))
    sums = np.bincount(joined.index, weights=np.concatenate([s for _, s in pieces]))
    return key_values(peak, mode=mode), sums / joined.sizes


def _final_labels(
    parts: list[np.ndarray | RunLengths | None],
    joined: Joined,
    crop: tuple[slice, ...],
    worth: float,
    capacity: int,
) -> np.ndarray | RunLengths:
    """Return the final label image inside ``crop``, slab by slab (each slab's parts freed).

    ``capacity`` bounds its runs: relabelling only merges runs, and cutting a slab to
    the crop adds at most one run per row of the crop, so the final image has at most
    the provisional runs plus the crop's rows.
    """
    shape = tuple(s.stop - s.start for s in crop)
    gather = _Gather(shape, joined.dtype, worth, capacity)
    start = 0
    for index, part in enumerate(parts):
        parts[index] = None
        assert part is not None
        planes = part.shape[0]
        lo, hi = max(start, crop[0].start), min(start + planes, crop[0].stop)
        if lo < hi:
            inside = dense(part)[lo - start : hi - start, crop[1], crop[2]]
            final = np.empty(inside.shape, dtype=joined.dtype)
            relabel(inside, joined.slab_ids(index), final)
            gather.add(final)
        start += planes
    return gather.result()


class _Gather:
    """Slabs of a label image, written as runs while that is small, else densely.

    Runs (one :class:`RunWriter` of ``capacity`` runs) while they take at most ``worth``
    of the image's dense bytes; past that, into the dense image (the runs so far
    decoded into it).
    """

    def __init__(
        self, shape: tuple[int, ...], dtype: np.dtype, worth: float, capacity: int
    ) -> None:
        self._shape = shape
        self._dtype = dtype
        self._budget = worth * float(np.prod(shape)) * dtype.itemsize
        size = int(np.prod(shape))
        self._writer = RunWriter(capacity, dtype, size) if self._budget > 0 else None
        self._dense: np.ndarray | None = None
        self._at = 0  # planes written

    def add(self, final: np.ndarray) -> None:
        if self._writer is not None:
            runs = compact(final, worth=np.inf)
            assert isinstance(runs, RunLengths)
            if self._writer.nbytes + runs.nbytes <= self._budget:
                self._writer.add(runs)
                self._at += len(final)
                return
        if self._dense is None:
            self._dense = np.empty(self._shape, dtype=self._dtype)
            if self._writer is not None and self._at:
                written = self._writer.result((self._at, *self._shape[1:]))
                written.dense(out=self._dense[: self._at])
            self._writer = None
        self._dense[self._at : self._at + len(final)] = final
        self._at += len(final)

    def result(self) -> np.ndarray | RunLengths:
        if self._dense is not None:
            return self._dense
        assert self._writer is not None
        return self._writer.result(self._shape)


def _squeezed(image: np.ndarray | RunLengths | None, drop: int) -> np.ndarray | RunLengths | None:
    """``image`` without its ``drop`` leading axes of length 1 (a 2-D map's)."""
    if drop == 0 or image is None:
        return image
    if isinstance(image, RunLengths):
        return RunLengths(image.shape[drop:], image.values, image.lengths)
    return image.reshape(image.shape[drop:])
