"""The figures' text: its font, how wide a text is at 7 pt and where it wraps.

:func:`text_width` measures a text in the figures' font (:data:`FONT_FAMILY`, at
:data:`TEXT_PT`, the journals' smallest size); :func:`wrap_text` breaks it at spaces and
after ``_``, ``-`` or ``/`` to fit a width. The layout
(:mod:`napari_mood.services.figure_layout`) sizes its cells and bands with them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from napari_mood.services.paper import MIN_FONT_PT

__all__ = [
    "FONT_FAMILY",
    "TEXT_PT",
    "bold_line_height",
    "line_count",
    "text_width",
    "widest_word",
    "wrap_text",
]

FONT_FAMILY = "DejaVu Sans"
"""The figures' font: shipped with matplotlib (always embeddable), wide Unicode coverage."""
TEXT_PT = MIN_FONT_PT
"""The size of every figure text, in points."""
_BREAK = re.compile(r".+?[_\-/]+(?=[^_\-/])|.+$")  # words end after _ - / (not a leading one)


@lru_cache(maxsize=4096)
def text_width(text: str, *, size: float = TEXT_PT, bold: bool = False) -> float:
    r"""Width in points of ``text`` (its widest line) in the figures' font.

    Parameters
    ----------
    text : str
        The text (may hold line breaks).
    size : float
        Font size in points.
    bold : bool
        Whether the text is bold.

    Returns
    -------
    float
        The width in points.

    Examples
    --------
    >>> text_width("ab\nabcd") == text_width("abcd")
    True
    """
    font = FontProperties(family=FONT_FAMILY, size=size, weight="bold" if bold else "normal")
    measure = TextToPath()
    lines = text.split("\n")
    return max(measure.get_text_width_height_descent(line, font, ismath=False)[0] for line in lines)


@lru_cache(maxsize=1)
def bold_line_height() -> float:
    """Height matplotlib gives a line of 7-pt bold text (ascent plus descent)."""
    font = FontProperties(family=FONT_FAMILY, size=TEXT_PT, weight="bold")
    return float(TextToPath().get_text_width_height_descent("lp", font, ismath=False)[1])


def _words(line: str) -> list[tuple[str, str]]:
    """Return the pieces a wrap may not split, each with what joins it to the next (" " or "")."""
    pieces: list[tuple[str, str]] = []
    for chunk in line.split():
        parts = _BREAK.findall(chunk)
        pieces += [(part, "") for part in parts[:-1]] + [(parts[-1], " ")]
    return pieces


def widest_word(text: str) -> float:
    """Width in points of the widest piece a wrap may not split."""
    words = [word for line in text.split("\n") for word, _ in _words(line)]
    return max((text_width(word) for word in words), default=0.0)


def wrap_text(text: str, width: float) -> str:
    r"""Break ``text`` into lines of at most ``width`` points at spaces and after ``_ - /``.

    Existing line breaks are kept; a single word wider than ``width`` stays whole on its
    line (:func:`~napari_mood.services.figure_layout.plan_layout` never lets that happen).

    Parameters
    ----------
    text : str
        The text.
    width : float
        The room in points.

    Returns
    -------
    str
        The text with line breaks.

    Examples
    --------
    >>> wrap_text("oracle_noisy", text_width("oracle_"))
    'oracle_\nnoisy'
    >>> wrap_text("AP 0.69", 1000.0)
    'AP 0.69'
    """
    lines: list[str] = []
    for line in text.split("\n"):
        current = ""
        for word, joiner in _words(line):
            if current and text_width((current + word).rstrip()) > width:
                lines.append(current.rstrip())
                current = ""
            current += word + joiner
        lines.append(current.rstrip())
    return "\n".join(lines)


def line_count(text: str, width: float) -> int:
    """Lines ``text`` takes wrapped to ``width`` points (0 for no text)."""
    return wrap_text(text, width).count("\n") + 1 if text else 0
