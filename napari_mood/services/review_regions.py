"""Job of the review widget: a method's flagged regions, ranked, with their label image."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.core.objects import object_labels
from napari_mood.core.regions import FlaggedRegion, RegionScope, flagged_regions
from napari_mood.services.snapshots import MapSnapshot

__all__ = ["FoundRegions", "find_regions"]


@dataclass(frozen=True, eq=False)
class FoundRegions:
    """Flagged regions of one method at one threshold, with their label image."""

    case: str | None
    method: str
    threshold: float
    regions: tuple[FlaggedRegion, ...]
    labels: np.ndarray


def find_regions(
    snapshot: MapSnapshot, gt: Any, *, case: str | None, scope: RegionScope
) -> FoundRegions:
    """Rank the flagged regions of a map and label them (ids as in the regions).

    A map the core refuses raises ValueError naming the method and its file.

    Examples
    --------
    >>> score = np.zeros((6, 6)); score[1:3, 1:3] = 0.9
    >>> found = find_regions(MapSnapshot("m", score, 0.5), None, case="c", scope="all")
    >>> [r.size_voxels for r in found.regions], int(found.labels.max())
    ([4], 1)
    """
    score = np.asarray(snapshot.data)
    spacing = snapshot.spacing or None
    threshold = snapshot.threshold
    try:
        regions = flagged_regions(score, gt, threshold=threshold, scope=scope, spacing=spacing)
    except ValueError as error:
        raise ValueError(f"cannot review the regions of {snapshot.describe()}: {error}") from error
    truth = np.zeros(score.shape, dtype=bool) if gt is None else gt
    labels, _ = object_labels(score, truth, threshold=threshold)
    labels = labels.astype(np.min_scalar_type(int(labels.max(initial=0))))
    return FoundRegions(case, snapshot.name, threshold, regions, labels)
