"""cc3d's labelling and statistics, done a slab of planes at a time and then joined.

cc3d holds Python's GIL for a whole call: labelling a 512^3 map took 1.7 s and its
statistics 0.8 s during which no other thread ran (a viewer's window froze while its
worker labelled). It also makes its labels as uint32 plus a table of provisional labels
before they can be narrowed. Here a C-ordered volume is labelled :data:`SLAB_VOXELS`
voxels (whole planes along axis 0) per cc3d call, so each call holds the GIL for tens of
milliseconds and every temporary is a slab's size; then

1. each slab's objects get provisional ids, slab after slab;
2. objects touching across the face between two slabs are joined (the neighbours
   ``connectivity`` allows between a plane and the next: the 9 of a 3 x 3 window for 26,
   the one opposite for 6) by :func:`scipy.sparse.csgraph.connected_components`;
3. objects are renumbered by their smallest provisional id. cc3d numbers a slab's
   objects in C raster order of their first voxel and slabs follow each other in that
   order, so this is C raster order over the volume: the labels cc3d gives the whole
   volume, voxel for voxel;
4. voxel counts, boxes and centroids are summed over an object's slabs (coordinate sums
   are integers recovered from each slab's centroid, exact below 2**52).

:func:`label_slabs` does this for a volume in memory; :class:`SlabLabeller` takes the
slabs one by one (made on the fly, e.g. a slab of a score map compared with a
threshold, so that no full-size mask exists) and hands back each slab's final ids.
Every numpy step between the cc3d calls releases the GIL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cc3d
import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

__all__ = ["SLAB_VOXELS", "Joined", "SlabLabeller", "SlabLabels", "label_slabs", "relabel"]

SLAB_VOXELS = 1 << 22
"""Voxels per cc3d call (whole planes, at least one): about 50 ms of labelling here."""

_UINT16_MAX = int(np.iinfo(np.uint16).max)
_PAIR = np.int64(1) << 32  # a face pair (a, b) of provisional nodes is kept as a * _PAIR + b

Neighbours = Literal[6, 26]


@dataclass(frozen=True, eq=False)
class SlabLabels:
    """The labelling of a volume and, when asked for, its objects' statistics.

    Attributes
    ----------
    labels : ndarray
        C-ordered, 0 for background, objects 1..n in C raster order of their first
        voxel; uint16 when ``n`` fits, else uint32.
    n : int
        Number of objects.
    sizes : ndarray of int64, shape (n,)
        Voxels of each object (empty without statistics).
    centroids : ndarray of float64, shape (n, 3)
        Mean voxel index of each object.
    bbox_lo, bbox_hi : ndarray of int64, shape (n, 3)
        Each object's box: first index and one past the last, per axis.
    """

    labels: np.ndarray
    n: int
    sizes: np.ndarray
    centroids: np.ndarray
    bbox_lo: np.ndarray
    bbox_hi: np.ndarray


@dataclass(frozen=True, eq=False)
class _Stats:
    counts: np.ndarray  # (n,) int64
    sums: np.ndarray  # (n, 3) float64, integer-valued coordinate sums
    lo: np.ndarray  # (n, 3) int64
    hi: np.ndarray  # (n, 3) int64, exclusive


@dataclass(frozen=True, eq=False)
class Joined:
    """The slabs of a :class:`SlabLabeller` joined: final ids and statistics.

    Attributes
    ----------
    n : int
        Number of objects.
    dtype : numpy dtype
        uint16 when ``n`` fits, else uint32.
    node_ids : ndarray of int64
        Final id (1-based) of every provisional node, slab after slab (entry 0: background).
    counts : tuple of int
        Provisional ids of each slab (slab ``i``'s id ``k`` is node
        ``sum(counts[:i]) + k``).
    sizes, centroids, bbox_lo, bbox_hi : ndarray
        As :class:`SlabLabels` (empty without statistics).
    sums : ndarray of float64, shape (n, 3)
        Each object's coordinate sums (integer-valued): ``centroids`` is ``sums / sizes``.
    """

    n: int
    dtype: np.dtype
    node_ids: np.ndarray
    counts: tuple[int, ...]
    sizes: np.ndarray
    centroids: np.ndarray
    bbox_lo: np.ndarray
    bbox_hi: np.ndarray
    sums: np.ndarray

    def slab_ids(self, index: int) -> np.ndarray:
        """Return the final id of each of slab ``index``'s provisional ids (1, 2, ...).

        Parameters
        ----------
        index : int
            The slab's position.

        Returns
        -------
        numpy.ndarray
            A view of :attr:`node_ids`.
        """
        first = sum(self.counts[:index])
        return self.node_ids[first + 1 : first + self.counts[index] + 1]

    @property
    def index(self) -> np.ndarray:
        """Final 0-based index of every provisional node (without the background)."""
        return self.node_ids[1:] - 1


class SlabLabeller:
    """Label a C-ordered 3-D volume a slab of whole planes at a time, then join the slabs.

    Give :meth:`add` the slabs in order (``planes`` planes each, the last one may have
    fewer); it returns each slab's provisional labels (1..n in the slab, uint16 when they
    fit). :meth:`join` then gives every provisional id its final one
    (:class:`Joined`); :func:`relabel` writes a slab's final labels.

    Parameters
    ----------
    shape : tuple of int
        Shape of the 3-D volume.
    neighbours : {6, 26}
        cc3d's connectivity.
    stats : bool
        Also compute each object's size, centroid and box.
    whole : bool
        The whole volume in one slab (one cc3d call).

    Examples
    --------
    >>> v = np.zeros((4, 3, 3), dtype=bool); v[:, 1, 1] = True
    >>> labeller = SlabLabeller(v.shape, 6, stats=True)
    >>> labeller.planes = 1
    >>> parts = [labeller.add(v[i : i + 1]) for i in range(4)]
    >>> joined = labeller.join()
    >>> joined.n, joined.sizes.tolist(), [joined.slab_ids(i).tolist() for i in range(4)]
    (1, [4], [[1], [1], [1], [1]])
    """

    def __init__(
        self, shape: tuple[int, ...], neighbours: Neighbours, *, stats: bool, whole: bool = False
    ) -> None:
        if len(shape) != 3:
            raise ValueError(f"SlabLabeller needs a 3-D shape, got {shape}")
        per_plane = max(1, shape[1] * shape[2])
        self.shape = tuple(int(s) for s in shape)
        self.planes = shape[0] if whole else max(1, SLAB_VOXELS // per_plane)
        self._neighbours = neighbours
        self._stats_wanted = stats
        self._counts: list[int] = []
        self._stats: list[_Stats] = []
        self._edges: list[np.ndarray] = []
        self._last: np.ndarray | None = None  # the previous slab's last plane, as nodes
        self._start = 0

    @property
    def counts(self) -> tuple[int, ...]:
        """Provisional ids of each slab added so far."""
        return tuple(self._counts)

    def add(self, part: np.ndarray) -> np.ndarray:
        """Label the next slab (C-contiguous bool); return its provisional labels.

        Parameters
        ----------
        part : numpy.ndarray
            The next planes of the mask.

        Returns
        -------
        numpy.ndarray
            The slab's provisional labels (1, 2, ... within the slab).

        Raises
        ------
        ValueError
            When ``part`` is not a C-contiguous 3-D bool array or does not fit the volume.
        """
        if part.ndim != 3 or not part.flags.c_contiguous or part.dtype != np.bool_:
            raise ValueError("a slab must be a C-contiguous 3-D bool array")
        if part.shape[1:] != self.shape[1:] or self._start + part.shape[0] > self.shape[0]:
            raise ValueError(f"slab of shape {part.shape} does not fit a volume of {self.shape}")
        labels, n = _cc3d(part, self._neighbours)
        first = sum(self._counts)
        if self._last is not None and part.shape[0]:
            pairs = _face_pairs(self._last, _nodes(labels[0], first), self._neighbours)
            self._edges.append(pairs)
        if part.shape[0]:
            self._last = _nodes(labels[-1], first)
        if self._stats_wanted and n:
            self._stats.append(_slab_stats(labels, self._start))
        self._counts.append(n)
        self._start += part.shape[0]
        return labels

    def join(self) -> Joined:
        """Return the final ids of every provisional node and, with statistics, each object's.

        Returns
        -------
        Joined
            The number of objects, the final ids and, when asked for, sizes, centroids and
            bounding boxes.
        """
        node_ids = _components(self._edges, sum(self._counts) + 1)
        n = int(node_ids.max(initial=0))
        dtype = np.dtype(np.uint16 if n <= _UINT16_MAX else np.uint32)
        sizes, sums, lo, hi = _summed(self._stats, node_ids[1:] - 1, n)
        centroids = sums / np.maximum(sizes, 1)[:, None]
        return Joined(n, dtype, node_ids, tuple(self._counts), sizes, centroids, lo, hi, sums)


def label_slabs(
    volume: np.ndarray, neighbours: Neighbours, *, stats: bool, whole: bool = False
) -> SlabLabels:
    """Label a C-contiguous 3-D bool ``volume`` as cc3d would, a slab at a time.

    Parameters
    ----------
    volume : ndarray of bool, 3-D, C-contiguous
        Foreground voxels.
    neighbours : {6, 26}
        cc3d's connectivity.
    stats : bool
        Also compute each object's size, centroid and box.
    whole : bool
        One cc3d call for the whole volume (a batch job with no event loop to keep
        responsive: no joining, no copy; the same labels).

    Returns
    -------
    SlabLabels

    Examples
    --------
    >>> v = np.zeros((4, 3, 3), dtype=bool); v[:, 1, 1] = True; v[0, 0, 0] = True
    >>> found = label_slabs(v, 6, stats=True)
    >>> found.n, found.sizes.tolist(), found.labels[:, 1, 1].tolist()
    (2, [1, 4], [2, 2, 2, 2])
    """
    if volume.ndim != 3 or not volume.flags.c_contiguous or volume.dtype != np.bool_:
        raise ValueError("label_slabs needs a C-contiguous 3-D bool volume")
    labeller = SlabLabeller(volume.shape, neighbours, stats=stats, whole=whole)
    step = labeller.planes
    parts = [labeller.add(volume[start : start + step]) for start in range(0, len(volume), step)]
    joined = labeller.join()
    labels = _assemble(volume.shape, parts, joined)
    return SlabLabels(
        labels, joined.n, joined.sizes, joined.centroids, joined.bbox_lo, joined.bbox_hi
    )


def _cc3d(part: np.ndarray, neighbours: Neighbours) -> tuple[np.ndarray, int]:
    """cc3d on one slab; labels narrowed to uint16 when they fit."""
    if not part.any():  # most slabs of a map at a high threshold
        return np.zeros(part.shape, dtype=np.uint16), 0
    connectivity: Literal[6, 18, 26] = neighbours
    if sorted(part.shape)[1] == 1:  # cc3d 4.1.1 raises for 26-connected lines
        connectivity = 6
    elif neighbours == 26 and min(part.shape) == 1:
        connectivity = 18  # one plane: its 26 neighbours are its 18 (cc3d 4.1.1 raises for 26)
    labels, n = cc3d.connected_components(
        part, connectivity=connectivity, return_N=True, binary_image=True
    )
    if n <= _UINT16_MAX and labels.dtype != np.uint16:
        labels = labels.astype(np.uint16)
    return labels, int(n)


def _slab_stats(labels: np.ndarray, start: int) -> _Stats:
    found = cc3d.statistics(labels, no_slice_conversion=True)
    counts = np.asarray(found["voxel_counts"], dtype=np.int64)[1:]
    boxes = np.asarray(found["bounding_boxes"], dtype=np.int64)[1:].reshape(-1, 6)
    centroids = np.asarray(found["centroids"], dtype=np.float64)[1:].reshape(-1, 3)
    offset = np.array([start, 0, 0], dtype=np.int64)
    sums = np.rint(centroids * counts[:, None]) + offset * counts[:, None]
    return _Stats(counts, sums, boxes[:, 0::2] + offset, boxes[:, 1::2] + 1 + offset)


def _nodes(plane: np.ndarray, first: int) -> np.ndarray:
    """Return a plane of provisional labels as node ids (0 stays background)."""
    nodes = plane.astype(np.int64)
    return np.where(nodes > 0, nodes + first, 0)


def _components(edges: list[np.ndarray], nodes: int) -> np.ndarray:
    """Return the final object id (1-based) of every provisional node (node 0: background)."""
    pairs = np.concatenate(edges) if edges else np.zeros(0, dtype=np.int64)
    if pairs.size == 0:
        return np.arange(nodes, dtype=np.int64)
    graph = sparse.coo_matrix(
        (np.ones(pairs.size, dtype=np.int8), (pairs // _PAIR, pairs % _PAIR)),
        shape=(nodes, nodes),
    )
    count, component = csgraph.connected_components(graph, directed=False)
    first = np.full(count, nodes, dtype=np.int64)
    np.minimum.at(first, component, np.arange(nodes, dtype=np.int64))
    rank = np.empty(count, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(count)  # node 0 is alone and first: rank 0
    return rank[component]


_SHIFTS: dict[int, tuple[tuple[int, int], ...]] = {
    6: ((0, 0),),
    26: tuple((dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)),
}


def _face_pairs(below: np.ndarray, above: np.ndarray, neighbours: Neighbours) -> np.ndarray:
    """Distinct touching (node, node) pairs across a face, as keys ``a * _PAIR + b``.

    ``below`` is the last plane of a slab and ``above`` the first of the next.
    """
    rows, cols = below.shape
    found = []
    for dy, dx in _SHIFTS[neighbours]:
        low = below[max(0, -dy) : rows - max(0, dy), max(0, -dx) : cols - max(0, dx)]
        high = above[max(0, dy) : rows - max(0, -dy), max(0, dx) : cols - max(0, -dx)]
        both = (low > 0) & (high > 0)
        keys = low[both] * _PAIR + high[both]
        found.append(keys[np.flatnonzero(np.diff(keys, prepend=-1))])  # each run once
    return np.unique(np.concatenate(found))


def _assemble(shape: tuple[int, ...], parts: list[np.ndarray], joined: Joined) -> np.ndarray:
    """Return the final label image, filled slab by slab (each slab's provisional labels freed)."""
    if len(parts) == 1:  # numbered as they will stay
        return parts.pop().astype(joined.dtype, copy=False)
    out = np.empty(shape, dtype=joined.dtype)
    start = 0
    for index in range(len(parts)):
        labels, parts[index] = parts[index], np.zeros(0, np.uint16)
        relabel(labels, joined.slab_ids(index), out[start : start + len(labels)])
        start += len(labels)
    return out


def relabel(labels: np.ndarray, ids: np.ndarray, out: np.ndarray) -> None:
    """``out = ids[labels - 1]`` (0 stays 0): a slab's provisional labels made final.

    ``ids`` holds the final id of each provisional one (:meth:`Joined.slab_ids`); a shift
    when they are consecutive, a table lookup otherwise.

    Parameters
    ----------
    labels : numpy.ndarray
        A slab's provisional labels.
    ids : numpy.ndarray
        Final id of each provisional id.
    out : numpy.ndarray
        Where the final labels are written (same shape).
    """
    if ids.size and ids[-1] - ids[0] == ids.size - 1 and bool(np.all(np.diff(ids) == 1)):
        out[...] = 0
        np.add(labels, ids[0] - 1, out=out, where=labels > 0, casting="unsafe")
        return
    lut = np.zeros(ids.size + 1, dtype=out.dtype)
    lut[1:] = ids
    np.take(lut, labels, out=out, mode="clip")  # labels <= ids.size: clip is a no-op


def _summed(
    stats: list[_Stats], index: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each object's size, coordinate sums and box, summed over its slabs' pieces."""
    parts = [s for s in stats if s.counts.size]
    if not parts or n == 0:
        empty = np.zeros((0, 3), dtype=np.int64)
        return np.zeros(0, np.int64), empty.astype(float), empty, empty
    counts = np.concatenate([p.counts for p in parts])
    sizes = np.bincount(index, weights=counts, minlength=n).astype(np.int64)
    sums = np.concatenate([p.sums for p in parts])
    totals = np.stack([np.bincount(index, weights=sums[:, k], minlength=n) for k in range(3)], 1)
    lo = np.full((n, 3), np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.zeros((n, 3), dtype=np.int64)
    np.minimum.at(lo, index, np.concatenate([p.lo for p in parts]))
    np.maximum.at(hi, index, np.concatenate([p.hi for p in parts]))
    return sizes, totals, lo, hi
