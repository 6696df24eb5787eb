"""Adjudication: the regions readers disagreed on, as a file and as a review queue. GUI-free.

``napari-mood review-report`` writes ``disagreements.csv`` (:func:`disagreements_csv`):
one row per disputed region with the columns of :data:`ADJUDICATION_COLUMNS` (where the
region is, as in a review file) and one ``verdict:<reader>`` column per reader (empty:
that reader did not judge it). :func:`read_adjudication` reads it back as an
:class:`AdjudicationList`, which narrows the review panel's walk to the disputed regions:

* :meth:`AdjudicationList.restrict` keeps, of a :class:`~napari_mood.services.review_queue.ReviewQueue`,
  the cases with a disputed region of the reviewed method (in the queue's order, so a blind
  review stays shuffled);
* :meth:`AdjudicationList.regions` keeps, of a case's flagged regions, the disputed ones,
  found by the rule that brings stored verdicts back
  (:func:`~napari_mood.services.review.match_reviews`: the region whose bounding box holds
  the disputed centroid), so the list holds at another threshold too.

:func:`adjudication_list` makes the same list from a study's disagreements directly (the
reader-study panel's "Adjudicate disagreements"). The adjudicator's verdict is a
review-file row like any other, with the adjudicator as ``reviewer`` and the
``adjudication`` column set (:class:`~napari_mood.services.review.ReviewRecord`): reader
statistics leave such rows out.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from napari_mood.core.regions import FlaggedRegion
from napari_mood.core.scores import check_threshold
from napari_mood.io.errors import MoodInputError, check_regular_file
from napari_mood.services.review import VERDICTS, ReviewRecord, Verdict, match_reviews
from napari_mood.services.review_queue import ReviewQueue

__all__ = [
    "ADJUDICATION_COLUMNS",
    "READER_PREFIX",
    "AdjudicationItem",
    "AdjudicationList",
    "Dispute",
    "adjudication_list",
    "disagreements_csv",
    "read_adjudication",
]

ADJUDICATION_COLUMNS: tuple[str, ...] = (
    "case",
    "method",
    "threshold",
    "object_id",
    "centroid_voxel",
    "centroid_world_mm",
    "centroid_ras_mm",
    "centroid_file_voxel",
    "size_voxels",
    "max_score",
    "blind",
)
READER_PREFIX = "verdict:"
_HINT = "give a disagreements.csv written by napari-mood review-report"
_EPOCH = "1970-01-01T00:00:00+00:00"


@dataclass(frozen=True)
class AdjudicationItem:
    """A disputed region: where it is and what each reader said."""

    case: str
    method: str
    threshold: float
    object_id: int
    centroid_voxel: tuple[float, ...]
    centroid_world_mm: tuple[float, ...]
    centroid_ras_mm: tuple[float, ...]
    centroid_file_voxel: tuple[float, ...]
    size_voxels: int
    max_score: float
    blind: bool
    verdicts: tuple[tuple[str, Verdict], ...]

    def location(self) -> ReviewRecord:
        """Return a record placed at the region (for ``match_reviews``; its verdict is a filler).

        Returns
        -------
        ReviewRecord
            A record at the region's place.
        """
        return ReviewRecord(
            case=self.case,
            method=self.method,
            threshold=self.threshold,
            object_id=self.object_id,
            centroid_voxel=self.centroid_voxel,
            centroid_world_mm=self.centroid_world_mm,
            size_voxels=self.size_voxels,
            size_mm3=None,
            max_score=self.max_score,
            verdict="unsure",
            note="",
            time=_EPOCH,
            centroid_ras_mm=self.centroid_ras_mm,
            centroid_file_voxel=self.centroid_file_voxel,
        )


@dataclass(frozen=True)
class AdjudicationList:
    """The disputed regions of a reader study, in the file's order."""

    items: tuple[AdjudicationItem, ...]
    readers: tuple[str, ...]
    path: Path | None = None

    def methods(self) -> tuple[str, ...]:
        """Methods with a disputed region, first seen first.

        Returns
        -------
        tuple of str
            The methods.
        """
        return tuple(dict.fromkeys(i.method for i in self.items))

    def cases(self, method: str | None = None) -> tuple[str, ...]:
        """Cases with a disputed region (of ``method`` when given), first seen first.

        Parameters
        ----------
        method : str, optional
            Only this method's regions.

        Returns
        -------
        tuple of str
            The cases.
        """
        found = (i.case for i in self.items if method is None or i.method == method)
        return tuple(dict.fromkeys(found))

    def of_case(self, case: str, method: str) -> tuple[AdjudicationItem, ...]:
        """Return the disputed regions of one case and method.

        Parameters
        ----------
        case : str
            The case.
        method : str
            The method.

        Returns
        -------
        tuple of AdjudicationItem
            The items, in list order.
        """
        return tuple(i for i in self.items if i.case == case and i.method == method)

    def restrict(self, queue: ReviewQueue, *, method: str) -> ReviewQueue:
        """``queue`` walking only the cases with a disputed region of ``method``.

        Parameters
        ----------
        queue : ReviewQueue
            A review queue.
        method : str
            The method adjudicated.

        Returns
        -------
        ReviewQueue
            The queue with only those cases (in its order).
        """
        disputed = set(self.cases(method))
        return replace(queue, cases=tuple(c for c in queue.cases if c in disputed))

    def regions(
        self, regions: Iterable[FlaggedRegion], *, case: str, method: str
    ) -> tuple[FlaggedRegion, ...]:
        """Return the disputed ones among a case's ``regions`` (their order kept).

        Parameters
        ----------
        regions : iterable of FlaggedRegion
            The regions found on the case.
        case : str
            The case.
        method : str
            The method.

        Returns
        -------
        tuple of FlaggedRegion
            The regions that are disputed.

        Examples
        --------
        >>> region = FlaggedRegion(1, 8, None, (1.0, 1.0), ((0, 3), (0, 3)), 0.9, 0.7, True)
        >>> other = FlaggedRegion(2, 8, None, (8.0, 8.0), ((7, 10), (7, 10)), 0.8, 0.7, True)
        >>> item = AdjudicationItem("c", "m", 0.5, 1, (1.0, 1.0), (1.0, 1.0), (), (), 8,
        ...                         0.9, False, (("ana", "unsure"), ("ben", "false alarm")))
        >>> [r.object_id for r in AdjudicationList((item,), ("ana", "ben")).regions(
        ...     [region, other], case="c", method="m")]
        [1]
        """
        shown = tuple(regions)
        matched = self._matched(shown, case=case, method=method)
        return tuple(r for r in shown if r.object_id in matched)

    def item_of(self, region: FlaggedRegion, *, case: str, method: str) -> AdjudicationItem | None:
        """Return the disputed item at ``region`` (what each reader said), or None.

        Parameters
        ----------
        region : FlaggedRegion
            A region found on the case.
        case : str
            The case.
        method : str
            The method.

        Returns
        -------
        AdjudicationItem or None
            The item at the region's place.
        """
        place = self._matched((region,), case=case, method=method).get(region.object_id)
        items = self.of_case(case, method)
        return next((i for i in items if i.location() == place), None)

    def _matched(
        self, regions: tuple[FlaggedRegion, ...], *, case: str, method: str
    ) -> dict[int, ReviewRecord]:
        places = [i.location() for i in self.of_case(case, method)]
        return match_reviews(regions, places, case=case, method=method)


# --------------------------------------------------------------------------- building


Dispute = tuple[ReviewRecord, Sequence[tuple[str, str]], bool]
"""A disputed region: (a record placing it, (reader, verdict) pairs, given in blind review)."""


def adjudication_list(disputes: Iterable[Dispute], readers: Sequence[str]) -> AdjudicationList:
    """Return the disputed regions of a reader study as a list to adjudicate (no file needed).

    The same list :func:`read_adjudication` reads back from :func:`disagreements_csv`.

    Parameters
    ----------
    disputes : iterable of tuple
        Per disputed region: a record placing it, each reader's ``(reader, verdict)`` and
        whether it was reviewed blind.
    readers : sequence of str
        The study's readers, in column order.

    Returns
    -------
    AdjudicationList
        One item per disputed region.

    Examples
    --------
    >>> region = FlaggedRegion(1, 8, None, (1.0, 1.0), ((0, 3), (0, 3)), 0.9, 0.7, True)
    >>> from napari_mood.services.review import review_record
    >>> placed = review_record(region, case="c", method="m", threshold=0.5,
    ...                        centroid_world_mm=(1.0, 1.0), verdict="unsure")
    >>> listing = adjudication_list([(placed, [("ana", "unsure"), ("ben", "false alarm")],
    ...                               False)], ["ana", "ben"])
    >>> listing.methods(), listing.items[0].verdicts
    (('m',), (('ana', 'unsure'), ('ben', 'false alarm')))
    """
    items = tuple(_item_of(record, verdicts, blind) for record, verdicts, blind in disputes)
    return AdjudicationList(items, tuple(readers))


def _item_of(
    record: ReviewRecord, verdicts: Sequence[tuple[str, str]], blind: bool
) -> AdjudicationItem:
    said = tuple((name, v) for name, v in ((n, _verdict(t)) for n, t in verdicts) if v)
    return AdjudicationItem(
        case=record.case,
        method=record.method,
        threshold=record.threshold,
        object_id=record.object_id,
        centroid_voxel=record.centroid_voxel,
        centroid_world_mm=record.centroid_world_mm,
        centroid_ras_mm=record.centroid_ras_mm,
        centroid_file_voxel=record.centroid_file_voxel,
        size_voxels=record.size_voxels,
        max_score=record.max_score,
        blind=blind,
        verdicts=said,
    )


# --------------------------------------------------------------------------- writing


def _point(values: Sequence[float]) -> str:
    return " ".join(f"{v:.4f}" for v in values)


def disagreements_csv(disputes: Iterable[Dispute], readers: Sequence[str]) -> str:
    """Return the text of the adjudication file: one row per disputed region.

    Parameters
    ----------
    disputes : iterable of tuple
        Per disputed region: a record placing it, each reader's ``(reader, verdict)`` and
        whether it was reviewed blind.
    readers : sequence of str
        The study's readers, in column order.

    Returns
    -------
    str
        CSV text with a header line.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*ADJUDICATION_COLUMNS, *(f"{READER_PREFIX}{r}" for r in readers)])
    for record, verdicts, blind in disputes:
        said = dict(verdicts)
        writer.writerow([
            record.case, record.method, repr(record.threshold), record.object_id,
            _point(record.centroid_voxel), _point(record.centroid_world_mm),
            _point(record.centroid_ras_mm), _point(record.centroid_file_voxel),
            record.size_voxels, repr(record.max_score), "yes" if blind else "no",
            *(said.get(r, "") for r in readers),
        ])  # fmt: skip
    return buffer.getvalue()


# --------------------------------------------------------------------------- reading


def read_adjudication(path: str | os.PathLike[str]) -> AdjudicationList:
    """Read a ``disagreements.csv`` written by ``napari-mood review-report``.

    Parameters
    ----------
    path : str or os.PathLike
        The ``disagreements.csv`` file.

    Returns
    -------
    AdjudicationList
        The disputed regions and the readers.

    Raises
    ------
    MoodInputError
        When the file is missing, unreadable or not such a file (the message names it and
        the line).
    """
    source = Path(path)
    check_regular_file(source, what="disagreements file")
    try:
        text = source.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise MoodInputError(source, f"cannot be read ({error})", _HINT) from error
    reader = csv.DictReader(io.StringIO(text))
    columns = tuple(reader.fieldnames or ())
    missing = [c for c in ADJUDICATION_COLUMNS if c not in columns]
    if missing:
        raise MoodInputError(
            source, f"is not a disagreements file (no column {', '.join(missing)})", _HINT
        )
    readers = tuple(c.removeprefix(READER_PREFIX) for c in columns if c.startswith(READER_PREFIX))
    try:
        items = tuple(_item(row, readers) for row in reader)
    except (ValueError, TypeError, csv.Error) as error:
        problem = f"line {reader.line_num} is malformed ({error})"
        raise MoodInputError(source, problem, _HINT) from error
    return AdjudicationList(items, readers, source)


def _item(row: dict[str, str | None], readers: Sequence[str]) -> AdjudicationItem:
    cell = {k: (v or "") for k, v in row.items() if k is not None}
    verdicts = tuple((name, _verdict(cell.get(f"{READER_PREFIX}{name}", ""))) for name in readers)
    max_score = float(cell["max_score"])
    if not math.isfinite(max_score):
        raise ValueError(f"max_score must be a finite number, got {cell['max_score']!r}")
    if cell["blind"] not in ("yes", "no"):
        raise ValueError(f"blind must be yes or no, got {cell['blind']!r}")
    return AdjudicationItem(
        case=cell["case"],
        method=cell["method"],
        threshold=check_threshold(float(cell["threshold"])),
        object_id=int(cell["object_id"]),
        centroid_voxel=_parse_point(cell["centroid_voxel"]),
        centroid_world_mm=_parse_point(cell["centroid_world_mm"]),
        centroid_ras_mm=_parse_point(cell["centroid_ras_mm"]),
        centroid_file_voxel=_parse_point(cell["centroid_file_voxel"]),
        size_voxels=int(cell["size_voxels"]),
        max_score=max_score,
        blind=cell["blind"] == "yes",
        verdicts=tuple((name, v) for name, v in verdicts if v is not None),
    )


def _verdict(text: str) -> Verdict | None:
    if not text:
        return None
    if text not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {text!r}")
    return text  # type: ignore[return-value]  # checked


def _parse_point(text: str) -> tuple[float, ...]:
    values = tuple(float(v) for v in text.split())
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"coordinates must be finite numbers, got {text!r}")
    return values
