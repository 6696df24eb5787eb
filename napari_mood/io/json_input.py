"""The one reader of JSON input files: every failure a one-line error naming the file.

Results files (``rank``), COCO predictions (``evaluate-boxes``), ``splits.json`` and
``sweep.json`` are read here; each caller then checks the value's schema.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from napari_mood.io.errors import MoodInputError, one_line

__all__ = ["read_json"]


def read_json(path: str | os.PathLike[str], *, hint: str) -> object:
    """Return the JSON value held by a file: the one JSON reader of input files.

    Whatever keeps the file from being read (not readable, not UTF-8, not JSON, nested
    too deeply for the parser, a number too long to convert) is a :class:`MoodInputError`
    naming the file, with ``hint`` saying what to give. A byte-order mark is dropped.

    Parameters
    ----------
    path : str or os.PathLike
        The JSON file.
    hint : str
        What to do about a file that cannot be read, for the message.

    Returns
    -------
    object
        The parsed value.

    Raises
    ------
    MoodInputError
        See above; the caller checks the value's schema.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MoodInputError(path, "is not UTF-8 text", hint) from exc
    except OSError as exc:
        raise MoodInputError(
            path, f"cannot be read ({exc.strerror or exc})", "check its permissions"
        ) from exc
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise MoodInputError(path, "is JSON nested too deeply to be read", hint) from exc
    except ValueError as exc:  # JSONDecodeError, or an integer of over 4300 digits
        raise MoodInputError(path, f"is not readable JSON ({one_line(str(exc))})", hint) from exc
