r"""Where everything of a publication figure goes, in points, for a given width.

Geometry only (no drawing): :func:`plan_layout` turns the rows' physical extents and the
texts of each column into positions, wrapping texts to the cells' width
(:mod:`napari_mood.services.figure_text` measures and wraps them), or refuses a width
whose cells cannot hold a word at 7 pt.

Rules (one place):

* every text is :data:`~napari_mood.services.paper.MIN_FONT_PT` (7 pt) at the final size;
  nothing is shrunk to fit;
* all columns have one width; the cell width is what the requested figure width leaves
  after the row labels, the letters' margins and the gaps (no width: :data:`CELL_PT`,
  1.8 in);
* every image is drawn at **one scale** (points per patient millimetre), set so that the
  widest row fills its cells; a row is as tall as its image, so voxels keep their physical
  aspect and one scale bar (under the scan column) is valid for every panel;
* texts centred on a column (titles, colour-bar and legend names, annotations) may take
  the cell width plus the gap; a longer one wraps at spaces and after ``_``, ``-`` or
  ``/`` (:func:`~napari_mood.services.figure_text.wrap_text`), and the bands above, between and under the rows grow by its
  lines; only a single word wider than that is refused (:class:`FigureTooNarrow`, which
  says how many columns fit); a row label is never longer than its row;
* orientation letters sit in the margin, outside the image they name (a band above and
  under every row, a side margin left and right of each lettered column): they never
  cover a voxel;
* a row's image is at most :data:`MAX_ASPECT` times taller than wide (or wider than tall)
  and at most that many times narrower than the widest row (:class:`RowOutOfScale`:
  beyond, at one scale it is a line of pixels, or it blows the others up: a voxel size is
  wrong); the page is at most :data:`MAX_PAGE_MM` on a side (:class:`FigureTooLarge`).

Example
-------
>>> rows = [RowExtent(198.0, 234.0, "brain_001\naxial 44")]
>>> columns = [ColumnTexts("scan"), ColumnTexts("ground truth", "GT outline")]
>>> layout = plan_layout(rows, columns, width_mm=89.0)
>>> round(layout.width_pt / 72 * 25.4, 1)
89.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from napari_mood.services.figure_text import (
    TEXT_PT,
    bold_line_height,
    line_count,
    text_width,
    widest_word,
    wrap_text,
)
from napari_mood.services.paper import (
    POINTS_PER_INCH,
    mm_to_points,
    points_to_mm,
    scale_bar_mm,
)

__all__ = [
    "CELL_PT",
    "LETTERS_SHOWN",
    "MAX_ASPECT",
    "MAX_PAGE_MM",
    "ColumnTexts",
    "FigureLayout",
    "FigureTooLarge",
    "FigureTooNarrow",
    "LetterPlacement",
    "RowExtent",
    "RowOutOfScale",
    "plan_layout",
]

LINE_PT = 1.25 * TEXT_PT
"""Height of one line of text."""
PAD_PT = 2.0
GAP_PT = 3.0
"""Between cells, horizontally and vertically."""
CELL_PT = 1.8 * POINTS_PER_INCH
"""Cell width when no figure width is asked for."""
LETTER_PAD_PT = 1.0
"""Orientation letters sit this far outside an image's edge."""
LETTERS_SHOWN = "RLAPSI"
"""Every orientation letter a figure draws (their widest sets the side margins)."""
_RIGHT_PT = 2.0
_BAR_PT = 4.5
_BAR_TOP_PT = 5.0  # space between the last row and the colour bars
_TICKS_PT = 3.0  # tick length and padding under a colour bar
_OVERHANG_PT = GAP_PT - 1.0  # a centred text may reach this far into the gaps
_INSIDE_PAD_PT = 2.0  # a text inside an image keeps this far from its sides
SCALE_BAR_FRACTION = 0.3
"""A scale bar is at most this fraction of a cell's width."""
MAX_ASPECT = 100.0
"""A row's image is at most this many times taller than wide, wider than tall, or
narrower than the widest row's (one scale for every image: see the module)."""
MAX_PAGE_MM = 5080.0
"""The largest figure side: 200 in, the largest page PDF readers open."""
LetterPlacement = Literal["first", "all", "none"]
"""Orientation letters on the first image of each row, on every image, or none."""


def _letter_band() -> float:
    """Room above and under a lettered image."""
    return LETTER_PAD_PT + bold_line_height() + 0.5


def _letter_side() -> float:
    """Room left and right of a lettered image."""
    return LETTER_PAD_PT + max(text_width(c, bold=True) for c in LETTERS_SHOWN) + 0.5


@dataclass(frozen=True)
class RowExtent:
    """What the layout needs of a row: its image's size in patient mm, label, notes under it."""

    width_mm: float
    height_mm: float
    label: str
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Refuse an image extent that is not positive."""
        if not (self.width_mm > 0 and self.height_mm > 0):
            raise ValueError(f"row {self.label!r}: image extent must be positive")


@dataclass(frozen=True)
class ColumnTexts:
    """Texts centred on a column of the figure.

    The texts centred on a column: its title, the caption under its legend graphic and
    the tick labels of its colour bar (the caption then starts on the line under them).
    """

    title: str = ""
    caption: str = ""
    ticks: tuple[str, ...] = ()

    @property
    def caption_line(self) -> int:
        """Legend line on which the caption starts (0 under the graphic, 1 under ticks)."""
        return 1 if self.ticks else 0


class FigureTooNarrow(ValueError):
    """The requested width cannot hold the grid's words with 7-pt text.

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
    """Raised when the figure would be too large to draw.

    The figure would be larger than :data:`MAX_PAGE_MM` on a side (too many rows), or
    have too many pixels at its resolution (:func:`napari_mood.services.figures.check_pixels`).
    """


@dataclass(frozen=True)
class _Margins:
    """The letters' room: a band above and under rows, sides of the first columns."""

    band: float = 0.0
    side: float = 0.0
    lettered: int = 0  # leading columns with letters

    def width(self, columns: int) -> float:
        """Horizontal room the letters take in a grid of ``columns`` columns."""
        return 2 * self.side * min(self.lettered, columns)

    def overhang(self, columns: int) -> float:
        """How far a text centred on a column may reach beyond its cell.

        How far a text centred on a column may reach beyond its cell: into the gaps,
        and into the letters' side margins when every column has them (texts are above,
        under or between rows, never beside an image).
        """
        return _OVERHANG_PT + (2 * self.side if self.lettered >= columns else 0.0)


def _margins(letters: LetterPlacement, columns: int) -> _Margins:
    if letters == "none":
        return _Margins()
    return _Margins(_letter_band(), _letter_side(), 1 if letters == "first" else columns)


@dataclass(frozen=True)
class FigureLayout:
    """Positions of a figure's parts in points (origin at the top-left corner).

    Use the methods for matplotlib figure fractions (origin at the bottom-left). A row is
    a block holding its image (centred) and, with letters, a band above and under it;
    ``row_tops`` and ``row_heights`` are the blocks'.
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
    letter_side_pt: float = 0.0
    lettered_columns: int = 0
    legend_lines: int = 2
    overhang_pt: float = _OVERHANG_PT

    @property
    def size_inches(self) -> tuple[float, float]:
        """Figure size for matplotlib."""
        return self.width_pt / POINTS_PER_INCH, self.height_pt / POINTS_PER_INCH

    @property
    def width_mm(self) -> float:
        """Figure width in millimetres."""
        return points_to_mm(self.width_pt)

    @property
    def text_room(self) -> float:
        """Widest line of a text centred on a column (the cell and the room beside it)."""
        return self.cell_pt + self.overhang_pt

    def wrap(self, text: str) -> str:
        """``text`` broken into lines that fit a column (as the layout counted them).

        Parameters
        ----------
        text : str
            A column text.

        Returns
        -------
        str
            The text with line breaks.
        """
        return wrap_text(text, self.text_room)

    def wrap_inside(self, text: str, row: int) -> str:
        """``text`` broken into lines that fit inside a row's image (as the layout counted).

        Parameters
        ----------
        text : str
            A text drawn on the image.
        row : int
            The row.

        Returns
        -------
        str
            The text with line breaks.
        """
        return wrap_text(text, self.images[row][0] - _INSIDE_PAD_PT)

    def _x(self, x_pt: float) -> float:
        return x_pt / self.width_pt

    def _y(self, y_from_top_pt: float) -> float:
        return 1.0 - y_from_top_pt / self.height_pt

    def cell_left(self, col: int) -> float:
        """Left edge of column ``col`` in points (after the letters' margins before it).

        Parameters
        ----------
        col : int
            The column.

        Returns
        -------
        float
            Points from the figure's left edge.
        """
        sides = 2 * min(col, self.lettered_columns) + (col < self.lettered_columns)
        return self.left_pt + col * (self.cell_pt + GAP_PT) + sides * self.letter_side_pt

    def column_center(self, col: int) -> float:
        """Horizontal centre of a column (figure fraction).

        Parameters
        ----------
        col : int
            The column.

        Returns
        -------
        float
            Figure fraction.
        """
        return self._x(self.cell_left(col) + self.cell_pt / 2)

    def image_box(self, row: int, col: int) -> tuple[float, float, float, float]:
        """``[left, bottom, width, height]`` of a row's image in a column (figure fractions).

        Parameters
        ----------
        row, col : int
            The cell.

        Returns
        -------
        tuple of float
            The box, as matplotlib's ``add_axes`` takes it.
        """
        width, height = self.images[row]
        left = self.cell_left(col) + (self.cell_pt - width) / 2
        top = self.row_tops[row] + (self.row_heights[row] - height) / 2
        return self._x(left), self._y(top + height), width / self.width_pt, height / self.height_pt

    def title_y(self) -> float:
        """Baseline region of the column titles: their bottom (figure fraction).

        Returns
        -------
        float
            Figure fraction.
        """
        return self._y(self.top_pt - PAD_PT / 2)

    def row_label_xy(self, row: int) -> tuple[float, float]:
        """Right edge and vertical centre of a row's (rotated) label.

        Parameters
        ----------
        row : int
            The row.

        Returns
        -------
        tuple of float
            ``(x, y)`` in figure fractions.
        """
        centre = self.row_tops[row] + self.row_heights[row] / 2
        return self._x(self.left_pt - PAD_PT), self._y(centre)

    def note_y(self, row: int) -> float:
        """Top of the annotation band under a row (figure fraction).

        Parameters
        ----------
        row : int
            The row.

        Returns
        -------
        float
            Figure fraction.
        """
        return self._y(self.row_tops[row] + self.row_heights[row] + PAD_PT / 2)

    @property
    def _legend_top(self) -> float:
        last = len(self.row_tops) - 1
        return self.row_tops[last] + self.row_heights[last] + self.notes[last] + _BAR_TOP_PT

    def legend_box(self, col: int, *, fraction: float = 0.76) -> tuple[float, float, float, float]:
        """Box of a column's colour bar (or legend graphic) under the grid.

        Parameters
        ----------
        col : int
            The column.
        fraction : float
            The bar's width as a fraction of the column's.

        Returns
        -------
        tuple of float
            ``[left, bottom, width, height]`` in figure fractions.
        """
        width = fraction * self.cell_pt
        left = self.cell_left(col) + (self.cell_pt - width) / 2
        bottom = self._legend_top + _BAR_PT
        return self._x(left), self._y(bottom), width / self.width_pt, _BAR_PT / self.height_pt

    def legend_text_y(self, line: int) -> float:
        """Top of text line ``line`` under the legend graphics (figure fraction).

        Parameters
        ----------
        line : int
            The line, 0 the first.

        Returns
        -------
        float
            Figure fraction.
        """
        return self._y(self._legend_top + _BAR_PT + _TICKS_PT + line * LINE_PT)


def plan_layout(
    rows: Sequence[RowExtent],
    columns: Sequence[ColumnTexts],
    *,
    width_mm: float | None = None,
    letters: LetterPlacement = "first",
    centre_texts: Sequence[str] = (),
    scale_bar: bool = True,
) -> FigureLayout:
    """Place rows of images in columns at a width, keeping every text at 7 pt.

    Parameters
    ----------
    rows : sequence of RowExtent
        Each row's image size in patient millimetres, its label and the notes under it.
    columns : sequence of ColumnTexts
        Per column, the texts centred on it; its length is the number of columns. With
        ``scale_bar`` the first column's caption is the bar's length.
    width_mm : float, optional
        Figure width; None gives cells of :data:`CELL_PT` (wider if a word needs it).
    letters : {"first", "all", "none"}
        Which images carry orientation letters (in a margin around them).
    centre_texts : sequence of str
        Texts drawn across the middle of an image without letters ("no map").
    scale_bar : bool
        Whether a scale bar (and its label) goes under the first column.

    Returns
    -------
    FigureLayout
        The figure's size and where each image, text and bar goes.

    Raises
    ------
    RowOutOfScale
        When a row's image is more than :data:`MAX_ASPECT` times taller than wide, wider
        than tall or narrower than the widest row's.
    FigureTooNarrow
        When ``width_mm`` cannot hold a column's longest word at 7 pt (says the minimum
        width and how many columns fit).
    FigureTooLarge
        When the figure would be more than :data:`MAX_PAGE_MM` on a side.
    ValueError
        For no rows or no columns, or an unknown ``letters``.
    """
    if not rows or not columns:
        raise ValueError("a figure needs at least one row and one column")
    if letters not in ("first", "all", "none"):
        raise ValueError(f"letters must be one of ['first', 'all', 'none'], got {letters!r}")
    _check_scales(rows)
    bar_mm = scale_bar_mm(max(r.width_mm for r in rows), fraction=SCALE_BAR_FRACTION)
    texts = list(columns)
    if scale_bar:
        texts[0] = replace(texts[0], caption=_scale_label(bar_mm))
    margins = _margins(letters, len(texts))
    left = max(r.label.count("\n") + 1 for r in rows) * LINE_PT + PAD_PT
    smallest = _min_cell(
        rows, texts, centre_texts=centre_texts, overhang=margins.overhang(len(texts))
    )
    cell = _cell_width(width_mm, left, margins, smallest, len(texts))
    width = _fixed(left, margins, len(texts)) + len(texts) * cell
    layout = _place(rows, texts, cell, left=left, width=width, bar_mm=bar_mm, margins=margins)
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
    columns: Sequence[ColumnTexts],
    *,
    centre_texts: Sequence[str],
    overhang: float,
) -> float:
    """Narrowest cell (points) that holds every word at 7 pt (longer texts wrap)."""
    wrapped = [t for c in columns for t in (c.title, c.caption)] + [
        n for r in rows for n in r.notes
    ]
    needs = [widest_word(t) - overhang for t in wrapped]
    needs += [text_width(t) - _OVERHANG_PT for c in columns for t in c.ticks]
    widest = max(r.width_mm for r in rows)
    inside = max([widest_word(t) + _INSIDE_PAD_PT for t in centre_texts], default=0.0)
    needs += [inside * widest / r.width_mm for r in rows]  # the smallest image decides
    return max(needs + [1.0])


def _fixed(left: float, margins: _Margins, columns: int) -> float:
    """Width of everything but the cells in a grid of ``columns`` columns."""
    return left + _RIGHT_PT + (columns - 1) * GAP_PT + margins.width(columns)


def _cell_width(
    width_mm: float | None, left: float, margins: _Margins, smallest: float, columns: int
) -> float:
    if width_mm is None:
        return max(CELL_PT, smallest)
    width = mm_to_points(width_mm)
    cell = (width - _fixed(left, margins, columns)) / columns
    if cell >= smallest - 1e-6:
        return cell
    fitting = [
        k for k in range(columns - 1, 0, -1) if _fixed(left, margins, k) + k * smallest <= width
    ]
    needed = points_to_mm(_fixed(left, margins, columns) + columns * smallest)
    raise FigureTooNarrow(width_mm, needed, columns, fitting[0] if fitting else 0)


def _place(
    rows: Sequence[RowExtent],
    columns: Sequence[ColumnTexts],
    cell: float,
    *,
    left: float,
    width: float,
    bar_mm: float,
    margins: _Margins,
) -> FigureLayout:
    overhang = margins.overhang(len(columns))
    room = cell + overhang
    scale = cell / max(r.width_mm for r in rows)
    title_lines = max([line_count(c.title, room) for c in columns] + [1])
    top = title_lines * LINE_PT + PAD_PT
    images = tuple((r.width_mm * scale, r.height_mm * scale) for r in rows)
    heights = tuple(
        max(h + 2 * margins.band, text_width(r.label) + PAD_PT)
        for r, (_, h) in zip(rows, images, strict=True)
    )
    notes = tuple(_notes_height(r.notes, room) for r in rows)
    tops, y = [], top
    for h, note in zip(heights, notes, strict=True):
        tops.append(y)
        y += h + note + GAP_PT
    legend_lines = max([c.caption_line + line_count(c.caption, room) for c in columns] + [1])
    legend = _BAR_TOP_PT + _BAR_PT + _TICKS_PT + legend_lines * LINE_PT + PAD_PT
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
        letter_side_pt=margins.side,
        lettered_columns=margins.lettered,
        legend_lines=legend_lines,
        overhang_pt=overhang,
    )


def _notes_height(notes: Sequence[str], room: float) -> float:
    lines = max((line_count(note, room) for note in notes), default=0)
    return lines * LINE_PT + PAD_PT if lines else 0.0
