"""Panel keys that work wherever the keyboard focus is in a napari window, never in text.

One owner for the bare-letter keys of napari-mood's panels (the review's T / F / U / N /
P / Z, the Objects panel's N / P): :class:`WindowKeys`, one set of bindings of one panel,
routed by the window's :class:`KeyRouter`. The rule:

* the keys work while the window **or one of its floated panels** is the active window:
  from the canvas after a click, the layer list, a side plane, a panel docked or floated.
  They are application shortcuts (``Qt.ApplicationShortcut``), switched on only while
  focus is in such a window, so two napari windows never claim the same key and a dialog
  keeps its letters;
* they never fire while a text field has the focus (a line edit such as the note, a text
  box, a spin box, an editable combo box): the letters are typed;
* they reach the panels before napari's own layer keys: with a Labels layer selected, F
  and P record a verdict or step back, they never switch napari to fill or paint;
* when two panels bind the same key (N / P of the review and of the Objects panel), the
  panel holding the keyboard focus gets it; otherwise the one of higher ``priority``
  (the review's, while it is shown).

A panel turns its keys on while it is shown and off while hidden (:meth:`WindowKeys.set_enabled`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from qtpy.QtCore import QObject, Qt
from qtpy.QtGui import QKeySequence
from qtpy.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QShortcut,
    QTextEdit,
    QWidget,
)

from napari_mood._napari.widgets.review_texts import VERDICT_TEXT

__all__ = [
    "KeyBinding",
    "REVIEW_PRIORITY",
    "KeyRouter",
    "PanelKeys",
    "WindowKeys",
    "is_text_input",
    "key_help",
    "main_window_of",
    "review_bindings",
    "weak_call",
]

REVIEW_PRIORITY = 10
"""The review's keys win over another panel's (Objects' N / P) unless that panel has focus."""
_ROUTER_NAME = "napari_mood_key_router"


@dataclass(frozen=True)
class KeyBinding:
    """A key, what it does (for the shortcut list) and the function it calls."""

    key: str
    text: str
    action: Callable[[], object]


def key_help(bindings: Sequence[KeyBinding]) -> str:
    """Return the shortcut list shown in the panel (one ``key  text`` per line, HTML)."""
    rows = "".join(
        f"<tr><td><b>{b.key}</b>&nbsp;&nbsp;</td><td>{b.text}</td></tr>" for b in bindings
    )
    return f"<table>{rows}</table>"


def main_window_of(widget: QWidget) -> QWidget:
    """Return the main window ``widget`` lives in, docked or floated (else its own window)."""
    parent: QWidget | None = widget
    while parent is not None and not isinstance(parent, QMainWindow):
        parent = parent.parentWidget()  # a floated dock's parent is still the main window
    return parent if parent is not None else (widget.window() or widget)


def is_text_input(widget: QWidget | None) -> bool:
    """Whether typed letters belong to ``widget`` (a text field, spin box, editable combo)."""
    if isinstance(widget, QLineEdit | QTextEdit | QPlainTextEdit | QAbstractSpinBox):
        return True
    return isinstance(widget, QComboBox) and widget.isEditable()


class KeyRouter(QObject):
    """The keys of one main window: one application shortcut per key, routed to a panel.

    Made by :meth:`of` (one per window, a child of it: it goes with the window).
    """

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName(_ROUTER_NAME)
        self._clients: list[WindowKeys] = []
        self._shortcuts: dict[str, QShortcut] = {}
        app = QApplication.instance()
        if isinstance(app, QApplication):  # another window or widget: keys on or off
            app.focusChanged.connect(self._on_app_focus_changed)
            app.focusWindowChanged.connect(self._on_app_focus_window_changed)

    @classmethod
    def of(cls, window: QWidget) -> KeyRouter:
        """Return the router of ``window`` (made on first use)."""
        found = window.findChild(KeyRouter, _ROUTER_NAME, Qt.FindChildOption.FindDirectChildrenOnly)
        return found if found is not None else cls(window)

    def add(self, client: WindowKeys) -> None:
        """Route ``client``'s keys (shortcuts made for keys not bound yet)."""
        self._clients.append(client)
        for binding in client.bindings:
            if binding.key not in self._shortcuts:
                self._shortcuts[binding.key] = self._shortcut(binding.key)
        self.update()

    def remove(self, client: WindowKeys) -> None:
        """Stop routing ``client``'s keys."""
        if client in self._clients:
            self._clients.remove(client)
        self.update()

    def live(self) -> bool:
        """Whether keys may fire now: this window (or a floated panel of it) active, no text."""
        active, window = QApplication.activeWindow(), self.parent()  # no reference kept
        ours = active is window or (
            isinstance(active, QDockWidget) and main_window_of(active) is window
        )
        return ours and not is_text_input(QApplication.focusWidget())

    def update(self) -> None:
        """Switch each key's shortcut on when it may fire and a shown panel binds it."""
        live = self.live()
        for key, shortcut in self._shortcuts.items():
            shortcut.setEnabled(live and self._target(key) is not None)

    def _shortcut(self, key: str) -> QShortcut:
        window = self.parent()
        assert isinstance(window, QWidget)
        shortcut = QShortcut(QKeySequence(key), window)
        shortcut.setContext(Qt.ShortcutContext.ApplicationShortcut)
        shortcut.setAutoRepeat(False)  # a held key records one verdict, not twenty
        shortcut.setEnabled(False)
        shortcut.activated.connect(partial(self._on_shortcut_activated, key))
        return shortcut

    def _target(self, key: str) -> KeyBinding | None:
        """Return the binding ``key`` calls: the focused panel's, else the highest priority's."""
        candidates = [c for c in self._clients if c.enabled and c.binding(key) is not None]
        if not candidates:
            return None
        focus = QApplication.focusWidget()
        holding = [c for c in candidates if c.holds(focus)]
        chosen = max(holding or candidates, key=lambda c: c.priority)
        return chosen.binding(key)

    def _on_shortcut_activated(self, key: str) -> None:
        binding = self._target(key) if self.live() else None
        if binding is not None:
            binding.action()

    def _on_app_focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        self.update()

    def _on_app_focus_window_changed(self, window: object) -> None:
        self.update()


class WindowKeys:
    """One panel's keys in ``window`` (the napari main window), on only while :meth:`set_enabled`.

    Parameters
    ----------
    window : QWidget
        The main window the keys belong to (:func:`main_window_of` the panel).
    bindings : sequence of KeyBinding
        The keys.
    priority : int
        Which panel a key shared with another goes to (higher wins) when neither holds
        the focus.
    home : QWidget, optional
        The panel: while it holds the focus its keys win.
    """

    def __init__(
        self,
        window: QWidget,
        bindings: Sequence[KeyBinding],
        *,
        priority: int = 0,
        home: QWidget | None = None,
    ) -> None:
        self._window = weakref.ref(window)  # the keys must not keep the window alive
        self._home = None if home is None else weakref.ref(home)
        self.bindings = tuple(bindings)
        self.priority = priority
        self._on = False
        router = KeyRouter.of(window)
        self._router: KeyRouter | None = router
        router.destroyed.connect(self._on_router_destroyed)  # with the window
        router.add(self)

    @property
    def window(self) -> QWidget | None:
        """The window the keys belong to (None once it is gone)."""
        return self._window()

    @property
    def enabled(self) -> bool:
        """Whether the keys are on (they fire while focus is in the window, not in text)."""
        return self._on

    def set_enabled(self, enabled: bool) -> None:
        """Turn the keys on (panel shown) or off (panel hidden or closed)."""
        self._on = enabled
        if self._router is not None:
            self._router.update()

    def binding(self, key: str) -> KeyBinding | None:
        """Return the binding of ``key`` in this panel."""
        return next((b for b in self.bindings if b.key == key), None)

    def holds(self, widget: QWidget | None) -> bool:
        """Whether ``widget`` (the focus) is inside this panel."""
        home = None if self._home is None else self._home()
        return home is not None and widget is not None and home.isAncestorOf(widget)

    def close(self) -> None:
        """Remove the keys from the window (nothing to do once the window is gone)."""
        self._on = False
        if self._router is not None:
            self._router.remove(self)
        self._router = None

    def _on_router_destroyed(self, *_: object) -> None:
        self._router = None


class PanelKeys:
    """A panel's keys: made in its main window when first shown, on while it is shown.

    Parameters
    ----------
    panel : QWidget
        The panel (docked or floated; a panel that is a window of its own gets no keys).
    bindings : sequence of KeyBinding
        The keys.
    priority : int
        See :class:`WindowKeys`.
    """

    def __init__(self, panel: QWidget, bindings: Sequence[KeyBinding], *, priority: int = 0):
        self._panel = weakref.ref(panel)
        self._bindings = tuple(bindings)
        self._priority = priority
        self._keys: WindowKeys | None = None

    @property
    def enabled(self) -> bool:
        """Whether the keys are on."""
        return self._keys is not None and self._keys.enabled

    def show(self, shown: bool) -> None:
        """Keys on (the panel is shown: made in its main window) or off."""
        panel = self._panel()
        if not shown or panel is None:
            if self._keys is not None:
                self._keys.set_enabled(False)
            return
        window = main_window_of(panel)
        if self._keys is not None and self._keys.window is not window:
            self.close()
        if self._keys is None and window is not panel:
            self._keys = WindowKeys(window, self._bindings, priority=self._priority, home=panel)
        if self._keys is not None:
            self._keys.set_enabled(True)

    def close(self) -> None:
        """Remove the keys (the panel is closed)."""
        if self._keys is not None:
            self._keys.close()
        self._keys = None


def weak_call(widget: object, name: str, *args: object) -> Callable[[], None]:
    """Call ``widget.name(*args)`` while the widget lives (the window's keys must not keep it)."""
    ref = weakref.ref(widget)

    def call() -> None:
        target = ref()
        if target is not None:
            getattr(target, name)(*args)

    return call


def review_bindings(panel: object) -> tuple[KeyBinding, ...]:
    """Return the review keys: verdicts (T / F / U), next / previous (N / P), undo (Z)."""
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
