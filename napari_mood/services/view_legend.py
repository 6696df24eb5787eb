"""The legend strip under an exported view: each method's colour bar, and a scale bar.

An exported view (``Export view…``) is the canvas exactly as the reader sees it, with a
strip appended below it: per shown method a swatch, its name and its colour bar over
scores 0..1 (ticks at 0, the threshold and 1), in the layer list's order (top first), then
a scale bar. Nothing is drawn over the canvas, so no bar covers a voxel, a GT outline or
an orientation letter. Qt-free: pillow draws on the PNG.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from napari_mood.services.looks import rgb
from napari_mood.services.paper import scale_bar_mm

__all__ = ["LEGEND_BACKGROUND", "LegendBar", "add_legend", "legend_strip"]

LEGEND_BACKGROUND = (0, 0, 0)
_TEXT = (235, 235, 235)
_FRAME = (110, 110, 110)
_PAD = 6
_SWATCH = 14
_BAR_WIDTH = 128
_BAR_HEIGHT = 10
_TICK = 3
_SCALE_FRACTION = 0.2  # the scale bar is at most this share of the view's width


@dataclass(frozen=True)
class LegendBar:
    """One method in the strip: its name, colour and colour bar.

    ``ramp`` holds the RGBA colours (fractions) the map draws scores 0..1 in, evenly
    spaced (transparent where it draws nothing); ``ticks`` the (position 0..1, label)
    pairs under the bar. No ramp: a swatch and the name only.
    """

    name: str
    color: str
    ramp: np.ndarray | None = field(default=None, compare=False)
    ticks: tuple[tuple[float, str], ...] = ((0.0, "0"), (1.0, "1"))


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.truetype("DejaVuSans.ttf", size)
    except OSError:  # no DejaVu on this machine: pillow's own font
        return ImageFont.load_default()


def _text_width(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> int:
    return int(np.ceil(ImageDraw.Draw(Image.new("RGB", (1, 1))).textlength(text, font=font)))


def legend_strip(
    width: int,
    entries: Sequence[LegendBar],
    *,
    mm_per_pixel: float | None = None,
    font_size: int = 13,
) -> np.ndarray:
    """Return an RGB strip ``width`` pixels wide: each method's colour bar, then a scale bar.

    Each entry is a block (swatch and name over its colour bar and ticks); blocks that do
    not fit wrap onto more lines. With ``mm_per_pixel`` (the view's scale) a scale bar of
    a round length (1, 2 or 5 x 10^k mm, at most a fifth of ``width``) follows.

    Parameters
    ----------
    width : int
        Width in pixels (the view's).
    entries : sequence of LegendBar
        The methods, in order.
    mm_per_pixel : float, optional
        Millimetres per pixel of the view (no scale bar when None).
    font_size : int
        Text size in pixels.

    Returns
    -------
    numpy.ndarray
        uint8 ``(height, width, 3)`` image.

    Examples
    --------
    >>> strip = legend_strip(300, [LegendBar("residual", "#ff33d6")], mm_per_pixel=0.5)
    >>> strip.shape[1], strip.shape[2]
    (300, 3)
    """
    font = _font(font_size)
    line = max(_SWATCH, font_size) + _PAD
    block_height = line + _BAR_HEIGHT + _TICK + font_size + 2 * _PAD
    blocks: list[tuple[int, object]] = [(_block_width(e, font), e) for e in entries]
    scale = _scale_bar(width, mm_per_pixel)
    if scale is not None:
        blocks.append((max(scale[0], _text_width(scale[1], font)) + 2 * _PAD, scale))
    placed: list[tuple[int, int, object]] = []
    x, row = _PAD, 0
    for block_width, block in blocks:
        if x > _PAD and x + block_width > width:
            x, row = _PAD, row + 1
        placed.append((x, row * block_height + _PAD, block))
        x += block_width
    image = Image.new("RGB", (width, block_height * (row + 1)), LEGEND_BACKGROUND)
    draw = ImageDraw.Draw(image)
    for x, top, block in placed:
        if isinstance(block, LegendBar):
            _draw_entry(image, draw, x, top, block, font, line)
        else:
            _draw_scale(draw, x, top, block, font, line)  # type: ignore[arg-type]
    return np.asarray(image)


def _block_width(entry: LegendBar, font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> int:
    named = _SWATCH + _PAD + _text_width(entry.name, font)
    bar = _BAR_WIDTH + _text_width(entry.ticks[-1][1], font) if entry.ramp is not None else 0
    return max(named, bar) + 3 * _PAD


def _scale_bar(width: int, mm_per_pixel: float | None) -> tuple[int, str] | None:
    """Return the scale bar's length in pixels and its label, or None."""
    if mm_per_pixel is None or not (np.isfinite(mm_per_pixel) and mm_per_pixel > 0):
        return None
    length_mm = scale_bar_mm(width * mm_per_pixel, fraction=_SCALE_FRACTION)
    return round(length_mm / mm_per_pixel), f"{length_mm:g} mm"


def _draw_entry(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    x: int,
    top: int,
    entry: LegendBar,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    line: int,
) -> None:
    fill = tuple(round(255 * c) for c in rgb(entry.color))
    draw.rectangle([x, top, x + _SWATCH, top + _SWATCH], fill=fill)
    draw.text((x + _SWATCH + _PAD, top - 1), entry.name, fill=_TEXT, font=font)
    if entry.ramp is None:
        return
    bar_top = top + line
    image.paste(Image.fromarray(_bar_pixels(entry.ramp)), (x, bar_top))
    draw.rectangle([x - 1, bar_top - 1, x + _BAR_WIDTH, bar_top + _BAR_HEIGHT], outline=_FRAME)
    for position, label in entry.ticks:
        tick_x = x + round(position * (_BAR_WIDTH - 1))
        draw.line(
            [tick_x, bar_top + _BAR_HEIGHT, tick_x, bar_top + _BAR_HEIGHT + _TICK], fill=_TEXT
        )
        left = tick_x - _text_width(label, font) // 2
        draw.text((max(left, x - 2), bar_top + _BAR_HEIGHT + _TICK), label, fill=_TEXT, font=font)


def _bar_pixels(ramp: np.ndarray) -> np.ndarray:
    """Return the ramp's colours over the strip's background, ``_BAR_WIDTH`` x ``_BAR_HEIGHT``."""
    colors = np.asarray(ramp, dtype=float).reshape(-1, 4)
    at = np.linspace(0, len(colors) - 1, _BAR_WIDTH).round().astype(int)
    alpha = colors[at, 3:4]
    shown = colors[at, :3] * alpha + np.asarray(LEGEND_BACKGROUND) / 255 * (1 - alpha)
    row = np.clip(np.round(255 * shown), 0, 255).astype(np.uint8)
    return np.repeat(row[None, :, :], _BAR_HEIGHT, axis=0)


def _draw_scale(
    draw: ImageDraw.ImageDraw,
    x: int,
    top: int,
    scale: tuple[int, str],
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    line: int,
) -> None:
    length, label = scale
    draw.text((x + (length - _text_width(label, font)) // 2, top - 1), label, fill=_TEXT, font=font)
    y = top + line + _BAR_HEIGHT // 2
    draw.line([x, y, x + length - 1, y], fill=_TEXT, width=3)
    for end in (x, x + length - 1):
        draw.line([end, y - _TICK, end, y + _TICK], fill=_TEXT, width=2)


def add_legend(
    png: Path, entries: Sequence[LegendBar], *, mm_per_pixel: float | None = None
) -> None:
    """Append a legend strip (:func:`legend_strip`) under the image in ``png``, in place.

    Parameters
    ----------
    png : pathlib.Path
        A PNG file.
    entries : sequence of LegendBar
        Each method's name, colour and colour bar.
    mm_per_pixel : float, optional
        Millimetres per pixel of the image (a scale bar is added).

    Nothing is appended when there is neither an entry nor a scale.
    """
    if not entries and mm_per_pixel is None:
        return
    with Image.open(png) as opened:
        view = np.asarray(opened.convert("RGB"))
    strip = legend_strip(view.shape[1], entries, mm_per_pixel=mm_per_pixel)
    Image.fromarray(np.concatenate([view, strip], axis=0)).save(png, format="PNG")
