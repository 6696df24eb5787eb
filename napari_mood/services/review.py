"""Radiologist verdicts on flagged regions: records, matching them to regions, summaries.

The regions themselves are :mod:`napari_mood.core.regions`; the review file is
:mod:`napari_mood.services.review_store`. Nothing here imports napari or Qt.

Coordinates
    ``centroid_voxel`` is the region's centre of mass in voxel indices of the displayed
    array (axis 0 = axial slice, see :mod:`napari_mood.core.orientation`);
    ``centroid_world_mm`` is the same point in napari world coordinates (millimetres,
    same axes, origin at voxel 0). For other software use ``centroid_ras_mm`` (scanner
    coordinates from the NIfTI affine, RAS+, mm: paste into ITK-SNAP / 3D Slicer / FSLeyes)
    and ``centroid_file_voxel`` (voxel index ``i j k`` in the NIfTI file, fractional at the
    centre of mass). All are written as space-separated numbers.

Matching stored verdicts to regions (reopening a case, another threshold)
    A stored verdict of the same case and method belongs to the region whose bounding box
    contains its ``centroid_voxel`` (half a voxel of slack); when several do, to the one
    whose centroid is nearest; ties go to the lower object id. A region with several
    stored verdicts shows the newest. The rule ignores object ids and thresholds, which
    change when the threshold moves (a region that shrinks or grows keeps its verdict; two
    regions that merge show the newer verdict). Judging a region again replaces the
    verdict it showed (the old one is withdrawn in the file).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, get_args

from napari_mood.core._checks import check_choice
from napari_mood.core.regions import FlaggedRegion, flagged_regions  # noqa: F401 (doctests)
from napari_mood.core.scores import check_threshold

__all__ = [
    "VERDICTS",
    "ReviewRecord",
    "Verdict",
    "VerdictCounts",
    "check_time",
    "match_reviews",
    "now_iso",
    "review_record",
    "same_key_verdict",
    "summarize_reviews",
    "with_verdict",
]

Verdict = Literal["true finding", "false alarm", "unsure"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
_BOX_SLACK = 0.5  # a voxel index i covers [i - 0.5, i + 0.5]


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class ReviewRecord:
    """One judged region: a row of the review file (``review_store.REVIEW_COLUMNS``)."""

    case: str
    method: str
    threshold: float
    object_id: int
    centroid_voxel: tuple[float, ...]
    centroid_world_mm: tuple[float, ...]
    size_voxels: int
    size_mm3: float | None
    max_score: float
    verdict: Verdict
    note: str
    time: str
    reviewer: str = ""
    centroid_ras_mm: tuple[float, ...] = ()
    centroid_file_voxel: tuple[float, ...] = ()
    blind_seed: int | None = None
    adjudication: bool = False

    @property
    def key(self) -> tuple[str, str, float, int]:
        """``(case, method, threshold, object_id)``: one row per key in a review file."""
        return self.case, self.method, self.threshold, self.object_id


def now_iso() -> str:
    """Return the current UTC time as ISO 8601 with seconds (the ``time`` column).

    Returns
    -------
    str
        E.g. ``"2026-01-31T12:00:00+00:00"``.
    """
    return datetime.now(UTC).isoformat(timespec="seconds")


def review_record(
    region: FlaggedRegion,
    *,
    case: str,
    method: str,
    threshold: float,
    centroid_world_mm: Sequence[float],
    verdict: Verdict,
    note: str = "",
    time: str | None = None,
    reviewer: str = "",
    centroid_ras_mm: Sequence[float] = (),
    centroid_file_voxel: Sequence[float] = (),
    blind_seed: int | None = None,
    adjudication: bool = False,
) -> ReviewRecord:
    """Return the record of a verdict on ``region`` (``time`` defaults to now, UTC).

    ``adjudication`` marks the verdict of an adjudicator on a region readers disagreed on
    (:mod:`napari_mood.services.adjudication`); ``blind_seed`` one given in blind review.

    Parameters
    ----------
    region : FlaggedRegion
        The region judged.
    case, method : str
        Where it was found.
    threshold : float
        The threshold the region was found at.
    centroid_world_mm : sequence of float
        Its centroid in the viewer's world coordinates.
    verdict : str
        One of ``VERDICTS``.
    note : str
        The reviewer's note.
    time : str, optional
        ISO 8601 time of the verdict.
    reviewer : str
        The reviewer's name.
    centroid_ras_mm, centroid_file_voxel : sequence of float
        The centroid in scanner coordinates and in file voxels, when known.
    blind_seed : int, optional
        The seed of the blind review the verdict was given in.
    adjudication : bool
        Whether it is an adjudicator's verdict.

    Returns
    -------
    ReviewRecord
        The record.

    Examples
    --------
    >>> region = FlaggedRegion(3, 8, 64.0, (1.0, 2.0, 3.0), ((0, 2),) * 3, 0.9, 0.7, True)
    >>> r = review_record(region, case="c", method="m", threshold=0.5,
    ...                   centroid_world_mm=(2.0, 4.0, 6.0), verdict="false alarm")
    >>> (r.object_id, r.verdict)
    (3, 'false alarm')
    """
    check_choice("verdict", verdict, VERDICTS)
    if len(centroid_world_mm) != len(region.centroid_voxel):
        raise ValueError(
            f"centroid_world_mm has {len(centroid_world_mm)} values for a "
            f"{len(region.centroid_voxel)}-D region"
        )
    return ReviewRecord(
        case=case,
        method=method,
        threshold=check_threshold(threshold),
        object_id=region.object_id,
        centroid_voxel=tuple(float(v) for v in region.centroid_voxel),
        centroid_world_mm=tuple(float(v) for v in centroid_world_mm),
        size_voxels=region.size_voxels,
        size_mm3=region.size_mm3,
        max_score=region.max_score,
        verdict=verdict,
        note=note.strip(),
        time=now_iso() if time is None else time,
        reviewer=reviewer.strip(),
        centroid_ras_mm=tuple(float(v) for v in centroid_ras_mm),
        centroid_file_voxel=tuple(float(v) for v in centroid_file_voxel),
        blind_seed=blind_seed,
        adjudication=adjudication,
    )


def with_verdict(
    records: Iterable[ReviewRecord], new: ReviewRecord, *, replaces: ReviewRecord | None = None
) -> tuple[ReviewRecord, ...]:
    """Return ``records`` with ``new`` added, dropping ``replaces`` and rows of ``new.key``.

    Parameters
    ----------
    records : iterable of ReviewRecord
        The verdicts held.
    new : ReviewRecord
        The new verdict.
    replaces : ReviewRecord, optional
        A verdict the new one replaces.

    Returns
    -------
    tuple of ReviewRecord
        The verdicts held afterwards.

    Examples
    --------
    >>> region = FlaggedRegion(1, 8, None, (1.0,), ((0, 2),), 0.9, 0.7, True)
    >>> first = review_record(region, case="c", method="m", threshold=0.5,
    ...                       centroid_world_mm=(1.0,), verdict="unsure")
    >>> second = review_record(region, case="c", method="m", threshold=0.5,
    ...                        centroid_world_mm=(1.0,), verdict="true finding")
    >>> [r.verdict for r in with_verdict(with_verdict((), first), second)]
    ['true finding']
    """
    kept = [r for r in records if r.key != new.key and r != replaces]
    return (*kept, new)


def same_key_verdict(records: Iterable[ReviewRecord], new: ReviewRecord) -> ReviewRecord | None:
    """Return the stored verdict of ``new``'s reviewer that ``new`` replaces in a file (same key).

    A file keeps one verdict per key (``review_store``): a verdict given blind on a region
    the same reviewer judged in the open replaces it; undo puts this one back.

    Parameters
    ----------
    records : iterable of ReviewRecord
        The verdicts held.
    new : ReviewRecord
        The new verdict.

    Returns
    -------
    ReviewRecord or None
        The verdict replaced, if any.

    Examples
    --------
    >>> region = FlaggedRegion(1, 8, None, (1.0,), ((0, 2),), 0.9, 0.7, True)
    >>> open_ = review_record(region, case="c", method="m", threshold=0.5,
    ...                       centroid_world_mm=(1.0,), verdict="unsure", reviewer="ana")
    >>> blind = review_record(region, case="c", method="m", threshold=0.5,
    ...                       centroid_world_mm=(1.0,), verdict="false alarm", reviewer="ana",
    ...                       blind_seed=7)
    >>> same_key_verdict([open_], blind) == open_
    True
    """
    same = (r for r in records if r.key == new.key and r.reviewer == new.reviewer)
    return next((r for r in same if r != new), None)


def match_reviews(
    regions: Iterable[FlaggedRegion], records: Iterable[ReviewRecord], *, case: str, method: str
) -> dict[int, ReviewRecord]:
    """Return ``object_id -> stored verdict`` for the regions that have one.

    The rule (module docstring): a record of ``case`` and ``method`` belongs to the region
    whose bounding box contains its centroid voxel (nearest centroid first, then lowest
    id); a region with several records shows the newest.

    Parameters
    ----------
    regions : iterable of FlaggedRegion
        The regions found on the case.
    records : iterable of ReviewRecord
        The stored verdicts.
    case, method : str
        The case and method shown.

    Returns
    -------
    dict of int to ReviewRecord
        The verdict of each region that has one.

    Examples
    --------
    >>> import numpy as np
    >>> score = np.zeros((6, 6)); score[1:4, 1:4] = 0.9
    >>> (region,) = flagged_regions(score, threshold=0.5)
    >>> old = review_record(region, case="c", method="m", threshold=0.5,
    ...                     centroid_world_mm=(2.0, 2.0), verdict="true finding")
    >>> score[1, 1:4] = 0.6  # at 0.8 the region shrinks and moves
    >>> (smaller,) = flagged_regions(score, threshold=0.8)
    >>> match_reviews([smaller], [old], case="c", method="m")[smaller.object_id].verdict
    'true finding'
    """
    candidates = tuple(regions)
    found: dict[int, ReviewRecord] = {}
    for record in records:
        if record.case != case or record.method != method:
            continue
        region = _nearest_containing(candidates, record.centroid_voxel)
        if region is None:
            continue
        old = found.get(region.object_id)
        if old is None or _when(record) >= _when(old):
            found[region.object_id] = record
    return found


def _nearest_containing(
    regions: Sequence[FlaggedRegion], point: Sequence[float]
) -> FlaggedRegion | None:
    inside = [r for r in regions if _box_contains(r.bbox, point)]
    if not inside:
        return None
    return min(inside, key=lambda r: (_distance2(r.centroid_voxel, point), r.object_id))


def _box_contains(bbox: Sequence[tuple[int, int]], point: Sequence[float]) -> bool:
    if len(bbox) != len(point):
        return False
    return all(
        lo - _BOX_SLACK <= p <= hi - 1 + _BOX_SLACK for (lo, hi), p in zip(bbox, point, strict=True)
    )


def _distance2(a: Sequence[float], b: Sequence[float]) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))


def check_time(text: str) -> datetime:
    """Return the ``time`` column as an aware datetime (UTC when no zone); ValueError if bad.

    Parameters
    ----------
    text : str
        An ISO 8601 time.

    Returns
    -------
    datetime.datetime
        The time, with a zone.

    Raises
    ------
    ValueError
        When ``text`` is not an ISO 8601 time.
    """
    when = datetime.fromisoformat(text)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _when(record: ReviewRecord) -> datetime:
    return check_time(record.time)


# --------------------------------------------------------------------------- summary


@dataclass(frozen=True)
class VerdictCounts:
    """Verdicts of one method over every case of a review file."""

    method: str
    cases: int
    true_finding: int
    false_alarm: int
    unsure: int

    @property
    def regions(self) -> int:
        """Number of judged regions."""
        return self.true_finding + self.false_alarm + self.unsure


def summarize_reviews(records: Iterable[ReviewRecord]) -> tuple[VerdictCounts, ...]:
    """Count verdicts per method (methods sorted by name).

    Parameters
    ----------
    records : iterable of ReviewRecord
        The verdicts.

    Returns
    -------
    tuple of VerdictCounts
        One entry per method.

    Examples
    --------
    >>> region = FlaggedRegion(1, 8, None, (1.0,), ((0, 2),), 0.9, 0.7, True)
    >>> r = review_record(region, case="c", method="m", threshold=0.5,
    ...                   centroid_world_mm=(1.0,), verdict="false alarm")
    >>> summarize_reviews([r])
    (VerdictCounts(method='m', cases=1, true_finding=0, false_alarm=1, unsure=0),)
    """
    by_method: dict[str, list[ReviewRecord]] = {}
    for record in records:
        by_method.setdefault(record.method, []).append(record)
    return tuple(_counts(method, rows) for method, rows in sorted(by_method.items()))


def _counts(method: str, rows: Sequence[ReviewRecord]) -> VerdictCounts:
    tally = {verdict: sum(r.verdict == verdict for r in rows) for verdict in VERDICTS}
    return VerdictCounts(
        method=method,
        cases=len({r.case for r in rows}),
        true_finding=tally["true finding"],
        false_alarm=tally["false alarm"],
        unsure=tally["unsure"],
    )


# --------------------------------------------------------------------------- file


# --------------------------------------------------------------------------- location
