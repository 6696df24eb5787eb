"""Sizes on paper: journal figure widths, lengths with units, the smallest font, scale bars.

One owner of the print rules that figures follow (pure, no matplotlib):

* ``--width`` presets are the common journal figure widths, in millimetres:

  ========  ======  ==================================================================
  preset    mm      what it is
  ========  ======  ==================================================================
  column    89      one column (Nature 89 mm; Elsevier 90 mm, Cell 85 mm are close)
  lncs      122     the text width of Springer LNCS (MICCAI, IPMI proceedings)
  page      183     two columns / full page (Nature 183 mm; Elsevier 190 mm)
  ========  ======  ==================================================================

* any other width is a number with a unit: ``89mm``, ``8.9cm``, ``3.5in``;
* a figure is at most :data:`PAGE_HEIGHT_MM` (240 mm) high when its cases are chosen for
  the reader (a journal page's text height: Nature 247 mm, Elsevier 240 mm);
* every text of a figure is at least :data:`MIN_FONT_PT` (7 pt, the usual journal
  minimum at final size);
* a scale bar is the longest round length (1, 2 or 5 x 10^k mm) not longer than 30 % of
  the width it is drawn in (:func:`scale_bar_mm`), so between 12 % and 30 % of it.

Examples
--------
>>> parse_width("column"), parse_width("3.5in"), parse_width("8.9 cm")
(89.0, 88.9, 89.0)
>>> scale_bar_mm(180.0)
50.0
"""

from __future__ import annotations

import math
import re

__all__ = [
    "MIN_FONT_PT",
    "MM_PER_INCH",
    "PAGE_HEIGHT_MM",
    "POINTS_PER_INCH",
    "WIDTH_PRESETS",
    "mm_to_points",
    "parse_width",
    "points_to_mm",
    "scale_bar_mm",
]

MIN_FONT_PT = 7.0
"""Smallest text size on a figure at its final (printed) size, in points."""
MM_PER_INCH = 25.4
POINTS_PER_INCH = 72.0
WIDTH_PRESETS: dict[str, float] = {"column": 89.0, "lncs": 122.0, "page": 183.0}
"""Journal figure widths in mm (see the module docstring for their sources)."""
PAGE_HEIGHT_MM = 240.0
"""Tallest default figure: the text height of a journal page (module docstring)."""
MAX_WIDTH_MM = 1000.0
"""Widest figure accepted (a metre: larger is a typo, and a huge bitmap)."""
_UNITS_MM = {"mm": 1.0, "cm": 10.0, "in": MM_PER_INCH}
_LENGTH = re.compile(r"^\s*(?P<value>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(?P<unit>[a-z]+)\s*$")
_ROUND_STEPS = (1.0, 2.0, 5.0)
_WIDTH_FORMS = (
    "one of " + ", ".join(f"{name} ({mm:g} mm)" for name, mm in WIDTH_PRESETS.items())
    + " or a length with a unit: 89mm, 8.9cm, 3.5in"
)  # fmt: skip


def parse_width(text: str) -> float:
    """Return a figure width in millimetres from a preset or a length with a unit.

    Parameters
    ----------
    text : str
        ``column`` (89 mm), ``lncs`` (122 mm), ``page`` (183 mm), or a positive number
        followed by ``mm``, ``cm`` or ``in`` (``89mm``, ``8.9cm``, ``3.5in``).

    Returns
    -------
    float
        The width in millimetres.

    Raises
    ------
    ValueError
        For anything else (a bare number has no unit), or a width outside (0, 1000] mm;
        the message lists the valid forms.

    Examples
    --------
    >>> parse_width("page")
    183.0
    >>> parse_width("122mm")
    122.0
    """
    key = text.strip().lower()
    if key in WIDTH_PRESETS:
        return WIDTH_PRESETS[key]
    match = _LENGTH.match(key)
    if match is None or match["unit"] not in _UNITS_MM:
        raise ValueError(f"width {text!r} is not {_WIDTH_FORMS}")
    width = float(match["value"]) * _UNITS_MM[match["unit"]]
    if not (math.isfinite(width) and 0 < width <= MAX_WIDTH_MM):
        raise ValueError(f"width {text!r} must be more than 0 and at most {MAX_WIDTH_MM:g} mm")
    return round(width, 6)


def mm_to_points(mm: float) -> float:
    """Millimetres to typographic points (1/72 in).

    Parameters
    ----------
    mm : float
        A length in millimetres.

    Returns
    -------
    float
        The length in points.

    Examples
    --------
    >>> round(mm_to_points(25.4), 6)
    72.0
    """
    return mm / MM_PER_INCH * POINTS_PER_INCH


def points_to_mm(points: float) -> float:
    """Typographic points (1/72 in) to millimetres.

    Parameters
    ----------
    points : float
        A length in points.

    Returns
    -------
    float
        The length in millimetres.

    Examples
    --------
    >>> round(points_to_mm(72.0), 6)
    25.4
    """
    return points / POINTS_PER_INCH * MM_PER_INCH


def scale_bar_mm(extent_mm: float, *, fraction: float = 0.3) -> float:
    """Return the longest round length (1, 2 or 5 x 10^k mm) at most ``fraction * extent_mm``.

    With ``fraction`` 0.3 the bar spans 12 % to 30 % of the extent (round lengths are at
    most 2.5 times apart).

    Parameters
    ----------
    extent_mm : float
        The width the bar is measured against (a cell's width in patient millimetres).
    fraction : float
        Upper bound of the bar as a fraction of ``extent_mm``, in (0, 1].

    Returns
    -------
    float
        The bar's length in millimetres.

    Raises
    ------
    ValueError
        When ``extent_mm`` is not a positive finite number or ``fraction`` is not in (0, 1].

    Examples
    --------
    >>> scale_bar_mm(230.0), scale_bar_mm(60.0), scale_bar_mm(5.0)
    (50.0, 10.0, 1.0)
    """
    if not (math.isfinite(extent_mm) and extent_mm > 0):
        raise ValueError(f"extent_mm must be a positive number, got {extent_mm!r}")
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
    limit = fraction * extent_mm
    power = 10.0 ** math.floor(math.log10(limit))
    fits = [step * power for step in _ROUND_STEPS if step * power <= limit * (1 + 1e-9)]
    return max(fits)
