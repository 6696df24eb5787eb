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
    cases_that_fit,
    check_pixels,
    figure_rows,
    load_figure_cases,
    make_figure,
    resolve_case,
    save_figure,
)
from napari_mood.services.looks import method_colors
from napari_mood.services.output import Inputs, check_output_file
from napari_mood.services.paper import PAGE_HEIGHT_MM

_NAME_CASES = option("name cases with --cases", "name the cases to draw")

__all__ = [
    "DpiRefused",
    "FigureRun",
    "FigureTooLarge",
    "FigureTooNarrow",
    "write_figure",
]

PathLike = str | os.PathLike[str]


class DpiRefused(ValueError):
    """The figure has too many pixels at the resolution asked for, or none on a side."""


@dataclass(frozen=True)
class FigureRun:
    """A figure written: its file, the matplotlib figure and its number of rows.

    ``cases`` are the cases drawn; ``left_out`` the anomalous cases left out so that a
    figure whose cases were chosen for the reader fits a page (:data:`PAGE_HEIGHT_MM`).
    """

    path: Path
    figure: Figure
    rows: int
    cases: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()


def write_figure(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    out: PathLike,
    *,
    drawn: Sequence[str] | None = None,
    cases: Sequence[str] | None = None,
    max_cases: int | None = None,
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
        The method columns in order (default: every method). Each method keeps the colour
        the viewer gives it among all ``methods``
        (:func:`~napari_mood.services.looks.method_colors`), whatever this order.
    cases : sequence of str, optional
        The cases (default: the first ``max_cases`` anomalous ones).
    max_cases : int, optional
        How many anomalous cases without ``cases``. None: the first
        :data:`DEFAULT_MAX_CASES` (6) anomalous cases, as many of them as fit a page
        (:data:`PAGE_HEIGHT_MM`, 240 mm high; at least one); the others are in the
        result's ``left_out``.
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
    names = cases or anomalous_cases(dataset, limit=max_cases or DEFAULT_MAX_CASES)
    if not names:
        raise MoodInputError(dataset.root, "has no case with an anomaly", _NAME_CASES)
    loaded = _load(dataset, names, chosen, asked=cases is not None)
    style = {"colors": method_colors(methods), **(style or {})}  # as the viewer: every method
    levels = _drawn_thresholds(thresholds, chosen)
    left_out: tuple[str, ...] = ()
    if cases is None and max_cases is None and slices is None:  # chosen for the reader
        loaded, left_out = _fit_page(dataset, loaded, planes, chosen, levels, style)
    figure, rows = _draw(dataset, loaded, slices, planes, chosen, levels, style)
    try:
        check_pixels(figure, dpi)
    except ValueError as exc:  # too many pixels, or none on a side
        raise DpiRefused(str(exc)) from exc
    drawn_cases = tuple(case.name for case in loaded)
    return FigureRun(save_figure(figure, out, dpi=dpi), figure, len(rows), drawn_cases, left_out)


def _fit_page(  # noqa: PLR0913 - the figure's own choices, passed on
    dataset: MoodDataset,
    loaded: Sequence[FigureCase],
    planes: Sequence[Plane],
    methods: Mapping[str, MethodFolder],
    thresholds: float | Mapping[str, float],
    style: Mapping[str, Any],
) -> tuple[list[FigureCase], tuple[str, ...]]:
    """Keep the leading cases whose figure fits a page; return them and the names left out."""
    layout = {k: v for k, v in style.items() if k != "colors"}
    try:
        rows = figure_rows(loaded, None, planes=planes)
        count = cases_that_fit(
            rows, PAGE_HEIGHT_MM, methods=list(methods), thresholds=thresholds, **layout
        )
    except ValueError:  # the drawing says what is wrong, naming the file or the option
        return list(loaded), ()
    return list(loaded[:count]), tuple(case.name for case in loaded[count:])


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
