"""Plots of the analyses (sweeps, categories, rankings): one figure, several file types.

Every figure is drawn and saved under :data:`~napari_mood.services.figures.FIGURE_RC`
(TrueType fonts in PDF, text kept as text in SVG, 7-pt text) with the method colours of
the viewer (:func:`~napari_mood.services.looks.method_colors`). Files go through
:func:`~napari_mood.services.figures.save_figure` (atomic; callers check the paths first).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib import rc_context
from matplotlib.figure import Figure

from napari_mood.services.figures import FIGURE_FORMATS, FIGURE_RC, save_figure
from napari_mood.services.looks import method_colors

__all__ = ["FIGURE_FORMATS", "colors_for", "new_figure", "save_formats"]

WIDTH_IN = 3.5  # one journal column (89 mm)


def colors_for(methods: Sequence[str]) -> dict[str, str]:
    """Each method's viewer colour (:func:`~napari_mood.services.looks.method_colors`).

    Parameters
    ----------
    methods : sequence of str
        The methods (their order does not change their colours).

    Returns
    -------
    dict of str to str
        A ``#rrggbb`` colour per method.
    """
    own = method_colors(methods)
    return {name: own[name] for name in methods}


def new_figure(width: float = WIDTH_IN, height: float = 2.6, *, ncols: int = 1) -> Figure:
    """Return a figure with ``ncols`` axes side by side, made under FIGURE_RC.

    Parameters
    ----------
    width, height : float
        Size in inches.
    ncols : int
        Number of axes.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    with rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        fig.subplots(1, ncols, squeeze=False)
    return fig


def save_formats(
    figure: Figure, stem: Path, formats: Sequence[str], *, dpi: float = 300
) -> list[Path]:
    """Save ``figure`` as ``stem.png`` / ``.svg`` / ``.pdf``; returns the paths.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure.
    stem : pathlib.Path
        The path without extension.
    formats : sequence of str
        The figure types.
    dpi : float
        Resolution of PNGs and embedded images.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    return [save_figure(figure, stem.with_suffix(f".{kind}"), dpi=dpi) for kind in formats]
