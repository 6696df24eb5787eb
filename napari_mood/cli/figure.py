"""``napari-mood figure``: parse the figure options, draw with :mod:`napari_mood.services.figures`.

Every problem with an option or an input is a :class:`MoodInputError` (exit status 1,
one message saying what to change); a method without a map for a case is a warning and
its cell says "no map".
"""

from __future__ import annotations

import argparse
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
from napari_mood.core.scores import check_threshold
from napari_mood.services.output import Inputs, check_output_file

if TYPE_CHECKING:
    from napari_mood.services.figures import FigureCase

__all__ = ["main", "parse_cases", "parse_slices", "parse_thresholds"]

AUTO = "auto"


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


def parse_slices(text: str | None) -> list[int | None] | None:
    """``"40,auto,52"`` -> ``[40, None, 52]`` (axial slice indices as on the viewer's slider).

    Examples
    --------
    >>> parse_slices("40,auto")
    [40, None]
    """
    if text is None:
        return None
    slices: list[int | None] = []
    for part in (p.strip() for p in text.split(",")):
        if part == AUTO:
            slices.append(None)
            continue
        try:
            slices.append(int(part))
        except ValueError as exc:
            raise MoodInputError(
                None, f"--slices: {part!r} is not a slice index", "give integers or 'auto'"
            ) from exc
    return slices


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
    loaded = _load(dataset, cases, methods)
    try:
        rows = figures.figure_rows(loaded, parse_slices(args.slices))
        figure = figures.make_figure(
            rows, methods=list(methods), thresholds=thresholds, annotate=args.annotate,
            crop=not args.no_crop,
        )  # fmt: skip
    except ValueError as exc:
        raise MoodInputError(None, str(exc), "check --cases, --slices and --thresholds") from exc
    out = figures.save_figure(figure, args.out, dpi=args.dpi)
    width, height = (round(v * args.dpi) for v in figure.get_size_inches())
    rows_text = f"{len(rows)} row" + ("s" if len(rows) > 1 else "")
    print(f"figure written to {out} ({rows_text}, {width} x {height} px at {args.dpi:g} dpi)")
    return 0


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
