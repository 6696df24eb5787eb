r"""Jobs of the reading tools: window/level presets, the ruler and ROI statistics.

The rules are the core's (:mod:`napari_mood.core.windowing`,
:mod:`napari_mood.core.measure`); these functions take what a front end has (the scan's
array, :class:`~napari_mood.services.snapshots.MapSnapshot`\ s, a shape's corners) and
return their results. :func:`roi_job` runs in a worker thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.core.measure import (
    RoiKind,
    RoiStats,
    ValueStats,
    line_length,
    roi_statistics,
    roi_voxels,
)
from napari_mood.core.windowing import (
    Modality,
    WindowPreset,
    guess_modality,
    preset_limits,
    presets_for,
)
from napari_mood.services.snapshots import MapSnapshot

__all__ = [
    "Modality",
    "RoiKind",
    "RoiResult",
    "RoiStats",
    "ScanWindows",
    "ValueStats",
    "WindowPreset",
    "roi_job",
    "ruler_length",
    "scan_windows",
    "window_limits",
]


@dataclass(frozen=True)
class ScanWindows:
    """The modality read from a scan and the presets offered for it (default first)."""

    modality: Modality
    presets: tuple[WindowPreset, ...]

    def named(self, name: str | None) -> WindowPreset:
        """Return the preset called ``name`` (the default when there is none of that name).

        Examples
        --------
        >>> scan_windows(np.zeros(3)).named("no such").name
        '1-99 %'
        """
        return next((p for p in self.presets if p.name == name), self.presets[0])


def scan_windows(data: Any) -> ScanWindows:
    """Return the modality of the scan ``data`` and its presets.

    Examples
    --------
    >>> scan_windows(np.array([-1000.0, 40.0])).modality
    'CT'
    """
    modality = guess_modality(np.asarray(data))
    return ScanWindows(modality, presets_for(modality))


def window_limits(data: Any, preset: WindowPreset) -> tuple[float, float]:
    """Return the contrast limits ``preset`` gives the scan ``data``.

    Examples
    --------
    >>> window_limits(np.zeros(2), WindowPreset("lung", "window", -600, 1500))
    (-1350.0, 150.0)
    """
    return preset_limits(np.asarray(data), preset)


def ruler_length(start: Sequence[float], end: Sequence[float], spacing: Sequence[float]) -> float:
    """Return the length in mm of a ruler between two points in voxel coordinates.

    Examples
    --------
    >>> ruler_length((0, 0, 0), (0, 3, 4), (1.0, 2.0, 2.0))
    10.0
    """
    return line_length(start, end, spacing=spacing)


@dataclass(frozen=True)
class RoiResult:
    """The statistics of an ROI and the maps left out (their grid is not the scan's)."""

    stats: RoiStats
    skipped: tuple[str, ...]


def roi_job(
    scan: tuple[str, Any] | None,
    maps: Sequence[MapSnapshot],
    corners: np.ndarray,
    *,
    kind: RoiKind,
    plane_axes: tuple[int, int],
    spacing: Sequence[float],
) -> RoiResult:
    """Statistics of the scan and of each map inside a box or ellipse drawn on a slice.

    Parameters
    ----------
    scan : (name, array) or None
        The scan (its grid is the ROI's); None: the first map's grid.
    maps : sequence of MapSnapshot
        The maps, each with its display threshold (flagged voxels are counted there).
    corners : ndarray, shape (4, ndim)
        The shape's corners in the arrays' voxel coordinates.
    kind : {"rectangle", "ellipse"}
    plane_axes : tuple of int
        The axes of the slice the shape was drawn on.
    spacing : sequence of float
        Voxel size in mm along each axis.

    Returns
    -------
    RoiResult

    Examples
    --------
    >>> box = np.array([[0, -0.5, -0.5], [0, -0.5, 1.5], [0, 1.5, 1.5], [0, 1.5, -0.5]])
    >>> m = MapSnapshot("m", np.full((1, 2, 2), 0.8), 0.5)
    >>> r = roi_job(("scan", np.ones((1, 2, 2))), [m], box, kind="rectangle",
    ...             plane_axes=(1, 2), spacing=(2.0, 1.0, 1.0))
    >>> r.stats.n_voxels, r.stats.area_mm2, r.stats.volume_mm3, r.stats.values[1].flagged
    (4, 4.0, 8.0, 4)
    """
    arrays: dict[str, Any] = {}
    if scan is not None:
        arrays[scan[0]] = np.asarray(scan[1])
    shape = (
        next(iter(arrays.values())).shape if arrays else (np.shape(maps[0].data) if maps else None)
    )
    if shape is None:
        raise ValueError("an ROI needs a scan or a map to measure")
    skipped = []
    for snapshot in maps:
        if np.shape(snapshot.data) == shape:
            arrays[snapshot.name] = np.asarray(snapshot.data)
        else:
            skipped.append(snapshot.name)
    voxels = roi_voxels(corners, shape, kind=kind, plane_axes=plane_axes)
    thresholds = {m.name: m.threshold for m in maps if m.name in arrays}
    stats = roi_statistics(
        arrays, voxels, spacing=spacing, plane_axes=plane_axes, thresholds=thresholds
    )
    return RoiResult(stats, tuple(skipped))
