"""Jobs of the object-matching widget: match a method's objects and draw them per kind.

For each method, :func:`~napari_mood.core.objects.match_objects` on its map and the ground
truth at its display threshold (one labelling, shared through the session's cache), drawn
in one label image made in the worker (compact labels: the shown objects are numbered
1..n, so any number of components keeps napari's label colormap small). The panel's texts
and the Labels layer's rows live with the panel (:mod:`napari_mood._napari.widgets.objects_texts`).
Without a ground truth every kept object is a false positive (the core's rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.core.objects import KINDS, LabelledMatch, ObjectMatch, ObjectRecord
from napari_mood.core.orientation import DisplayTransform
from napari_mood.services.labelling import LabellingCache, labelled
from napari_mood.services.snapshots import MapSnapshot

__all__ = [
    "KINDS",
    "ObjectRecord",
    "SHOWN_KINDS",
    "MethodObjects",
    "ObjectPlace",
    "compute_method_objects",
    "listed",
    "listed_records",
    "shown_objects",
    "match_methods",
    "object_place",
]

SHOWN_KINDS: tuple[str, ...] = ("TP", "FP", "FN")


@dataclass(frozen=True, eq=False)
class MethodObjects:
    """One method's object match and its objects drawn in one label image.

    ``image``: the shown objects numbered in the order of :func:`shown_objects`: predicted
    TP and FP objects ``1..offset`` (by predicted id), then missed GT objects (FN)
    ``offset + 1..`` (by GT id) where no shown predicted object lies (see
    :class:`ObjectsLayer`). Made in the worker, so the main thread only adds a layer.
    """

    method: str
    match: ObjectMatch
    image: np.ndarray
    offset: int
    has_gt: bool


def compute_method_objects(
    snapshot: MapSnapshot, gt: np.ndarray | None, *, cache: LabellingCache | None = None
) -> MethodObjects:
    """Run the MOOD object rule on one map and draw its TP, FP and FN objects.

    The image numbers the shown objects (see :class:`MethodObjects`). The map is labelled once (taken from ``cache``
    when given, so readouts and regions at the same threshold reuse it); the image is
    filled from the labelled boxes only, in the smallest unsigned dtype that holds it.

    Parameters
    ----------
    snapshot : MapSnapshot
        The map at its threshold.
    gt : numpy.ndarray or None
        The ground truth (None: every object is a false positive).
    cache : LabellingCache, optional
        Labellings shared with other jobs.

    Returns
    -------
    MethodObjects
        The match and its label image.

    Raises
    ------
    ValueError
        When the core refuses the map (e.g. NaN, another shape than the ground truth);
        the message names the method and its file.

    Examples
    --------
    >>> gt = np.zeros((6, 6), bool); gt[1:3, 1:3] = True
    >>> result = compute_method_objects(MapSnapshot("m", gt * 0.9, 0.5), gt)
    >>> (result.match.counts.tp, result.image.max(), result.offset)
    (1, np.uint8(1), 1)
    """
    score = np.asarray(snapshot.data)
    truth = None if gt is None else np.asarray(gt)
    spacing = snapshot.spacing or None
    get = labelled if cache is None else cache.get
    try:
        found = get(score, truth, threshold=snapshot.threshold, spacing=spacing)
    except ValueError as error:
        raise ValueError(f"cannot match the objects of {snapshot.describe()}: {error}") from error
    match = found.match_at(snapshot.threshold)
    image, offset = _objects_image(found, match)
    return MethodObjects(snapshot.name, match, image, offset, gt is not None)


def shown_objects(match: ObjectMatch) -> tuple[np.ndarray, np.ndarray]:
    """Ids of the objects drawn and listed: TP and FP predicted ids, then FN GT ids.

    Both ascending; the label of the k-th shown object (counting from 1 over both) is
    k in :attr:`MethodObjects.image` and in :class:`ObjectsLayer`.

    Parameters
    ----------
    match : ObjectMatch
        A match.

    Returns
    -------
    pred_ids, gt_ids : numpy.ndarray
        The ids shown.

    Examples
    --------
    >>> from napari_mood.core.objects import match_objects
    >>> gt = np.zeros((1, 8), bool); gt[0, 1:3] = True; gt[0, 5:7] = True
    >>> score = np.zeros((1, 8)); score[0, 1:3] = 0.9
    >>> [ids.tolist() for ids in shown_objects(match_objects(score, gt, threshold=0.5))]
    [[1], [2]]
    """
    return match.objects.ids("pred", ("TP", "FP")), match.objects.ids("gt", ("FN",))


def _objects_image(found: LabelledMatch, match: ObjectMatch) -> tuple[np.ndarray, int]:
    """Shown predicted objects 1..P, then missed GT objects P+1.. where no prediction is."""
    pred_ids, fn_ids = shown_objects(match)
    offset, total = pred_ids.size, pred_ids.size + fn_ids.size
    pred_lut = np.zeros(int(pred_ids.max(initial=0)) + 1, dtype=np.int64)
    pred_lut[pred_ids] = np.arange(1, offset + 1)
    gt_lut = np.zeros(int(fn_ids.max(initial=0)) + 1, dtype=np.int64)
    gt_lut[fn_ids] = np.arange(offset + 1, total + 1)
    dtype = np.min_scalar_type(total)
    image = np.zeros(found.shape, dtype=dtype)
    gt_labels, pred_labels = found.gt_crop_labels, found.pred_crop_labels  # each made once
    if gt_labels.size:
        image[found.gt_crop] = _lookup(gt_lut, gt_labels, dtype)
    if pred_labels.size:
        shown = _lookup(pred_lut, pred_labels, dtype)
        np.copyto(image[found.pred_crop], shown, where=shown > 0)  # predictions drawn first
    return image, offset


def _lookup(lut: np.ndarray, labels: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``lut[labels]`` in ``dtype`` (labels beyond the table: 0)."""
    table = np.zeros(max(lut.size, int(labels.max(initial=0)) + 1), dtype=dtype)
    table[: lut.size] = lut
    return table[labels]


def match_methods(
    maps: Sequence[MapSnapshot], gt: Any, *, cache: LabellingCache | None = None
) -> tuple[MethodObjects, ...]:
    """:func:`compute_method_objects` for every map (one worker job).

    Parameters
    ----------
    maps : sequence of MapSnapshot
        The maps at their thresholds.
    gt : array-like or None
        The ground truth.
    cache : LabellingCache, optional
        Labellings shared with other jobs.

    Returns
    -------
    tuple of MethodObjects
        One per map, in order.
    """
    truth = None if gt is None else np.asarray(gt)
    return tuple(compute_method_objects(snapshot, truth, cache=cache) for snapshot in maps)


@dataclass(frozen=True)
class ObjectPlace:
    """Where an object's centre of mass is, for other software (the table's columns).

    ``file_voxel``: voxel index ``(i, j, k)`` in the NIfTI file (fractional); ``ras_mm``:
    scanner coordinates from the file's affine (RAS+, mm); None without a transform
    (arrays that came with no affine: ``file_voxel`` is then the displayed index).
    """

    file_voxel: tuple[float, ...]
    ras_mm: tuple[float, ...] | None


def object_place(record: ObjectRecord, transform: DisplayTransform | None) -> ObjectPlace:
    """Return the file voxel and RAS millimetres of ``record``'s centroid (a displayed index).

    The mapping is the case's :class:`~napari_mood.core.orientation.DisplayTransform`
    (the one the status bar and review file use).

    Parameters
    ----------
    record : ObjectRecord
        An object (its centroid in display voxels).
    transform : DisplayTransform or None
        The case's display transform.

    Returns
    -------
    ObjectPlace
        The file voxel and RAS position (None without a transform).

    Examples
    --------
    >>> from napari_mood.core.objects import match_objects
    >>> from napari_mood.core.orientation import display_transform
    >>> t = display_transform((4, 5, 6), np.diag([2.0, 1.0, 3.0, 1.0]))  # file i, j, k
    >>> score = np.zeros(t.display_shape); score[1, 2, 3] = 0.9  # displayed k, j, i
    >>> record = match_objects(score, score > 0, threshold=0.5).objects[0]
    >>> place = object_place(record, t)
    >>> place.file_voxel, place.ras_mm
    ((3.0, 2.0, 1.0), (6.0, 2.0, 3.0))
    """
    centre = np.asarray(record.centroid_voxel, dtype=float)
    if transform is None:
        return ObjectPlace(tuple(float(v) for v in centre), None)
    voxel = transform.display_to_file_index(centre)
    ras = transform.file_index_to_world(voxel)
    return ObjectPlace(tuple(float(v) for v in voxel), tuple(float(v) for v in ras))


def listed_records(match: ObjectMatch, *, extra: bool) -> tuple[ObjectRecord, ...]:
    """Return the records :func:`listed` keeps, in the match's order (predicted, then GT, by id).

    Only these records are built (a noisy map's thousands of discarded specks are not,
    unless ``extra``).

    Parameters
    ----------
    match : ObjectMatch
        A match.
    extra : bool
        Whether every predicted object is listed, not only TP and FP.

    Returns
    -------
    tuple of ObjectRecord
        The records listed.

    Examples
    --------
    >>> from napari_mood.core.objects import match_objects
    >>> gt = np.zeros((1, 8), bool); gt[0, 1:3] = True; gt[0, 5:7] = True
    >>> score = np.zeros((1, 8)); score[0, 1:3] = 0.9
    >>> [(r.source, r.kind) for r in listed_records(match_objects(score, gt, threshold=0.5), extra=False)]
    [('pred', 'TP'), ('gt', 'FN')]
    """
    pred_kinds = KINDS if extra else ("TP", "FP")
    return match.objects.select("pred", pred_kinds) + match.objects.select("gt", ("FN",))


def listed(record: ObjectRecord, extra: bool) -> bool:
    """Whether the table lists ``record`` (TP, FP and missed GT; others when ``extra``).

    Parameters
    ----------
    record : ObjectRecord
        An object.
    extra : bool
        Whether other predicted objects are listed too.

    Returns
    -------
    bool
        Whether it is listed.
    """
    if record.source == "gt":
        return record.kind == "FN"
    return record.kind in ("TP", "FP") or extra
