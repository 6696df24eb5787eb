"""How methods, the ground truth and boxes look, in the viewer and in figures alike.

A method is drawn in its colour with a ramp that is transparent at its low end: below its
threshold nothing is drawn, above it the colour runs from a dark shade to the full colour
at score 1 (a binary map's flagged voxels). There is no pale tint at the top: on a grey or
white brain MRI it vanished into white matter. The viewer (:mod:`napari_mood._napari.layers`) and the figures
(:mod:`napari_mood.services.figures`) build their colormaps from :func:`method_colormap`,
so a method has the same colour and ramp everywhere.

Contrast bound (``tests/services/test_journal_colours.py``): every colour of every method's
ramp, drawn at :data:`METHOD_OPACITY` over a white-matter grey (0.8 to 0.95 of the scan's
grey window, where the sample brain's white matter lies), is at least CIEDE2000 20 away
from that grey, in normal vision and in simulated protanopia, deuteranopia and
tritanopia (Machado et al. 2009, severity 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "BOX_COLORS",
    "READER_COLORS",
    "DEFAULT_THRESHOLD",
    "GT_COLOR",
    "METHOD_COLORS",
    "METHOD_OPACITY",
    "method_color",
    "method_colormap",
    "method_colors",
    "rgb",
]

DEFAULT_THRESHOLD = 0.5
"""Display threshold of a method shown for the first time."""
GT_COLOR = "#33ff33"
"""The ground truth: green."""
METHOD_COLORS: tuple[str, ...] = (
    "#ff7a1a",  # orange
    "#2f8fff",  # blue
    "#ff33d6",  # magenta
    "#a066ff",  # violet
    "#6b8e23",  # olive
    "#c51b7d",  # dark pink (a pale pink vanished on white matter)
)
"""The methods' heatmap colours, dealt by :func:`method_colors` (then again from the first)."""
METHOD_OPACITY = 0.85
"""Opacity of a method's heatmap over the scan, in the viewer and in figures."""

# Boxes (NOVA-style localisation): object-matching colours of the voxel widgets, kept for
# boxes: green = ground truth found (TP), orange = ground truth missed (FN), red = prediction
# matching nothing (FP); a prediction that found its box is cyan (dashed, over the green box).
BOX_COLORS: dict[str, str] = {
    "gt": GT_COLOR,
    "gt_detected": GT_COLOR,
    "gt_missed": "#ff9900",
    "pred": "#ffff00",
    "pred_tp": "#00e5ff",
    "pred_fp": "#ff3333",
}
"""Edge colours: plain GT / predictions (no matching shown) and the four outcomes."""
READER_COLORS: tuple[str, ...] = ("#7fbf7f", "#bf7fbf", "#7f9fff")
"""Each reader's own boxes (before the consensus)."""


def rgb(color: str) -> tuple[float, float, float]:
    """Return the (r, g, b) fractions of a ``#rrggbb`` colour.

    Parameters
    ----------
    color : str
        A ``#rrggbb`` colour.

    Returns
    -------
    tuple of float
        Red, green and blue in [0, 1].

    Examples
    --------
    >>> rgb("#ff8000")
    (1.0, 0.5019607843137255, 0.0)
    """
    value = color.lstrip("#")
    red, green, blue = (int(value[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return red, green, blue


def method_color(index: int) -> str:
    """Colour of the ``index``-th method (the palette repeats after six).

    Parameters
    ----------
    index : int
        The method's position.

    Returns
    -------
    str
        A ``#rrggbb`` colour of ``METHOD_COLORS``.

    Examples
    --------
    >>> method_color(7) == METHOD_COLORS[1]
    True
    """
    return METHOD_COLORS[index % len(METHOD_COLORS)]


def method_colors(methods: Iterable[str]) -> dict[str, str]:
    """Return each method's colour: the one rule the viewer, figures and plots follow.

    The palette is dealt to the methods in the order of their sorted names, so a method's
    colour depends on which methods there are, never on the order they are given in
    (``figure --methods b,a`` draws them as the viewer shows them). Give every method of
    the dataset, not only those drawn, for the colours the viewer shows.

    Parameters
    ----------
    methods : iterable of str
        The methods' names (any order; repeats count once).

    Returns
    -------
    dict of str to str
        A ``#rrggbb`` colour per method, in sorted order.

    Examples
    --------
    >>> method_colors(["residual", "binary"]) == method_colors(["binary", "residual"])
    True
    >>> method_colors(["residual", "binary"])["binary"] == METHOD_COLORS[0]
    True
    """
    return {name: method_color(k) for k, name in enumerate(sorted(set(methods)))}


def method_colormap(color: str) -> dict[str, Any]:
    """Return the colormap of a method drawn in ``color`` (a ``#rrggbb`` string).

    ``{"name", "colors", "controls"}``: RGBA stops over [0, 1], transparent at 0, then a
    dark shade (55 %) rising to the full colour at 1. napari accepts the dict as a
    colormap; figures turn it into a matplotlib colormap.

    Parameters
    ----------
    color : str
        A ``#rrggbb`` colour.

    Returns
    -------
    dict
        The colormap's name, RGBA colours and control points.

    Examples
    --------
    >>> method_colormap("#ff0000")["colors"][0]
    [0.0, 0.0, 0.0, 0.0]
    >>> method_colormap("#ff0000")["colors"][-1]
    [1.0, 0.0, 0.0, 1.0]
    """
    r, g, b = rgb(color)
    dark = [0.55 * r, 0.55 * g, 0.55 * b, 1.0]
    return {
        "name": f"napari-mood {color.lower()}",
        "colors": [[0.0, 0.0, 0.0, 0.0], dark, [r, g, b, 1.0]],
        "controls": [0.0, 0.002, 1.0],
    }
