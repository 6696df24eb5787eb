"""A legend strip under an exported view: which colour (and colour bar) is which method.

napari's colour bars carry no label, so an exported view (``Export view…``) gets a strip
below the canvas with one swatch and name per shown method, in the order of the colour
bars (the layer list's order, top first). Qt-free: pillow draws on the PNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from napari_mood.services.looks import rgb

__all__ = ["LEGEND_BACKGROUND", "add_legend", "legend_strip"]

LEGEND_BACKGROUND = (0, 0, 0)
_PAD = 6
_SWATCH = 14


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:  # no DejaVu on this machine: pillow's own font
        return ImageFont.load_default()


def legend_strip(
    width: int, entries: Sequence[tuple[str, str]], *, font_size: int = 13
) -> np.ndarray:
    """Return an RGB strip ``width`` pixels wide with a swatch and a name per ``(name, colour)``.

    Entries wrap onto more lines when they do not fit.

    Parameters
    ----------
    width : int
        Width in pixels.
    entries : sequence of (str, str)
        Name and ``#rrggbb`` colour of each method.
    font_size : int
        Text size in pixels.

    Returns
    -------
    numpy.ndarray
        uint8 ``(height, width, 3)`` image.

    Examples
    --------
    >>> strip = legend_strip(200, [("residual", "#ff33d6")])
    >>> strip.shape[1], strip.shape[2]
    (200, 3)
    """
    font = _font(font_size)
    line_height = max(_SWATCH, font_size) + 2 * _PAD
    placed: list[tuple[int, int, str, str]] = []
    x, line = _PAD, 0
    for name, color in entries:
        text_width = int(ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength(name, font=font))
        needed = _SWATCH + _PAD + text_width + 3 * _PAD
        if x > _PAD and x + needed > width:
            x, line = _PAD, line + 1
        placed.append((x, line, name, color))
        x += needed
    image = Image.new("RGB", (width, line_height * (line + 1)), LEGEND_BACKGROUND)
    draw = ImageDraw.Draw(image)
    for x, row, name, color in placed:
        top = row * line_height + _PAD
        fill = tuple(round(255 * c) for c in rgb(color))
        draw.rectangle([x, top, x + _SWATCH, top + _SWATCH], fill=fill)
        draw.text((x + _SWATCH + _PAD, top - 1), name, fill=(235, 235, 235), font=font)
    return np.asarray(image)


def add_legend(png: Path, entries: Sequence[tuple[str, str]]) -> None:
    """Append a legend strip (:func:`legend_strip`) under the image in ``png``, in place.

    Parameters
    ----------
    png : pathlib.Path
        A PNG file.
    entries : sequence of (str, str)
        Name and colour of each method (none: the file is left as it is).
    """
    if not entries:
        return
    with Image.open(png) as opened:
        view = np.asarray(opened.convert("RGB"))
    strip = legend_strip(view.shape[1], entries)
    Image.fromarray(np.concatenate([view, strip], axis=0)).save(png, format="PNG")
