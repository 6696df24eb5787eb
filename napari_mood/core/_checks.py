"""Argument checks shared by every public function: one message format for every error.

The Python API speaks like numpy and scikit-image: arguments are checked up front, a
wrong type raises TypeError and a wrong value ValueError, and each message names the
argument, what it must be and what it got (``"n_runs must be an integer >= 1; got -3"``).
Front ends (the command line, the panels) show the same text.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "check_array",
    "check_choice",
    "check_instance",
    "check_integer",
    "check_mapping",
    "check_number",
    "check_path",
    "check_sequence",
    "described",
]


def described(value: Any) -> str:
    """``value`` in a message: its type and a short repr (an array: its shape and dtype).

    Examples
    --------
    >>> described(-3), described(None), described(np.zeros((2, 3)))
    ('an int (-3)', 'None', 'an array of shape (2, 3) and dtype float64')
    """
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return f"{article} {kind} ({text})"


def check_choice(name: str, value: Any, valid: Iterable[Any]) -> None:
    """Raise ValueError listing the valid values unless ``value`` is one of them.

    Examples
    --------
    >>> check_choice("mode", "fast", ("mood", "exact"))
    Traceback (most recent call last):
    ...
    ValueError: mode must be one of 'mood', 'exact'; got 'fast'
    """
    options = tuple(valid)
    try:
        found = not isinstance(value, np.ndarray) and value in options
    except (TypeError, ValueError):  # an object whose == is not a bool
        found = False
    if not found:
        got = repr(value) if isinstance(value, str | int | float) else described(value)
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {got}")


def check_instance(name: str, value: Any, types: type | tuple[type, ...], expected: str) -> Any:
    """Return ``value``; TypeError naming ``name`` and ``expected`` unless it is of ``types``.

    Examples
    --------
    >>> check_instance("curve", None, float, "a Curve (from curve_from_arrays)")
    Traceback (most recent call last):
    ...
    TypeError: curve must be a Curve (from curve_from_arrays); got None
    """
    if not isinstance(value, types):
        raise TypeError(f"{name} must be {expected}; got {described(value)}")
    return value


def check_integer(
    name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` as an int: TypeError unless a whole number, ValueError out of range.

    ``True`` and ``2.0`` are not integers here (numpy's rule for counts and sizes).

    Examples
    --------
    >>> check_integer("n_runs", 3, minimum=1)
    3
    >>> check_integer("n_runs", -3, minimum=1)
    Traceback (most recent call last):
    ...
    ValueError: n_runs must be an integer >= 1; got -3
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {described(value)}")
    number = int(value)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise ValueError(f"{name} must be an integer {_range(minimum, maximum)}; got {number}")
    return number


def check_number(
    name: str, value: Any, *, minimum: float | None = None, maximum: float | None = None
) -> float:
    """Return ``value`` as a float: TypeError unless a real number, ValueError if NaN or out of range.

    Examples
    --------
    >>> check_number("tpr", 0.95, minimum=0.0, maximum=1.0)
    0.95
    >>> check_number("tpr", float("nan"), minimum=0.0, maximum=1.0)
    Traceback (most recent call last):
    ...
    ValueError: tpr must be a number in [0, 1]; got nan
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number; got {described(value)}")
    number = float(value)
    low = -math.inf if minimum is None else minimum
    high = math.inf if maximum is None else maximum
    if not low <= number <= high:
        where = f"in [{low:g}, {high:g}]" if minimum is not None and maximum is not None else ""
        where = where or _range(minimum, maximum)
        raise ValueError(f"{name} must be a number {where}; got {number!r}".replace("  ", " "))
    return number


def _range(minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f"in [{minimum:g}, {maximum:g}]"
    if minimum is not None:
        return f">= {minimum:g}"
    return "" if maximum is None else f"<= {maximum:g}"


def _path_like(value: Any) -> bool:
    """Whether ``value`` is an ``os.PathLike`` (it has ``__fspath__``), without importing os."""
    return hasattr(type(value), "__fspath__")


def check_path(name: str, value: Any) -> Path:
    """Return ``value`` as a Path: TypeError unless a str or path-like, ValueError if empty or with NUL.

    Examples
    --------
    >>> check_path("dataset", 123)
    Traceback (most recent call last):
    ...
    TypeError: dataset must be a path (str or os.PathLike); got an int (123)
    """
    if not isinstance(value, str) and not _path_like(value):
        raise TypeError(f"{name} must be a path (str or os.PathLike); got {described(value)}")
    path = value if isinstance(value, str) else type(value).__fspath__(value)
    if not isinstance(path, str):
        raise TypeError(f"{name} must be a path (str or os.PathLike); got {described(value)}")
    if not path.strip():
        raise ValueError(f"{name} must be a path; got an empty string")
    if "\0" in path:
        raise ValueError(f"{name} must be a path; got {path!r}, which holds a NUL byte")
    return Path(path)


def check_array(name: str, value: Any, *, ndim: int | None = None) -> np.ndarray:
    """Return ``value`` as a numeric array: TypeError for None, a path, text or objects.

    Examples
    --------
    >>> check_array("scores", [0.1, 0.4]).tolist()
    [0.1, 0.4]
    >>> check_array("scores", "x.nii.gz")
    Traceback (most recent call last):
    ...
    TypeError: scores must be an array of numbers; got a str ('x.nii.gz') (read a file with read_scores or read_label first)
    """
    hint = " (read a file with read_scores or read_label first)"
    if value is None or isinstance(value, str | bytes | Mapping) or _path_like(value):
        path_like = isinstance(value, str | bytes) or _path_like(value)
        raise TypeError(
            f"{name} must be an array of numbers; got {described(value)}{hint * path_like}"
        )
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged nested lists
        raise TypeError(f"{name} must be an array of numbers; got {described(value)}") from error
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be an array of numbers; got {described(array)}")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D; got {described(array)}")
    return array


def check_sequence(
    name: str, value: Any, types: type | tuple[type, ...], expected: str
) -> tuple[Any, ...]:
    """Return ``value`` as a tuple: TypeError unless a list or tuple of ``types``.

    Examples
    --------
    >>> check_sequence("cases", "ab", int, "CaseObjects (from describe_case)")
    Traceback (most recent call last):
    ...
    TypeError: cases must be a sequence of CaseObjects (from describe_case); got a str ('ab')
    """
    if isinstance(value, str | bytes | Mapping | np.ndarray) or not isinstance(value, list | tuple):
        raise TypeError(f"{name} must be a sequence of {expected}; got {described(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, types):
            raise TypeError(f"{name}[{index}] must be {expected}; got {described(item)}")
    return tuple(value)


def check_mapping(
    name: str, value: Any, types: type | tuple[type, ...], expected: str
) -> dict[Any, Any]:
    """Return ``value`` as a dict: TypeError unless a mapping of str to ``types``.

    Examples
    --------
    >>> check_mapping("values", {"a": "x"}, float, "a number")
    Traceback (most recent call last):
    ...
    TypeError: values['a'] must be a number; got a str ('x')
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping of names to {expected}; got {described(value)}")
    for key, item in value.items():
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be names (str); got {described(key)}")
        if not isinstance(item, types):
            raise TypeError(f"{name}[{key!r}] must be {expected}; got {described(item)}")
    return dict(value)
