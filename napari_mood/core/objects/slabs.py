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

Every numpy step between the cc3d calls releases the GIL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cc3d
import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

__all__ = ["SLAB_VOXELS", "SlabLabels", "label_slabs"]

SLAB_VOXELS = 1 << 22
"""Voxels per cc3d call (whole planes, at least one): about 50 ms of labelling here."""

_UINT16_MAX = int(np.iinfo(np.uint16).max)

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


@dataclass(eq=False)
class _Slab:
    start: int
    labels: np.ndarray | None  # provisional (1..n in this slab), dropped once joined
    n: int
    stats: _Stats | None


@dataclass(frozen=True, eq=False)
class _Stats:
    counts: np.ndarray  # (n,) int64
    sums: np.ndarray  # (n, 3) float64, integer-valued coordinate sums
    lo: np.ndarray  # (n, 3) int64
    hi: np.ndarray  # (n, 3) int64, exclusive


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
    per_plane = max(1, volume.shape[1] * volume.shape[2])
    planes = volume.shape[0] if whole else max(1, SLAB_VOXELS // per_plane)
    slabs = [
        _label_slab(volume[start : start + planes], start, neighbours, stats)
        for start in range(0, volume.shape[0], planes)
    ]
    node_ids = _join(slabs, neighbours)
    n = int(node_ids.max(initial=0))
    labels = _assemble(volume.shape, slabs, node_ids, n)
    if not stats:
        empty = np.zeros((0, 3), dtype=np.int64)
        return SlabLabels(labels, n, np.zeros(0, np.int64), empty.astype(float), empty, empty)
    return _with_stats(labels, n, slabs, node_ids)


def _label_slab(part: np.ndarray, start: int, neighbours: Neighbours, stats: bool) -> _Slab:
    """cc3d on one slab; labels narrowed to uint16 when they fit."""
    if sorted(part.shape)[1] == 1:  # cc3d 4.1.1 raises for 26-connected lines
        neighbours = 6
    labels, n = cc3d.connected_components(
        part, connectivity=neighbours, return_N=True, binary_image=True
    )
    if n <= _UINT16_MAX and labels.dtype != np.uint16:
        labels = labels.astype(np.uint16)
    return _Slab(start, labels, int(n), _slab_stats(labels, start) if stats else None)


def _slab_stats(labels: np.ndarray, start: int) -> _Stats:
    found = cc3d.statistics(labels, no_slice_conversion=True)
    counts = np.asarray(found["voxel_counts"], dtype=np.int64)[1:]
    boxes = np.asarray(found["bounding_boxes"], dtype=np.int64)[1:].reshape(-1, 6)
    centroids = np.asarray(found["centroids"], dtype=np.float64)[1:].reshape(-1, 3)
    offset = np.array([start, 0, 0], dtype=np.int64)
    sums = np.rint(centroids * counts[:, None]) + offset * counts[:, None]
    return _Stats(counts, sums, boxes[:, 0::2] + offset, boxes[:, 1::2] + 1 + offset)


def _join(slabs: list[_Slab], neighbours: Neighbours) -> np.ndarray:
    """Final object id (1-based) of every provisional node (node 0: background)."""
    starts = np.cumsum([0] + [s.n for s in slabs])
    total = int(starts[-1])
    nodes = total + 1
    keys = [
        _face_pairs(_plane(low, starts[i], -1), _plane(high, starts[i + 1], 0), neighbours, nodes)
        for i, (low, high) in enumerate(zip(slabs, slabs[1:], strict=False))
    ]
    edges = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    if edges.size == 0:
        return np.arange(nodes, dtype=np.int64)
    graph = sparse.coo_matrix(
        (np.ones(edges.size, dtype=np.int8), (edges // nodes, edges % nodes)), shape=(nodes, nodes)
    )
    count, component = csgraph.connected_components(graph, directed=False)
    first = np.full(count, nodes, dtype=np.int64)
    np.minimum.at(first, component, np.arange(nodes, dtype=np.int64))
    rank = np.empty(count, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(count)  # node 0 is alone and first: rank 0
    return rank[component]


def _plane(slab: _Slab, start: np.integer, index: int) -> np.ndarray:
    """Plane ``index`` of a slab as provisional node ids (0 stays background)."""
    assert slab.labels is not None
    plane = slab.labels[index].astype(np.int64)
    return np.where(plane > 0, plane + int(start), 0)


_SHIFTS: dict[int, tuple[tuple[int, int], ...]] = {
    6: ((0, 0),),
    26: tuple((dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1)),
}


def _face_pairs(
    below: np.ndarray, above: np.ndarray, neighbours: Neighbours, nodes: int
) -> np.ndarray:
    """Distinct touching (node, node) pairs across a face as keys ``a * nodes + b``:
    ``below`` is the last plane of a slab and ``above`` the first of the next."""
    rows, cols = below.shape
    found = []
    for dy, dx in _SHIFTS[neighbours]:
        low = below[max(0, -dy) : rows - max(0, dy), max(0, -dx) : cols - max(0, dx)]
        high = above[max(0, dy) : rows - max(0, -dy), max(0, dx) : cols - max(0, -dx)]
        both = (low > 0) & (high > 0)
        keys = low[both] * nodes + high[both]
        found.append(keys[np.flatnonzero(np.diff(keys, prepend=-1))])  # each run once
    return np.unique(np.concatenate(found))


def _assemble(
    shape: tuple[int, ...], slabs: list[_Slab], node_ids: np.ndarray, n: int
) -> np.ndarray:
    """The final label image, filled slab by slab (each slab's provisional labels freed)."""
    dtype = np.uint16 if n <= _UINT16_MAX else np.uint32
    if len(slabs) == 1 and slabs[0].labels is not None:  # numbered as they will stay
        labels, slabs[0].labels = slabs[0].labels, None
        return labels.astype(dtype, copy=False)
    out = np.empty(shape, dtype=dtype)
    first_node = 0
    for slab in slabs:
        assert slab.labels is not None
        ids = node_ids[first_node + 1 : first_node + slab.n + 1]
        part = out[slab.start : slab.start + slab.labels.shape[0]]
        _relabel(slab.labels, ids, part)
        first_node += slab.n
        slab.labels = None
    return out


def _relabel(labels: np.ndarray, ids: np.ndarray, out: np.ndarray) -> None:
    """``out = ids[labels - 1]`` (0 stays 0); a shift when the ids are consecutive."""
    if ids.size and ids[-1] - ids[0] == ids.size - 1 and bool(np.all(np.diff(ids) == 1)):
        out[...] = 0
        np.add(labels, ids[0] - 1, out=out, where=labels > 0, casting="unsafe")
        return
    lut = np.zeros(ids.size + 1, dtype=out.dtype)
    lut[1:] = ids
    np.take(lut, labels, out=out, mode="clip")  # labels <= ids.size: clip is a no-op


def _with_stats(labels: np.ndarray, n: int, slabs: list[_Slab], node_ids: np.ndarray) -> SlabLabels:
    """Each object's size, centroid and box, summed over its slabs' pieces."""
    parts = [s.stats for s in slabs if s.stats is not None and s.n]
    if not parts or n == 0:
        empty = np.zeros((0, 3), dtype=np.int64)
        return SlabLabels(labels, n, np.zeros(0, np.int64), empty.astype(float), empty, empty)
    index = node_ids[1:] - 1  # final 0-based index of each provisional node
    counts = np.concatenate([p.counts for p in parts])
    sizes = np.bincount(index, weights=counts, minlength=n).astype(np.int64)
    sums = np.concatenate([p.sums for p in parts])
    totals = np.stack([np.bincount(index, weights=sums[:, k], minlength=n) for k in range(3)], 1)
    lo = np.full((n, 3), np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.zeros((n, 3), dtype=np.int64)
    np.minimum.at(lo, index, np.concatenate([p.lo for p in parts]))
    np.maximum.at(hi, index, np.concatenate([p.hi for p in parts]))
    return SlabLabels(labels, n, sizes, totals / sizes[:, None], lo, hi)
