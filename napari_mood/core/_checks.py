"""Argument checks shared by the core: one message format for every option error."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["check_choice"]


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
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")
