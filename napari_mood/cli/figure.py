"""``napari-mood figure``: parse the figure options, draw with :mod:`napari_mood.services.figures`.

Every option is checked before any file is read (exit status 2, argparse's message):
``--out`` must end in ``.png``, ``.svg`` or ``.pdf``; ``--cases``, ``--slices``,
``--methods`` and ``--threshold`` are parsed by the argument types below, their agreement
with ``--planes`` and the number of ``--cases`` by :func:`check_args`, and ``--methods``
and ``--threshold`` method names against the methods found (listed, not read). Texts
too long for a ``--width`` wrap; a width whose columns cannot hold a single word at 7 pt,
or a figure with more pixels than :data:`MAX_FIGURE_PIXELS`, is a usage error too (one
line: how many methods fit, to choose with ``--methods``, or the width that fits). A problem with an input file (an unknown case, a slice
outside the scan, a voxel size that makes a slice thousands of times taller than wide) is
a :class:`MoodInputError` (exit status 1, naming the file); a method without a map for a
case is a warning and its cell says "no map".
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from napari_mood.cli._common import methods_from_args
from napari_mood.io.errors import MoodInputError
from napari_mood.io.mood import case_stem, discover_dataset
from napari_mood.services.figure_files import check_figure_path
from napari_mood.services.options import PLANES, check_threshold
from napari_mood.services.paper import PAGE_HEIGHT_MM, points_to_mm

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from napari_mood.services.figure_layout import FigureTooNarrow

__all__ = [
    "check_args",
    "figure_file",
    "main",
    "narrow_message",
    "page_note",
    "parse_cases",
    "parse_methods",
    "parse_slices",
    "parse_thresholds",
    "unknown_method_names",
    "unknown_threshold_names",
]

AUTO = "auto"
PLANE_PREFIXES = {"a": "axial", "c": "coronal", "s": "sagittal"} | {p: p for p in PLANES}
"""``--slices`` items ``c:60`` or ``coronal:60`` name their plane; bare items are axial."""
Slices = dict[str, list[int | None]]
Thresholds = float | dict[str, float]


def figure_file(text: str) -> Path:
    """``--out``: a path ending in ``.png``, ``.svg`` or ``.pdf`` (any case).

    Examples
    --------
    >>> figure_file("fig.PDF").name
    'fig.PDF'
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty: give a .png, .svg or .pdf file")
    try:
        return check_figure_path(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_cases(text: str) -> list[str]:
    """``--cases``: ``"a,b"`` -> ``["a", "b"]``.

    Examples
    --------
    >>> parse_cases("brain_001, brain_004")
    ['brain_001', 'brain_004']
    """
    cases = [c.strip() for c in text.split(",") if c.strip()]
    if not cases:
        raise argparse.ArgumentTypeError(f"{text!r} names no case: give CASE,CASE,...")
    return cases


def parse_methods(text: str) -> list[str]:
    """``--methods``: ``"a,b"`` -> ``["a", "b"]``, the method columns in that order.

    The names are checked against the methods once they are found
    (:func:`unknown_method_names`).

    Examples
    --------
    >>> parse_methods("residual, binary")
    ['residual', 'binary']
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r} names no method: give NAME,NAME,...")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"method {twice[0]!r} is given twice")
    return names


def unknown_method_names(names: Sequence[str] | None, methods: Sequence[str]) -> str | None:
    """Return what is wrong with ``--methods`` names, given the methods found; or None.

    Examples
    --------
    >>> unknown_method_names(["a", "x"], ["a", "b"])
    "--methods: 'x' names no method (methods: a, b)"
    """
    unknown = [name for name in names or () if name not in methods]
    if not unknown:
        return None
    listed = ", ".join(repr(name) for name in unknown)
    return f"--methods: {listed} names no method (methods: {', '.join(methods) or 'none'})"


def narrow_message(error: FigureTooNarrow, methods: int) -> str:
    """Explain why the figure's columns do not fit ``--width``.

    One line for a ``--width`` whose columns cannot hold a word at 7 pt: how many of
    the ``methods`` fit (pick them with ``--methods``) or the width that holds them all.

    Examples
    --------
    >>> from napari_mood.services.figure_layout import FigureTooNarrow
    >>> narrow_message(FigureTooNarrow(89.0, 140.2, 14, 9), 12)
    '--width: 89 mm holds at most 9 of the 14 columns with 7-pt text: draw at most 7 of the 12 methods (--methods NAME,NAME,...) or use --width 141mm or more'
    """
    wide = f"--width {math.ceil(error.min_width_mm)}mm or more"
    head = (
        f"--width: {error.width_mm:g} mm holds at most {error.max_columns} of the "
        f"{error.columns} columns with 7-pt text"
    )
    fit = error.max_columns - (error.columns - methods)  # the scan and GT columns stay
    if fit < 1:
        return f"{head}: use {wide}"
    return f"{head}: draw at most {fit} of the {methods} methods (--methods NAME,NAME,...) or use {wide}"


def parse_slices(text: str) -> Slices:
    """``--slices``: ``"40,auto,c:60"`` -> ``{"axial": [40, None], "coronal": [60]}``.

    Items are slice indices as on the viewer's slider (``N`` >= 0) or ``auto``; a prefix
    ``a:``, ``c:``, ``s:`` (or ``axial:``, ``coronal:``, ``sagittal:``) names the plane,
    none means axial. Per plane: one item per case, or several items of one case.

    Examples
    --------
    >>> parse_slices("40,auto")
    {'axial': [40, None]}
    >>> parse_slices("40,c:60,s:auto")
    {'axial': [40], 'coronal': [60], 'sagittal': [None]}
    """
    slices: Slices = {}
    for part in (p.strip() for p in text.split(",")):
        prefix, sep, value = part.rpartition(":")
        plane = PLANE_PREFIXES.get(prefix.strip().lower()) if sep else "axial"
        if plane is None:
            raise argparse.ArgumentTypeError(
                f"{part!r} names no plane: prefix a slice with a:, c: or s: (axial, coronal, "
                "sagittal), or none (axial)"
            )
        slices.setdefault(plane, []).append(_slice_index(value.strip(), part))
    return slices


def _slice_index(text: str, part: str) -> int | None:
    if text == AUTO:
        return None
    if not text.isdecimal():  # no sign, no exponent, no blank
        raise argparse.ArgumentTypeError(
            f"{part!r} is not a slice index: give whole numbers from 0, or 'auto'"
        )
    return int(text)


def parse_thresholds(text: str) -> Thresholds:
    """``--threshold``: ``"0.6"`` (every method) or ``"a=0.7,b=0.4"``, each in [0, 1].

    The names are checked against the methods once they are found
    (:func:`unknown_threshold_names`).

    Examples
    --------
    >>> parse_thresholds("a=0.7,b=0")
    {'a': 0.7, 'b': 0.0}
    >>> parse_thresholds("0.6")
    0.6
    """
    if "=" not in text:
        return _threshold_value(text, "the threshold")
    chosen: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, value = (s.strip() for s in part.partition("="))
        if not sep or not name:
            raise argparse.ArgumentTypeError(
                f"{part!r} is not NAME=T: give one threshold, or NAME=T,NAME=T,..."
            )
        if name in chosen:
            raise argparse.ArgumentTypeError(f"method {name!r} is given twice")
        chosen[name] = _threshold_value(value, f"the threshold of {name}")
    return chosen


def _threshold_value(text: str, what: str) -> float:
    try:
        return check_threshold(text, name=what)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (for example --threshold 0.5)") from None


def unknown_threshold_names(thresholds: Thresholds | None, methods: Sequence[str]) -> str | None:
    """Return what is wrong with ``--threshold NAME=T`` names, given the methods found; or None.

    Examples
    --------
    >>> unknown_threshold_names({"a": 0.3, "x": 0.2}, ["a", "b"])
    "--threshold: 'x' names no method (methods: a, b)"
    """
    if not isinstance(thresholds, dict):
        return None
    unknown = [name for name in thresholds if name not in methods]
    if not unknown:
        return None
    names = ", ".join(repr(name) for name in unknown)
    return f"--threshold: {names} names no method (methods: {', '.join(methods) or 'none'})"


def check_args(args: argparse.Namespace) -> str | None:
    """Return what is wrong with ``--slices`` given ``--planes`` and ``--cases``; or None.

    Checked after parsing, before any file is read: slices of a plane that is not drawn,
    and, with several ``--cases``, a number of slices per plane other than one per case.
    """
    if args.slices is None:
        return None
    for plane, indices in args.slices.items():
        if plane not in args.planes:
            return (
                f"--slices gives {plane} slices, but {plane} is not among the planes "
                f"{','.join(args.planes)} (add it with --planes)"
            )
        cases = len(args.cases or ())
        if cases > 1 and len(indices) != cases:
            return (
                f"--slices gives {len(indices)} {plane} slices for {cases} cases: give one "
                "slice per case, or several slices of one case"
            )
    return None


def _figure_job() -> ModuleType:
    try:
        from napari_mood.services import figure_job
    except ImportError as exc:
        raise MoodInputError(
            None, f"figures need matplotlib ({exc})", "pip install 'napari-mood[viewer]'"
        ) from exc
    return figure_job


def main(args: argparse.Namespace) -> int:
    """Draw the figure described by parsed arguments; returns the exit status."""
    job = _figure_job()
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    found = methods_from_args(args)
    unknown = unknown_method_names(args.methods, list(found)) or unknown_threshold_names(
        args.thresholds, list(found)
    )
    if unknown:  # the methods are listed, no file read yet: a usage error
        return _usage_error(unknown)
    style = {
        "annotate": args.annotate, "crop": not args.no_crop, "width": args.width,
        "convention": args.convention, "letters": args.letters,
        "scale_bar": not args.no_scale_bar,
    }  # fmt: skip
    try:
        run = job.write_figure(
            dataset, found, args.out, drawn=args.methods, cases=args.cases,
            max_cases=args.max_cases, slices=args.slices, planes=args.planes,
            thresholds=args.thresholds, style=style, dpi=args.dpi, force=args.force,
        )  # fmt: skip
    except job.FigureTooNarrow as exc:
        return _usage_error(narrow_message(exc, len(args.methods or found)))
    except job.FigureTooLarge as exc:
        return _usage_error(str(exc))
    except job.DpiRefused as exc:
        return _usage_error(f"--dpi: {exc}")
    print(f"figure written to {run.path} ({_size_text(run.figure, run.rows, args.dpi)})")
    note = page_note(run.cases, run.left_out, _height_mm(run.figure))
    if note and not args.quiet:
        print(f"napari-mood: note: {note}", file=sys.stderr)
    return 0


def page_note(cases: Sequence[str], left_out: Sequence[str], height_mm: float) -> str | None:
    """Say which cases were drawn to fit a page, or that the figure is taller; or None.

    Examples
    --------
    >>> page_note(["a", "b"], ["c"], 230.0)
    'drew 2 of the 3 anomalous cases (a, b) to fit a 240-mm page; name them with --cases or set --max-cases'
    >>> page_note(["a"], [], 300.0)
    'the figure is 300 mm high, taller than a 240-mm page: fewer --cases or --planes fit one'
    """
    page = f"{PAGE_HEIGHT_MM:g}-mm page"
    if left_out:
        shown = ", ".join(case_stem(name) for name in cases)
        total = len(cases) + len(left_out)
        return (
            f"drew {len(cases)} of the {total} anomalous cases ({shown}) to fit a {page}; "
            "name them with --cases or set --max-cases"
        )
    if height_mm > PAGE_HEIGHT_MM + 0.5:
        return f"the figure is {height_mm:.0f} mm high, taller than a {page}: fewer --cases or --planes fit one"
    return None


def _height_mm(figure: Figure) -> float:
    return points_to_mm(figure.get_size_inches()[1] * 72)


def _usage_error(message: str) -> int:
    """Print a usage error found once the methods or the figure's size are known; return 2."""
    print(f"napari-mood: error: {message}", file=sys.stderr)
    return 2


def _size_text(figure: Figure, rows: int, dpi: float) -> str:
    """``"15 rows, 89 x 245 mm, 1051 x 2892 px at 300 dpi"``."""
    width_in, height_in = figure.get_size_inches()
    width_mm, height_mm = (points_to_mm(v * 72) for v in (width_in, height_in))
    width_px, height_px = (int(v * dpi) for v in (width_in, height_in))  # as Agg truncates
    rows_text = f"{rows} row" + ("s" if rows > 1 else "")
    return (
        f"{rows_text}, {width_mm:.0f} x {height_mm:.0f} mm, "
        f"{width_px} x {height_px} px at {dpi:g} dpi"
    )
