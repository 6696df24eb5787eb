"""``napari-mood figure``: parse the figure options, draw with :mod:`napari_mood.services.figures`.

Every problem with an input (cases, slices, thresholds) is a :class:`MoodInputError` (exit
status 1, one message saying what to change); a ``--width`` too narrow for the grid at
7-pt text is a usage error (exit status 2, the message gives the narrowest width); a
method without a map for a case is a warning and its cell says "no map".
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from napari_mood.cli._common import methods_from_args
from napari_mood.core.io import (
    MethodFolder,
    MoodDataset,
    MoodInputError,
    MoodInputWarning,
    discover_dataset,
)
from napari_mood.core.orientation import PLANES
from napari_mood.core.paper import points_to_mm
from napari_mood.core.scores import check_threshold
from napari_mood.services.output import Inputs, check_output_file

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from napari_mood.services.figures import FigureCase

__all__ = ["main", "parse_cases", "parse_slices", "parse_thresholds"]

AUTO = "auto"
PLANE_PREFIXES = {"a": "axial", "c": "coronal", "s": "sagittal"} | {p: p for p in PLANES}
"""``--slices`` items ``c:60`` or ``coronal:60`` name their plane; bare items are axial."""


def parse_cases(text: str | None) -> list[str] | None:
    """``"a,b"`` -> ``["a", "b"]``; None stays None (the default cases are used).

    Examples
    --------
    >>> parse_cases("brain_001, brain_004")
    ['brain_001', 'brain_004']
    """
    if text is None:
        return None
    cases = [c.strip() for c in text.split(",") if c.strip()]
    if not cases:
        raise MoodInputError(None, f"--cases {text!r} names no case", "give CASE,CASE,...")
    return cases


def parse_slices(text: str | None) -> dict[str, list[int | None]] | None:
    """``"40,auto,c:60"`` -> ``{"axial": [40, None], "coronal": [60]}``.

    Items are slice indices as on the viewer's slider (``N``) or ``auto``; a prefix
    ``a:``, ``c:``, ``s:`` (or ``axial:``, ``coronal:``, ``sagittal:``) names the plane,
    none means axial. Per plane: one item per case, or several items of one case.

    Examples
    --------
    >>> parse_slices("40,auto")
    {'axial': [40, None]}
    >>> parse_slices("40,c:60,s:auto")
    {'axial': [40], 'coronal': [60], 'sagittal': [None]}
    """
    if text is None:
        return None
    slices: dict[str, list[int | None]] = {}
    for part in (p.strip() for p in text.split(",")):
        prefix, sep, value = part.rpartition(":")
        plane = PLANE_PREFIXES.get(prefix.strip().lower()) if sep else "axial"
        if plane is None:
            raise MoodInputError(
                None,
                f"--slices: {part!r} names no plane",
                "prefix a slice with a:, c: or s: (axial, coronal, sagittal), or none (axial)",
            )
        slices.setdefault(plane, []).append(_slice_index(value.strip()))
    return slices


def _slice_index(text: str) -> int | None:
    if text == AUTO:
        return None
    try:
        return int(text)
    except ValueError as exc:
        raise MoodInputError(
            None, f"--slices: {text!r} is not a slice index", "give integers or 'auto'"
        ) from exc


def parse_thresholds(text: str | None, methods: Sequence[str]) -> float | dict[str, float]:
    """``"0.6"`` (every method) or ``"a=0.7,b=0.4"``; default 0.5 for every method.

    Examples
    --------
    >>> parse_thresholds("a=0.7", ["a", "b"])
    {'a': 0.7}
    >>> parse_thresholds("0.6", ["a"])
    0.6
    """
    if text is None:
        return 0.5
    if "=" not in text:
        return _threshold_value(text, "--thresholds")
    chosen: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, sep, value = part.partition("=")
        if not sep or name not in methods:
            raise MoodInputError(
                None, f"--thresholds: {part!r} names no method", f"methods: {', '.join(methods)}"
            )
        chosen[name] = _threshold_value(value, f"--thresholds {name}")
    return chosen


def _threshold_value(text: str, what: str) -> float:
    try:
        return check_threshold(text, name=what)
    except ValueError as exc:
        raise MoodInputError(None, str(exc), "for example --thresholds 0.5") from exc


def _figures() -> ModuleType:
    try:
        from napari_mood.services import figures
    except ImportError as exc:
        raise MoodInputError(
            None, f"figures need matplotlib ({exc})", "pip install 'napari-mood[viewer]'"
        ) from exc
    return figures


def main(args: argparse.Namespace) -> int:
    """Draw the figure described by parsed arguments; returns the exit status."""
    figures = _figures()
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    methods = methods_from_args(args)
    if args.out.suffix.lower().lstrip(".") not in figures.FIGURE_FORMATS:
        raise MoodInputError(args.out, "is not a .png, .svg or .pdf file", "change --out")
    inputs = Inputs.of(dataset, methods)
    check_output_file(args.out, inputs=inputs, force=args.force, what="--out")
    cases = parse_cases(args.cases) or figures.anomalous_cases(dataset, limit=args.max_cases)
    if not cases:
        raise MoodInputError(dataset.root, "has no case with an anomaly", "name cases with --cases")
    thresholds = parse_thresholds(args.thresholds, list(methods))
    slices = parse_slices(args.slices)
    loaded = _load(dataset, cases, methods)
    try:
        rows = figures.figure_rows(loaded, slices, planes=args.planes)
        figure = figures.make_figure(
            rows, methods=list(methods), thresholds=thresholds, annotate=args.annotate,
            crop=not args.no_crop, width=args.width, convention=args.convention,
            letters=args.letters, scale_bar=not args.no_scale_bar,
        )  # fmt: skip
    except figures.FigureTooNarrow as exc:
        print(f"napari-mood: error: --width: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        raise MoodInputError(
            None, str(exc), "check --cases, --slices, --planes and --thresholds"
        ) from exc
    out = figures.save_figure(figure, args.out, dpi=args.dpi)
    print(f"figure written to {out} ({_size_text(figure, len(rows), args.dpi)})")
    return 0


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


def _load(
    dataset: MoodDataset, cases: Sequence[str], methods: Mapping[str, MethodFolder]
) -> list[FigureCase]:
    from napari_mood.core.case import load_case
    from napari_mood.services.figures import FigureCase, resolve_case

    loaded = []
    for case in cases:
        data = load_case(dataset, resolve_case(dataset, case), methods=methods)
        for problem in data.problems:
            warnings.warn(str(problem), MoodInputWarning, stacklevel=2)
        loaded.append(FigureCase.from_case_data(data))
    return loaded
