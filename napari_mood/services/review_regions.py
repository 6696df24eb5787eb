"""Job of the review widget: a method's flagged regions, ranked, with their label image."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.core.regions import FlaggedRegion, RegionScope, regions_from_match
from napari_mood.services.labelling import LabellingCache, labelled
from napari_mood.services.snapshots import MapSnapshot

__all__ = ["FlaggedRegion", "RegionScope", "FoundRegions", "find_regions"]


@dataclass(frozen=True, eq=False)
class FoundRegions:
    """Flagged regions of one method at one threshold, with their label image."""

    case: str | None
    method: str
    threshold: float
    regions: tuple[FlaggedRegion, ...]
    labels: np.ndarray


def find_regions(
    snapshot: MapSnapshot,
    gt: Any,
    *,
    case: str | None,
    scope: RegionScope,
    cache: LabellingCache | None = None,
) -> FoundRegions:
    """Rank the flagged regions of a map and label them (ids as in the regions).

    The map is labelled once (taken from ``cache`` when given).

    A map the core refuses raises ValueError naming the method and its file.

    Parameters
    ----------
    snapshot : MapSnapshot
        The map under review at its threshold.
    gt : array-like
        The case's ground truth (None: every region is a false positive).
    case : str or None
        The case's name.
    scope : {"window", "all"}
        Whether regions discarded by the size window are offered too.
    cache : LabellingCache, optional
        Labellings shared with the other panels.

    Returns
    -------
    FoundRegions
        The regions in review order and their label image.

    Raises
    ------
    ValueError
        When the map cannot be matched, naming it.

    Examples
    --------
    >>> score = np.zeros((6, 6)); score[1:3, 1:3] = 0.9
    >>> found = find_regions(MapSnapshot("m", score, 0.5), None, case="c", scope="all")
    >>> [r.size_voxels for r in found.regions], int(found.labels.max())
    ([4], 1)
    """
    score = np.asarray(snapshot.data)
    truth = None if gt is None else np.asarray(gt)
    get = labelled if cache is None else cache.get
    try:
        found = get(score, truth, threshold=snapshot.threshold, spacing=snapshot.spacing or None)
        regions = regions_from_match(found.match_at(snapshot.threshold), scope=scope)
    except ValueError as error:
        raise ValueError(f"cannot review the regions of {snapshot.describe()}: {error}") from error
    labels = found.pred_labels(None)  # the smallest dtype holding every id
    return FoundRegions(case, snapshot.name, snapshot.threshold, regions, labels)
