"""Radiologist review of a method's flagged regions: verdicts and the review file.

The regions themselves are :mod:`napari_mood.core.regions`. Nothing here imports napari or
Qt; the dock widget (``napari_mood._napari.widgets.review``) only wires its controls to
these functions.

Review file
    A CSV file (:data:`REVIEW_COLUMNS`), one row per judged region. It is rewritten whole
    after every verdict, atomically (a temporary file in the same folder, flushed, then
    renamed over the old one), so a crash or a closed viewer never leaves half a file and
    never loses a saved verdict. The default location is :func:`default_review_dir`
    (``$NAPARI_MOOD_REVIEW_DIR`` when set), one file per dataset
    (:func:`default_review_path`); a location inside the dataset folder, or in the folder
    of a scan, ground truth or map file, is refused (:func:`check_review_location`).

Coordinates
    ``centroid_voxel`` is the region's centre of mass in voxel indices of the displayed
    array (axis 0 = axial slice, see :mod:`napari_mood.core.orientation`);
    ``centroid_world_mm`` is the same point in napari world coordinates (millimetres,
    same axes, origin at voxel 0). Both are written as space-separated numbers.

Matching stored verdicts to regions (reopening a case, another threshold)
    A stored verdict of the same case and method belongs to the region whose bounding box
    contains its ``centroid_voxel`` (half a voxel of slack); when several do, to the one
    whose centroid is nearest; ties go to the lower object id. A region with several
    stored verdicts shows the newest. The rule ignores object ids and thresholds, which
    change when the threshold moves (a region that shrinks or grows keeps its verdict; two
    regions that merge show the newer verdict). Judging a region again replaces the
    verdict it showed, so the file keeps one row per finding.

"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, get_args

from napari_mood.core._checks import check_choice
from napari_mood.core.io import MoodInputError
from napari_mood.core.regions import FlaggedRegion, flagged_regions  # noqa: F401 (doctests)
from napari_mood.core.scores import check_threshold

__all__ = [
    "ENV_REVIEW_DIR",
    "REVIEW_COLUMNS",
    "SUMMARY_COLUMNS",
    "VERDICTS",
    "ReviewFile",
    "ReviewRecord",
    "Verdict",
    "VerdictCounts",
    "check_review_location",
    "default_review_dir",
    "default_review_path",
    "export_summary",
    "match_reviews",
    "now_iso",
    "read_reviews",
    "review_record",
    "summarize_reviews",
    "with_verdict",
    "write_reviews",
]

Verdict = Literal["true finding", "false alarm", "unsure"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
ENV_REVIEW_DIR = "NAPARI_MOOD_REVIEW_DIR"
APP_NAME = "napari-mood"
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
)
SUMMARY_COLUMNS: tuple[str, ...] = ("method", "cases", "regions", *VERDICTS)
_BOX_SLACK = 0.5  # a voxel index i covers [i - 0.5, i + 0.5]


# --------------------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class ReviewRecord:
    """One judged region: a row of the review file (:data:`REVIEW_COLUMNS`)."""

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

    @property
    def key(self) -> tuple[str, str, float, int]:
        """``(case, method, threshold, object_id)``: one row per key in a review file."""
        return self.case, self.method, self.threshold, self.object_id


def now_iso() -> str:
    """Return the current UTC time as ISO 8601 with seconds (the ``time`` column)."""
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
) -> ReviewRecord:
    """Return the record of a verdict on ``region`` (``time`` defaults to now, UTC).

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
    )


def with_verdict(
    records: Iterable[ReviewRecord], new: ReviewRecord, *, replaces: ReviewRecord | None = None
) -> tuple[ReviewRecord, ...]:
    """Return ``records`` with ``new`` added, dropping ``replaces`` and rows of ``new.key``.

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


def match_reviews(
    regions: Iterable[FlaggedRegion], records: Iterable[ReviewRecord], *, case: str, method: str
) -> dict[int, ReviewRecord]:
    """Return ``object_id -> stored verdict`` for the regions that have one.

    The rule (module docstring): a record of ``case`` and ``method`` belongs to the region
    whose bounding box contains its centroid voxel (nearest centroid first, then lowest
    id); a region with several records shows the newest.

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


def _when(record: ReviewRecord) -> datetime:
    when = datetime.fromisoformat(record.time)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


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


def export_summary(
    path: str | os.PathLike[str], records: Iterable[ReviewRecord]
) -> tuple[Path, Path]:
    """Write the verdict counts per method to ``path`` and every judged region beside it.

    The regions go to ``<stem>-objects.csv`` in the same folder (review-file columns,
    sorted by case, method and max score). Both files are written atomically.

    Returns
    -------
    (Path, Path)
        The counts file and the regions file.
    """
    rows = tuple(records)
    counts_path = Path(path)
    objects_path = counts_path.with_name(f"{counts_path.stem}-objects.csv")
    table = [
        (c.method, c.cases, c.regions, c.true_finding, c.false_alarm, c.unsure)
        for c in summarize_reviews(rows)
    ]
    _atomic_write_text(counts_path, _csv_text(SUMMARY_COLUMNS, table))
    ordered = sorted(rows, key=lambda r: (r.case, r.method, -r.max_score, r.object_id))
    _atomic_write_text(objects_path, _csv_text(REVIEW_COLUMNS, [_row(r) for r in ordered]))
    return counts_path, objects_path


# --------------------------------------------------------------------------- file


def _format_point(values: Sequence[float]) -> str:
    return " ".join(f"{v:.4f}" for v in values)


def _row(record: ReviewRecord) -> tuple[str, ...]:
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
        record.verdict,
        record.note,
        record.time,
    )


def _csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def write_reviews(path: str | os.PathLike[str], records: Iterable[ReviewRecord]) -> None:
    """Write a review file atomically (temporary file in the same folder, then rename)."""
    _atomic_write_text(Path(path), _csv_text(REVIEW_COLUMNS, [_row(r) for r in records]))


def _atomic_write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_reviews(path: str | os.PathLike[str]) -> tuple[ReviewRecord, ...]:
    """Read a review file; a missing file holds no verdicts.

    Raises
    ------
    MoodInputError
        When the file is not a readable napari-mood review file (the message names the
        file, the row and what to do).
    """
    source = Path(path)
    if not source.exists():
        return ()
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise MoodInputError(source, f"cannot be read ({error})", _BAD_FILE_HINT) from error
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in REVIEW_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        problem = f"is not a napari-mood review file (no column {', '.join(missing)})"
        raise MoodInputError(source, problem, _BAD_FILE_HINT)
    return tuple(_parse_row(source, line, row) for line, row in enumerate(reader, start=2))


_BAD_FILE_HINT = "choose another review file, or move this one away to start a new one"


def _parse_row(source: Path, line: int, row: Mapping[str, str | None]) -> ReviewRecord:
    try:
        return _record_from_row(row)
    except (ValueError, TypeError) as error:
        raise MoodInputError(
            source, f"line {line} is malformed ({error})", _BAD_FILE_HINT
        ) from error


def _record_from_row(row: Mapping[str, str | None]) -> ReviewRecord:
    cell = {c: (row.get(c) or "") for c in REVIEW_COLUMNS}
    verdict = cell["verdict"]
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
        verdict=verdict,  # type: ignore[arg-type]  # checked above
        note=cell["note"],
        time=cell["time"],
    )
    _when(record)  # raises ValueError for a bad time
    return record


def _parse_point(text: str) -> tuple[float, ...]:
    values = tuple(float(v) for v in text.split())
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"coordinates must be finite numbers, got {text!r}")
    return values


class ReviewFile:
    """A review file on disk and its verdicts; every change is written at once.

    Parameters
    ----------
    path : path-like
        The CSV file (created on the first verdict).

    Raises
    ------
    MoodInputError
        When an existing file cannot be read (:func:`read_reviews`).

    Examples
    --------
    >>> book = ReviewFile(tmp / "review.csv")  # doctest: +SKIP
    >>> book.save(review_record(region, ..., verdict="unsure"))  # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = Path(path)
        self._records = read_reviews(self._path)

    @property
    def path(self) -> Path:
        """The file."""
        return self._path

    @property
    def records(self) -> tuple[ReviewRecord, ...]:
        """Verdicts saved so far."""
        return self._records

    def save(self, record: ReviewRecord, *, replaces: ReviewRecord | None = None) -> None:
        """Add or replace a verdict (:func:`with_verdict`) and rewrite the file atomically."""
        records = with_verdict(self._records, record, replaces=replaces)
        write_reviews(self._path, records)
        self._records = records


# --------------------------------------------------------------------------- location


def default_review_dir(
    environ: Mapping[str, str] | None = None,
    *,
    platform: str | None = None,
    home: Path | None = None,
) -> Path:
    """Return the folder review files go to by default.

    ``$NAPARI_MOOD_REVIEW_DIR`` when set; else the user data folder: Linux
    ``$XDG_DATA_HOME/napari-mood/reviews`` (``~/.local/share/...``), macOS
    ``~/Library/Application Support/napari-mood/reviews``, Windows
    ``%LOCALAPPDATA%\\napari-mood\\reviews``.

    Examples
    --------
    >>> default_review_dir({}, platform="linux", home=Path("/home/ana")).as_posix()
    '/home/ana/.local/share/napari-mood/reviews'
    >>> default_review_dir({"NAPARI_MOOD_REVIEW_DIR": "/tmp/r"}).as_posix()
    '/tmp/r'
    """
    env = os.environ if environ is None else environ
    if env.get(ENV_REVIEW_DIR):
        return Path(env[ENV_REVIEW_DIR]).expanduser()
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else home
    if platform.startswith("win"):
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / APP_NAME / "reviews"


def default_review_path(dataset: Path | None, *, directory: Path | None = None) -> Path:
    """Return the default review file of a dataset: ``<name>-<hash of its path>.csv``.

    The hash keeps two datasets with the same folder name apart; without a dataset the
    file is ``reviews.csv``.

    Examples
    --------
    >>> default_review_path(None, directory=Path("/r")).as_posix()
    '/r/reviews.csv'
    >>> default_review_path(Path("/data/mood"), directory=Path("/r")).name.startswith("mood-")
    True
    """
    folder = default_review_dir() if directory is None else directory
    if dataset is None:
        return folder / "reviews.csv"
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset.name) or "dataset"
    digest = hashlib.sha1(str(dataset.resolve()).encode(), usedforsecurity=False).hexdigest()[:8]
    return folder / f"{name}-{digest}.csv"


def check_review_location(
    path: str | os.PathLike[str],
    *,
    datasets: Iterable[str | os.PathLike[str] | None] = (),
    files: Iterable[str | os.PathLike[str] | None] = (),
) -> Path:
    """Return ``path`` resolved, refusing a location among the input data.

    Refused: anywhere inside a dataset folder, and the folder of any input file (scan,
    ground truth, score map). Sub-folders of an input file's folder are allowed, so that
    opening a file from one's home folder does not forbid the user data folder.

    Raises
    ------
    MoodInputError
        Naming the input folder and what to do instead.

    Examples
    --------
    >>> check_review_location("/data/mood/notes/review.csv", datasets=["/data/mood"])
    Traceback (most recent call last):
    ...
    napari_mood.core.io.MoodInputError: /data/mood/notes/review.csv: is inside the dataset folder /data/mood (choose a folder outside the data, e.g. the default one)
    >>> check_review_location("/home/ana/review.csv", files=["/home/ana/scan.nii.gz"])
    Traceback (most recent call last):
    ...
    napari_mood.core.io.MoodInputError: /home/ana/review.csv: is in the folder of the input file /home/ana/scan.nii.gz (choose a folder outside the data, e.g. the default one)
    """
    target = Path(path).expanduser().resolve()
    for folder in (Path(d).expanduser().resolve() for d in datasets if d is not None):
        if target.is_relative_to(folder):
            raise MoodInputError(target, f"is inside the dataset folder {folder}", _LOCATION_HINT)
    for file in (Path(f).expanduser().resolve() for f in files if f is not None):
        if target.parent == file.parent:
            problem = f"is in the folder of the input file {file}"
            raise MoodInputError(target, problem, _LOCATION_HINT)
    return target


_LOCATION_HINT = "choose a folder outside the data, e.g. the default one"
