"""Publication figures: a grid of slices (rows) x scan, ground truth and methods (columns).

Headless and GUI-free: matplotlib's object API (no pyplot, no global state), never napari
or Qt. The command line (``napari-mood figure``) and the dataset browser's "Make
figure..." button both call :func:`make_figure`.

A figure looks like the viewer:

* slices are display-ordered (:mod:`napari_mood.core.orientation`): axial, anterior up,
  patient left on the left, voxels drawn with their physical aspect;
* each method is drawn in its viewer colour (:data:`napari_mood._napari.layers.METHOD_COLORS`)
  with the viewer's colour ramp over ``(threshold, 1]`` and transparent at or below its
  threshold, over the scan, with one colour bar per method column shared by all rows;
* the ground truth is an outline (the 0.5 contour of the mask, between inside and outside
  voxel centres) in :data:`napari_mood._napari.layers.GT_COLOR`, on its own column and on every
  method's cell;
* each case is cropped to the body (:func:`napari_mood.core.slices.body_box`) and its
  slice is chosen automatically (:func:`napari_mood.core.slices.choose_slice`) unless given.

Example
-------
>>> from napari_mood.services.datasets import sample_data_dir
>>> from napari_mood.core.io import discover_dataset, discover_methods
>>> root = sample_data_dir()
>>> cases = load_figure_cases(
...     discover_dataset(root), ["brain_001.nii.gz"], discover_methods(root / "methods")
... )
>>> figure = make_figure(figure_rows(cases), thresholds={"residual": 0.7})
>>> save_figure(figure, "figure.png", dpi=150)  # doctest: +SKIP
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Colormap, LinearSegmentedColormap, Normalize
from matplotlib.figure import Figure

from napari_mood.core.case import CaseData, load_case
from napari_mood.core.case import anomalous_cases as find_anomalous_cases
from napari_mood.core.curves import curve_from_arrays
from napari_mood.core.io import (
    MethodFolder,
    MoodDataset,
    MoodInputError,
    case_stem,
)
from napari_mood.core.looks import (
    DEFAULT_THRESHOLD,
    GT_COLOR,
    METHOD_COLORS,
    METHOD_OPACITY,
    method_colormap,
)
from napari_mood.core.metrics import average_precision_from_curve, confusion_at
from napari_mood.core.scores import check_threshold, threshold_limits
from napari_mood.core.slices import CropBox, body_box, choose_slice
from napari_mood.services.output import Inputs, atomic_path, check_output_file

__all__ = [
    "FIGURE_FORMATS",
    "FigureCase",
    "FigureRow",
    "ViewFigure",
    "anomalous_cases",
    "case_annotation",
    "figure_rows",
    "load_figure_cases",
    "make_figure",
    "method_cmap",
    "save_figure",
    "write_view_figure",
]

FIGURE_FORMATS: tuple[str, ...] = ("png", "svg", "pdf")
DEFAULT_MAX_CASES = 6
CELL_INCHES = 1.8
_GAP = 0.05  # inches between cells
_LEFT, _RIGHT, _TOP = 0.34, 0.06, 0.30  # inches around the grid
_LEGEND_BAND = 0.52  # inches below the grid for the colour bars
_ASPECT_RANGE = (0.6, 1.6)  # cell height / width
_OUTLINE_WIDTH = 0.9  # points
_SCAN_PERCENTILES = (0.5, 99.5)
_NO_DATES = {"png": {}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class FigureCase:
    """One case as a figure shows it: display-ordered 3-D arrays on one grid.

    Attributes
    ----------
    name : str
        Case name shown in the row labels (``.nii.gz`` is dropped).
    scan : ndarray or None
        The scan, display-ordered (axis 0 = axial slices).
    gt : ndarray of bool or None
        Ground-truth mask on the same grid.
    maps : Mapping[str, ndarray]
        Score map per method on the same grid (a method without a map for the case is
        simply absent: its cell says so).
    spacing : tuple of float
        Voxel size along the display axes (for the in-plane aspect ratio).
    """

    name: str
    scan: np.ndarray | None
    gt: np.ndarray | None
    maps: Mapping[str, np.ndarray] = field(default_factory=dict)
    spacing: tuple[float, ...] = (1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        shapes = {a.shape for a in (self.scan, self.gt, *self.maps.values()) if a is not None}
        if len(shapes) != 1 or len(next(iter(shapes))) != 3:
            raise ValueError(
                f"case {self.name}: scan, ground truth and maps must be 3-D arrays of one "
                f"shape, got {sorted(shapes)}"
            )

    @property
    def shape(self) -> tuple[int, int, int]:
        """Display shape of the case's arrays."""
        first = next(a for a in (self.scan, self.gt, *self.maps.values()) if a is not None)
        return first.shape  # type: ignore[no-any-return]

    @classmethod
    def from_case_data(cls, case: CaseData) -> FigureCase:
        """Display-ordered views of a case read by :func:`napari_mood.core.case.load_case`."""
        show = case.transform.to_display
        return cls(
            name=case.stem,
            scan=None if case.scan is None else show(case.scan.data),
            gt=None if case.gt is None else show(case.gt),
            maps={name: show(scores) for name, scores in case.maps.items()},
            spacing=case.transform.spacing,
        )


@dataclass(frozen=True)
class FigureRow:
    """One row of a figure: a case and its slice (axis-0 index; None chooses it)."""

    case: FigureCase
    index: int | None = None


def load_figure_cases(
    dataset: MoodDataset,
    cases: Sequence[str],
    methods: Mapping[str, MethodFolder],
    *,
    mode: Literal["mood", "exact"] = "mood",
) -> list[FigureCase]:
    """Read cases of a dataset (scan, ground truth, each method's map) for a figure.

    Parameters
    ----------
    dataset : MoodDataset
        Where the scans and labels are.
    cases : sequence of str
        Case names, with or without ``.nii.gz`` (``brain_001`` or ``brain_001.nii.gz``).
    methods : Mapping[str, MethodFolder]
        Methods to show, in column order.
    mode : {"mood", "exact"}
        How maps are read (as the viewer and the scorer: ``mood``).

    Raises
    ------
    MoodInputError
        When a case is not in the dataset (the message lists the cases it has).
    """
    names = [resolve_case(dataset, case) for case in cases]
    return [
        FigureCase.from_case_data(load_case(dataset, name, methods=methods, mode=mode))
        for name in names
    ]


def resolve_case(dataset: MoodDataset, case: str) -> str:
    """Return the dataset's name of ``case`` given with or without ``.nii.gz``.

    Raises
    ------
    MoodInputError
        When the dataset has no such case.
    """
    known = dataset.cases
    if case in known:
        return case
    by_stem = {case_stem(name): name for name in known}
    if case_stem(case) in by_stem:
        return by_stem[case_stem(case)]
    shown = ", ".join(case_stem(name) for name in known[:8]) + (", ..." if len(known) > 8 else "")
    raise MoodInputError(dataset.root, f"has no case {case!r}", f"cases: {shown}")


def anomalous_cases(dataset: MoodDataset, *, limit: int = DEFAULT_MAX_CASES) -> list[str]:
    """Return the first ``limit`` anomalous cases (:func:`napari_mood.core.case.is_anomalous`)."""
    return find_anomalous_cases(dataset, limit=limit)


def figure_rows(
    cases: Sequence[FigureCase], slices: Sequence[int | None] | None = None
) -> list[FigureRow]:
    """Pair cases with slices: one row per case, or one row per slice of a single case.

    Parameters
    ----------
    cases : sequence of FigureCase
    slices : sequence of int or None, optional
        Axis-0 slice per row (None: chosen automatically). With one case, each slice is a
        row; with several cases, one slice per case.

    Raises
    ------
    ValueError
        When the numbers of cases and slices do not fit, or a slice is out of range.
    """
    if not cases:
        raise ValueError("a figure needs at least one case")
    if slices is None:
        rows = [FigureRow(case) for case in cases]
    elif len(cases) == 1:
        rows = [FigureRow(cases[0], index) for index in slices]
    elif len(slices) == len(cases):
        rows = [FigureRow(case, index) for case, index in zip(cases, slices, strict=True)]
    else:
        raise ValueError(
            f"got {len(slices)} slices for {len(cases)} cases: give one slice per case, "
            "or several slices of one case"
        )
    for row in rows:
        _check_index(row)
    return rows


def _check_index(row: FigureRow) -> None:
    depth = row.case.shape[0]
    if row.index is not None and not 0 <= row.index < depth:
        raise ValueError(f"slice {row.index} is outside 0..{depth - 1} of case {row.case.name}")


# --------------------------------------------------------------------------- looks


def method_cmap(color: str) -> Colormap:
    """Matplotlib version of a method's viewer colormap (transparent at its low end).

    Masked values (at or below the threshold) are transparent.
    """
    spec = method_colormap(color)
    stops = list(zip(spec["controls"], spec["colors"], strict=True))
    cmap = LinearSegmentedColormap.from_list(spec["name"], stops)
    return cmap.with_extremes(bad=(0.0, 0.0, 0.0, 0.0))


def case_annotation(gt: np.ndarray | None, scores: np.ndarray, threshold: float) -> str:
    """Short text for a method's cell: case AP and Dice at ``threshold``, or the peak score.

    AP is the case's voxel AP (float16 scores, as the scorer and ``napari-mood evaluate``);
    Dice flags scores ``>= threshold``. Cases without anomalous voxels get ``max`` (the
    highest score, a false positive's strength).

    Examples
    --------
    >>> gt = np.zeros((1, 2, 2), bool); gt[0, 0, 0] = True
    >>> case_annotation(gt, np.array([[[0.9, 0.2], [0.1, 0.0]]]), 0.5)
    'AP 1.00\\nDice@0.5 1.00'
    """
    if gt is None or not gt.any():
        return f"max {float(np.nanmax(scores)):.2f}"
    curve = curve_from_arrays(np.asarray(scores), np.asarray(gt), mode="mood")
    dice = confusion_at(curve, threshold).dice
    dice_text = "n/a" if math.isnan(dice) else f"{dice:.2f}"
    return f"AP {average_precision_from_curve(curve):.2f}\nDice@{threshold:g} {dice_text}"


def _thresholds_for(
    methods: Sequence[str], thresholds: float | Mapping[str, float]
) -> dict[str, float]:
    if isinstance(thresholds, Mapping):
        unknown = sorted(set(thresholds) - set(methods))
        if unknown:
            raise ValueError(f"thresholds for unknown methods {unknown}; methods: {list(methods)}")
        chosen = {m: float(thresholds.get(m, DEFAULT_THRESHOLD)) for m in methods}
    else:
        chosen = dict.fromkeys(methods, float(thresholds))
    return {m: check_threshold(t, name=f"the threshold of {m}") for m, t in chosen.items()}


def _colors_for(methods: Sequence[str], colors: Mapping[str, str] | None) -> dict[str, str]:
    given = dict(colors or {})
    return {m: given.get(m, METHOD_COLORS[i % len(METHOD_COLORS)]) for i, m in enumerate(methods)}


# --------------------------------------------------------------------------- layout


@dataclass(frozen=True)
class _Cells:
    """Cropped 2-D images of one row."""

    label: str
    scan: np.ndarray | None
    gt: np.ndarray | None
    maps: Mapping[str, np.ndarray]
    aspect: float
    window: tuple[float, float]
    notes: Mapping[str, str]


@dataclass(frozen=True)
class _Grid:
    """Positions in inches of a figure's cells."""

    n_rows: int
    n_cols: int
    cell: tuple[float, float]
    legend: bool

    @property
    def size(self) -> tuple[float, float]:
        width = _LEFT + self.n_cols * self.cell[0] + (self.n_cols - 1) * _GAP + _RIGHT
        height = _TOP + self.n_rows * self.cell[1] + (self.n_rows - 1) * _GAP
        return width, height + (_LEGEND_BAND if self.legend else _GAP)

    def box(self, row: int, col: int) -> tuple[float, float, float, float]:
        """``[left, bottom, width, height]`` of a cell in figure fractions."""
        width, height = self.size
        x = _LEFT + col * (self.cell[0] + _GAP)
        top = _TOP + row * (self.cell[1] + _GAP)
        y = height - top - self.cell[1]
        return x / width, y / height, self.cell[0] / width, self.cell[1] / height

    def legend_box(self, col: int) -> tuple[float, float, float, float]:
        """Box of a column's colour bar, under the grid."""
        width, height = self.size
        x = _LEFT + col * (self.cell[0] + _GAP) + 0.12 * self.cell[0]
        return x / width, 0.30 / height, 0.76 * self.cell[0] / width, 0.08 / height


def _row_cells(
    row: FigureRow,
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    *,
    crop: bool,
    annotate: bool,
) -> _Cells:
    case = row.case
    first_map = next((case.maps[m] for m in methods if m in case.maps), None)
    index = row.index if row.index is not None else choose_slice(case.gt, first_map, case.shape[0])
    box = body_box(case.scan) if crop and case.scan is not None else _full_box(case.shape)
    cut = box.slices

    def plane(volume: np.ndarray) -> np.ndarray:
        return np.asarray(volume[index][cut])

    notes = {}
    if annotate:
        shown = [m for m in methods if m in case.maps]
        notes = {m: case_annotation(case.gt, case.maps[m], thresholds[m]) for m in shown}
    spacing = case.spacing[-2:] if len(case.spacing) >= 2 else (1.0, 1.0)
    return _Cells(
        label=f"{case.name}\nslice {index}",
        scan=None if case.scan is None else plane(case.scan).astype(np.float32),
        gt=None if case.gt is None else plane(case.gt).astype(bool),
        maps={m: plane(case.maps[m]).astype(np.float32) for m in methods if m in case.maps},
        aspect=float(spacing[0]) / float(spacing[1]),
        window=_window(case.scan),
        notes=notes,
    )


def _full_box(shape: tuple[int, ...]) -> CropBox:
    return CropBox((0, shape[-2]), (0, shape[-1]))


def _window(scan: np.ndarray | None) -> tuple[float, float]:
    if scan is None:
        return 0.0, 1.0
    low, high = np.nanpercentile(np.asarray(scan, dtype=np.float32), _SCAN_PERCENTILES)
    return float(low), float(max(high, low + 1e-6))


def _cell_shape(cells: Sequence[_Cells]) -> tuple[float, float]:
    ratios = []
    for c in cells:
        image = next(a for a in (c.scan, c.gt, *c.maps.values()) if a is not None)
        ratios.append(image.shape[0] * c.aspect / image.shape[1])
    ratio = float(np.clip(max(ratios), *_ASPECT_RANGE))
    return CELL_INCHES, CELL_INCHES * ratio


# --------------------------------------------------------------------------- drawing


def make_figure(
    rows: Sequence[FigureRow],
    *,
    methods: Sequence[str] | None = None,
    thresholds: float | Mapping[str, float] = DEFAULT_THRESHOLD,
    colors: Mapping[str, str] | None = None,
    annotate: bool = False,
    crop: bool = True,
    titles: bool = True,
) -> Figure:
    """Draw rows of slices x (scan, ground truth, each method) as a matplotlib figure.

    Parameters
    ----------
    rows : sequence of FigureRow
        One row each (see :func:`figure_rows`).
    methods : sequence of str, optional
        Method columns in order (default: every method of the rows, first seen first).
    thresholds : float or Mapping[str, float]
        Display threshold per method (others: 0.5), in [0, 1]; scores at or below it are
        transparent, as in the viewer.
    colors : Mapping[str, str], optional
        ``#rrggbb`` per method (default: :data:`~napari_mood._napari.layers.METHOD_COLORS` in order).
    annotate : bool
        Write each method's case AP and Dice at its threshold in its cells (``max`` score
        for normal cases).
    crop : bool
        Crop each case to the body.
    titles : bool
        Column titles on top.

    Returns
    -------
    matplotlib.figure.Figure
        A PNG saved at ``dpi`` is ``figure.get_size_inches() * dpi`` pixels (rounded down).

    Raises
    ------
    ValueError
        For no rows, an out-of-range slice or threshold, or thresholds of unknown methods.
    """
    if not rows:
        raise ValueError("a figure needs at least one row")
    for row in rows:
        _check_index(row)
    names = list(methods) if methods is not None else _methods_of(rows)
    levels = _thresholds_for(names, thresholds)
    palette = _colors_for(names, colors)
    cells = [_row_cells(r, names, levels, crop=crop, annotate=annotate) for r in rows]
    grid = _Grid(len(rows), 2 + len(names), _cell_shape(cells), legend=True)
    figure = Figure(figsize=grid.size, facecolor="white")
    for r, row_cells in enumerate(cells):
        _draw_row(figure, grid, r, row_cells, names, levels, palette)
    if titles:
        _draw_titles(figure, grid, ["scan", "ground truth", *names])
    _draw_legend(figure, grid, names, levels, palette)
    return figure


def _methods_of(rows: Sequence[FigureRow]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row.case.maps))
    return list(seen)


def _draw_row(
    figure: Figure,
    grid: _Grid,
    r: int,
    cells: _Cells,
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    colors: Mapping[str, str],
) -> None:
    scan_ax = _cell_axes(figure, grid, r, 0, cells)
    scan_ax.text(
        -0.03,
        0.5,
        cells.label,
        transform=scan_ax.transAxes,
        rotation=90,
        ha="right",
        va="center",
        fontsize=7,
    )
    _draw_outline(_cell_axes(figure, grid, r, 1, cells), cells.gt)
    for k, method in enumerate(methods):
        ax = _cell_axes(figure, grid, r, 2 + k, cells)
        scores = cells.maps.get(method)
        if scores is None:
            _draw_note(ax, "no map", corner="center")
            continue
        shown = np.ma.masked_less_equal(scores, thresholds[method])
        ax.imshow(
            shown,
            cmap=method_cmap(colors[method]),
            norm=Normalize(*threshold_limits(thresholds[method])),
            alpha=METHOD_OPACITY,
            aspect=cells.aspect,
            interpolation="nearest",
        )
        _draw_outline(ax, cells.gt)
        if method in cells.notes:
            _draw_note(ax, cells.notes[method])


def _cell_axes(figure: Figure, grid: _Grid, r: int, c: int, cells: _Cells) -> Axes:
    ax = figure.add_axes(grid.box(r, c))
    ax.set_axis_off()
    ax.set_facecolor("black")
    if cells.scan is not None:
        ax.imshow(
            cells.scan,
            cmap="gray",
            vmin=cells.window[0],
            vmax=cells.window[1],
            aspect=cells.aspect,
            interpolation="nearest",
        )
    else:
        shape = next(a.shape for a in (cells.gt, *cells.maps.values()) if a is not None)
        ax.imshow(np.zeros(shape), cmap="gray", vmin=0, vmax=1, aspect=cells.aspect)
    return ax


def _draw_outline(ax: Axes, mask: np.ndarray | None) -> None:
    """Draw the 0.5 contour of a 2-D mask, keeping the image's limits."""
    if mask is None or not mask.any() or mask.all():
        return
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    ax.contour(mask.astype(np.float32), levels=[0.5], colors=[GT_COLOR], linewidths=_OUTLINE_WIDTH)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)


def _draw_note(ax: Axes, text: str, *, corner: str = "top-left") -> None:
    x, y, ha, va = (
        (0.5, 0.5, "center", "center") if corner == "center" else (0.03, 0.97, "left", "top")
    )
    ax.text(
        x,
        y,
        text,
        transform=ax.transAxes,
        ha=ha,
        va=va,
        fontsize=6.5,
        color="white",
        linespacing=1.1,
        path_effects=[patheffects.withStroke(linewidth=1.5, foreground="black")],
    )


def _draw_titles(figure: Figure, grid: _Grid, titles: Sequence[str]) -> None:
    width, height = grid.size
    for col, title in enumerate(titles):
        left, bottom, w, h = grid.box(0, col)
        figure.text(
            left + w / 2, bottom + h + 0.06 / height, title, ha="center", va="bottom", fontsize=9
        )


def _draw_legend(
    figure: Figure,
    grid: _Grid,
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    colors: Mapping[str, str],
) -> None:
    gt_ax = figure.add_axes(grid.legend_box(1))
    gt_ax.set_axis_off()
    gt_ax.plot(
        [0.0, 0.25],
        [0.5, 0.5],
        color=GT_COLOR,
        linewidth=2,
        path_effects=[patheffects.withStroke(linewidth=3, foreground="black")],
    )
    gt_ax.text(0.3, 0.5, "GT outline", va="center", fontsize=7)
    gt_ax.set_xlim(0, 1)
    gt_ax.set_ylim(0, 1)
    for k, method in enumerate(methods):
        cax = figure.add_axes(grid.legend_box(2 + k))
        low = thresholds[method]
        mappable = ScalarMappable(
            norm=Normalize(*threshold_limits(low)), cmap=method_cmap(colors[method])
        )
        high = threshold_limits(low)[1]
        bar = figure.colorbar(mappable, cax=cax, orientation="horizontal", ticks=[low, high])
        bar.ax.tick_params(labelsize=6.5, length=2, pad=1)
        bar.ax.set_xticklabels([f"{low:g}", f"{high:g}"])
        bar.outline.set_linewidth(0.5)
        bar.set_label("score", fontsize=7, labelpad=1)


# --------------------------------------------------------------------------- files


def save_figure(figure: Figure, path: str | os.PathLike[str], *, dpi: float = 300) -> Path:
    """Write a figure as PNG, SVG or PDF (chosen by the file's extension).

    A PNG is ``figure.get_size_inches() * dpi`` pixels (rounded down); SVG and PDF are vector
    files whose images are embedded at ``dpi``. Dates are left out, so the same figure
    gives the same file.

    The file is written atomically; callers check it first with
    :func:`napari_mood.services.output.check_output_file` (inputs, existing files).

    Raises
    ------
    ValueError
        When the extension is not ``.png``, ``.svg`` or ``.pdf`` or ``dpi`` is not positive.
    OutputRefused
        When the file cannot be written (the old one, if any, is kept).
    """
    out = Path(path)
    kind = out.suffix.lower().lstrip(".")
    if kind not in FIGURE_FORMATS:
        raise ValueError(f"{out}: unsupported figure type {out.suffix!r}; use .png, .svg or .pdf")
    if not (math.isfinite(dpi) and dpi > 0):
        raise ValueError(f"dpi must be a positive number, got {dpi!r}")
    metadata: dict[str, Any] = dict(_NO_DATES[kind])
    with atomic_path(out) as temporary:  # never half a figure, never a lost old one
        figure.savefig(
            temporary, dpi=dpi, format=kind, facecolor="white", metadata=metadata or None
        )
    return out


@dataclass(frozen=True)
class ViewFigure:
    """A figure of the case shown in the viewer (arrays are the layers' data, not copies).

    ``index`` is the axial slice shown (None chooses it); thresholds and colours are the
    methods' current ones.
    """

    path: Path
    name: str
    scan: Any
    gt: Any
    maps: Mapping[str, Any]
    spacing: tuple[float, ...]
    index: int | None
    thresholds: Mapping[str, float]
    colors: Mapping[str, str]
    annotate: bool
    dpi: float
    inputs: Inputs | None = None


def write_view_figure(request: ViewFigure) -> Path:
    """Draw and save the figure of the case shown (a worker job); returns the file.

    The viewer's save dialog has asked before replacing a file; the path may still not be
    an input (the guard refuses it).
    """
    check_output_file(request.path, inputs=request.inputs, force=True, what="the figure")
    case = FigureCase(
        name=request.name,
        scan=None if request.scan is None else np.asarray(request.scan),
        gt=None if request.gt is None else np.asarray(request.gt) > 0,
        maps={name: np.asarray(data) for name, data in request.maps.items()},
        spacing=request.spacing,
    )
    figure = make_figure(
        [FigureRow(case, request.index)],
        thresholds=request.thresholds,
        colors=request.colors,
        annotate=request.annotate,
    )
    return save_figure(figure, request.path, dpi=request.dpi)
