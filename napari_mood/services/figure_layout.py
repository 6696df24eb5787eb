"""Where everything of a publication figure goes, in points, for a given width.

Geometry only (no drawing): :func:`plan_layout` turns the rows' physical extents and the
texts of each column into positions, or refuses a width too narrow for 7-pt text.

Rules (one place):

* every text is :data:`~napari_mood.core.paper.MIN_FONT_PT` (7 pt) at the final size;
  nothing is shrunk to fit;
* all columns have one width; the cell width is what the requested figure width leaves
  after the row labels and the gaps (no width: :data:`CELL_PT`, 1.8 in);
* every image is drawn at **one scale** (points per patient millimetre), set so that the
  widest row fills its cells; a row is as tall as its image, so voxels keep their physical
  aspect and one scale bar (under the scan column) is valid for every panel;
* texts centred on a column (titles, colour-bar and legend names, annotations) must fit
  the cell width plus the gap; orientation letters need images at least three letters
  wide and high; a row label is never longer than its row;
* a row's image is at most :data:`MAX_ASPECT` times taller than wide (or wider than tall)
  and at most that many times narrower than the widest row (:class:`RowOutOfScale`:
  beyond, at one scale it is a line of pixels, or it blows the others up: a voxel size is
  wrong); the page is at most :data:`MAX_PAGE_MM` on a side (:class:`FigureTooLarge`).

Example
-------
>>> rows = [RowExtent(198.0, 234.0, "brain_001\\naxial 44")]
>>> layout = plan_layout(rows, [["scan"], ["ground truth"]], width_mm=89.0)
>>> round(layout.width_pt / 72 * 25.4, 1)
89.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from napari_mood.core.paper import (
    MIN_FONT_PT,
    POINTS_PER_INCH,
    mm_to_points,
    points_to_mm,
    scale_bar_mm,
)

__all__ = [
    "CELL_PT",
    "FONT_FAMILY",
    "MAX_ASPECT",
    "MAX_PAGE_MM",
    "FigureLayout",
    "FigureTooLarge",
    "FigureTooNarrow",
    "RowExtent",
    "RowOutOfScale",
    "plan_layout",
    "text_width",
]

FONT_FAMILY = "DejaVu Sans"
"""The figures' font: shipped with matplotlib (always embeddable), wide Unicode coverage."""
TEXT_PT = MIN_FONT_PT
LINE_PT = 1.25 * TEXT_PT
"""Height of one line of text."""
PAD_PT = 2.0
GAP_PT = 3.0
"""Between cells, horizontally and vertically."""
CELL_PT = 1.8 * POINTS_PER_INCH
"""Cell width when no figure width is asked for."""
LETTER_INSET_PT = 1.0
"""Orientation letters sit this far inside an image's edge."""
_RIGHT_PT = 2.0
_BAR_PT = 4.5
_BAR_TOP_PT = 5.0  # space between the last row and the colour bars
_TICKS_PT = 3.0  # tick length and padding under a colour bar
_LETTER_SLOT_PT = TEXT_PT + 2 * LETTER_INSET_PT
SCALE_BAR_FRACTION = 0.3
"""A scale bar is at most this fraction of a cell's width."""
MAX_ASPECT = 100.0
"""A row's image is at most this many times taller than wide, wider than tall, or
narrower than the widest row's (one scale for every image: see the module)."""
MAX_PAGE_MM = 5080.0
"""The largest figure side: 200 in, the largest page PDF readers open."""


@lru_cache(maxsize=4096)
def text_width(text: str, *, size: float = TEXT_PT, bold: bool = False) -> float:
    """Width in points of ``text`` (its widest line) in the figures' font.

    Examples
    --------
    >>> text_width("ab\\nabcd") == text_width("abcd")
    True
    """
    font = FontProperties(family=FONT_FAMILY, size=size, weight="bold" if bold else "normal")
    measure = TextToPath()
    lines = text.split("\n")
    return max(measure.get_text_width_height_descent(line, font, ismath=False)[0] for line in lines)


@dataclass(frozen=True)
class RowExtent:
    """What the layout needs of a row: its image's size in patient mm, label, notes under it."""

    width_mm: float
    height_mm: float
    label: str
    note_lines: int = 0

    def __post_init__(self) -> None:
        if not (self.width_mm > 0 and self.height_mm > 0):
            raise ValueError(f"row {self.label!r}: image extent must be positive")


class FigureTooNarrow(ValueError):
    """The requested width cannot hold the grid with 7-pt text.

    Attributes
    ----------
    width_mm, min_width_mm : float
        Asked for, and the narrowest that fits.
    columns, max_columns : int
        Columns asked for, and the most that fit at ``width_mm`` (may be 0).
    """

    def __init__(self, width_mm: float, min_width_mm: float, columns: int, max_columns: int):
        self.width_mm = width_mm
        self.min_width_mm = min_width_mm
        self.columns = columns
        self.max_columns = max_columns
        fewer = (
            f", or show fewer columns (at most {max_columns} of {columns} fit in {width_mm:g} mm)"
            if max_columns > 0
            else ""
        )
        super().__init__(
            f"a figure {width_mm:g} mm wide cannot hold {columns} columns with "
            f"{TEXT_PT:g}-pt text: it needs at least {math.ceil(min_width_mm)} mm; "
            f"use a width of {math.ceil(min_width_mm)}mm or more{fewer}"
        )


class RowOutOfScale(ValueError):
    """A row's image cannot be drawn at the figure's one scale (see :data:`MAX_ASPECT`).

    Attributes
    ----------
    row : int
        Index of the row (in the rows given to :func:`plan_layout`).
    ratio : float
        How many times taller than wide, wider than tall, or narrower than the widest row.
    """

    def __init__(self, row: int, label: str, ratio: float, what: str) -> None:
        self.row = row
        self.ratio = ratio
        super().__init__(
            f"the image of row {' '.join(label.split())!r} is {ratio:,.0f} times {what} "
            f"(at most {MAX_ASPECT:g})"
        )


class FigureTooLarge(ValueError):
    """The figure would be larger than :data:`MAX_PAGE_MM` on a side (too many rows), or
    have too many pixels at its resolution (:func:`napari_mood.services.figures.check_pixels`)."""


@dataclass(frozen=True)
class FigureLayout:
    """Positions of a figure's parts in points (origin at the top-left corner).

    Use the methods for matplotlib figure fractions (origin at the bottom-left).
    """

    width_pt: float
    height_pt: float
    left_pt: float
    top_pt: float
    cell_pt: float
    points_per_mm: float
    row_tops: tuple[float, ...]
    row_heights: tuple[float, ...]
    images: tuple[tuple[float, float], ...]
    notes: tuple[float, ...]
    scale_bar_mm: float

    @property
    def size_inches(self) -> tuple[float, float]:
        """Figure size for matplotlib."""
        return self.width_pt / POINTS_PER_INCH, self.height_pt / POINTS_PER_INCH

    @property
    def width_mm(self) -> float:
        """Figure width in millimetres."""
        return points_to_mm(self.width_pt)

    def _x(self, x_pt: float) -> float:
        return x_pt / self.width_pt

    def _y(self, y_from_top_pt: float) -> float:
        return 1.0 - y_from_top_pt / self.height_pt

    def cell_left(self, col: int) -> float:
        """Left edge of column ``col`` in points."""
        return self.left_pt + col * (self.cell_pt + GAP_PT)

    def column_center(self, col: int) -> float:
        """Horizontal centre of a column (figure fraction)."""
        return self._x(self.cell_left(col) + self.cell_pt / 2)

    def image_box(self, row: int, col: int) -> tuple[float, float, float, float]:
        """``[left, bottom, width, height]`` of a row's image in a column (figure fractions)."""
        width, height = self.images[row]
        left = self.cell_left(col) + (self.cell_pt - width) / 2
        top = self.row_tops[row] + (self.row_heights[row] - height) / 2
        return self._x(left), self._y(top + height), width / self.width_pt, height / self.height_pt

    def title_y(self) -> float:
        """Baseline region of the column titles: their bottom (figure fraction)."""
        return self._y(self.top_pt - PAD_PT / 2)

    def row_label_xy(self, row: int) -> tuple[float, float]:
        """Right edge and vertical centre of a row's (rotated) label."""
        centre = self.row_tops[row] + self.row_heights[row] / 2
        return self._x(self.left_pt - PAD_PT), self._y(centre)

    def note_y(self, row: int) -> float:
        """Top of the annotation band under a row (figure fraction)."""
        return self._y(self.row_tops[row] + self.row_heights[row] + PAD_PT / 2)

    @property
    def _legend_top(self) -> float:
        last = len(self.row_tops) - 1
        return self.row_tops[last] + self.row_heights[last] + self.notes[last] + _BAR_TOP_PT

    def legend_box(self, col: int, *, fraction: float = 0.76) -> tuple[float, float, float, float]:
        """Box of a column's colour bar (or legend graphic) under the grid."""
        width = fraction * self.cell_pt
        left = self.cell_left(col) + (self.cell_pt - width) / 2
        bottom = self._legend_top + _BAR_PT
        return self._x(left), self._y(bottom), width / self.width_pt, _BAR_PT / self.height_pt

    def legend_text_y(self, line: int) -> float:
        """Top of text line ``line`` (0 or 1) under the legend graphics (figure fraction)."""
        return self._y(self._legend_top + _BAR_PT + _TICKS_PT + line * LINE_PT)


def plan_layout(
    rows: Sequence[RowExtent],
    column_texts: Sequence[Sequence[str]],
    *,
    width_mm: float | None = None,
    letters: bool = True,
    centre_texts: Sequence[str] = (),
    scale_bar: bool = True,
) -> FigureLayout:
    """Place rows of images in columns at a width, keeping every text at 7 pt.

    Parameters
    ----------
    rows : sequence of RowExtent
        Each row's image size in patient millimetres, its label and lines of notes under it.
    column_texts : sequence of sequence of str
        Per column, the texts centred on it (title, legend name, annotations); one entry
        per column, so its length is the number of columns.
    width_mm : float, optional
        Figure width; None gives cells of :data:`CELL_PT` (wider if a text needs it).
    letters : bool
        Whether images carry orientation letters (they need room).
    centre_texts : sequence of str
        Texts drawn across the middle of an image without letters ("no map").
    scale_bar : bool
        Whether a scale bar (and its label) goes under the first column.

    Raises
    ------
    RowOutOfScale
        When a row's image is more than :data:`MAX_ASPECT` times taller than wide, wider
        than tall or narrower than the widest row's.
    FigureTooNarrow
        When ``width_mm`` cannot hold the columns at 7 pt (says the minimum width).
    FigureTooLarge
        When the figure would be more than :data:`MAX_PAGE_MM` on a side.
    ValueError
        For no rows or no columns.
    """
    if not rows or not column_texts:
        raise ValueError("a figure needs at least one row and one column")
    _check_scales(rows)
    widest = max(r.width_mm for r in rows)
    bar_mm = scale_bar_mm(widest, fraction=SCALE_BAR_FRACTION)
    texts = [list(texts) for texts in column_texts]
    if scale_bar:
        texts[0].append(_scale_label(bar_mm))
    left = max(r.label.count("\n") + 1 for r in rows) * LINE_PT + PAD_PT
    fixed = left + _RIGHT_PT + (len(texts) - 1) * GAP_PT
    smallest = _min_cell(rows, texts, letters=letters, centre_texts=centre_texts)
    cell = _cell_width(width_mm, fixed, smallest, len(texts))
    width = fixed + len(texts) * cell
    layout = _place(rows, cell, left=left, width=width, bar_mm=bar_mm)
    width_mm, height_mm = (points_to_mm(v) for v in (layout.width_pt, layout.height_pt))
    if max(width_mm, height_mm) > MAX_PAGE_MM:
        raise FigureTooLarge(
            f"{len(rows)} rows make a figure of {width_mm:,.0f} x {height_mm:,.0f} mm, more "
            f"than {MAX_PAGE_MM:,.0f} mm (200 in) on a side: draw fewer rows"
        )
    return layout


def _check_scales(rows: Sequence[RowExtent]) -> None:
    """Each row's image drawable at one scale with the others (:data:`MAX_ASPECT`)."""
    widest = max(r.width_mm for r in rows)
    for i, r in enumerate(rows):
        for ratio, what in (
            (r.height_mm / r.width_mm, "taller than wide"),
            (r.width_mm / r.height_mm, "wider than tall"),
            (widest / r.width_mm, "narrower than the widest row's"),
        ):
            if ratio > MAX_ASPECT:
                raise RowOutOfScale(i, r.label, ratio, what)


def _scale_label(bar_mm: float) -> str:
    return f"{bar_mm:g} mm"


def _min_cell(
    rows: Sequence[RowExtent],
    texts: Sequence[Sequence[str]],
    *,
    letters: bool,
    centre_texts: Sequence[str],
) -> float:
    """Narrowest cell (points) that holds every text at 7 pt."""
    needs = [text_width(t) - GAP_PT + 1.0 for column in texts for t in column]
    widest = max(r.width_mm for r in rows)
    image_w = max(
        [3 * _LETTER_SLOT_PT if letters else 0.0] + [text_width(t) + 2.0 for t in centre_texts]
    )
    image_h = 3 * _LETTER_SLOT_PT if letters else 0.0
    for r in rows:  # the images scale with the cell: the smallest one decides
        needs.append(image_w * widest / r.width_mm)
        needs.append(image_h * widest / r.height_mm)
    return max(needs + [1.0])


def _cell_width(width_mm: float | None, fixed: float, smallest: float, columns: int) -> float:
    if width_mm is None:
        return max(CELL_PT, smallest)
    cell = (mm_to_points(width_mm) - fixed) / columns
    if cell < smallest - 1e-6:
        room = mm_to_points(width_mm) - fixed + columns * GAP_PT  # k cells take k * (c + gap)
        max_columns = max(0, math.floor(room / (smallest + GAP_PT)))
        needed = points_to_mm(fixed + columns * smallest)
        raise FigureTooNarrow(width_mm, needed, columns, min(max_columns, columns - 1))
    return cell


def _place(
    rows: Sequence[RowExtent],
    cell: float,
    *,
    left: float,
    width: float,
    bar_mm: float,
) -> FigureLayout:
    scale = cell / max(r.width_mm for r in rows)
    notes = tuple(r.note_lines * LINE_PT + PAD_PT if r.note_lines else 0.0 for r in rows)
    top = LINE_PT + PAD_PT
    images = tuple((r.width_mm * scale, r.height_mm * scale) for r in rows)
    heights = tuple(
        max(h, text_width(r.label) + PAD_PT) for r, (_, h) in zip(rows, images, strict=True)
    )
    tops, y = [], top
    for h, note in zip(heights, notes, strict=True):
        tops.append(y)
        y += h + note + GAP_PT
    legend = _BAR_TOP_PT + _BAR_PT + _TICKS_PT + 2 * LINE_PT + PAD_PT
    return FigureLayout(
        width_pt=width,
        height_pt=y - GAP_PT + legend,
        left_pt=left,
        top_pt=top,
        cell_pt=cell,
        points_per_mm=scale,
        row_tops=tuple(tops),
        row_heights=heights,
        images=images,
        notes=notes,
        scale_bar_mm=bar_mm,
    )
