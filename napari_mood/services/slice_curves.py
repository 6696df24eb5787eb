"""Job of the per-slice scores widget: every method's per-slice scores along one axis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.core.metrics import SliceScores, slice_scores
from napari_mood.core.scores import gt_mask
from napari_mood.services.snapshots import MapSnapshot

__all__ = ["METRICS", "NEEDS_GT", "SliceCurves", "compute_slice_curves", "gt_runs"]

METRICS: dict[str, str] = {
    "dice": "Dice at threshold",
    "ap": "AP",
    "flagged_voxels": "Flagged voxels",
}
"""Metric key (a :class:`~napari_mood.core.metrics.SliceScores` field) -> label."""
NEEDS_GT = ("dice", "ap")


@dataclass(frozen=True, eq=False)
class SliceCurves:
    """Per-slice scores of every method along one axis, and the GT voxels per slice."""

    axis: int
    scores: Mapping[str, SliceScores]
    colors: Mapping[str, str]
    has_gt: bool

    @property
    def n_slices(self) -> int:
        """Number of slices along the axis (0 without methods)."""
        return next((len(s.gt_voxels) for s in self.scores.values()), 0)

    @property
    def gt_voxels(self) -> np.ndarray:
        """GT voxels per slice (zeros without a ground truth)."""
        first = next(iter(self.scores.values()), None)
        return np.zeros(0, np.int64) if first is None else first.gt_voxels


def compute_slice_curves(maps: Sequence[MapSnapshot], gt: Any, *, axis: int) -> SliceCurves:
    """Run :func:`~napari_mood.core.metrics.slice_scores` for every map.

    The GT is used where its shape matches; without one (or for a map of another grid)
    every curve counts flagged voxels only and ``has_gt`` is False.

    Parameters
    ----------
    maps : sequence of MapSnapshot
        The maps shown, each at its threshold.
    gt : array-like or None
        The case's ground truth.
    axis : int
        The display axis the slices are taken along.

    Returns
    -------
    SliceCurves
        The per-slice scores of every map and the GT voxels per slice.

    Examples
    --------
    >>> gt = np.zeros((3, 4), bool); gt[1, :2] = True
    >>> curves = compute_slice_curves([MapSnapshot("m", gt * 0.9, 0.5)], gt, axis=0)
    >>> curves.scores["m"].dice.tolist()
    [nan, 1.0, nan]
    """
    scores: dict[str, SliceScores] = {}
    truth = None if gt is None else gt_mask(gt)
    has_gt = truth is not None
    for snapshot in maps:
        data = np.asarray(snapshot.data)
        labels = truth if truth is not None and truth.shape == data.shape else None
        if labels is None:
            has_gt = False
            labels = np.zeros(data.shape, dtype=bool)
        scores[snapshot.name] = slice_scores(data, labels, axis=axis, threshold=snapshot.threshold)
    return SliceCurves(axis, scores, {m.name: m.color for m in maps}, has_gt)


def gt_runs(gt_voxels: np.ndarray) -> list[tuple[int, int]]:
    """Half-open ``(start, stop)`` runs of consecutive slices holding GT voxels.

    Parameters
    ----------
    gt_voxels : numpy.ndarray
        GT voxels per slice.

    Returns
    -------
    list of tuple of int
        The runs.

    Examples
    --------
    >>> gt_runs(np.array([0, 2, 3, 0, 0, 1]))
    [(1, 3), (5, 6)]
    """
    inside = np.concatenate([[False], np.asarray(gt_voxels) > 0, [False]])
    edges = np.flatnonzero(np.diff(inside.astype(np.int8)))
    return [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]
