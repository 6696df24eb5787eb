"""Boxes in pixel coordinates: the convention, checks, areas and IoU.

Convention (COCO's): a box is ``(x1, y1, x2, y2)`` in continuous pixel coordinates with
``x`` along image columns and ``y`` along rows, pixel edges on whole numbers. Pixel
``(row r, column c)`` covers ``[c, c + 1) x [r, r + 1)``, so a box covering columns
``c0 .. c1`` and rows ``r0 .. r1`` (inclusive) is ``(c0, r0, c1 + 1, r1 + 1)``. Width is
``x2 - x1`` and height ``y2 - y1`` (no ``+ 1``, as COCO's ``bbox`` ``[x, y, w, h]`` and
its IoU). Boxes touching along an edge have IoU 0; a box of zero width or height has
IoU 0 with everything (itself included), exactly as ``pycocotools``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_boxes", "box_areas", "box_iou"]


def as_boxes(boxes: object, *, what: str = "boxes") -> np.ndarray:
    """Return ``boxes`` as a float64 ``(n, 4)`` array of ``(x1, y1, x2, y2)``; checked.

    Parameters
    ----------
    boxes : array-like
        ``(n, 4)`` boxes ``(x1, y1, x2, y2)`` (or an empty sequence).
    what : str
        Their name in the messages.

    Returns
    -------
    numpy.ndarray
        ``(n, 4)`` float64 array.

    Raises
    ------
    ValueError
        Wrong shape, a value that is not finite, or ``x2 < x1`` / ``y2 < y1``.

    Examples
    --------
    >>> as_boxes([[0, 0, 2, 3]]).tolist()
    [[0.0, 0.0, 2.0, 3.0]]
    >>> as_boxes([]).shape
    (0, 4)
    """
    arr = np.asarray(boxes, dtype=np.float64)
    if arr.size == 0:
        return np.zeros((0, 4), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise ValueError(f"{what} must have shape (n, 4), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{what} hold values that are not finite numbers")
    bad = np.flatnonzero((arr[:, 2] < arr[:, 0]) | (arr[:, 3] < arr[:, 1]))
    if bad.size:
        raise ValueError(
            f"{what}: box {int(bad[0])} has x2 < x1 or y2 < y1: {arr[bad[0]].tolist()}"
        )
    return arr


def box_areas(boxes: object) -> np.ndarray:
    """Areas ``(x2 - x1) * (y2 - y1)`` in square pixels (no ``+ 1``, as COCO).

    Parameters
    ----------
    boxes : array-like
        ``(n, 4)`` boxes ``(x1, y1, x2, y2)``.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` areas.

    Examples
    --------
    >>> box_areas([[0, 0, 2, 3], [2, 2, 2, 7]]).tolist()
    [6.0, 0.0]
    """
    arr = as_boxes(boxes)
    return (arr[:, 2] - arr[:, 0]) * (arr[:, 3] - arr[:, 1])


def box_iou(first: object, second: object) -> np.ndarray:
    """Intersection over union of every box of ``first`` with every box of ``second``.

    Returns an ``(n, m)`` array. Boxes that do not overlap with positive width **and**
    height have IoU 0 (touching boxes, degenerate boxes), as ``pycocotools`` computes it.

    Parameters
    ----------
    first, second : array-like
        ``(n, 4)`` and ``(m, 4)`` boxes ``(x1, y1, x2, y2)``.

    Returns
    -------
    numpy.ndarray
        ``(n, m)`` IoUs in [0, 1].

    Examples
    --------
    >>> box_iou([[0, 0, 2, 2]], [[1, 0, 3, 2], [2, 0, 4, 2]]).round(4).tolist()
    [[0.3333, 0.0]]
    """
    a, b = as_boxes(first, what="first"), as_boxes(second, what="second")
    width = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    height = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    overlap = (width > 0) & (height > 0)
    inter = np.where(overlap, width * height, 0.0)
    union = box_areas(a)[:, None] + box_areas(b)[None, :] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=overlap)
