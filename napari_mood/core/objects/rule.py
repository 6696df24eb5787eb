"""The MOOD object rule shared by one-case matching and dataset counting.

Which GT objects a predicted object can match (:func:`mood_admissible`), how matches are
assigned (:func:`assign_many`, or :func:`assign_one_to_one`), how they are tallied and how
the size window and the ratios are formed. :func:`napari_mood.core.objects.match.match_objects`
and :func:`napari_mood.core.objects.dataset.count_objects` both call these, so the rule is
written once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from napari_mood.core._checks import described
from napari_mood.core.objects.hull import Hull, in_hull

__all__ = [
    "DISCARDED_CODE",
    "EXTRA_CODE",
    "FN_CODE",
    "FP_CODE",
    "TP_CODE",
    "Assignment",
    "KINDS",
    "ObjectCounts",
    "ObjectKind",
    "assign_many",
    "assign_one_to_one",
    "check_window",
    "mood_admissible",
    "ratios",
    "tally",
    "window_from_sizes",
]


ObjectKind = Literal["TP", "FP", "FN", "matched-extra", "discarded"]


#: Kinds in the order of their codes in :func:`kind_table` (code = index + 1; 0 = none).
KINDS: tuple[ObjectKind, ...] = ("TP", "FP", "FN", "matched-extra", "discarded")


#: Kind codes of :func:`~napari_mood.core.objects.match.kind_table` (``KINDS.index(kind) + 1``).
TP_CODE, FP_CODE, FN_CODE, EXTRA_CODE, DISCARDED_CODE = (KINDS.index(k) + 1 for k in KINDS)


@dataclass(frozen=True, eq=False)
class Assignment:
    """ObjectKind code and matched partners (0-based indices) of every pred and GT object."""

    pred_kind: np.ndarray
    pred_matches: tuple[tuple[int, ...], ...]
    gt_matches: tuple[tuple[int, ...], ...]

    @property
    def detected(self) -> np.ndarray:
        """Bool per GT object: matched by at least one kept predicted object."""
        return np.array([bool(m) for m in self.gt_matches], dtype=bool)


def check_window(window: tuple[float, float]) -> tuple[float, float]:
    """Return ``(lo, hi)`` as floats, refusing NaN, ``lo < 0`` or ``lo > hi`` (ValueError).

    Parameters
    ----------
    window : tuple of float
        ``(lo, hi)`` object sizes in voxels (``hi`` may be infinite).

    Returns
    -------
    tuple of float
        The window.

    Raises
    ------
    ValueError
        When a bound is NaN, ``lo < 0`` or ``lo > hi``.
    """
    bounds = tuple(window) if isinstance(window, tuple | list) and len(window) == 2 else None
    if bounds is None or not all(
        isinstance(v, int | float | np.number) and not isinstance(v, bool) for v in bounds
    ):
        raise TypeError(
            f"size_window must be (lo, hi), two numbers of voxels; got {described(window)}"
        )
    lo, hi = (float(v) for v in bounds)
    if math.isnan(lo) or math.isnan(hi) or lo < 0 or lo > hi:
        raise ValueError(
            f"size_window must be (lo, hi) with 0 <= lo <= hi (hi may be inf); got {window!r}"
        )
    return lo, hi


def window_from_sizes(gt_sizes: np.ndarray) -> tuple[float, float]:
    """Return the default size window: half the smallest, twice the biggest GT object (or all).

    Parameters
    ----------
    gt_sizes : numpy.ndarray
        Sizes of the GT objects in voxels.

    Returns
    -------
    tuple of float
        ``(lo, hi)``; ``(0, inf)`` without GT objects.
    """
    if gt_sizes.size == 0:
        return 0.0, math.inf
    return 0.5 * float(gt_sizes.min()), 2.0 * float(gt_sizes.max())


def ratios(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Return (F1, precision, recall); NaN where a denominator is 0.

    Parameters
    ----------
    tp, fp, fn : int
        Object counts.

    Returns
    -------
    tuple of float
        F1, precision and recall.
    """

    def ratio(num: int, den: int) -> float:
        return num / den if den else math.nan

    return ratio(2 * tp, 2 * tp + fp + fn), ratio(tp, tp + fp), ratio(tp, tp + fn)


@dataclass(frozen=True)
class ObjectCounts:
    """Object counts at one threshold: one case's match, or summed over cases.

    The one counts value of the object task: :class:`~napari_mood.core.objects.ObjectMatch`
    and :class:`~napari_mood.core.objects.LabelledMatch` hold one (``counts``), and
    :func:`~napari_mood.core.objects.count_objects` returns one. Make it with
    :meth:`from_tally` so the ratios always follow the rule (:func:`ratios`).

    Attributes
    ----------
    threshold : float
        The score threshold the objects were found at.
    tp, fp, fn : int
        Detected GT objects, kept predicted objects matching nothing, missed GT objects.
    discarded : int
        Predicted objects outside the size window (neither TP nor FP).
    matched_extra : int
        Predicted objects whose GT objects were all claimed already (neither TP nor FP).
    f1, precision, recall : float
        The ratios of ``tp``, ``fp``, ``fn``; NaN where a denominator is 0.
    size_window : (float, float)
        The size window ``(lo, hi)`` in voxels.
    per_case : tuple of (str, int, int, int, int)
        ``(case, tp, fp, fn, discarded)`` per case when summed over cases, else empty.
    """

    threshold: float
    tp: int
    fp: int
    fn: int
    discarded: int
    matched_extra: int
    f1: float
    precision: float
    recall: float
    size_window: tuple[float, float]
    per_case: tuple[tuple[str, int, int, int, int], ...] = ()

    @classmethod
    def from_tally(
        cls,
        threshold: float,
        tally: tuple[int, int, int, int, int],
        size_window: tuple[float, float],
        per_case: tuple[tuple[str, int, int, int, int], ...] = (),
    ) -> ObjectCounts:
        """Return the counts of ``(tp, fp, fn, discarded, matched_extra)`` with their ratios.

        Parameters
        ----------
        threshold : float
            The score threshold.
        tally : (int, int, int, int, int)
            ``(tp, fp, fn, discarded, matched_extra)``, as :func:`tally` returns them.
        size_window : (float, float)
            The size window used.
        per_case : tuple, optional
            ``(case, tp, fp, fn, discarded)`` per case.

        Returns
        -------
        ObjectCounts
            With F1, precision and recall from :func:`ratios`.

        Examples
        --------
        >>> c = ObjectCounts.from_tally(0.5, (1, 1, 0, 0, 0), (1.0, 8.0))
        >>> c.f1, c.precision, c.recall
        (0.6666666666666666, 0.5, 1.0)
        """
        tp, fp, fn, discarded, extra = (int(v) for v in tally)
        return cls(
            float(threshold), tp, fp, fn, discarded, extra, *ratios(tp, fp, fn),
            size_window, per_case,
        )  # fmt: skip


def mood_admissible(
    sizes: np.ndarray, centroids: np.ndarray, hulls: Sequence[Hull], gt_sizes: np.ndarray
) -> list[tuple[int, ...]]:
    """GT indices each object matches: COM in the hull and ``0.5|G| < |P| < 2|G|``.

    Parameters
    ----------
    sizes : numpy.ndarray
        Size of each predicted object (voxels).
    centroids : numpy.ndarray
        ``(n, ndim)`` centre of mass of each predicted object.
    hulls : sequence of Hull
        The hull of each GT object.
    gt_sizes : numpy.ndarray
        Size of each GT object.

    Returns
    -------
    list of tuple of int
        Per predicted object, the 0-based GT indices it may match.
    """
    hits = np.zeros((sizes.size, len(hulls)), dtype=bool)
    for index, (hull, gsize) in enumerate(zip(hulls, gt_sizes, strict=True)):
        ratio_ok = (2 * sizes > gsize) & (sizes < 2 * gsize)
        if ratio_ok.any():
            hits[ratio_ok, index] = in_hull(hull, centroids[ratio_ok])
    return [tuple(int(g) for g in np.flatnonzero(row)) for row in hits]


def assign_many(kept: np.ndarray, admissible: Sequence[tuple[int, ...]], n_gt: int) -> Assignment:
    """MOOD assignment: every admissible pair counts; extras are claimed in id order.

    Parameters
    ----------
    kept : numpy.ndarray
        Per predicted object, whether it lies in the size window.
    admissible : sequence of tuple of int
        Per predicted object, the GT objects it may match.
    n_gt : int
        Number of GT objects.

    Returns
    -------
    Assignment
        Each object's kind and partners.
    """
    kinds = np.where(kept, FP_CODE, DISCARDED_CODE).astype(np.uint8)
    detected = np.zeros(n_gt, dtype=bool)
    gt_matches: list[list[int]] = [[] for _ in range(n_gt)]
    pred_matches: list[tuple[int, ...]] = [()] * kept.size
    for index in np.flatnonzero(kept).tolist():
        partners = admissible[index]
        if not partners:
            continue
        kinds[index] = TP_CODE if not detected[list(partners)].all() else EXTRA_CODE
        detected[list(partners)] = True
        pred_matches[index] = partners
        for g in partners:
            gt_matches[g].append(index)
    return Assignment(kinds, tuple(pred_matches), tuple(tuple(m) for m in gt_matches))


def assign_one_to_one(
    kept: np.ndarray,
    admissible: Sequence[tuple[int, ...]],
    iou: dict[tuple[int, int], float],
    n_gt: int,
) -> Assignment:
    """Hungarian assignment: most admissible pairs, then the highest total IoU.

    Parameters
    ----------
    kept : numpy.ndarray
        Per predicted object, whether it lies in the size window.
    admissible : sequence of tuple of int
        Per predicted object, the GT objects it may match.
    iou : dict of (int, int) to float
        IoU of admissible ``(pred, gt)`` pairs (missing pairs count 0).
    n_gt : int
        Number of GT objects.

    Returns
    -------
    Assignment
        Each object's kind and its one partner at most.
    """
    kinds = np.where(kept, FP_CODE, DISCARDED_CODE).astype(np.uint8)
    rows = [i for i in np.flatnonzero(kept).tolist() if admissible[i]]
    cols = sorted({g for i in rows for g in admissible[i]})
    pred_matches: list[tuple[int, ...]] = [()] * kept.size
    gt_matches: list[tuple[int, ...]] = [()] * n_gt
    if rows:
        from scipy.optimize import linear_sum_assignment  # 0.1 s: only when pairs compete

        bonus = min(len(rows), len(cols)) + 1.0  # any extra pair outweighs all IoU gains
        weight = np.zeros((len(rows), len(cols)))
        col_of = {g: j for j, g in enumerate(cols)}
        for r, i in enumerate(rows):
            for g in admissible[i]:
                weight[r, col_of[g]] = bonus + iou.get((i, g), 0.0)
        for r, c in zip(*linear_sum_assignment(weight, maximize=True), strict=True):
            if weight[r, c] > 0:
                i, g = rows[r], cols[c]
                kinds[i] = TP_CODE
                pred_matches[i], gt_matches[g] = (g,), (i,)
    return Assignment(kinds, tuple(pred_matches), tuple(gt_matches))


def tally(assignment: Assignment) -> tuple[int, int, int, int, int]:
    """Return (tp, fp, fn, discarded, matched_extra); TP counts detected GT objects.

    Parameters
    ----------
    assignment : Assignment
        A finished assignment.

    Returns
    -------
    tuple of int
        ``(tp, fp, fn, discarded, matched_extra)``.
    """
    kinds = assignment.pred_kind
    detected = assignment.detected
    return (
        int(detected.sum()),
        int(np.count_nonzero(kinds == FP_CODE)),
        int(detected.size - detected.sum()),
        int(np.count_nonzero(kinds == DISCARDED_CODE)),
        int(np.count_nonzero(kinds == EXTRA_CODE)),
    )
