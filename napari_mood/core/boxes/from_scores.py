"""Boxes from a 2-D score map, so that any pixel-level method can be scored with boxes.

Rule: pixels with ``score >= threshold`` (compared as float64; a threshold in [0, 1] as
everywhere in napari-mood) are split into connected components (``"full"``: 8
neighbours, default; ``"face"``: 4). Each component gives the box enclosing its pixels
(:mod:`.geometry`'s convention: columns ``c0 .. c1`` -> ``x1 = c0, x2 = c1 + 1``) and the
confidence ``max(score)`` inside the component. Boxes are listed in raster order of the
components' first pixel.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from napari_mood.core.boxes.model import BoxSet
from napari_mood.core.objects.components import Connectivity, label_objects
from napari_mood.core.scores import check_threshold

__all__ = ["boxes_from_score_map"]


def boxes_from_score_map(
    score: np.ndarray,
    *,
    threshold: float,
    image: str = "",
    connectivity: Connectivity = "full",
    min_pixels: int = 1,
) -> BoxSet:
    """Boxes of the connected regions of ``score >= threshold``, confidence = max score.

    Parameters
    ----------
    score : ndarray, 2-D
        A score map (rows, columns); NaN is refused.
    threshold : float
        In [0, 1].
    image : str
        The image id given to every box.
    connectivity : {"full", "face"}
        8- or 4-neighbourhood.
    min_pixels : int
        Components smaller than this are dropped (default 1: none).

    Returns
    -------
    BoxSet
        One box per region of at least ``min_pixels`` pixels, on ``image``.

    Examples
    --------
    >>> score = np.zeros((6, 8))
    >>> score[1:3, 2:5] = 0.7
    >>> score[2, 3] = 0.9
    >>> score[5, 7] = 0.6
    >>> boxes = boxes_from_score_map(score, threshold=0.5, image="s1")
    >>> boxes.xyxy.tolist(), boxes.scores.tolist()
    ([[2.0, 1.0, 5.0, 3.0], [7.0, 5.0, 8.0, 6.0]], [0.9, 0.6])
    """
    arr = np.asarray(score, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"a score map for boxes must be 2-D, got shape {arr.shape}")
    if np.isnan(arr).any():
        raise ValueError(f"the score map holds {int(np.isnan(arr).sum())} NaN values")
    if min_pixels < 1:
        raise ValueError(f"min_pixels must be 1 or more; got {min_pixels}")
    labels, n = label_objects(arr >= check_threshold(threshold), connectivity=connectivity)
    if n == 0:
        return BoxSet.empty()
    slices = ndimage.find_objects(labels)
    index = np.arange(1, n + 1)
    peaks = np.asarray(ndimage.maximum(arr, labels, index), dtype=np.float64)
    sizes = np.bincount(labels.ravel(), minlength=n + 1)[1:]
    keep = sizes >= min_pixels
    xyxy = np.array([[s[1].start, s[0].start, s[1].stop, s[0].stop] for s in slices], dtype=float)
    return BoxSet.build([image] * int(keep.sum()), xyxy[keep], scores=peaks[keep])
