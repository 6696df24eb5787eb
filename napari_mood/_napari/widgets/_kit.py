"""The widget kit: what every dock widget shares (Qt only, no computation).

* :class:`Lifetime` — the one lifetime pattern: connections made through it are undone
  and its workers cancelled when the widget is destroyed, and worker callbacks arriving
  after that are dropped;
* :func:`notify` — napari notifications;
* small builders (:func:`button`, :func:`row`, :func:`combo`, :func:`line_edit`,
  :func:`single_shot`, :func:`tipped`) and :class:`SortItem`, a table cell that sorts by
  a number with undefined values last;
* dock helpers: :func:`is_on_screen`, :func:`watch_dock`;
* :func:`discard` — the one way a panel drops a widget it built.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from qtpy.QtCore import QObject, Qt, QTimer
from qtpy.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from napari_mood._napari.widgets.worker import LatestWorker

READING_MAPS_TEXT = "Reading the score maps...\nThe scan and ground truth are shown meanwhile."


def empty_text(session: Any, text: str) -> str:
    """Return what a panel without methods says: ``text``, or that the maps are being read."""
    return READING_MAPS_TEXT if getattr(session, "maps_coming", False) else text


__all__ = [
    "READING_MAPS_TEXT",
    "Lifetime",
    "empty_text",
    "SortItem",
    "button",
    "cell",
    "combo",
    "discard",
    "dock_of",
    "headers",
    "is_on_screen",
    "line_edit",
    "notify",
    "present",
    "row",
    "single_shot",
    "sort_key",
    "tipped",
    "watch_dock",
]

NotifyKind = Literal["info", "warning", "error"]
T = TypeVar("T")


class Lifetime:
    """What a widget holds while it exists: connections, workers, late callbacks.

    The widget's ``destroyed`` signal ends it. Use :meth:`connect` for signals that
    outlive the widget (session, layer list, dims), :meth:`worker` for background jobs
    and :meth:`guard` for any other callback that may arrive late.

    Parameters
    ----------
    widget : QObject
        The widget whose lifetime this is.
    """

    def __init__(self, widget: QObject) -> None:
        self.alive = True
        self._slots: list[tuple[Any, Callable[..., Any]]] = []
        self._workers: list[LatestWorker] = []
        self._at_end: list[Callable[[], None]] = []
        widget.destroyed.connect(self._end)

    def connect(self, signal: Any, slot: Callable[..., Any]) -> None:
        """Connect ``slot`` now; disconnect it when the widget is destroyed."""
        signal.connect(slot)
        self._slots.append((signal, slot))

    def worker(
        self,
        on_result: Callable[[Any], None],
        *,
        on_error: Callable[[BaseException], None] | None = None,
        on_busy: Callable[[bool], None] | None = None,
    ) -> LatestWorker:
        """Return a :class:`LatestWorker` whose callbacks stop with the widget (cancelled then)."""
        worker = LatestWorker(
            self.guard(on_result),
            on_error=None if on_error is None else self.guard(on_error),
            on_busy=None if on_busy is None else self.guard(on_busy),
        )
        self._workers.append(worker)
        return worker

    def guard(self, callback: Callable[..., Any]) -> Callable[..., None]:
        """Wrap a callback so that it only runs while the widget exists."""

        def call(*args: Any) -> None:
            if self.alive:
                callback(*args)

        return call

    def at_end(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` when the widget is destroyed (e.g. to remove helpers)."""
        self._at_end.append(callback)

    def _end(self, *_: object) -> None:
        self.alive = False
        for worker in self._workers:
            worker.cancel()
        for signal, slot in self._slots:
            # Qt may have deleted the signal's owner first (a dock going with the window):
            # its connections are gone with it, and raising in `destroyed` aborts the process
            with contextlib.suppress(TypeError, RuntimeError):
                signal.disconnect(slot)
        for callback in self._at_end:
            callback()


def notify(kind: NotifyKind, message: str) -> None:
    """Show a napari notification (``info``, ``warning`` or ``error``)."""
    from napari.utils.notifications import show_error, show_info, show_warning

    {"info": show_info, "warning": show_warning, "error": show_error}[kind](message)


def tipped(widget: QWidget, tip: str) -> QWidget:
    """Give ``widget`` a tooltip and return it."""
    widget.setToolTip(tip)
    return widget


def button(parent: QWidget, text: str, tip: str) -> QPushButton:
    """Return a push button with a tooltip."""
    widget = QPushButton(text, parent)
    widget.setToolTip(tip)
    return widget


def combo(parent: QWidget, tip: str, items: Sequence[str] = ()) -> QComboBox:
    """Return a combo box with items and a tooltip."""
    widget = QComboBox(parent)
    widget.addItems(list(items))
    widget.setToolTip(tip)
    return widget


def line_edit(parent: QWidget, placeholder: str, tip: str) -> QLineEdit:
    """Return a line edit with a placeholder and a tooltip."""
    edit = QLineEdit(parent)
    edit.setPlaceholderText(placeholder)
    edit.setToolTip(tip)
    return edit


def row(*widgets: QWidget, stretch: bool = False) -> QHBoxLayout:
    """Return a horizontal layout of ``widgets`` (with a stretch at the end when asked)."""
    layout = QHBoxLayout()
    for widget in widgets:
        layout.addWidget(widget)
    if stretch:
        layout.addStretch(1)
    return layout


def single_shot(parent: QObject, interval_ms: int, slot: Callable[[], None]) -> QTimer:
    """Return a single-shot timer calling ``slot``; ``start()`` restarts it (debounce)."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(interval_ms)
    timer.timeout.connect(slot)
    return timer


def sort_key(value: object) -> float:
    """Return the number a cell sorts by; undefined values (None, NaN, text) sort below all."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return -math.inf
    return -math.inf if math.isnan(value) else float(value)


class SortItem(QTableWidgetItem):
    """A table cell shown as ``text`` that sorts by ``key`` (a number or a tuple)."""

    def __init__(self, text: str, key: Any) -> None:
        super().__init__(text)
        self.key = key
        self.setFlags(self.flags() & ~Qt.ItemFlag.ItemIsEditable)

    def __lt__(self, other: QTableWidgetItem) -> bool:
        if isinstance(other, SortItem):
            return bool(self.key < other.key)
        return super().__lt__(other)


def discard(widget: QWidget) -> None:
    """Hide ``widget`` now and delete it later (``deleteLater``).

    Qt deletes it once control is back in the event loop: never, where there is no
    running loop (a script that calls ``processEvents``, a screenshot before
    ``napari.run``). Taken out of its layout but still shown, it would be drawn over the
    widgets that replace it (a dropped case's threshold rows over the new case's).
    """
    widget.hide()
    widget.deleteLater()


def present(value: T | None, what: str) -> T:
    """``value``, which Qt types as optional but always gives here (RuntimeError if not)."""
    if value is None:
        raise RuntimeError(f"Qt returned no {what}")
    return value


def headers(table: QTableView) -> tuple[QHeaderView, QHeaderView]:
    """Return the (horizontal, vertical) headers of a table view."""
    return (
        present(table.horizontalHeader(), "horizontal header"),
        present(table.verticalHeader(), "vertical header"),
    )


def cell(table: QTableWidget, row_index: int, column: int) -> QTableWidgetItem:
    """Return the item of a filled table cell."""
    return present(table.item(row_index, column), f"item at ({row_index}, {column})")


def is_on_screen(widget: QWidget) -> bool:
    """Whether ``widget`` can be seen (Qt calls a dock tab behind another one visible)."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


def dock_of(widget: QWidget) -> QDockWidget | None:
    """Return the dock widget holding ``widget`` (None when it is not docked)."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent


def watch_dock(
    widget: QWidget, slot: Callable[[bool], None], watched: QDockWidget | None
) -> QDockWidget | None:
    """Connect ``slot(visible)`` to the dock holding ``widget`` unless it is ``watched``.

    A dock's ``visibilityChanged`` tells when its tab comes to the front or goes behind.
    Returns the dock (None when ``widget`` is not docked).
    """
    dock = dock_of(widget)
    if dock is not None and dock is not watched:
        dock.visibilityChanged.connect(slot)
    return dock
