"""Small pieces every dock widget shares."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

__all__ = ["connect_while_alive"]


def connect_while_alive(widget: Any, slots: Sequence[tuple[Any, Callable[..., Any]]]) -> None:
    """Connect each ``(signal, slot)`` now and disconnect it when the Qt ``widget`` is destroyed.

    Sessions and layer lists outlive dock widgets; without the disconnect a closed widget
    would still be called (and raise on its deleted Qt parts).
    """
    pairs = tuple(slots)
    for signal, slot in pairs:
        signal.connect(slot)
    widget.destroyed.connect(partial(_disconnect_all, pairs))


def _disconnect_all(slots: tuple[tuple[Any, Any], ...], *_: object) -> None:
    for signal, slot in slots:
        signal.disconnect(slot)
