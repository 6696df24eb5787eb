"""Review keys bound to the whole napari window while a review is active.

The keys are Qt shortcuts of the main window (``Qt.WindowShortcut``), so they work from
the canvas, the layer list or a side plane, not only from the review panel, and they
reach the review before napari's own layer keys: with a Labels layer selected, F and P
record a verdict or step back, they never switch napari to fill or paint. A text field
with the keyboard focus (the note) keeps its letters: Qt gives typed text precedence.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from qtpy.QtCore import Qt
from qtpy.QtGui import QKeySequence
from qtpy.QtWidgets import QShortcut, QWidget

from napari_mood._napari.widgets.review_texts import VERDICT_TEXT

__all__ = ["KeyBinding", "WindowKeys", "key_help", "review_bindings", "weak_call"]


@dataclass(frozen=True)
class KeyBinding:
    """A key, what it does (for the shortcut list) and the function it calls."""

    key: str
    text: str
    action: Callable[[], object]


def key_help(bindings: Sequence[KeyBinding]) -> str:
    """The shortcut list shown in the panel (one ``key  text`` per line, HTML)."""
    rows = "".join(
        f"<tr><td><b>{b.key}</b>&nbsp;&nbsp;</td><td>{b.text}</td></tr>" for b in bindings
    )
    return f"<table>{rows}</table>"


class WindowKeys:
    """Shortcuts on ``window`` (the napari main window), on only while :meth:`set_enabled`.

    Parameters
    ----------
    window : QWidget
        The top-level window the keys belong to.
    bindings : sequence of KeyBinding
        The keys.
    """

    def __init__(self, window: QWidget, bindings: Sequence[KeyBinding]) -> None:
        self._window = weakref.ref(window)  # the keys must not keep the window alive
        self._shortcuts: list[QShortcut | None] = []  # None: destroyed with the window
        for binding in bindings:
            shortcut = QShortcut(QKeySequence(binding.key), window)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.setAutoRepeat(False)  # a held key records one verdict, not twenty
            shortcut.activated.connect(binding.action)
            shortcut.setEnabled(False)
            shortcut.destroyed.connect(partial(self._forget, len(self._shortcuts)))
            self._shortcuts.append(shortcut)

    @property
    def window(self) -> QWidget | None:
        """The window the keys belong to (None once it is gone)."""
        return self._window()

    @property
    def enabled(self) -> bool:
        """Whether the keys are on."""
        return any(s is not None and s.isEnabled() for s in self._shortcuts)

    def set_enabled(self, enabled: bool) -> None:
        """Turn the keys on (review shown) or off (review hidden or closed)."""
        for shortcut in self._shortcuts:
            if shortcut is not None:
                shortcut.setEnabled(enabled)

    def close(self) -> None:
        """Remove the shortcuts from the window (those not destroyed with it already)."""
        for shortcut in self._shortcuts:
            if shortcut is not None:
                shortcut.setEnabled(False)
                shortcut.deleteLater()
        self._shortcuts = [None] * len(self._shortcuts)

    def _forget(self, index: int, *_: object) -> None:
        self._shortcuts[index] = None


def weak_call(widget: object, name: str, *args: object) -> Callable[[], None]:
    """Call ``widget.name(*args)`` while the widget lives (the window's keys must not keep it)."""
    ref = weakref.ref(widget)

    def call() -> None:
        target = ref()
        if target is not None:
            getattr(target, name)(*args)

    return call


def review_bindings(panel: object) -> tuple[KeyBinding, ...]:
    """The review keys: verdicts (T / F / U), next / previous (N / P), undo (Z)."""
    verdicts = tuple(
        KeyBinding(key, text.lower(), weak_call(panel, "set_verdict", verdict))
        for verdict, (text, key) in VERDICT_TEXT.items()
    )
    return (
        *verdicts,
        KeyBinding("N", "next region (then next case)", weak_call(panel, "step", 1)),
        KeyBinding("P", "previous region (then previous case)", weak_call(panel, "step", -1)),
        KeyBinding("Z", "undo the last verdict", weak_call(panel, "undo")),
    )
