"""Flagged regions of a method: the connected components a reviewer steps through (pure).

The connected components (26-connectivity) of ``score >= threshold`` at the method's
display threshold, read as the MOOD object rule reads them
(:func:`napari_mood.core.objects.match_objects`). ``scope="window"`` (the default) keeps
the components the MOOD object score counts: those inside the size window set by the
case's ground-truth objects (``0.5 * smallest`` to ``2 * biggest``); without a ground
truth every component is kept. ``scope="all"`` keeps every component, the discarded
specks too. Regions are ranked by max score (highest first), then size (biggest first),
then object id.

Examples
--------
>>> score = np.zeros((6, 6)); score[1:3, 1:3] = 0.9; score[4, 4] = 0.7
>>> [(r.object_id, r.size_voxels) for r in flagged_regions(score, threshold=0.5)]
[(1, 4), (2, 1)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_choice
from napari_mood.core.objects import (
    KINDS,
    Connectivity,
    ObjectMatch,
    ObjectRecord,
    match_objects,
)
from napari_mood.core.scores import check_threshold

__all__ = ["FlaggedRegion", "RegionScope", "flagged_regions", "rank_regions", "regions_from_match"]

RegionScope = Literal["window", "all"]


@dataclass(frozen=True)
class FlaggedRegion:
    """One connected component of a method's prediction, as offered for review.

    ``bbox`` holds half-open ``(lo, hi)`` voxel ranges per axis; ``in_window`` says
    whether the MOOD size window keeps it (always True without a ground truth).
    """

    object_id: int
    size_voxels: int
    size_mm3: float | None
    centroid_voxel: tuple[float, ...]
    bbox: tuple[tuple[int, int], ...]
    max_score: float
    mean_score: float
    in_window: bool


def flagged_regions(
    score: np.ndarray,
    gt: np.ndarray | None = None,
    *,
    threshold: float,
    scope: RegionScope = "window",
    spacing: Sequence[float] | None = None,
    connectivity: Connectivity = "full",
) -> tuple[FlaggedRegion, ...]:
    """Return a method's flagged regions at ``threshold``, ranked for review.

    Parameters
    ----------
    score : ndarray
        2-D or 3-D score map.
    gt : ndarray, optional
        Ground truth of the same shape; only its object sizes matter here (size window).
    threshold : float
        Voxels with ``score >= threshold`` are flagged (scores read as MOOD reads them).
    scope : {"window", "all"}
        ``"window"``: the components the MOOD object score counts; ``"all"``: every one.
    spacing : sequence of float, optional
        Voxel size, for ``size_mm3``.
    connectivity : {"full", "face"}

    Returns
    -------
    tuple of FlaggedRegion
        Ranked by :func:`rank_regions`.

    Examples
    --------
    >>> score = np.zeros((8, 8)); score[1:4, 1:4] = 0.6; score[6, 6] = 0.9
    >>> gt = np.zeros((8, 8), dtype=bool); gt[1:4, 1:4] = True
    >>> [r.object_id for r in flagged_regions(score, gt, threshold=0.5)]  # the speck is discarded
    [1]
    >>> [r.object_id for r in flagged_regions(score, gt, threshold=0.5, scope="all")]
    [2, 1]
    """
    check_choice("scope", scope, get_args(RegionScope))
    truth = np.zeros(np.shape(score), dtype=bool) if gt is None else gt
    match = match_objects(
        score,
        truth,
        threshold=check_threshold(threshold),
        spacing=spacing,
        connectivity=connectivity,
    )
    return regions_from_match(match, scope=scope)


def regions_from_match(
    match: ObjectMatch, *, scope: RegionScope = "window"
) -> tuple[FlaggedRegion, ...]:
    """Return the ranked flagged regions of an already computed (MOOD-criterion) match.

    Parameters
    ----------
    match : ObjectMatch
        A MOOD-criterion match.
    scope : {"window", "all"}
        ``window`` leaves out the objects discarded by the size window; ``all`` keeps them.

    Returns
    -------
    tuple of FlaggedRegion
        The predicted objects, in review order (:func:`rank_regions`).

    Examples
    --------
    >>> from napari_mood.core.objects import match_objects
    >>> score = np.zeros((6, 6)); score[1:3, 1:3] = 0.9
    >>> [r.size_voxels for r in regions_from_match(match_objects(score, score > 0, threshold=0.5))]
    [4]
    """
    check_choice("scope", scope, get_args(RegionScope))
    kinds = KINDS if scope == "all" else tuple(k for k in KINDS if k != "discarded")
    return rank_regions(_region(r) for r in match.objects.select("pred", kinds))


def _region(record: ObjectRecord) -> FlaggedRegion:
    return FlaggedRegion(
        object_id=record.id,
        size_voxels=record.size_voxels,
        size_mm3=record.size_mm3,
        centroid_voxel=record.centroid_voxel,
        bbox=record.bbox,
        max_score=record.max_score,
        mean_score=record.mean_score,
        in_window=record.kind != "discarded",
    )


def rank_regions(regions: Iterable[FlaggedRegion]) -> tuple[FlaggedRegion, ...]:
    """Order regions for review: highest max score first, then biggest, then lowest id.

    Parameters
    ----------
    regions : iterable of FlaggedRegion
        The regions.

    Returns
    -------
    tuple of FlaggedRegion
        The regions, sorted.

    Examples
    --------
    >>> a = FlaggedRegion(1, 5, None, (0.0,), ((0, 1),), 0.7, 0.6, True)
    >>> b = FlaggedRegion(2, 9, None, (3.0,), ((3, 4),), 0.7, 0.6, True)
    >>> [r.object_id for r in rank_regions([a, b])]
    [2, 1]
    """
    return tuple(sorted(regions, key=lambda r: (-r.max_score, -r.size_voxels, r.object_id)))
