"""Publication figures: a grid of planes (rows) x scan, ground truth and methods (columns).

Headless and GUI-free: matplotlib's object API (no pyplot, no global state), never napari
or Qt. The command line (``napari-mood figure``) and the dataset browser's "Make
figure..." button both call :func:`make_figure`.

A figure looks like the viewer and is ready for a journal:

* rows are planes of cases: for each case, one row per plane asked for (axial, coronal,
  sagittal, in that order by default), oriented by the one rule of
  :mod:`napari_mood.core.orientation` (superior up in coronal and sagittal, anterior up in
  axial; ``radiological`` by default: the patient's right on the left), with orientation
  letters beside the middle of each edge of the first image of each row (``letters="all"``:
  every image), in the margin: a letter never covers a voxel;
* each method is drawn in its viewer colour (:data:`napari_mood.services.looks.METHOD_COLORS`)
  with the viewer's colour ramp over ``(threshold, 1]`` (a dark shade up to the full
  colour, which stands out on white matter) and transparent at or below its threshold,
  over the scan, with one colour bar per method column, named after it;
* the ground truth is an outline (the 0.5 contour of the mask, between inside and outside
  voxel centres) in :data:`napari_mood.services.looks.GT_COLOR`, on its own column and on every
  method's cell;
* each case is cropped to the body (:func:`napari_mood.core.slices.body_mask`) and its
  slice in each plane is chosen automatically (:func:`napari_mood.core.slices.choose_slice`
  along the plane's axis: largest GT area, else the first method's top score) unless given;
* every panel is drawn at one physical scale with its voxels' true aspect, so a single
  scale bar under the scan column holds for all of them
  (:mod:`napari_mood.services.figure_layout`);
* ``width`` is the printed width (``column`` 89 mm, ``lncs`` 122 mm, ``page`` 183 mm or a
  length, :func:`napari_mood.services.paper.parse_width`); every text is 7 pt at that size,
  never shrunk: a text wider than its column wraps at spaces and underscores, and only a
  width whose columns cannot hold a single word is refused (:class:`FigureTooNarrow`,
  saying how many columns fit);
* PDF fonts are embedded TrueType (Type 42, no Type 3), SVG text stays text (editable) in
  DejaVu Sans; both through :data:`FIGURE_RC`, applied locally, never globally.

The parts: :mod:`~napari_mood.services.figure_cases` (what is shown: cases, rows of case x
plane x slice), :mod:`~napari_mood.services.figure_cells` (each row's oriented, cropped
images), :mod:`~napari_mood.services.figure_layout` (where everything goes at a width),
this module (drawing and files; it also exports the names of the other two).

Example
-------
>>> from napari_mood.services.datasets import sample_data_dir
>>> from napari_mood.io.methods import discover_methods
>>> from napari_mood.io.mood import discover_dataset
>>> root = sample_data_dir()
>>> cases = load_figure_cases(
...     discover_dataset(root), ["brain_001.nii.gz"], discover_methods(root / "methods")
... )
>>> rows = figure_rows(cases, planes=("axial", "coronal"))
>>> figure = make_figure(rows, thresholds={"residual": 0.7}, width="page")
>>> round(figure.get_size_inches()[0] * 25.4)
183
>>> save_figure(figure, "figure.pdf")  # doctest: +SKIP
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import numpy as np
from matplotlib import patheffects, rc_context
from matplotlib.axes import Axes
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from napari_mood.core.orientation import CONVENTIONS, Convention, PlaneView
from napari_mood.core.scores import threshold_limits
from napari_mood.services.atomic_files import atomic_path
from napari_mood.services.figure_cases import (
    DEFAULT_MAX_CASES,
    FigureCase,
    FigureRow,
    anomalous_cases,
    check_row,
    figure_rows,
    load_figure_cases,
    resolve_case,
)
from napari_mood.services.figure_cells import (
    RowImages,
    case_annotation,
    colors_for,
    method_cmap,
    row_images,
    thresholds_for,
)
from napari_mood.services.figure_files import FIGURE_FORMATS, check_figure_path
from napari_mood.services.figure_layout import (
    LETTER_PAD_PT,
    ColumnTexts,
    FigureLayout,
    FigureTooLarge,
    FigureTooNarrow,
    LetterPlacement,
    RowOutOfScale,
    plan_layout,
)
from napari_mood.services.figure_text import FONT_FAMILY, TEXT_PT
from napari_mood.services.looks import DEFAULT_THRESHOLD, GT_COLOR, METHOD_OPACITY
from napari_mood.services.output import Inputs, check_output_file
from napari_mood.services.paper import MM_PER_INCH, parse_width

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

__all__ = [
    "DEFAULT_MAX_CASES",
    "FIGURE_FORMATS",
    "FIGURE_RC",
    "LETTERS",
    "FigureCase",
    "MAX_FIGURE_PIXELS",
    "FigureRow",
    "FigureTooLarge",
    "FigureTooNarrow",
    "RowOutOfScale",
    "ViewFigure",
    "anomalous_cases",
    "case_annotation",
    "cases_that_fit",
    "check_pixels",
    "figure_rows",
    "load_figure_cases",
    "make_figure",
    "method_cmap",
    "resolve_case",
    "save_figure",
    "write_view_figure",
]

MAX_FIGURE_PIXELS = 2**28
"""Pixels of a figure at its dpi (the images of SVG and PDF too are embedded at it):
268 million, 1 GiB while it is drawn."""
FIGURE_RC: dict[RcKeyType, Any] = {
    "font.family": "sans-serif",
    "font.sans-serif": [FONT_FAMILY],
    "font.size": TEXT_PT,
    "mathtext.fontset": "dejavusans",
    "text.usetex": False,
    "pdf.fonttype": 42,  # TrueType embedded (Type 42), never Type 3 bitmaps-in-glyphs
    "ps.fonttype": 42,
    "pdf.use14corefonts": False,
    "svg.fonttype": "none",  # text stays <text>: editable in Illustrator / Inkscape
    "svg.hashsalt": "napari-mood",  # stable ids: the same figure gives the same file
}
"""matplotlib settings of every figure, applied with ``rc_context`` (never globally)."""
_OUTLINE_WIDTH = 0.9  # points
_NO_DATES = {"png": {}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}
_NO_MAP = "no map"
Letters = LetterPlacement
LETTERS: tuple[Letters, ...] = get_args(LetterPlacement)


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
    width: str | float | None = None,
    convention: Convention = "radiological",
    letters: Letters = "first",
    scale_bar: bool = True,
) -> Figure:
    """Draw rows of planes x (scan, ground truth, each method) as a matplotlib figure.

    Parameters
    ----------
    rows : sequence of FigureRow
        One row each (see :func:`figure_rows`, which also chooses the planes).
    methods : sequence of str, optional
        Method columns in order (default: every method of the rows, first seen first).
    thresholds : float or Mapping[str, float]
        Display threshold per method (others: 0.5), in [0, 1]; scores at or below it are
        transparent, as in the viewer.
    colors : Mapping[str, str], optional
        ``#rrggbb`` per method (default: :data:`~napari_mood.services.looks.METHOD_COLORS` in order).
    annotate : bool
        Write each method's case AP and Dice at its threshold under its cells of the last
        row of each case (``max`` score for normal cases).
    crop : bool
        Crop each case to the body.
    titles : bool
        Column titles on top.
    width : str or float, optional
        Printed width: ``"column"`` (89 mm), ``"lncs"`` (122 mm), ``"page"`` (183 mm), a
        length with a unit (``"89mm"``, ``"3.5in"``, ``"8.9cm"``) or a number of mm
        (:func:`napari_mood.services.paper.parse_width`). None: 1.8-inch cells.
    convention : {"radiological", "neurological"}
        Radiological shows the patient's right on the left (axial, coronal).
    letters : {"first", "all", "none"}
        Orientation letters beside the edges (in the margin, outside the image) of the
        first image of each row (its other images are oriented alike), of every image,
        or none.
    scale_bar : bool
        A scale bar (a round number of mm) under the scan column, valid for every panel.

    Returns
    -------
    matplotlib.figure.Figure
        A PNG saved at ``dpi`` is ``figure.get_size_inches() * dpi`` pixels (rounded down).

    Raises
    ------
    FigureTooNarrow
        A :class:`ValueError` when ``width`` cannot hold a column's longest word with
        7-pt text (longer texts wrap); the message gives the narrowest width that can and
        how many columns fit.
    ValueError
        For no rows, an unknown option value (the message lists the valid ones), an
        out-of-range slice or threshold, or thresholds of unknown methods.
    """
    names, levels, cells, layout = _prepare(
        rows, methods, thresholds, annotate=annotate, crop=crop, titles=titles, width=width,
        convention=convention, letters=letters, scale_bar=scale_bar,
    )  # fmt: skip
    palette = colors_for(names, colors)
    with rc_context(FIGURE_RC):
        figure = Figure(figsize=layout.size_inches, facecolor="white")
        for r, row_cells in enumerate(cells):
            _draw_row(figure, layout, r, row_cells, names, levels, palette, letters=letters)
        if titles:
            _draw_titles(figure, layout, ["scan", "ground truth", *names])
        _draw_legend(figure, layout, names, levels, palette, scale_bar=scale_bar)
    return figure


def cases_that_fit(
    rows: Sequence[FigureRow],
    height_mm: float,
    *,
    methods: Sequence[str] | None = None,
    thresholds: float | Mapping[str, float] = DEFAULT_THRESHOLD,
    **style: Any,
) -> int:
    """Return how many leading cases of ``rows`` :func:`make_figure` draws within ``height_mm``.

    The rows of a case stay together; at least one case is kept, even when it alone is
    taller. Only the layout is computed (nothing is drawn).

    Parameters
    ----------
    rows : sequence of FigureRow
        The rows, case by case (:func:`figure_rows`).
    height_mm : float
        The tallest figure, in mm (e.g. :data:`~napari_mood.services.paper.PAGE_HEIGHT_MM`).
    methods, thresholds, **style
        As :func:`make_figure` (``annotate``, ``crop``, ``titles``, ``width``,
        ``convention``, ``letters``, ``scale_bar``).

    Returns
    -------
    int
        The number of cases, from 1 to the number in ``rows``.
    """
    names, levels, cells, _ = _prepare(rows, methods, thresholds, **style)
    cases = list(dict.fromkeys(id(row.case) for row in rows))
    for count in range(len(cases), 1, -1):
        kept = [k for k, row in enumerate(rows) if id(row.case) in cases[:count]]
        layout = _plan(
            [cells[k] for k in kept], names, levels, titles=style.get("titles", True),
            width_mm=_width_mm(style.get("width")), letters=style.get("letters", "first"),
            scale_bar=style.get("scale_bar", True),
        )  # fmt: skip
        if layout.size_inches[1] * MM_PER_INCH <= height_mm:
            return count
    return 1


def _prepare(
    rows: Sequence[FigureRow],
    methods: Sequence[str] | None,
    thresholds: float | Mapping[str, float],
    *,
    annotate: bool = False,
    crop: bool = True,
    titles: bool = True,
    width: str | float | None = None,
    convention: Convention = "radiological",
    letters: Letters = "first",
    scale_bar: bool = True,
) -> tuple[list[str], dict[str, float], list[RowImages], FigureLayout]:
    """Check the choices; return the methods, their thresholds, the cells and the layout."""
    width_mm = _width_mm(width)
    if letters not in LETTERS:
        raise ValueError(f"letters must be one of {list(LETTERS)}, got {letters!r}")
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {list(CONVENTIONS)}, got {convention!r}")
    if not rows:
        raise ValueError("a figure needs at least one row")
    for row in rows:
        check_row(row)
    names = list(methods) if methods is not None else _methods_of(rows)
    levels = thresholds_for(names, thresholds)
    cells = list(
        row_images(rows, names, levels, convention=convention, annotate=annotate, crop=crop)
    )
    layout = _plan(
        cells, names, levels, titles=titles, width_mm=width_mm, letters=letters,
        scale_bar=scale_bar,
    )  # fmt: skip
    return names, levels, cells, layout


def _width_mm(width: str | float | None) -> float | None:
    if width is None:
        return None
    if isinstance(width, numbers.Real) and not isinstance(width, bool):
        return parse_width(f"{float(width)!r}mm")
    if isinstance(width, str):
        return parse_width(width)
    raise ValueError(f"width must be a preset, a length with a unit or mm, got {width!r}")


def _methods_of(rows: Sequence[FigureRow]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row.case.maps))
    return list(seen)


def _plan(
    cells: Sequence[RowImages],
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    *,
    titles: bool,
    width_mm: float | None,
    letters: Letters,
    scale_bar: bool,
) -> FigureLayout:
    """Lay the cells out; every text drawn later is listed here so that it fits."""
    columns = [ColumnTexts("scan"), ColumnTexts("ground truth", "GT outline")]
    for method in methods:
        low, high = threshold_limits(thresholds[method])
        columns.append(ColumnTexts(method, method, (f"{low:g}", f"{high:g}")))
    if not titles:
        columns = [replace(column, title="") for column in columns]
    missing = any(m not in c.maps for c in cells for m in methods)
    return plan_layout(
        [c.extent for c in cells],
        columns,
        width_mm=width_mm,
        letters=letters,
        centre_texts=[_NO_MAP] if missing else [],
        scale_bar=scale_bar,
    )


def _draw_row(
    figure: Figure,
    layout: FigureLayout,
    r: int,
    cells: RowImages,
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    colors: Mapping[str, str],
    *,
    letters: Letters,
) -> None:
    scan_ax = _cell_axes(figure, layout, r, 0, cells, letters=letters != "none")
    x, y = layout.row_label_xy(r)
    scan_ax.text(
        x, y, cells.label, transform=figure.transFigure, rotation=90, ha="right", va="center",
        multialignment="center", fontsize=TEXT_PT,
    )  # fmt: skip
    others = letters == "all"
    _draw_outline(_cell_axes(figure, layout, r, 1, cells, letters=others), cells.gt)
    for k, method in enumerate(methods):
        scores = cells.maps.get(method)
        if scores is None:
            _draw_no_map(
                figure.add_axes(layout.image_box(r, 2 + k)), cells, layout.wrap_inside(_NO_MAP, r)
            )
            continue
        ax = _cell_axes(figure, layout, r, 2 + k, cells, letters=others)
        ax.imshow(
            np.ma.masked_less_equal(scores, thresholds[method]),
            cmap=method_cmap(colors[method]),
            norm=Normalize(*threshold_limits(thresholds[method])),
            alpha=METHOD_OPACITY,
            aspect=cells.aspect,
            interpolation="nearest",
        )
        _draw_outline(ax, cells.gt)
        if method in cells.notes:
            ax.text(
                layout.column_center(2 + k), layout.note_y(r), layout.wrap(cells.notes[method]),
                transform=figure.transFigure, ha="center", va="top", fontsize=TEXT_PT,
                linespacing=1.1,
            )  # fmt: skip


def _cell_axes(
    figure: Figure, layout: FigureLayout, r: int, c: int, cells: RowImages, *, letters: bool
) -> Axes:
    ax = figure.add_axes(layout.image_box(r, c))
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
        ax.imshow(np.zeros(cells.shape), cmap="gray", vmin=0, vmax=1, aspect=cells.aspect)
    if letters:
        _draw_letters(ax, cells.view)
    return ax


# side: (x, y) on the axes, outward direction, alignment
_LETTER_SPOTS = (
    ("top", (0.5, 1.0), (0, 1), ("center", "bottom")),
    ("bottom", (0.5, 0.0), (0, -1), ("center", "top")),
    ("left", (0.0, 0.5), (-1, 0), ("right", "center")),
    ("right", (1.0, 0.5), (1, 0), ("left", "center")),
)


def _draw_letters(ax: Axes, view: PlaneView) -> None:
    """Draw the patient direction letters in the margins of a view.

    Patient directions beside the middle of each edge, in the margin the layout keeps
    for them: plain text on the page, covering no voxel (and staying text in PDF / SVG).
    """
    for letter, (side, xy, outward, (ha, va)) in zip(view.letters, _LETTER_SPOTS, strict=True):
        ax.annotate(
            letter,
            xy=xy,
            xycoords="axes fraction",
            xytext=(outward[0] * LETTER_PAD_PT, outward[1] * LETTER_PAD_PT),
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=TEXT_PT,
            fontweight="bold",
            color="black",
            annotation_clip=False,
            gid=f"letter-{side}",
        )


def _draw_outline(ax: Axes, mask: np.ndarray | None) -> None:
    """Draw the 0.5 contour of a 2-D mask, keeping the image's limits.

    The mask is framed by one row and column of background, so that an image one voxel
    thin (a slab seen from the side) still has a contour and a region at the image's
    edge is closed along it.
    """
    if mask is None or not mask.any() or mask.all():
        return
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    framed = np.pad(mask, 1).astype(np.float32)
    rows, cols = (np.arange(-1, n + 1) for n in mask.shape)
    ax.contour(cols, rows, framed, levels=[0.5], colors=[GT_COLOR], linewidths=_OUTLINE_WIDTH)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)


def _draw_no_map(ax: Axes, cells: RowImages, text: str) -> None:
    """Draw an empty light-grey panel saying "no map" (no scan, no letters: nothing to read)."""
    ax.set_axis_off()
    ax.imshow(np.full(cells.shape, 0.12), cmap="Greys", vmin=0, vmax=1, aspect=cells.aspect)
    ax.text(
        0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=TEXT_PT,
        color="#444444", multialignment="center",
    )  # fmt: skip


def _draw_titles(figure: Figure, layout: FigureLayout, titles: Sequence[str]) -> None:
    for col, title in enumerate(titles):
        figure.text(
            layout.column_center(col), layout.title_y(), layout.wrap(title), ha="center",
            va="bottom", fontsize=TEXT_PT, multialignment="center",
        )  # fmt: skip


def _draw_legend(
    figure: Figure,
    layout: FigureLayout,
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    colors: Mapping[str, str],
    *,
    scale_bar: bool,
) -> None:
    if scale_bar:
        _draw_scale_bar(figure, layout)
    _draw_gt_key(figure, layout)
    for k, method in enumerate(methods):
        _draw_colour_bar(figure, layout, 2 + k, method, thresholds[method], colors[method])


def _legend_name(
    figure: Figure, ax: Axes, layout: FigureLayout, col: int, text: str, *, line: int = 1
) -> None:
    """Draw a legend caption from line ``line`` under the legend graphics, wrapped to its column."""
    ax.text(
        layout.column_center(col), layout.legend_text_y(line), layout.wrap(text),
        transform=figure.transFigure, ha="center", va="top", fontsize=TEXT_PT,
        multialignment="center",
    )  # fmt: skip


def _draw_scale_bar(figure: Figure, layout: FigureLayout) -> None:
    """Draw a black bar of ``layout.scale_bar_mm`` at the images' scale, its length under it."""
    length = layout.scale_bar_mm * layout.points_per_mm
    ax = figure.add_axes(layout.legend_box(0, fraction=length / layout.cell_pt))
    ax.set_axis_off()
    ax.add_patch(Rectangle((0, 0.15), 1, 0.7, color="black", gid="scale-bar", clip_on=False))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    _legend_name(figure, ax, layout, 0, f"{layout.scale_bar_mm:g} mm", line=0)


def _draw_gt_key(figure: Figure, layout: FigureLayout) -> None:
    ax = figure.add_axes(layout.legend_box(1, fraction=0.3))
    ax.set_axis_off()
    ax.plot(
        [0.0, 1.0], [0.5, 0.5], color=GT_COLOR, linewidth=2,
        path_effects=[patheffects.withStroke(linewidth=3, foreground="black")],
    )  # fmt: skip
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    _legend_name(figure, ax, layout, 1, "GT outline", line=0)


def _draw_colour_bar(
    figure: Figure, layout: FigureLayout, col: int, method: str, threshold: float, color: str
) -> None:
    cax = figure.add_axes(layout.legend_box(col))
    low, high = threshold_limits(threshold)
    mappable = ScalarMappable(norm=Normalize(low, high), cmap=method_cmap(color))
    bar = figure.colorbar(mappable, cax=cax, orientation="horizontal", ticks=[low, high])
    bar.ax.tick_params(labelsize=TEXT_PT, length=2, pad=1, width=0.5)
    bar.ax.set_xticklabels([f"{low:g}", f"{high:g}"])
    bar.outline.set_linewidth(0.5)
    _legend_name(figure, cax, layout, col, method)


# --------------------------------------------------------------------------- files


def save_figure(figure: Figure, path: str | os.PathLike[str], *, dpi: float = 300) -> Path:
    """Write a figure as PNG, SVG or PDF (chosen by the file's extension).

    A PNG is ``figure.get_size_inches() * dpi`` pixels (rounded down); SVG and PDF are vector
    files of the figure's size whose images are embedded at ``dpi``. Fonts follow
    :data:`FIGURE_RC`: embedded TrueType in PDF (no Type 3), text kept as text in SVG.
    Dates are left out, so the same figure gives the same file.

    The file is written atomically; callers check it first with
    :func:`napari_mood.services.output.check_output_file` (inputs, existing files).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    path : str or os.PathLike
        The file.
    dpi : float
        Resolution of a PNG and of embedded images.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        When the extension is not ``.png``, ``.svg`` or ``.pdf`` or ``dpi`` is not positive.
    FigureTooLarge
        When the figure has more than :data:`MAX_FIGURE_PIXELS` at ``dpi``
        (:func:`check_pixels`).
    OutputRefused
        When the file cannot be written (the old one, if any, is kept).
    """
    out = check_figure_path(path)
    kind = out.suffix.lower().lstrip(".")
    if not (math.isfinite(dpi) and dpi > 0):
        raise ValueError(f"dpi must be a positive number, got {dpi!r}")
    check_pixels(figure, dpi)
    metadata: dict[str, Any] = dict(_NO_DATES[kind])
    with rc_context(FIGURE_RC), atomic_path(out) as temporary:  # never half a figure
        figure.savefig(
            temporary, dpi=dpi, format=kind, facecolor="white", metadata=metadata or None
        )
    return out


def check_pixels(figure: Figure, dpi: float) -> None:
    """Refuse a figure with too many pixels or none at ``dpi``.

    Raise :class:`FigureTooLarge` when ``figure`` at ``dpi`` has more than
    :data:`MAX_FIGURE_PIXELS` (the message gives the highest dpi that fits), or a
    ValueError when it has no pixel on a side (the lowest dpi that gives one).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    dpi : float
        The resolution it will be saved at.

    Raises
    ------
    FigureTooLarge
        When it has too many pixels.
    ValueError
        When it has no pixel on a side.
    """
    width_in, height_in = (float(v) for v in figure.get_size_inches())
    if min(width_in, height_in) * dpi < 1:  # as Agg truncates: an empty image
        lowest = math.ceil(1 / min(width_in, height_in))
        raise ValueError(
            f"a figure of {width_in:.1f} x {height_in:.1f} in at {dpi:g} dpi has no pixel on a "
            f"side: use at least {lowest} dpi"
        )
    pixels = width_in * height_in * dpi**2
    if pixels <= MAX_FIGURE_PIXELS:
        return
    fits = math.floor(math.sqrt(MAX_FIGURE_PIXELS / (width_in * height_in)))
    raise FigureTooLarge(
        f"a figure of {width_in:.1f} x {height_in:.1f} in at {dpi:g} dpi has "
        f"{pixels / 1e6:,.0f} million pixels, more than {MAX_FIGURE_PIXELS / 1e6:,.0f} million: "
        f"use at most {fits} dpi, a narrower width or fewer rows"
    )


@dataclass(frozen=True)
class ViewFigure:
    """A figure of the case shown in the viewer (arrays are the layers' data, not copies).

    ``index`` is the axial slice shown (None chooses it); thresholds and colours are the
    methods' current ones; ``convention`` and ``width`` as in :func:`make_figure`.
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
    convention: Convention = "radiological"
    width: str | None = None


def write_view_figure(request: ViewFigure) -> Path:
    """Draw and save the figure of the case shown (a worker job); returns the file.

    The viewer's save dialog has asked before replacing a file; the path may still not be
    an input (the guard refuses it).

    Parameters
    ----------
    request : ViewFigure
        The case's arrays, the methods, the plane and the file.

    Returns
    -------
    pathlib.Path
        The file written.
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
        convention=request.convention,
        width=request.width,
    )
    return save_figure(figure, request.path, dpi=request.dpi)
