"""One case at one threshold: predicted and GT objects, the MOOD match and per-object records."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

from napari_mood.core._checks import (
    check_array,
    check_choice,
    check_instance,
    check_number,
    described,
)
from napari_mood.core.objects.components import (
    Components,
    Connectivity,
    find_components,
    label_objects,
    object_scores,
    read_keys,
    truth_mask,
)
from napari_mood.core.objects.flagged import flagged_objects
from napari_mood.core.objects.hull import build_hulls
from napari_mood.core.objects.records import (
    Geometry,
    ObjectRecord,
    ObjectRecords,
    Source,
    SourceColumns,
)
from napari_mood.core.objects.rule import (
    FN_CODE,
    TP_CODE,
    Assignment,
    ObjectCounts,
    assign_many,
    assign_one_to_one,
    check_window,
    mood_admissible,
    tally,
    window_from_sizes,
)
from napari_mood.core.objects.runs import RunLengths, compact, dense
from napari_mood.core.scores import (
    ONE_CODE,
    ScoreMode,
    check_mode,
    check_threshold,
    key_threshold,
)

__all__ = [
    "BINARY_THRESHOLD",
    "LabelledMatch",
    "labelled_match",
    "MatchCriterion",
    "ObjectMatch",
    "ObjectRecord",
    "Source",
    "binarize_scores",
    "kind_table",
    "match_objects",
    "object_labels",
    "resolve_threshold",
]


MatchCriterion = Literal["mood", "iou"]


#: Threshold used for binary score maps when none is given.
BINARY_THRESHOLD: float = 0.5


@dataclass(frozen=True)
class ObjectMatch:
    """Object-level result of one case at one threshold (:func:`match_objects`).

    ``counts`` holds TP, FP, FN, the ratios, the size window and the threshold
    (:class:`~napari_mood.core.objects.rule.ObjectCounts`, the type
    :func:`~napari_mood.core.objects.count_objects` sums them into). ``objects`` holds
    every predicted object, then every GT object, by id: an
    :class:`~napari_mood.core.objects.records.ObjectRecords`, equal to the tuple of their
    :class:`ObjectRecord` (built on first use); its ``select`` / ``ids`` build only the
    records of the kinds asked for.
    """

    counts: ObjectCounts
    connectivity: Connectivity
    criterion: MatchCriterion
    one_to_one: bool
    mode: ScoreMode
    objects: ObjectRecords

    @property
    def threshold(self) -> float:
        """The threshold the objects were found at (``counts.threshold``)."""
        return self.counts.threshold


def _geometry(ndim: int, spacing: Sequence[float] | None, affine: np.ndarray | None) -> Geometry:
    """Validate spacing / affine; the affine wins for volume and world coordinates."""
    if affine is not None:
        mat = check_array("affine", affine).astype(np.float64)
        if mat.shape != (ndim + 1, ndim + 1) or not np.all(np.isfinite(mat)):
            raise ValueError(
                f"affine must be a finite {ndim + 1}x{ndim + 1} matrix for {ndim}-D data; "
                f"got shape {mat.shape}"
            )
        volume = abs(float(np.linalg.det(mat[:ndim, :ndim])))
        if volume == 0:
            raise ValueError("affine is singular (its voxel volume is 0)")
        return Geometry(volume, None, mat)
    if spacing is not None:
        sp = check_array("spacing", spacing).astype(np.float64)
        if sp.shape != (ndim,) or not np.all(np.isfinite(sp)) or np.any(sp <= 0):
            raise ValueError(
                f"spacing must hold {ndim} finite positive numbers; got {described(spacing)}"
            )
        return Geometry(float(np.prod(sp)), sp, None)
    return Geometry(None, None, None)


def _is_binary(keys: np.ndarray, mode: ScoreMode) -> bool:
    one = ONE_CODE if mode == "mood" else np.float32(1.0)
    return bool(np.all((keys == 0) | (keys == one)))


def resolve_threshold(keys: np.ndarray, threshold: float | None, mode: ScoreMode) -> float:
    """Return the threshold given, else :data:`BINARY_THRESHOLD` for a binary map (else ValueError).

    Parameters
    ----------
    keys : numpy.ndarray
        The score map as keys.
    threshold : float or None
        The threshold given.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    float
        The threshold to flag at.

    Raises
    ------
    ValueError
        When ``threshold`` is invalid, or None for a map that is not binary.
    """
    if threshold is not None:
        return check_threshold(threshold)
    if not _is_binary(keys, mode):
        raise ValueError(
            "threshold is required for non-binary score maps "
            f"(it defaults to {BINARY_THRESHOLD} only for maps with values in {{0, 1}})"
        )
    return BINARY_THRESHOLD


def binarize_scores(
    score: np.ndarray, *, threshold: float | None = None, mode: ScoreMode = "mood"
) -> np.ndarray:
    """Return the predicted mask ``score >= threshold``, scores read as the pixel task does.

    Parameters
    ----------
    score : ndarray
        2-D or 3-D score map (any real dtype; NaN is refused).
    threshold : float, optional
        Compared as float64, never rounded. Defaults to 0.5 for binary maps only.
    mode : {"mood", "exact"}
        ``"mood"``: float16 clipped to [0, 1] (official scorer); ``"exact"``: float32
        clipped to [0, 1].

    Returns
    -------
    ndarray of bool

    Examples
    --------
    >>> binarize_scores(np.array([[0.2998, 0.3]]), threshold=0.3).tolist()
    [[False, True]]
    """
    check_mode(mode)
    keys = read_keys(score, mode)
    value = resolve_threshold(keys, threshold, mode)
    return keys >= key_threshold(value, mode=mode)


def _overlaps(pred: Components, gt: Components) -> dict[tuple[int, int], int]:
    """Voxels shared by each (pred index, GT index) pair, 0-based."""
    if pred.n == 0 or gt.n == 0:
        return {}
    box = [
        slice(max(p.start, g.start), min(p.stop, g.stop))
        for p, g in zip(pred.crop, gt.crop, strict=True)
    ]
    if any(s.start >= s.stop for s in box):
        return {}
    pred_part = pred.labels[_shift(box, pred.crop)].astype(np.int64)
    gt_part = gt.labels[_shift(box, gt.crop)].astype(np.int64)
    both = (pred_part > 0) & (gt_part > 0)
    keys, counts = np.unique(pred_part[both] * (gt.n + 1) + gt_part[both], return_counts=True)
    return {
        (int(k // (gt.n + 1)) - 1, int(k % (gt.n + 1)) - 1): int(c)
        for k, c in zip(keys, counts, strict=True)
    }


def _shift(box: Sequence[slice], crop: tuple[slice, ...]) -> tuple[slice, ...]:
    return tuple(slice(b.start - c.start, b.stop - c.start) for b, c in zip(box, crop, strict=True))


def _iou(pred: Components, gt: Components) -> dict[tuple[int, int], float]:
    """IoU of every overlapping (pred index, GT index) pair, 0-based."""
    return {
        (i, g): inter / float(pred.sizes[i] + gt.sizes[g] - inter)
        for (i, g), inter in _overlaps(pred, gt).items()
    }


def _all_records(
    pred: Components,
    truth: Components,
    assignment: Assignment,
    scores: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    geometry: Geometry,
) -> ObjectRecords:
    """Return the records of every predicted object, then of every GT object, built when asked for.

    ``scores``: the max and mean score of each predicted, then each GT, object.
    """
    gt_kinds = np.where(assignment.detected, TP_CODE, FN_CODE)
    return ObjectRecords(
        SourceColumns.of(pred, "pred", assignment.pred_kind, assignment.pred_matches, scores[0]),
        SourceColumns.of(truth, "gt", gt_kinds, assignment.gt_matches, scores[1]),
        geometry,
    )


def _admissible(
    criterion: MatchCriterion,
    pred: Components,
    gt: Components,
    kept: np.ndarray,
    iou: dict[tuple[int, int], float],
    min_iou: float,
) -> list[tuple[int, ...]]:
    if criterion == "iou":
        pairs: list[list[int]] = [[] for _ in range(pred.n)]
        for (i, g), value in sorted(iou.items()):
            if value >= min_iou:
                pairs[i].append(g)
        return [tuple(p) for p in pairs]
    admissible: list[tuple[int, ...]] = [()] * pred.n
    if gt.n == 0 or not kept.any():
        return admissible
    hulls = build_hulls(gt)
    rows = np.flatnonzero(kept)
    found = mood_admissible(pred.sizes[rows], pred.centroids[rows], hulls, gt.sizes)
    for row, partners in zip(rows, found, strict=True):
        admissible[row] = partners
    return admissible


def match_objects(
    score: np.ndarray,
    gt: np.ndarray,
    *,
    threshold: float | None = None,
    size_window: tuple[float, float] | None = None,
    connectivity: Connectivity = "full",
    spacing: Sequence[float] | None = None,
    affine: np.ndarray | None = None,
    criterion: MatchCriterion = "mood",
    min_iou: float = 0.1,
    one_to_one: bool = False,
    mode: ScoreMode = "mood",
) -> ObjectMatch:
    """Match the predicted objects of one case to its GT objects.

    Parameters
    ----------
    score : ndarray
        2-D or 3-D score map; read as in :func:`binarize_scores`.
    gt : ndarray
        Ground truth of the same shape; a voxel is anomalous when its value is > 0.5.
    threshold : float, optional
        Voxels with score ``>= threshold`` are predicted. Defaults to 0.5 for binary maps.
    size_window : (float, float), optional
        Keep predicted objects with ``lo <= size <= hi`` voxels. Default: from this case's
        GT objects, ``(0.5 * smallest, 2 * biggest)``; ``(0, inf)`` without GT objects.
        The window applies to every criterion; pass ``(0, inf)`` to disable it.
    connectivity : {"full", "face"}
        Neighbourhood of the connected components (26 / 8 or 6 / 4).
    spacing, affine : optional
        Voxel spacing or voxel-to-world affine ((d+1) x (d+1)), for ``size_mm3`` and
        ``centroid_world``; the affine wins when both are given.
    criterion : {"mood", "iou"}
        ``"mood"``: centre of mass in the GT hull and size ratio in (0.5, 2);
        ``"iou"``: IoU >= ``min_iou``. Non-MOOD options; report them separately.
    min_iou : float
        IoU needed by ``criterion="iou"``, in (0, 1].
    one_to_one : bool
        Hungarian assignment among admissible pairs (most pairs, then highest IoU);
        unassigned kept predicted objects are FP and ``matched_extra`` is 0.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    ObjectMatch

    Examples
    --------
    >>> gt = np.zeros((8, 8), dtype=bool); gt[2:5, 2:5] = True
    >>> score = np.where(gt, 0.9, 0.1)
    >>> m = match_objects(score, gt, threshold=0.5)
    >>> c = m.counts
    >>> (c.tp, c.fp, c.fn, c.f1)
    (1, 0, 0, 1.0)
    """
    check_choice("connectivity", connectivity, get_args(Connectivity))
    check_choice("criterion", criterion, get_args(MatchCriterion))
    check_mode(mode)
    if not 0 < check_number("min_iou", min_iou) <= 1:
        raise ValueError(f"min_iou must be in (0, 1]; got {min_iou!r}")
    check_instance("one_to_one", one_to_one, bool, "True or False")
    if size_window is not None:
        check_window(size_window)
    keys = read_keys(score, mode)
    gt_mask = truth_mask(gt, keys.shape)
    geometry = _geometry(keys.ndim, spacing, affine)
    value = resolve_threshold(keys, threshold, mode)
    pred = find_components(keys >= key_threshold(value, mode=mode), connectivity)
    truth = find_components(gt_mask, connectivity)
    options = _MatchOptions(value, connectivity, criterion, min_iou, one_to_one, mode, size_window)
    return _match_components(pred, truth, keys, geometry, options)


@dataclass(frozen=True)
class _MatchOptions:
    threshold: float
    connectivity: Connectivity
    criterion: MatchCriterion
    min_iou: float
    one_to_one: bool
    mode: ScoreMode
    size_window: tuple[float, float] | None


def _assign(
    pred: Components, truth: Components, options: _MatchOptions
) -> tuple[tuple[float, float], Assignment]:
    """Size window and assignment of the MOOD rule (or its options) on labelled components."""
    window = (
        window_from_sizes(truth.sizes)
        if options.size_window is None
        else check_window(options.size_window)
    )
    kept = (pred.sizes >= window[0]) & (pred.sizes <= window[1])
    iou = _iou(pred, truth) if options.criterion == "iou" or options.one_to_one else {}
    admissible = _admissible(options.criterion, pred, truth, kept, iou, options.min_iou)
    if options.one_to_one:
        return window, assign_one_to_one(kept, admissible, iou, truth.n)
    return window, assign_many(kept, admissible, truth.n)


def _build_match(
    window: tuple[float, float],
    assignment: Assignment,
    options: _MatchOptions,
    objects: ObjectRecords,
) -> ObjectMatch:
    return ObjectMatch(
        counts=ObjectCounts.from_tally(options.threshold, tally(assignment), window),
        connectivity=options.connectivity,
        criterion=options.criterion,
        one_to_one=options.one_to_one,
        mode=options.mode,
        objects=objects,
    )


def _match_components(
    pred: Components,
    truth: Components,
    keys: np.ndarray,
    geometry: Geometry,
    options: _MatchOptions,
) -> ObjectMatch:
    """Apply the MOOD rule to labelled predicted and GT components (:func:`match_objects`)."""
    window, assignment = _assign(pred, truth, options)
    scores = (object_scores(pred, keys, options.mode), object_scores(truth, keys, options.mode))
    objects = _all_records(pred, truth, assignment, scores, geometry)
    return _build_match(window, assignment, options, objects)


@dataclass(frozen=True, eq=False)
class _RecordParts:
    """What the per-object records are built from (no full-volume array)."""

    pred: Components
    truth: Components
    assignment: Assignment
    scores: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
    geometry: Geometry
    window: tuple[float, float]
    options: _MatchOptions


@dataclass(frozen=True, eq=False)
class LabelledMatch:
    """A MOOD match with the labelling its ids refer to (:func:`labelled_match`).

    The counts are computed at once; the per-object records of :attr:`match` (Python
    objects, the slow part with thousands of specks) are built on first access and kept.
    The label images are kept cropped to the box holding the objects (``pred_crop`` /
    ``gt_crop``, in volume coordinates) and, when that is smaller, as runs
    (:func:`~napari_mood.core.objects.runs.compact`): :attr:`pred_crop_labels` /
    :attr:`gt_crop_labels` make the cropped arrays, :meth:`pred_labels` /
    :meth:`gt_labels` paste them into a full volume when a caller needs one.

    Attributes
    ----------
    counts : ObjectCounts
        TP, FP, FN, ... of the match, and the threshold it was computed at.
    shape : tuple of int
        Shape of the score map.
    pred_crop, gt_crop : tuple of slice
        Where the cropped label images sit in the volume (empty slices when no object).
    pred_runs, gt_runs : ndarray or RunLengths
        Object ids of :attr:`match` inside the crops (0: background), as kept;
        ``pred_runs`` is None when labelled with ``keep_dense=False`` and the runs were
        not worth keeping (:attr:`has_labels`).
    n_flagged : int
        Voxels with score ``>= threshold``.
    n_gt : int
        Anomalous GT voxels.
    n_overlap : int
        Flagged voxels that are anomalous in the GT (the voxel true positives).
    """

    counts: ObjectCounts
    shape: tuple[int, ...]
    pred_crop: tuple[slice, ...]
    pred_runs: np.ndarray | RunLengths | None
    gt_crop: tuple[slice, ...]
    gt_runs: np.ndarray | RunLengths
    n_flagged: int
    n_gt: int
    n_overlap: int
    _parts: _RecordParts

    @functools.cached_property
    def match(self) -> ObjectMatch:
        """The full :class:`ObjectMatch` (as :func:`match_objects` returns it)."""
        parts = self._parts
        objects = _all_records(
            parts.pred, parts.truth, parts.assignment, parts.scores, parts.geometry
        )
        return _build_match(parts.window, parts.assignment, parts.options, objects)

    @property
    def threshold(self) -> float:
        """The threshold the match was computed at (``counts.threshold``)."""
        return self.counts.threshold

    def match_at(self, threshold: float) -> ObjectMatch:
        """:attr:`match` reported at ``threshold`` (one that flags the same voxels).

        Parameters
        ----------
        threshold : float
            The threshold to report.

        Returns
        -------
        ObjectMatch
            The match with its counts' threshold set to ``threshold``.
        """
        match = self.match
        if match.threshold == threshold:
            return match
        return replace(match, counts=replace(match.counts, threshold=threshold))

    @property
    def has_labels(self) -> bool:
        """Whether the predicted label image was kept (see ``pred_runs``)."""
        return self.pred_runs is not None

    @property
    def pred_crop_labels(self) -> np.ndarray:
        """Object ids of the predicted objects inside ``pred_crop`` (made on each access).

        Raises
        ------
        ValueError
            When the label image was not kept (:attr:`has_labels` False).
        """
        if self.pred_runs is None:
            raise ValueError("label image not kept: label again with keep_dense=True")
        return dense(self.pred_runs)

    @property
    def gt_crop_labels(self) -> np.ndarray:
        """Object ids of the GT objects inside ``gt_crop`` (made on each access)."""
        return dense(self.gt_runs)

    def pred_labels(self, dtype: npt.DTypeLike | None = np.uint32) -> np.ndarray:
        """Full-volume label image of the predicted objects (as :func:`object_labels`).

        ``dtype`` (uint32 by default; None: the smallest unsigned type holding every id)
        must hold the largest id; the image is made in it directly (a 512^3 uint16 image
        without a uint32 one first).

        Parameters
        ----------
        dtype : numpy dtype or None
            Type of the image.

        Returns
        -------
        numpy.ndarray
            Label image of the map's shape, 0 the background.
        """
        if dtype is None:
            dtype = np.min_scalar_type(self._parts.pred.n)
        return _paste(self.shape, self.pred_crop, self.pred_crop_labels, dtype)

    def gt_labels(self) -> np.ndarray:
        """Full-volume uint32 label image of the GT objects (as :func:`object_labels`).

        Returns
        -------
        numpy.ndarray
            Label image of the map's shape, 0 the background.
        """
        return _paste(self.shape, self.gt_crop, self.gt_crop_labels, np.uint32)

    @property
    def nbytes(self) -> int:
        """Bytes held by the cropped label images (as kept)."""
        pred = 0 if self.pred_runs is None else self.pred_runs.nbytes
        return int(pred + self.gt_runs.nbytes)


def _paste(
    shape: tuple[int, ...], crop: tuple[slice, ...], labels: np.ndarray, dtype: npt.DTypeLike
) -> np.ndarray:
    full = np.zeros(shape, dtype=dtype)
    if labels.size:
        if int(labels.max()) > np.iinfo(full.dtype).max:
            raise ValueError(f"{full.dtype} cannot hold label {int(labels.max())}")
        full[crop] = labels
    return full


def labelled_match(
    score: np.ndarray,
    gt: np.ndarray,
    *,
    threshold: float | None = None,
    connectivity: Connectivity = "full",
    spacing: Sequence[float] | None = None,
    affine: np.ndarray | None = None,
    mode: ScoreMode = "mood",
    keep_dense: bool = True,
) -> LabelledMatch:
    """:func:`match_objects` (MOOD criterion, default window) plus its one labelling.

    The predicted and GT masks are labelled once; the counts, the label images of
    :func:`object_labels`, the voxel counts a readout needs and (on first access) the
    records of :func:`match_objects` all come from it. The map is labelled a slab at a
    time (:func:`~napari_mood.core.objects.flagged.flagged_objects`): no full-size mask
    or label temporaries. ``keep_dense`` False keeps the predicted label image only when
    its runs take at most half its bytes (``pred_runs`` None otherwise): enough for the
    counts and records, with no dense image made or kept.

    Parameters
    ----------
    score : numpy.ndarray
        A 2-D or 3-D score map.
    gt : numpy.ndarray
        Its ground truth (values > 0.5 anomalous), same shape.
    threshold : float, optional
        The score from which a voxel is flagged; may be left out for a binary map.
    connectivity : {"full", "face"}
        Voxels touching by a corner, edge or face (``full``) or by a face only.
    spacing : sequence of float, optional
        Voxel size in mm, for object volumes and world centroids.
    affine : numpy.ndarray, optional
        Voxel-to-world affine (takes precedence over ``spacing``).
    mode : {"mood", "exact"}
        How scores are read.
    keep_dense : bool
        Whether the predicted label image is kept dense when its runs would be larger.

    Returns
    -------
    LabelledMatch
        The counts, the cropped label images and the records (built when first read).

    Raises
    ------
    ValueError
        When an option is invalid, the shapes differ, a score is NaN, or ``threshold`` is
        missing for a non-binary map.

    Examples
    --------
    >>> gt = np.zeros((8, 8), dtype=bool); gt[2:5, 2:5] = True
    >>> lm = labelled_match(np.where(gt, 0.9, 0.1), gt, threshold=0.5)
    >>> lm.counts.tp, lm.n_flagged, lm.n_overlap, int(lm.pred_labels().max())
    (1, 9, 9, 1)
    >>> lm.match.objects[0].kind
    'TP'
    """
    check_choice("connectivity", connectivity, get_args(Connectivity))
    check_mode(mode)
    keys = read_keys(score, mode)
    gt_mask = truth_mask(gt, keys.shape)
    geometry = _geometry(keys.ndim, spacing, affine)
    value = resolve_threshold(keys, threshold, mode)
    key = key_threshold(value, mode=mode)
    flagged = flagged_objects(keys, key, connectivity, mode=mode, keep_dense=keep_dense)
    pred = flagged.components
    truth = find_components(gt_mask, connectivity)
    options = _MatchOptions(value, connectivity, "mood", 0.1, False, mode, None)
    window, assignment = _assign(pred, truth, options)
    scores = ((flagged.peak, flagged.mean), object_scores(truth, keys, mode))
    return LabelledMatch(
        counts=ObjectCounts.from_tally(value, tally(assignment), window),
        shape=tuple(keys.shape),
        pred_crop=pred.crop,
        pred_runs=flagged.labels,
        gt_crop=truth.crop,
        gt_runs=compact(truth.labels),
        n_flagged=int(pred.sizes.sum()),
        n_gt=int(truth.sizes.sum()),
        n_overlap=_overlap_voxels(keys, key, gt_mask, truth.crop),
        _parts=_RecordParts(
            pred, _unlabelled(truth), assignment, scores, geometry, window, options
        ),
    )


def _unlabelled(comp: Components) -> Components:
    """``comp`` without its label image (the records need only its columns)."""
    return replace(comp, labels=np.zeros((0,) * comp.labels.ndim, dtype=comp.labels.dtype))


def _overlap_voxels(
    keys: np.ndarray, key: int | np.number, gt_mask: np.ndarray, crop: tuple[slice, ...]
) -> int:
    """Count the flagged GT voxels, inside the GT's box only."""
    if gt_mask[crop].size == 0:
        return 0
    return int(np.count_nonzero((keys[crop] >= key) & gt_mask[crop]))


def object_labels(
    score: np.ndarray,
    gt: np.ndarray,
    *,
    threshold: float | None = None,
    connectivity: Connectivity = "full",
    mode: ScoreMode = "mood",
) -> tuple[np.ndarray, np.ndarray]:
    """Return the (pred, GT) uint32 label images whose ids :func:`match_objects` reports.

    Parameters
    ----------
    score : numpy.ndarray
        A 2-D or 3-D score map.
    gt : numpy.ndarray
        Its ground truth (values > 0.5 anomalous), same shape.
    threshold : float, optional
        The score from which a voxel is flagged; may be left out for a binary map.
    connectivity : {"full", "face"}
        Voxels touching by a corner, edge or face (``full``) or by a face only.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    pred_labels, gt_labels : numpy.ndarray
        uint32 label images of the map's shape, 0 the background.

    Examples
    --------
    >>> gt = np.zeros((4, 4), dtype=bool); gt[0, 0] = gt[3, 3] = True
    >>> pred_labels, gt_labels = object_labels(gt, gt)
    >>> int(gt_labels.max())
    2
    """
    keys = read_keys(score, mode)
    gt_mask = truth_mask(gt, keys.shape)
    value = resolve_threshold(keys, threshold, mode)
    pred_labels, _ = label_objects(
        keys >= key_threshold(value, mode=mode), connectivity=connectivity
    )
    gt_labels, _ = label_objects(gt_mask, connectivity=connectivity)
    return pred_labels, gt_labels


def kind_table(match: ObjectMatch, *, source: Source) -> np.ndarray:
    """Return a uint8 lookup ``table[id]`` = kind code of each object of ``source``.

    Codes are ``KINDS.index(kind) + 1`` (0 for background), so ``table[labels]`` turns a
    label image from :func:`object_labels` into a kind image.

    Parameters
    ----------
    match : ObjectMatch
        A match from :func:`match_objects`.
    source : {"pred", "gt"}
        Whose objects.

    Returns
    -------
    numpy.ndarray
        uint8 table, index 0 the background.

    Examples
    --------
    >>> gt = np.zeros((4, 4), dtype=bool); gt[0, 0] = True
    >>> kind_table(match_objects(gt, gt), source="gt").tolist()
    [0, 1]
    """
    check_choice("source", source, get_args(Source))
    return np.concatenate([np.zeros(1, np.uint8), match.objects.kind_codes(source)])
