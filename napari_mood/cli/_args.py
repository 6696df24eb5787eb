"""Value types and shared options of the ``napari-mood`` parser."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import cast

from napari_mood.core.orientation import PLANES
from napari_mood.core.paper import parse_width
from napari_mood.core.scores import check_threshold


def _pred_pair(text: str) -> tuple[str, Path]:
    """``NAME=DIR``, or a bare ``DIR`` named after its folder."""
    name, sep, folder = text.partition("=")
    if not sep:
        path = Path(text)
        name = path.name or path.resolve().name
        return name, path
    if not name or not folder:
        raise argparse.ArgumentTypeError(f"expected NAME=DIR or DIR, got {text!r}")
    return name, Path(folder)


class _AppendPred(argparse.Action):
    """``--pred`` repeated: each NAME once (a second one would silently replace the first)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        pairs = list(getattr(namespace, self.dest, None) or [])
        name, folder = cast(tuple[str, Path], values)  # from _pred_pair
        for known, other in pairs:
            if known == name:
                raise argparse.ArgumentError(
                    self, f"method name {name!r} given twice ({other} and {folder}): rename one"
                )
        setattr(namespace, self.dest, [*pairs, (name, folder)])


def _output(text: str) -> Path:
    """An output path: not empty (an empty path would mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty: give a path")
    return Path(text)


SCREENSHOT_SUFFIXES = (".png",)


def _screenshot(text: str) -> Path:
    """A window screenshot: a PNG file path (napari writes the format its name says)."""
    path = _output(text)
    if path.suffix.lower() not in SCREENSHOT_SUFFIXES:
        raise argparse.ArgumentTypeError(f"must be a .png file, got {text!r}")
    return path


MAX_BATCHES = 100_000
MAX_DPI = 2400.0


def _size_window(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        lo, hi = (float(p) for p in parts)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected LO,HI (two numbers), got {text!r}") from exc
    if not 0 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"need 0 <= LO <= HI, got {text!r}")
    return lo, hi


def _threshold(text: str) -> float | str:
    if text == "auto":
        return text
    try:
        return check_threshold(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (or 'auto')") from exc


def _integer(text: str, *, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {value}")
    return value


def _count(text: str) -> int:
    """A whole number >= 0."""
    return _integer(text, minimum=0)


def _positive(text: str) -> int:
    """A whole number >= 1."""
    return _integer(text, minimum=1)


def _batches(text: str) -> int:
    """A number of batches: 0 .. MAX_BATCHES (each costs an AP over a batch of cases)."""
    value = _integer(text, minimum=0)
    if value > MAX_BATCHES:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_BATCHES:,}, got {value:,} (the mean AP does not change "
            "beyond that, and each batch costs an AP)"
        )
    return value


def _dpi(text: str) -> float:
    """A resolution: positive, at most MAX_DPI (beyond it one figure needs gigabytes)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_DPI):
        raise argparse.ArgumentTypeError(
            f"must be a positive number, at most {MAX_DPI:g} (beyond, one figure needs "
            f"gigabytes), got {text!r}"
        )
    return value


def _width(text: str) -> float:
    """A figure width in mm: a journal preset or a length with a unit."""
    try:
        return parse_width(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _planes(text: str) -> tuple[str, ...]:
    """``axial,coronal`` -> the planes of each case, in row order."""
    planes = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    unknown = [p for p in planes if p not in PLANES]
    if unknown or not planes or len(set(planes)) != len(planes):
        raise argparse.ArgumentTypeError(
            f"expected distinct planes among {','.join(PLANES)}, got {text!r}"
        )
    return planes


def _name_part(text: str) -> str:
    if not text or any(sep in text for sep in "/\\") or text in (".", ".."):
        raise argparse.ArgumentTypeError(f"must be a plain file-name part, got {text!r}")
    return text


def _add_force(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--force",
        "--overwrite",
        dest="force",
        action="store_true",
        help=f"replace existing {what} (never an input file)",
    )


def _tasks(text: str) -> tuple[str, ...]:
    tasks = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [t for t in tasks if t not in ("pixel", "sample", "object")]
    if bad or not tasks:
        raise argparse.ArgumentTypeError(
            f"tasks are pixel, sample, object (comma separated), got {text!r}"
        )
    return tasks


def _add_method_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, help="folder holding toy/ and toy_label/")
    parser.add_argument(
        "--preds", type=Path, help="folder whose subfolders are methods (default: DATASET/methods)"
    )
    parser.add_argument(
        "--pred",
        type=_pred_pair,
        action=_AppendPred,
        default=[],
        metavar="[NAME=]DIR",
        help="one method folder (named NAME, or after the folder); repeat for several",
    )
    parser.add_argument(
        "--labels", type=Path, help="label folder (holding pixel/ and sample/) if elsewhere"
    )
    parser.add_argument("--scans", help="name of the scans subfolder (default: toy)")
