r"""Jobs of the thresholds widget: readouts at the display thresholds, best thresholds.

The numbers are :mod:`napari_mood.core.readout`'s; these functions run in a worker thread
on :class:`~napari_mood.services.snapshots.MapSnapshot`\ s and turn results into the short
texts the widget shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from napari_mood.core.readout import (
    BestCriterion,
    Readout,
    best_case_threshold,
    readout_from_match,
    threshold_readout,
    voxel_readout,
)
from napari_mood.services.evaluation import ThresholdChoice
from napari_mood.services.labelling import LabellingCache, labelled
from napari_mood.services.snapshots import MapSnapshot

__all__ = [
    "Readout",
    "BestCriterion",
    "best_on_case",
    "compute_readouts",
    "compute_voxel_readouts",
]


def _map_and_truth(snapshot: MapSnapshot, gt: Any) -> tuple[np.ndarray, Any]:
    """Return the map as an array and the GT when its shape matches (else None: counts only)."""
    data = np.asarray(snapshot.data)
    return data, gt if gt is not None and np.shape(gt) == data.shape else None


def compute_readouts(
    maps: Sequence[MapSnapshot], gt: Any, *, cache: LabellingCache | None = None
) -> dict[str, Readout]:
    """Readout of every map at its threshold (the GT is used where its shape matches).

    With a GT the objects come from the map's labelling at that threshold, taken from
    ``cache`` when given (shared with the objects and review jobs).

    Parameters
    ----------
    maps : sequence of MapSnapshot
        The maps shown, each at its threshold.
    gt : array-like or None
        The case's ground truth.
    cache : LabellingCache, optional
        Histograms and labellings shared with the other panels.

    Returns
    -------
    dict of str to Readout
        The readout of each map.

    Examples
    --------
    >>> gt = np.zeros((4, 4), bool); gt[1, 1] = True
    >>> compute_readouts([MapSnapshot("m", gt * 0.9, 0.5)], gt)["m"].dice
    1.0
    """
    readouts = {}
    for snapshot in maps:
        data, truth = _map_and_truth(snapshot, gt)
        volume = snapshot.voxel_volume
        if truth is None:
            readouts[snapshot.name] = threshold_readout(
                data, None, threshold=snapshot.threshold, voxel_volume=volume
            )
            continue
        get = labelled if cache is None else cache.get
        found = get(
            data,
            truth,
            threshold=snapshot.threshold,
            spacing=snapshot.spacing or None,
            labels=False,  # counts only: no dense label image made or kept
        )
        readouts[snapshot.name] = readout_from_match(
            found, threshold=snapshot.threshold, voxel_volume=volume
        )
    return readouts


def compute_voxel_readouts(
    maps: Sequence[MapSnapshot], gt: Any, *, cache: LabellingCache | None = None
) -> dict[str, Readout]:
    """Return the voxel part of every map's readout (counts, Dice; ``objects`` None), at once.

    The numbers come from each map's histograms against the GT (:func:`voxel_readout`),
    kept in ``cache``: after the first call for a map, any threshold is answered without
    reading the volume. :func:`compute_readouts` adds the objects.

    Parameters
    ----------
    maps : sequence of MapSnapshot
        The maps shown, each at its threshold.
    gt : array-like or None
        The case's ground truth.
    cache : LabellingCache, optional
        Histograms and labellings shared with the other panels.

    Returns
    -------
    dict of str to Readout
        The voxel readout of each map.

    Examples
    --------
    >>> gt = np.zeros((4, 4), bool); gt[1, 1] = True
    >>> r = compute_voxel_readouts([MapSnapshot("m", gt * 0.9, 0.5)], gt)["m"]
    >>> r.flagged, r.dice, r.objects
    (1, 1.0, None)
    """
    cache = LabellingCache() if cache is None else cache  # an empty cache is falsy
    readouts = {}
    for snapshot in maps:
        data, truth = _map_and_truth(snapshot, gt)
        readouts[snapshot.name] = voxel_readout(
            cache.histograms(data, truth),
            threshold=snapshot.threshold,
            voxel_volume=snapshot.voxel_volume,
            with_gt=truth is not None,
        )
    return readouts


def best_on_case(maps: Mapping[str, Any], gt: Any, by: BestCriterion) -> ThresholdChoice:
    """Best threshold of every map on the case shown (``best_case_threshold``).

    Parameters
    ----------
    maps : mapping of str to array-like
        The maps shown.
    gt : array-like
        The case's ground truth.
    by : {"dice", "object_f1"}
        The value maximised.

    Returns
    -------
    ThresholdChoice
        The best threshold of each map.
    """
    best = {name: best_case_threshold(np.asarray(data), gt, by=by) for name, data in maps.items()}
    return ThresholdChoice(best, "this case")
