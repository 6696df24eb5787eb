"""The ``figure`` job: check the output, load the cases, draw the figure, save it.

:func:`write_figure` does the whole run a command or a notebook asks for: the output
refused before any file is read (output guard), the cases (named, or the first
anomalous ones) loaded, drawn by :func:`~napari_mood.services.figures.make_figure` and
saved. A choice the figure cannot honour raises what :func:`make_figure` raises
(:class:`FigureTooNarrow`, :class:`FigureTooLarge`) or :class:`DpiRefused`; a problem of an
input file is a :class:`MoodInputError` naming it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from napari_mood.core._checks import (
    check_instance,
    check_mapping,
    check_path,
)
from napari_mood.core.orientation import Plane
from napari_mood.io.errors import MoodInputError, option
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset
from napari_mood.services.display import plane_view
from napari_mood.services.figure_cases import DEFAULT_MAX_CASES, FigureCase, FigureRow, Slices
from napari_mood.services.figures import (
    FigureTooLarge,
    FigureTooNarrow,
    RowOutOfScale,
    anomalous_cases,
    check_pixels,
    figure_rows,
    load_figure_cases,
    make_figure,
    resolve_case,
    save_figure,
)
from napari_mood.services.output import Inputs, check_output_file

_NAME_CASES = option("name cases with --cases", "name the cases to draw")

__all__ = ["DpiRefused", "FigureRun", "FigureTooLarge", "FigureTooNarrow", "write_figure"]

PathLike = str | os.PathLike[str]


class DpiRefused(ValueError):
    """The figure has too many pixels at the resolution asked for, or none on a side."""


@dataclass(frozen=True)
class FigureRun:
    """A figure written: its file, the matplotlib figure and its number of rows."""

    path: Path
    figure: Figure
    rows: int


def write_figure(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    out: PathLike,
    *,
    drawn: Sequence[str] | None = None,
    cases: Sequence[str] | None = None,
    max_cases: int = DEFAULT_MAX_CASES,
    slices: Slices | None = None,
    planes: Sequence[Plane] = ("axial",),
    thresholds: float | Mapping[str, float] | None = None,
    style: Mapping[str, Any] | None = None,
    dpi: float = 300,
    force: bool = False,
) -> FigureRun:
    """Draw cases x (scan, ground truth, methods) and save the figure to ``out``.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    methods : mapping of str to MethodFolder
        The methods found (all are inputs ``out`` may not land in).
    out : path-like
        A ``.png``, ``.svg`` or ``.pdf`` file.
    drawn : sequence of str, optional
        The method columns in order (default: every method).
    cases : sequence of str, optional
        The cases (default: the first ``max_cases`` anomalous ones).
    max_cases : int
        How many anomalous cases without ``cases``.
    slices : Slices, optional
        Slice indices (see :func:`~napari_mood.services.figures.figure_rows`).
    planes : sequence of str
        The planes of each case, one row each.
    thresholds : float or mapping of str to float, optional
        The contour threshold, or one per method (a method not drawn is ignored).
    style : mapping, optional
        Keyword arguments of :func:`~napari_mood.services.figures.make_figure`
        (``annotate``, ``crop``, ``width``, ``convention``, ``letters``, ``scale_bar``).
    dpi : float
        The resolution.
    force : bool
        Whether an existing ``out`` is replaced.

    Returns
    -------
    FigureRun
        The file written, the figure and its number of rows.

    Raises
    ------
    MoodInputError
        ``out`` refused, no case to show, or a case that cannot be drawn.
    FigureTooNarrow, FigureTooLarge, DpiRefused
        The width, the number of rows or ``dpi`` cannot hold the figure.
    """
    check_instance("dataset", dataset, MoodDataset, "a MoodDataset (from discover_dataset)")
    check_mapping("methods", methods, MethodFolder, "a MethodFolder (from discover_methods)")
    check_path("out", out)
    check_output_file(
        out, inputs=Inputs.of(dataset, methods), force=force, what=option("--out", "the output")
    )
    chosen = dict(methods) if drawn is None else {name: methods[name] for name in drawn}
    names = cases or anomalous_cases(dataset, limit=max_cases)
    if not names:
        raise MoodInputError(dataset.root, "has no case with an anomaly", _NAME_CASES)
    loaded = _load(dataset, names, chosen, asked=cases is not None)
    figure, rows = _draw(
        dataset, loaded, slices, planes, chosen, _drawn_thresholds(thresholds, chosen), style or {}
    )
    try:
        check_pixels(figure, dpi)
    except ValueError as exc:  # too many pixels, or none on a side
        raise DpiRefused(str(exc)) from exc
    return FigureRun(save_figure(figure, out, dpi=dpi), figure, len(rows))


def _draw(  # noqa: PLR0913 - the figure's own choices, passed on
    dataset: MoodDataset,
    loaded: Sequence[FigureCase],
    slices: Slices | None,
    planes: Sequence[Plane],
    methods: Mapping[str, MethodFolder],
    thresholds: float | Mapping[str, float],
    style: Mapping[str, Any],
) -> tuple[Figure, list[FigureRow]]:
    """Pair cases with planes and draw; a ValueError of the choices names the file or options."""
    rows: list[FigureRow] = []
    try:
        rows = list(figure_rows(loaded, slices, planes=planes))
        figure = make_figure(rows, methods=list(methods), thresholds=thresholds, **style)
    except (FigureTooNarrow, FigureTooLarge):
        raise
    except RowOutOfScale as exc:
        raise _out_of_scale(dataset, rows[exc.row], exc) from exc
    except ValueError as exc:
        raise MoodInputError(
            None,
            str(exc),
            option(
                "check --cases, --slices, --planes and --threshold",
                "check the cases, slices, planes and thresholds",
            ),
        ) from exc
    return figure, rows


def _drawn_thresholds(
    given: float | Mapping[str, float] | None, methods: Mapping[str, MethodFolder]
) -> float | dict[str, float]:
    """Return the thresholds of the methods drawn (one left out is ignored); default 0.5."""
    if given is None:
        return 0.5
    if isinstance(given, Mapping):
        return {name: value for name, value in given.items() if name in methods}
    return given


def _out_of_scale(dataset: MoodDataset, row: FigureRow, exc: ValueError) -> MoodInputError:
    """Return a row that cannot be drawn at one scale: its file and its voxels in that plane."""
    name = resolve_case(dataset, row.case.name)
    path = dataset.scans.get(name) or dataset.pixel_labels.get(name)
    view = plane_view(row.plane)
    high, wide = (row.case.spacing[axis] for axis in (view.row_axis, view.col_axis))
    return MoodInputError(
        path,
        f"its voxels are {high:g} mm high and {wide:g} mm wide in the {row.plane} plane: {exc}",
        "check the voxel size (pixdim) in its header, or leave that plane or case out",
    )


def _load(
    dataset: MoodDataset, cases: Sequence[str], methods: Mapping[str, MethodFolder], asked: bool
) -> list[FigureCase]:
    loaded = load_figure_cases(dataset, cases, methods, asked=asked, warn=True)
    if not loaded:
        raise MoodInputError(dataset.root, "has no anomalous case with a scan to show", _NAME_CASES)
    return loaded
