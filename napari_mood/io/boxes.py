"""NOVA-style box data on disk: a folder of PNG slices, box CSV files, prediction files.

Read-only, like :mod:`napari_mood.io.mood`. Layout::

    DATASET/images/SLICE.png          the slices (any 2-D PNG; or the PNGs in DATASET/)
    DATASET/boxes.csv                 ground-truth boxes (or any CSV given with --boxes)
    DATASET/predictions/NAME.csv      a method's boxes (.csv or .json), named after the file
    DATASET/maps/NAME/SLICE.png       a method's score maps (.png or .npy), for --threshold

Box CSV columns (header names compared without case, spaces read as ``_``):

- image: ``image_id``, ``image``, ``file``, ``filename``, ``file_name``, ``image_file``,
  ``image_name``. The value names a slice by file name or stem (``s01``, ``s01.png`` and
  ``images/s01.png`` all name ``images/s01.png``); any other path (``../images/s01``,
  ``/tmp/s01.png``) is a problem on its line: an id is a name, not a path.
- box: ``x1, y1, x2, y2`` (or ``xmin, ymin, xmax, ymax``), or ``x, y, width, height``
  (or ``x, y, w, h``); pixel coordinates as in :mod:`.geometry` (COCO's).
- optional: reader (``reader``, ``reader_id``, ``annotator``, ``rater``; a row with an
  empty reader cell while other rows name one is a problem on its line), category
  (``label``, ``category``, ``class``, ``category_name``), confidence (``score``,
  ``confidence``, ``conf``, ``probability``).

Predictions as JSON: a COCO results list, ``[{"image_id": ..., "bbox": [x, y, w, h],
"score": ...}, ...]`` (optional ``category_id`` or ``label``).

Each row is checked: a value that is not a number, a negative width or height (ground
truth: also a zero width or height), a box outside its image (a box may touch the border: ``x2 <= width``), an unknown image. The
problems name the file and line (the header is line 1) and say what to do. Rows that
repeat an earlier row exactly are kept and counted (:meth:`BoxFile.repeat_note`); the
caller decides what a repeat means.

Files that lie about their size are refused before anything is allocated: a PNG or
``.npy`` header declaring more than :data:`MAX_SLICE_PIXELS` pixels, or more data than
the file can hold (a PNG's deflate stream expands at most 1032-fold), names the file.
"""

from __future__ import annotations

import contextlib
import csv
import math
import os
import struct
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from napari_mood.core.boxes.model import DEFAULT_LABEL, BoxSet
from napari_mood.io.errors import MoodInputError, check_regular_file, option
from napari_mood.io.json_input import read_json
from napari_mood.io.nifti import DEFLATE_MAX_RATIO

__all__ = [
    "BOXES_FILE",
    "BoxDataset",
    "BoxFile",
    "COLUMN_NAMES",
    "MAX_SLICE_PIXELS",
    "PREDICTIONS_FOLDER",
    "discover_box_dataset",
    "find_box_predictions",
    "image_id_of",
    "read_box_file",
    "read_score_map",
]

BOXES_FILE = "boxes.csv"
IMAGES_FOLDER = "images"
PREDICTIONS_FOLDER = "predictions"
MAPS_FOLDER = "maps"
PathLike = str | os.PathLike[str]

COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "image": ("image_id", "image", "file", "filename", "file_name", "image_file", "image_name"),
    "x1": ("x1", "xmin"),
    "y1": ("y1", "ymin"),
    "x2": ("x2", "xmax"),
    "y2": ("y2", "ymax"),
    "x": ("x",),
    "y": ("y",),
    "width": ("width", "w"),
    "height": ("height", "h"),
    "reader": ("reader", "reader_id", "annotator", "rater"),
    "label": ("label", "category", "class", "category_name"),
    "score": ("score", "confidence", "conf", "probability"),
}
"""Accepted header names of each column (compared lower-case, spaces as ``_``)."""


def image_id_of(name: str) -> str:
    """Return the image id a file name or CSV value names: its name without ``.png``.

    An id is a name: ``NAME``, ``NAME.png`` or the slice's own place ``images/NAME.png``.
    Any other path would name a file elsewhere and is refused.

    Parameters
    ----------
    name : str
        A PNG file name, ``images/NAME.png``, or an id.

    Returns
    -------
    str
        The id.

    Raises
    ------
    ValueError
        When ``name`` is another path (``../images/NAME``, ``/abs/NAME.png``).

    Examples
    --------
    >>> image_id_of("images/case_012.PNG"), image_id_of("case_012")
    ('case_012', 'case_012')
    """
    text = str(name).strip()
    parts = text.replace("\\", "/").split("/")
    if len(parts) > 2 or (len(parts) == 2 and parts[0] != IMAGES_FOLDER):
        raise ValueError(
            f"image id {text!r} is a path, not a name (give the slice's name, e.g. "
            f"{_png_stem(parts[-1])!r})"
        )
    return _png_stem(parts[-1])


def _png_stem(last: str) -> str:
    return last[:-4] if last.lower().endswith(".png") else last


@dataclass(frozen=True)
class BoxDataset:
    """A folder of PNG slices and its ground-truth box file."""

    root: Path
    images_dir: Path
    images: dict[str, Path]
    sizes: dict[str, tuple[int, int]]
    """``{image id: (width, height)}`` in pixels, from the PNG headers."""
    boxes_file: Path

    @property
    def order(self) -> tuple[str, ...]:
        """Image ids in file-name order: the order of ties and of every table."""
        return tuple(self.images)


def discover_box_dataset(
    root: PathLike, *, boxes: PathLike | None = None, images: PathLike | None = None
) -> BoxDataset:
    """Find the slices (``root/images`` or ``root``) and the box file (``root/boxes.csv``).

    Parameters
    ----------
    root : path-like
        The dataset folder.
    boxes : path-like, optional
        The ground-truth box file, when it is not ``root/boxes.csv``.
    images : path-like, optional
        The folder of the PNG slices, when it is not ``root/images`` or ``root``.

    Returns
    -------
    BoxDataset
        The root, the slices by image id with their sizes, and the box file.

    Raises
    ------
    MoodInputError
        No folder, no PNG, two PNGs with one id, no box file (naming what was looked for).
    """
    root = Path(root)
    if not root.is_dir():
        raise MoodInputError(root, "is not a folder", "give the folder of a NOVA-style dataset")
    images_dir = Path(images) if images is not None else _images_dir(root)
    found = _pngs(images_dir)
    boxes_file = Path(boxes) if boxes is not None else root / BOXES_FILE
    if not boxes_file.exists():
        csvs = sorted(p.name for p in root.glob("*.csv"))
        hint = (
            f"give it {option('with --boxes', 'by name')} (CSV files here: {', '.join(csvs)})"
            if csvs
            else f"give it {option('with --boxes', 'by name')}"
        )
        raise MoodInputError(boxes_file, "no ground-truth box file", hint)
    check_regular_file(boxes_file, what="box CSV file")
    sizes = {image: read_image_size(path) for image, path in found.items()}
    return BoxDataset(root, images_dir, found, sizes, boxes_file)


def _images_dir(root: Path) -> Path:
    sub = root / IMAGES_FOLDER
    return sub if sub.is_dir() else root


def _pngs(folder: Path) -> dict[str, Path]:
    if not folder.is_dir():
        raise MoodInputError(folder, "is not a folder", "give the folder holding the PNG slices")
    found: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.suffix.lower() != ".png":
            continue
        image = image_id_of(path.name)
        if image in found:
            raise MoodInputError(
                path, f"has the same image id as {found[image].name}", "rename one"
            )
        found[image] = path
    if not found:
        raise MoodInputError(folder, "holds no PNG slice", "give the folder of the .png slices")
    return found


MAX_SLICE_PIXELS = 1 << 26
"""Most pixels a slice or a score map may have (67,108,864, e.g. 8192 x 8192): a header
declaring more is refused before anything is decoded."""
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # IHDR colour type -> samples per pixel
_REEXPORT = "re-export or re-download it"


def read_image_size(path: PathLike) -> tuple[int, int]:
    """``(width, height)`` of a PNG from its header (the pixels are not decoded).

    Raises
    ------
    MoodInputError
        Not a readable PNG, or a header declaring more pixels than
        :data:`MAX_SLICE_PIXELS` or than the file can hold.
    """
    with _opened_png(Path(path)) as img:
        return int(img.width), int(img.height)


def read_png(path: PathLike) -> np.ndarray:
    """Return the pixels of a PNG as a 2-D array (colour images: their luminance).

    The header is checked first (see :func:`read_image_size`): a file that lies about
    its size is refused before any pixel is allocated.
    """
    path = Path(path)
    with _opened_png(path) as img:
        try:
            if img.mode in ("L", "I;16", "I", "F", "1"):
                return np.asarray(img)
            return np.asarray(img.convert("L"))
        except (OSError, ValueError, SyntaxError) as exc:  # PIL: damaged or truncated data
            raise MoodInputError(path, f"is not a readable PNG ({exc})", _REEXPORT) from exc


@contextlib.contextmanager
def _opened_png(path: Path) -> Iterator[Any]:
    """Open a PNG as a PIL image once its declared size is checked (nothing decoded yet)."""
    from PIL import Image, UnidentifiedImageError

    check_regular_file(path, what="PNG file")
    _check_png_header(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(path)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise MoodInputError(
            path, f"declares too many pixels to be a slice ({exc})", _REEXPORT
        ) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise MoodInputError(path, f"is not a readable PNG ({exc})", _REEXPORT) from exc
    with img:
        if img.format != "PNG":
            raise MoodInputError(path, f"is {img.format}, not PNG", "convert it to PNG")
        _check_pixels(path, int(img.width), int(img.height))
        yield img


def _png_declared(path: Path) -> tuple[int, int, int] | None:
    """``(width, height, bits per pixel)`` of a PNG's IHDR chunk; None if not a PNG."""
    try:
        with path.open("rb") as stream:
            head = stream.read(26)
    except OSError as exc:
        raise MoodInputError(
            path, f"cannot be read ({exc.strerror or exc})", "check its permissions"
        ) from exc
    if len(head) < 26 or not head.startswith(_PNG_SIGNATURE) or head[12:16] != b"IHDR":
        return None
    width, height, depth, colour = struct.unpack(">IIBB", head[16:26])
    return width, height, depth * _PNG_CHANNELS.get(colour, 1)


def _check_png_header(path: Path) -> None:
    """Refuse a PNG header declaring more pixels than a slice has or the file can hold.

    Raw PNG data are ``height * (1 + width * bits / 8)`` bytes (non-interlaced, the
    least any PNG of that size needs), and deflate expands at most
    :data:`~napari_mood.io.nifti.DEFLATE_MAX_RATIO`-fold.
    """
    declared = _png_declared(path)
    if declared is None:  # not PNG: PIL says what it is
        return
    width, height, bits = declared
    _check_pixels(path, width, height)
    needed = height * (1 + (width * bits + 7) // 8)
    size = path.stat().st_size
    bound = size * DEFLATE_MAX_RATIO
    if needed > bound:
        raise MoodInputError(
            path,
            f"is truncated or its header is wrong: {width} x {height} pixels of {bits} bits "
            f"need {needed:,} bytes, a PNG of {size:,} bytes holds at most {bound:,}",
            _REEXPORT,
        )


def _check_pixels(path: Path, width: int, height: int) -> None:
    if width * height > MAX_SLICE_PIXELS:
        raise MoodInputError(
            path,
            f"declares {width} x {height} pixels, more than the {MAX_SLICE_PIXELS:,} "
            "a slice or a score map may have (a damaged header?)",
            f"{_REEXPORT}, or downsample it",
        )


def read_score_map(path: PathLike) -> np.ndarray:
    """Return a 2-D score map in [0, 1]: a ``.npy`` array, or a PNG scaled by its type's maximum.

    8-bit PNG values are divided by 255, 16-bit by 65535; ``.npy`` values are taken as they
    are (a value outside [0, 1] or NaN is refused, naming the file). The header of either
    is checked before any pixel is read (:data:`MAX_SLICE_PIXELS`, the size of the file).

    Parameters
    ----------
    path : path-like
        A ``.npy`` or ``.png`` file.

    Returns
    -------
    numpy.ndarray
        float64 2-D map.

    Raises
    ------
    MoodInputError
        When the file cannot be read, is too large or holds values outside [0, 1].
    """
    path = Path(path)
    if path.suffix.lower() == ".npy":
        values = _read_npy(path)
    else:
        pixels = read_png(path)
        scale = {np.dtype(np.uint8): 255.0, np.dtype(np.uint16): 65535.0}.get(pixels.dtype, 1.0)
        values = pixels.astype(np.float64) / scale
    if values.ndim != 2:
        raise MoodInputError(path, f"is {values.ndim}-D (shape {values.shape})", "give a 2-D map")
    if np.isnan(values).any() or values.min(initial=0) < 0 or values.max(initial=0) > 1:
        raise MoodInputError(path, "holds scores outside [0, 1] or NaN", "scale the map to [0, 1]")
    return values


def _read_npy(path: Path) -> np.ndarray:
    """Return a 2-D real ``.npy`` array as float64, its header checked against the file first."""
    check_regular_file(path, what="score map")
    _check_npy_header(path)
    try:
        return np.asarray(np.load(path, allow_pickle=False), dtype=np.float64)
    except (OSError, ValueError, EOFError) as exc:
        raise MoodInputError(path, f"is not a readable .npy array ({exc})", "replace it") from exc


def _npy_header(path: Path) -> tuple[tuple[int, ...], np.dtype, int]:
    """``(shape, dtype, offset of the data)`` of a ``.npy`` file, without reading the data."""
    header_readers = {
        (1, 0): np.lib.format.read_array_header_1_0,
        (2, 0): np.lib.format.read_array_header_2_0,
    }
    try:
        with path.open("rb") as stream:
            version = np.lib.format.read_magic(stream)
            if version not in header_readers:
                raise ValueError(f".npy format version {version[0]}.{version[1]} is not read")
            shape, _, dtype = header_readers[version](stream)
            return tuple(int(s) for s in shape), np.dtype(dtype), stream.tell()
    except (OSError, ValueError, EOFError, SyntaxError, TypeError) as exc:
        raise MoodInputError(
            path, f"is not a readable .npy array ({' '.join(str(exc).split())})",
            "save it with numpy.save",
        ) from exc  # fmt: skip


def _check_npy_header(path: Path) -> None:
    """Refuse a ``.npy`` that is not a 2-D real array or declares more than the file holds."""
    shape, dtype, offset = _npy_header(path)
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in "biuf":
        raise MoodInputError(
            path, f"holds {dtype} values, not real numbers", "save a real-valued 2-D map"
        )
    if len(shape) != 2:
        raise MoodInputError(path, f"is {len(shape)}-D (shape {shape})", "give a 2-D map")
    _check_pixels(path, shape[1], shape[0])
    needed = offset + shape[0] * shape[1] * dtype.itemsize
    size = path.stat().st_size
    if needed > size:
        raise MoodInputError(
            path,
            f"is truncated or its header is wrong: shape {shape} of {dtype.itemsize}-byte "
            f"values needs {needed:,} bytes, the file holds {size:,}",
            _REEXPORT,
        )


@dataclass(frozen=True)
class BoxFile:
    """The boxes read from one file and what the file held."""

    path: Path
    boxes: BoxSet
    has_labels: bool
    has_scores: bool
    has_readers: bool
    problems: tuple[str, ...]
    """Rows left out, one message each (file, line, what is wrong, what to do)."""
    repeats: int = 0
    """Rows identical to an earlier row (image, box, confidence, category and reader)."""
    first_repeat: tuple[int, int] | None = None
    """``(line, line it repeats)`` of the first such row (JSON: item numbers)."""

    def repeat_note(self) -> str | None:
        """``"FILE: N row(s) repeat an earlier row exactly (first: line A = line B)"``.

        Returns
        -------
        str or None
            The note, or None when no row repeats.
        """
        if not self.repeats or self.first_repeat is None:
            return None
        where = "item" if self.path.suffix.lower() == ".json" else "line"
        line, first = self.first_repeat
        return (
            f"{self.path}: {self.repeats} row(s) repeat an earlier row exactly "
            f"(first: {where} {line} = {where} {first})"
        )


def find_box_predictions(root: PathLike) -> dict[str, Path]:
    """``DATASET/predictions/NAME.csv|json`` -> ``{NAME: path}`` (none: empty).

    Parameters
    ----------
    root : path-like
        The dataset folder.

    Returns
    -------
    dict of str to pathlib.Path
        The prediction files by name (sorted).
    """
    folder = Path(root) / PREDICTIONS_FOLDER
    if not folder.is_dir():
        return {}
    return {
        p.stem: p
        for p in sorted(folder.iterdir())
        if not p.name.startswith(".") and p.suffix.lower() in (".csv", ".json")
    }


def read_box_file(
    path: PathLike, *, sizes: Mapping[str, tuple[int, int]], ground_truth: bool = False
) -> BoxFile:
    """Read boxes from a CSV (any accepted columns) or a COCO-results JSON list.

    Rows with a problem are left out and listed in :attr:`BoxFile.problems`; the caller
    decides (ground truth: an error; predictions: a warning). A file that cannot be used
    at all (unreadable, no image or box columns) raises :class:`MoodInputError`.

    Parameters
    ----------
    path : path-like
        A ``.csv`` or ``.json`` box file.
    sizes : mapping of str to (int, int)
        The size of each image, to check and convert coordinates.
    ground_truth : bool
        The file holds ground-truth boxes: a box of zero width or height is a problem on its
        line (no box can overlap it, so it would be a miss whatever a method finds). A
        predicted box of zero area stays: COCO counts it as a false positive.

    Returns
    -------
    BoxFile
        The boxes, which optional columns the file had, and the problem rows.
    """
    path = check_regular_file(path, what="box file")
    if path.suffix.lower() == ".json":
        records, has = _json_records(path)
    else:
        records, has = _csv_records(path)
    return _to_box_file(path, records, has, sizes, ground_truth=ground_truth)


_Record = tuple[int, dict[str, str]]


def _csv_records(path: Path) -> tuple[list[_Record], set[str]]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as stream:
            rows = list(csv.reader(stream))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise MoodInputError(
            path, f"cannot be read as CSV ({exc})", "save it as UTF-8 CSV"
        ) from exc
    if not rows:
        raise MoodInputError(path, "is empty", "give a CSV with a header line")
    columns = _columns(path, [h.strip().lower().replace(" ", "_") for h in rows[0]])
    records = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        records.append(
            (line, {k: (row[i].strip() if i < len(row) else "") for k, i in columns.items()})
        )
    return records, set(columns)


def _columns(path: Path, header: Sequence[str]) -> dict[str, int]:
    found = {}
    for key, names in COLUMN_NAMES.items():
        hits = [i for i, h in enumerate(header) if h in names]
        if len(hits) > 1:
            raise MoodInputError(path, f"has {len(hits)} {key} columns", "keep one")
        if hits:
            found[key] = hits[0]
    corners, xywh = (
        {"x1", "y1", "x2", "y2"} <= set(found),
        {"x", "y", "width", "height"} <= set(found),
    )
    if "image" not in found or corners == xywh:
        what = (
            "both x1,y1,x2,y2 and x,y,width,height"
            if corners and xywh
            else "no " + ("image column" if "image" not in found else "box columns")
        )
        raise MoodInputError(
            path,
            f"line 1 (header): {what}; the header is {','.join(header)}",
            "name the columns image_id and x1,y1,x2,y2 (or x,y,width,height); the README lists the accepted names",
        )
    return found


_JSON_HINT = 'give a COCO results list [{"image_id", "bbox", "score"}, ...]'


def _json_records(path: Path) -> tuple[list[_Record], set[str]]:
    data = read_json(path, hint=_JSON_HINT)
    if not isinstance(data, list):
        raise MoodInputError(path, "is not a list of boxes", _JSON_HINT)
    records, has = [], {"image", "x", "y", "width", "height"}
    for index, item in enumerate(data):
        entry = item if isinstance(item, dict) else {}
        bbox = entry.get("bbox")
        good = isinstance(bbox, list) and len(bbox) == 4
        values = [_json_text(v) for v in bbox] if isinstance(bbox, list) and good else [""] * 4
        record = dict(zip(("x", "y", "width", "height"), values, strict=True))
        if not good:
            record[_BAD_BBOX] = _bbox_text(bbox, "bbox" in entry)
        record["image"] = _json_text(entry.get("image_id", entry.get("file_name", "")))
        for key, source in (("score", "score"), ("label", "label"), ("label", "category_id")):
            if source in entry:
                record[key] = _json_text(entry[source])
                has.add(key)
        records.append((index, record))
    return records, has


_BAD_BBOX = "bad bbox"  # a JSON item's bbox that is not 4 values, in words


def _bbox_text(bbox: object, present: bool) -> str:
    if not present:
        return "missing"
    if isinstance(bbox, list):
        return f"a list of {len(bbox)} value(s)"
    return _json_text(bbox)


def _json_text(value: object) -> str:
    """Text of a JSON value as the CSV reader would see it.

    A JSON scalar as the CSV reader would see it; a list, an object or null as a word
    (never its text, which may be huge or nested deeply).
    """
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, str | int | float):
        return str(value)
    return "(a list)" if isinstance(value, list) else "(an object)"


def _to_box_file(
    path: Path,
    records: list[_Record],
    has: set[str],
    sizes: Mapping[str, tuple[int, int]],
    *,
    ground_truth: bool,
) -> BoxFile:
    where = "item" if path.suffix.lower() == ".json" else "line"
    kept: list[tuple[str, list[float], float, str, str]] = []
    problems = []
    seen: dict[tuple[object, ...], int] = {}
    repeats: list[tuple[int, int]] = []
    named_reader = "reader" in has and any(record.get("reader") for _, record in records)
    for line, record in records:
        try:
            if named_reader and not record.get("reader"):
                raise ValueError(
                    "the reader cell is empty while other rows name a reader "
                    "(give every row its reader, or leave the column out)"
                )
            row = _parse(record, has, sizes)
            if ground_truth:
                _check_area(row[1])
        except ValueError as exc:
            problems.append(f"{path}: {where} {line}: {exc}")
            continue
        kept.append(row)
        key = (row[0], *row[1], *row[2:])
        if key in seen:
            repeats.append((line, seen[key]))
        seen.setdefault(key, line)
    boxes = BoxSet.build(
        [k[0] for k in kept],
        np.array([k[1] for k in kept], dtype=float).reshape(-1, 4),
        scores=[k[2] for k in kept],
        labels=[k[3] for k in kept],
        readers=[k[4] for k in kept],
    )
    has_labels, has_scores, has_readers = ("label" in has, "score" in has, "reader" in has)
    first = repeats[0] if repeats else None
    return BoxFile(
        path, boxes, has_labels, has_scores, has_readers, tuple(problems), len(repeats), first
    )


def _check_area(box: list[float]) -> None:
    x1, y1, x2, y2 = box
    if x2 <= x1 or y2 <= y1:
        raise ValueError(
            f"the box ({x1:g}, {y1:g}, {x2:g}, {y2:g}) has no area (width {x2 - x1:g}, height "
            f"{y2 - y1:g}): no box can overlap it (give a ground-truth width and height > 0)"
        )


def _number(record: dict[str, str], key: str) -> float:
    text = record.get(key, "")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{key} is {text!r}, not a number (give a number)") from None
    if not math.isfinite(value):
        raise ValueError(f"{key} is {text!r} (give a finite number)")
    return value


def _parse(
    record: dict[str, str], has: set[str], sizes: Mapping[str, tuple[int, int]]
) -> tuple[str, list[float], float, str, str]:
    if _BAD_BBOX in record:
        raise ValueError(f"bbox is {record[_BAD_BBOX]}, not [x, y, width, height] (give 4 numbers)")
    image = image_id_of(record["image"])
    if image not in sizes:
        raise ValueError(
            f"unknown image {record['image']!r} (no {image}.png among the slices; fix the id or add the slice)"
        )
    if "x1" in has:
        x1, y1, x2, y2 = (_number(record, k) for k in ("x1", "y1", "x2", "y2"))
        if x2 < x1 or y2 < y1:
            raise ValueError(
                f"negative size: x2 < x1 or y2 < y1 in ({x1:g}, {y1:g}, {x2:g}, {y2:g}) (swap the corners)"
            )
    else:
        x1, y1, w, h = (_number(record, k) for k in ("x", "y", "width", "height"))
        if w < 0 or h < 0:
            raise ValueError(f"negative size: width {w:g}, height {h:g} (give sizes >= 0)")
        x2, y2 = x1 + w, y1 + h
    width, height = sizes[image]
    if x1 < 0 or y1 < 0 or x2 > width or y2 > height:
        raise ValueError(
            f"box ({x1:g}, {y1:g}, {x2:g}, {y2:g}) lies outside the {width} x {height} image {image} "
            "(coordinates are pixels from the top-left corner, 0 <= x1 <= x2 <= width)"
        )
    score = _number(record, "score") if "score" in has else 1.0
    label = record.get("label", "") or DEFAULT_LABEL
    return image, [x1, y1, x2, y2], score, label, record.get("reader", "")
