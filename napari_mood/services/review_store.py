"""The review file: an append-only journal that several viewers and reviewers share safely.

One CSV row per event (:data:`REVIEW_COLUMNS`). Recording a verdict appends its row under
an exclusive lock on the file itself (filelock's ``lock_descriptor``: ``flock`` on POSIX,
``LockFileEx`` on Windows; reads take it too) in a single write, flushed to disk before the
verdict is acknowledged; a row whose ``verdict`` is ``withdrawn`` takes the verdict of its
region key back (undo, or a verdict moved to another region). Nothing is ever rewritten, so two
viewers, two reviewers or two processes keep every acknowledged verdict, the file keeps
its permissions, and a read-only file is refused (never replaced). Reading folds the
journal: the newest row of each key ``(case, method, threshold, object_id)`` wins.
Files written by earlier versions (one row per key, no ``reviewer`` column, no
``adjudication`` column) read the same; a verdict whose blind seed or adjudication mark
such a file has no column for is refused rather than written without it.
A BOM (a file saved by Excel) is accepted.

Where a review file goes (by default, and where it may not) is
:mod:`napari_mood.services.review_location`.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from filelock import lock_descriptor, unlock_descriptor

from napari_mood.core._checks import check_choice
from napari_mood.core.scores import check_threshold
from napari_mood.io.errors import MoodInputError, check_regular_file
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.output import Inputs, check_output_file
from napari_mood.services.review import (
    VERDICTS,
    ReviewRecord,
    check_time,
    summarize_reviews,
)

__all__ = [
    "MAX_NOTE",
    "REVIEW_COLUMNS",
    "SUMMARY_COLUMNS",
    "WITHDRAWN",
    "ReviewFile",
    "ReviewFileError",
    "export_summary",
    "read_journal",
    "read_reviews",
]

REVIEW_COLUMNS: tuple[str, ...] = (
    "case",
    "method",
    "threshold",
    "object_id",
    "centroid_voxel",
    "centroid_world_mm",
    "size_voxels",
    "size_mm3",
    "max_score",
    "verdict",
    "note",
    "time",
    "reviewer",
    "centroid_ras_mm",
    "centroid_file_voxel",
    "blind_seed",
    "adjudication",
)
_OPTIONAL_COLUMNS = (
    "reviewer",
    "centroid_ras_mm",
    "centroid_file_voxel",
    "blind_seed",
    "adjudication",
)
_KEPT_COLUMNS = ("blind_seed", "adjudication")
"""Columns whose value changes what a row means: never dropped when appending to a file
of an earlier version that lacks them (the verdict is refused instead)."""
MAX_NOTE = 10_000
"""The longest note a verdict may carry (characters), checked before anything is written."""
SUMMARY_COLUMNS: tuple[str, ...] = ("method", "cases", "regions", *VERDICTS)
WITHDRAWN = "withdrawn"
"""The ``verdict`` of a row that takes the verdict of its key back."""
_BAD_FILE_HINT = "choose another review file, or move this one away to start a new one"


# --------------------------------------------------------------------------- rows


def _format_point(values: Sequence[float]) -> str:
    return " ".join(f"{v:.4f}" for v in values)


def _row(record: ReviewRecord, verdict: str | None = None) -> tuple[str, ...]:
    return (
        record.case,
        record.method,
        repr(record.threshold),
        str(record.object_id),
        _format_point(record.centroid_voxel),
        _format_point(record.centroid_world_mm),
        str(record.size_voxels),
        "" if record.size_mm3 is None else repr(record.size_mm3),
        repr(record.max_score),
        record.verdict if verdict is None else verdict,
        record.note,
        record.time,
        record.reviewer,
        _format_point(record.centroid_ras_mm),
        _format_point(record.centroid_file_voxel),
        "" if record.blind_seed is None else str(record.blind_seed),
        "yes" if record.adjudication else "",
    )


def _csv_text(header: Sequence[str] | None, rows: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header is not None:
        writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _parse_point(text: str) -> tuple[float, ...]:
    """Read a point as written (``10 20 30``) or as a list (``[10, 20, 30]``, ``10,20,30``)."""
    inner = text.strip()
    if inner[:1] in "[(" and inner[-1:] == {"[": "]", "(": ")"}.get(inner[:1]):
        inner = inner[1:-1]
    values = tuple(float(v) for v in inner.replace(",", " ").split())
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"coordinates must be finite numbers, got {text!r}")
    return values


def _event_from_row(row: Mapping[str, str | None]) -> tuple[ReviewRecord, bool]:
    """Return a journal row as (record, withdrawn)."""
    cell = {c: (row.get(c) or "") for c in REVIEW_COLUMNS}
    for column in ("case", "method", "reviewer"):
        if any(ord(character) < 32 for character in cell[column]):
            raise ValueError(
                f"{column} {cell[column]!r} holds a control character (NUL, tab or line "
                "break): a name is printable text"
            )
    verdict = cell["verdict"]
    withdrawn = verdict == WITHDRAWN
    if not withdrawn:
        check_choice("verdict", verdict, VERDICTS)
    voxel, world = _parse_point(cell["centroid_voxel"]), _parse_point(cell["centroid_world_mm"])
    if len(voxel) != len(world) or not voxel:
        raise ValueError("centroid_voxel and centroid_world_mm need the same number of values")
    record = ReviewRecord(
        case=cell["case"],
        method=cell["method"],
        threshold=check_threshold(float(cell["threshold"])),
        object_id=int(cell["object_id"]),
        centroid_voxel=voxel,
        centroid_world_mm=world,
        size_voxels=int(cell["size_voxels"]),
        size_mm3=float(cell["size_mm3"]) if cell["size_mm3"] else None,
        max_score=float(cell["max_score"]),
        verdict=VERDICTS[0] if withdrawn else verdict,  # type: ignore[arg-type]  # checked
        note=cell["note"],
        time=cell["time"],
        reviewer=cell["reviewer"],
        centroid_ras_mm=_parse_point(cell["centroid_ras_mm"]),
        centroid_file_voxel=_parse_point(cell["centroid_file_voxel"]),
        blind_seed=int(cell["blind_seed"]) if cell["blind_seed"] else None,
        adjudication=_flag(cell["adjudication"]),
    )
    check_time(record.time)
    return record, withdrawn


def _flag(text: str) -> bool:
    if text not in ("", "yes", "no"):
        raise ValueError(f"adjudication must be yes, no or empty, got {text!r}")
    return text == "yes"


# --------------------------------------------------------------------------- reading


def _read_text(source: Path) -> str:
    check_regular_file(source, what="review file")  # a FIFO would block the viewer
    try:
        with source.open("rb") as stream:
            # never while a writer appends: without it a read could end inside a row
            # another process is writing (the lock is exclusive, and a read is short)
            with _locked(stream.fileno()):
                content = stream.read()
        return content.decode("utf-8-sig")  # a BOM (Excel) is dropped
    except (OSError, UnicodeDecodeError) as error:
        raise MoodInputError(source, f"cannot be read ({error})", _BAD_FILE_HINT) from error


@contextlib.contextmanager
def _field_limit(size: int) -> Iterator[None]:
    """Let the csv module read fields of up to ``size`` characters (restored afterwards)."""
    saved = csv.field_size_limit()
    csv.field_size_limit(max(saved, size))
    try:
        yield
    finally:
        csv.field_size_limit(saved)


def read_journal(path: str | os.PathLike[str]) -> tuple[tuple[ReviewRecord, bool], ...]:
    """Every event of a review file, in order: ``(record, withdrawn)``.

    Parameters
    ----------
    path : str or os.PathLike
        A review file (a missing one has no event).

    Returns
    -------
    tuple of (ReviewRecord, bool)
        Each row and whether it withdraws its key's verdict.

    Raises
    ------
    MoodInputError
        When the file is not a readable napari-mood review file (the message names the
        file, the row and what to do).
    """
    source = Path(path)
    if not source.exists() and not source.is_symlink():
        return ()
    text = _read_text(source)
    if not text.strip():
        return ()  # an empty file (created, never written): an empty journal
    with _field_limit(len(text) + 1):  # a long note is no reason to lose the file
        return _events(source, csv.DictReader(io.StringIO(text)))


def _events(source: Path, reader: csv.DictReader) -> tuple[tuple[ReviewRecord, bool], ...]:
    try:
        fieldnames = reader.fieldnames or ()
    except csv.Error as error:
        raise MoodInputError(source, f"line 1 is malformed ({error})", _BAD_FILE_HINT) from error
    required = [c for c in REVIEW_COLUMNS if c not in _OPTIONAL_COLUMNS]
    missing = [c for c in required if c not in fieldnames]
    if missing:
        problem = f"is not a napari-mood review file (no column {', '.join(missing)})"
        raise MoodInputError(source, problem, _BAD_FILE_HINT)
    events = []
    try:
        for row in reader:
            events.append(_event_from_row(row))
    except (ValueError, TypeError, csv.Error) as error:
        line = reader.line_num
        raise MoodInputError(
            source, f"line {line} is malformed ({error})", _BAD_FILE_HINT
        ) from error
    return tuple(events)


def _fold(events: Iterable[tuple[ReviewRecord, bool]]) -> tuple[ReviewRecord, ...]:
    current: dict[tuple[str, str, float, int], ReviewRecord] = {}
    for record, withdrawn in events:
        current.pop(record.key, None)
        if not withdrawn:
            current[record.key] = record
    return tuple(current.values())


def read_reviews(path: str | os.PathLike[str]) -> tuple[ReviewRecord, ...]:
    """Return the current verdicts of a review file (the journal folded); a missing file has none.

    Parameters
    ----------
    path : str or os.PathLike
        A review file.

    Returns
    -------
    tuple of ReviewRecord
        The newest verdict of each key.

    Raises
    ------
    MoodInputError
        See :func:`read_journal`.
    """
    return _fold(read_journal(path))


# --------------------------------------------------------------------------- the file


class ReviewFile:
    """A review journal on disk; every verdict is appended (and flushed) at once.

    Parameters
    ----------
    path : path-like
        The CSV file (created with its header on the first verdict).

    Raises
    ------
    MoodInputError
        When an existing file cannot be read (:func:`read_journal`), is read-only, or the
        folder cannot receive it.

    Examples
    --------
    >>> book = ReviewFile(tmp / "review.csv")  # doctest: +SKIP
    >>> book.save(review_record(region, ..., verdict="unsure"))  # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = Path(path).expanduser()
        if self._path.is_dir():
            raise MoodInputError(self._path, "is a folder", "give a .csv file name")
        if self._path.exists() or self._path.is_symlink():
            check_regular_file(self._path, what="review file")  # broken link, loop, FIFO
        if self._path.exists() and not os.access(self._path, os.W_OK):
            raise MoodInputError(
                self._path,
                "is read-only: verdicts could not be saved to it",
                "make it writable or choose another review file",
            )
        self._stamp: tuple[int, int] | None = None
        self._records: tuple[ReviewRecord, ...] = ()
        self._refresh()

    @property
    def path(self) -> Path:
        """The file."""
        return self._path

    @property
    def records(self) -> tuple[ReviewRecord, ...]:
        """Current verdicts, including those another viewer or process appended since."""
        self._refresh()
        return self._records

    def _refresh(self) -> None:
        try:
            st = self._path.stat()
        except FileNotFoundError:
            self._stamp, self._records = None, ()
            return
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp != self._stamp:
            self._records = read_reviews(self._path)
            self._stamp = stamp

    def save(self, record: ReviewRecord, *, replaces: ReviewRecord | None = None) -> None:
        """Record a verdict; ``replaces`` (another key) is withdrawn in the same write.

        Parameters
        ----------
        record : ReviewRecord
            The verdict.
        replaces : ReviewRecord, optional
            A verdict of another key to withdraw.

        Raises
        ------
        ReviewFileError
            When the note is too long (:data:`MAX_NOTE`) or the row cannot be written
            (nothing was acknowledged). It is both an ``OSError`` and a
            :class:`~napari_mood.io.errors.MoodInputError` naming the file.
        """
        _check_note(self._path, record.note)
        rows = []
        if replaces is not None and replaces.key != record.key:
            rows.append(_row(replace(replaces, time=record.time), WITHDRAWN))
        rows.append(_row(record))
        self._append(rows)

    def withdraw(self, record: ReviewRecord, *, time: str) -> None:
        """Take the verdict of ``record``'s region back (undo).

        Parameters
        ----------
        record : ReviewRecord
            The verdict taken back.
        time : str
            ISO 8601 time of the undo.
        """
        self._append([_row(replace(record, time=time), WITHDRAWN)])

    def _append(self, rows: Sequence[Sequence[str]]) -> None:
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            _append_rows(self._path, rows)
        except ReviewFileError:
            raise  # names the file and what to do already
        except OSError as error:
            raise ReviewFileError(
                self._path,
                f"the verdict could not be saved ({error.strerror or error})",
                "choose another review file",
            ) from error
        self._stamp = None
        self._refresh()


def _append_rows(path: Path, rows: Sequence[Sequence[str]]) -> None:
    """Append ``rows`` in one write under an exclusive lock, after a line break if missing."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)  # Windows: no \r\n
    descriptor = os.open(path, flags, 0o666)
    try:
        with _locked(descriptor):
            size = os.fstat(descriptor).st_size
            header = _header_of(descriptor) if size else REVIEW_COLUMNS
            _check_columns(path, rows, header)
            text = _csv_text(None if size else header, [_project(row, header) for row in rows])
            if size and _read_at(descriptor, 1, size - 1) not in (b"\n", b"\r"):
                text = "\n" + text  # a last line without its line break (an editor's save)
            os.write(descriptor, text.encode("utf-8"))
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def _locked(descriptor: int) -> Iterator[None]:
    """Hold the exclusive lock of an open file (every reader and writer of a journal takes it)."""
    lock_descriptor(descriptor)
    try:
        yield
    finally:
        unlock_descriptor(descriptor)


def _read_at(descriptor: int, size: int, offset: int) -> bytes:
    """Up to ``size`` bytes at ``offset`` (``os.pread`` is POSIX only; appends ignore the seek)."""
    os.lseek(descriptor, offset, os.SEEK_SET)
    return os.read(descriptor, size)


def _header_of(descriptor: int) -> tuple[str, ...]:
    """Return the columns of an existing journal (an older one may lack the newer columns)."""
    first = _read_at(descriptor, 65536, 0).decode("utf-8", "replace").lstrip("\ufeff")
    names = next(csv.reader([first.splitlines()[0] if first else ""]), [])
    return tuple(names) if set(names) >= {"case", "verdict"} else REVIEW_COLUMNS


def _check_columns(path: Path, rows: Sequence[Sequence[str]], header: Sequence[str]) -> None:
    """Refuse rows whose blind seed or adjudication mark a file's header would drop."""
    for name in _KEPT_COLUMNS:
        index = REVIEW_COLUMNS.index(name)
        if name not in header and any(row[index] for row in rows):
            raise ReviewFileError(
                path,
                f"was written by an earlier napari-mood without the {name} column: "
                "this verdict would lose it; nothing was saved",
                "choose a new review file (the old one stays readable)",
            )


def _project(row: Sequence[str], header: Sequence[str]) -> tuple[str, ...]:
    """``row`` (in :data:`REVIEW_COLUMNS` order) in the order of ``header``."""
    cells = dict(zip(REVIEW_COLUMNS, row, strict=True))
    return tuple(cells.get(name, "") for name in header)


def _check_note(path: Path, note: str) -> None:
    if len(note) > MAX_NOTE:
        raise ReviewFileError(
            path,
            f"the note has {len(note):,} characters, more than the {MAX_NOTE:,} a verdict "
            "may carry; nothing was saved",
            "shorten the note",
        )


class ReviewFileError(MoodInputError, OSError):
    """A verdict could not be saved; the message names the file and what to do.

    Both an ``OSError`` (what the viewer catches) and a
    :class:`~napari_mood.io.errors.MoodInputError` (what the command line catches).
    """


# --------------------------------------------------------------------------- summary


def export_summary(
    path: str | os.PathLike[str],
    records: Iterable[ReviewRecord],
    *,
    inputs: Inputs | None = None,
    force: bool = False,
) -> tuple[Path, Path]:
    """Write the verdict counts per method to ``path`` and every judged region beside it.

    The regions go to ``<stem>-objects.csv`` in the same folder (review-file columns,
    sorted by case, method and max score). Both are checked by the output guard first
    (``force`` when the user confirmed replacing them) and written atomically.

    Parameters
    ----------
    path : str or os.PathLike
        The counts file.
    records : iterable of ReviewRecord
        The verdicts.
    inputs : Inputs, optional
        The session's inputs, which the files may not be in.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    (Path, Path)
        The counts file and the regions file.
    """
    rows = tuple(records)
    counts_path = Path(path)
    objects_path = counts_path.with_name(f"{counts_path.stem}-objects.csv")
    for target in (counts_path, objects_path):
        check_output_file(target, inputs=inputs, force=force, what="the review summary")
    table = [
        (c.method, c.cases, c.regions, c.true_finding, c.false_alarm, c.unsure)
        for c in summarize_reviews(rows)
    ]
    write_text_atomic(counts_path, _csv_text(SUMMARY_COLUMNS, table), replace=force)
    ordered = sorted(rows, key=lambda r: (r.case, r.method, -r.max_score, r.object_id))
    objects_text = _csv_text(REVIEW_COLUMNS, [_row(r) for r in ordered])
    write_text_atomic(objects_path, objects_text, replace=force)
    return counts_path, objects_path
