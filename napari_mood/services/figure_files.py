"""Which figure files napari-mood writes: one list of types for every plot and figure.

Kept apart from :mod:`napari_mood.services.figures` (which imports matplotlib) so the
command line can check a figure path at parse time, before any file is read.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FIGURE_FORMATS", "check_figure_path"]

FIGURE_FORMATS: tuple[str, ...] = ("png", "svg", "pdf")
"""Figure types written (by the file's extension, any case)."""


def check_figure_path(path: str | os.PathLike[str]) -> Path:
    """``path`` when its extension is one of :data:`FIGURE_FORMATS`, else ValueError.

    Only the name is looked at (whether the file may be written is the output guard's
    business, :func:`napari_mood.services.output.check_output_file`).

    Parameters
    ----------
    path : str or os.PathLike
        The figure file.

    Returns
    -------
    pathlib.Path
        The path.

    Raises
    ------
    ValueError
        When the extension is not a figure type.

    Examples
    --------
    >>> check_figure_path("fig2.PDF").name
    'fig2.PDF'
    >>> check_figure_path("fig2.jpg")
    Traceback (most recent call last):
    ...
    ValueError: fig2.jpg: unsupported figure type '.jpg'; use .png, .svg or .pdf
    """
    out = Path(path)
    kind = out.suffix.lower().lstrip(".")
    if kind not in FIGURE_FORMATS:
        told = f"type {out.suffix!r}" if out.suffix else "name (no extension)"
        kinds = ", ".join(f".{k}" for k in FIGURE_FORMATS[:-1]) + f" or .{FIGURE_FORMATS[-1]}"
        raise ValueError(f"{out}: unsupported figure {told}; use {kinds}")
    return out
