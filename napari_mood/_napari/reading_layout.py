"""The reading layout: napari's canvas is the axial pane, three docks the other panes.

ITK-SNAP and FSLeyes show axial, coronal, sagittal and 3-D as four equal panes.
:class:`ReadingLayout` gives napari's window that shape without a copy of the axial
plane: napari's own canvas (the central widget) stays the top-left pane, the coronal
pane is a dock on its right, the sagittal and fourth (3-D) panes share a dock row at the
bottom that spans the whole width (:meth:`QMainWindow.setCorner`). Every other docked
panel is hidden while the layout is shown; :meth:`ReadingLayout.leave` puts the window
back as it was (``saveState`` / ``restoreState``, the corners, the hidden panels).

:meth:`ReadingLayout.equalize` sizes the docks (``resizeDocks``) so that the four canvases
have one size, again whenever the window is resized: the sizes to ask for are computed
by :func:`equal_split` from the canvases measured, as each pane has its own overhead (a
slider).

The pane docks cannot be floated or closed (a canvas moved to a window of its own loses
its OpenGL objects); the layout is left from the Three planes panel, the View menu or
:data:`READING_SHORTCUT`.

The panels are hidden, but a panel the reader works through while reading (the review)
shows a strip of its own in a row under the panes (:data:`STRIPS_OBJECT_NAME`, a tool bar
at the bottom: all panes shrink alike and none is covered): every docked panel that has a
``reading_strip(parent)`` method (:class:`StripPanel`) makes its strip on :meth:`enter`;
:meth:`ReadingLayout.leave` deletes them.

The layout also has a tool row of its own (a tool bar at the top of
the window, all panes shrink alike): a check box for each checkable action it is given
and a push button for the others (the Three planes panel's controls: each action stays
the one owner of its state; :func:`bound_check_box` and :func:`bound_button` show it in
the row and in the panel alike). Tab reaches them, Space presses them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from qtpy.QtCore import QEvent, QObject, Qt
from qtpy.QtGui import QAction
from qtpy.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QMainWindow,
    QPushButton,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari._qt_objects import deleted
from napari_mood._napari._soon import call_soon

__all__ = [
    "PANE_KINDS",
    "READING_SHORTCUT",
    "STRIPS_OBJECT_NAME",
    "TOLERANCE_PX",
    "TOOLS_OBJECT_NAME",
    "ReadingLayout",
    "StripPanel",
    "bound_button",
    "bound_check_box",
    "equal_split",
    "pane_sizes_equal",
]

PANE_KINDS = ("coronal", "sagittal", "fourth")
"""The docked panes, after napari's canvas (the axial pane)."""
READING_SHORTCUT = "Ctrl+Shift+L"
"""Switch between the compact and the reading layout (free in napari's keymap)."""
PANE_OBJECT_NAME = "napari-mood reading {kind}"
TOOLS_OBJECT_NAME = "napari-mood reading tools"
"""The object name of the reading layout's tool row (a ``QToolBar``)."""
STRIPS_OBJECT_NAME = "napari-mood reading strips"
"""The object name of the row of panels' strips under the panes (a ``QToolBar``)."""
_CORNERS = (Qt.Corner.BottomLeftCorner, Qt.Corner.BottomRightCorner)
_SIZE_ROUNDS = 12  # resizeDocks then measure: the overheads are known after the first
_ROUND_MS = 20
TOLERANCE_PX = 2
"""Canvases within this many pixels of each other are equal (Qt rounds dock sizes)."""


@runtime_checkable
class StripPanel(Protocol):
    """A panel that shows a strip of its own in the reading layout (the review)."""

    def reading_strip(self, parent: QWidget) -> QWidget:
        """Make the strip (a child of ``parent``); the layout deletes it when it is left."""
        ...


def pane_sizes_equal(canvases: Mapping[str, QWidget]) -> bool:
    """Whether the canvases of the panes have one size (within :data:`TOLERANCE_PX`)."""
    widths = [canvas.width() for canvas in canvases.values()]
    heights = [canvas.height() for canvas in canvases.values()]
    return max(widths) - min(widths) <= TOLERANCE_PX and max(heights) - min(heights) <= TOLERANCE_PX


def equal_split(first: int, second: int, first_canvas: int, second_canvas: int) -> int:
    """Return the size to give ``second`` (a dock) so that both canvases get one size.

    ``first`` and ``second`` are the two panes' sizes along one direction (their sum is
    what the window has), ``*_canvas`` their canvases' sizes now (a pane's canvas is its
    size less a slider or a title bar).

    Examples
    --------
    >>> equal_split(600, 600, 570, 540)  # the second pane has 30 px more overhead
    615
    """
    return second + round((first_canvas - second_canvas) / 2)


class ReadingLayout(QObject):
    """napari's window as four equal panes (see the module docstring).

    Parameters
    ----------
    window : QMainWindow
        napari's main window (``viewer.window._qt_window``).
    canvases : callable
        Returns the canvas widget of each pane: ``"axial"`` (napari's) and each of
        :data:`PANE_KINDS` (the fourth pane's placeholder when there is no 3-D view).
    on_sized : callable, optional
        Called when the panes are equal after a change (to fit the views again).
    tools : callable, optional
        Returns the actions the tool row shows while the layout is (owned by the caller).
    """

    def __init__(
        self,
        window: QMainWindow,
        canvases: Callable[[], Mapping[str, QWidget]],
        *,
        on_sized: Callable[[], None] | None = None,
        tools: Callable[[], Sequence[QAction]] = tuple,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._canvases = canvases
        self._on_sized = on_sized
        self._tools = tools
        self._tool_row: QToolBar | None = None
        self._strip_row: QToolBar | None = None
        self._docks: dict[str, QDockWidget] = {}
        self._state: Any = None
        self._corners: dict[Qt.Corner, Qt.DockWidgetArea] = {}
        self._hidden: list[QDockWidget] = []
        self._rounds = 0  # sizing rounds still to run
        self._spacer: QWidget | None = None  # under the fourth pane, as tall as a slider

    @property
    def shown(self) -> bool:
        """Whether the window shows the reading layout."""
        return bool(self._docks)

    @property
    def tool_row(self) -> QToolBar | None:
        """The tool row shown with the layout (None while it is not shown)."""
        return self._tool_row

    @property
    def strip_row(self) -> QToolBar | None:
        """The row of the panels' strips (None without a strip or while not shown)."""
        return self._strip_row

    @property
    def sizing(self) -> bool:
        """Whether sizing rounds are still to run (the panes may change size)."""
        return bool(self._rounds)

    def place(self, kind: str, widget: QWidget) -> None:
        """Show ``widget`` (a view) in a docked pane.

        The pane is ``"coronal"``, ``"sagittal"`` or ``"fourth"``; the widget shown there
        before is only taken out, not closed.
        """
        container = self._docks[kind].widget()
        assert container is not None  # set by _pane_dock
        _take_out(container, keep=self._spacer)
        layout = container.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(0, widget, 1)
        widget.show()
        self.equalize_soon()

    def enter(self) -> None:
        """Hide the docked panels and add the three pane docks (empty containers)."""
        if self.shown:
            return
        window = self._window
        self._state = window.saveState()
        self._corners = {corner: window.corner(corner) for corner in _CORNERS}
        self._hidden = [dock for dock in _docked(window) if dock.isVisible()]
        panels = _strip_panels(window)
        for dock in self._hidden:
            dock.hide()
        for kind in PANE_KINDS:
            self._docks[kind] = _pane_dock(window, kind)
        self._spacer = QWidget(self._docks["fourth"].widget())  # a slider's height
        fourth = self._docks["fourth"].widget().layout()  # type: ignore[union-attr]
        fourth.addWidget(self._spacer)  # type: ignore[union-attr]
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self._docks["coronal"])
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self._docks["sagittal"])
        window.splitDockWidget(
            self._docks["sagittal"], self._docks["fourth"], Qt.Orientation.Horizontal
        )
        for corner in _CORNERS:
            window.setCorner(corner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._tool_row = _tool_row(window, self._tools())
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self._tool_row)
        if panels:
            self._strip_row = _bar(window, "Reading strips", STRIPS_OBJECT_NAME)
            for panel in panels:
                self._strip_row.addWidget(panel.reading_strip(self._strip_row))
            window.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self._strip_row)
        window.installEventFilter(self)

    def equalize_soon(self) -> None:
        """Size the docks over the next event-loop turns, until the canvases are equal.

        Each round measures what the one before gave: the panes' overheads.
        """
        if not self._rounds:
            call_soon(self._next_round, delay_ms=_ROUND_MS)
        self._rounds = _SIZE_ROUNDS

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt override)
        """Make the panes equal again when the window was resized.

        The window owns this filter: closed in the reading layout, Python may have cleared
        the layout's attributes (a cycle with its panel) before Qt deletes the filter.
        """
        window = self.__dict__.get("_window")
        if window is None:
            return False
        if watched is window and event.type() == QEvent.Type.Resize and self.shown:
            self.equalize_soon()
        return False

    def _next_round(self) -> None:
        if not self.shown or deleted(self._window) or not self._rounds:
            self._rounds = 0
            return
        self._rounds -= 1
        if self.equalize() and self._rounds:
            call_soon(self._next_round, delay_ms=_ROUND_MS)
            return
        self._rounds = 0
        if self._on_sized is not None:
            self._on_sized()

    def equalize(self) -> bool:
        """Run one sizing round; return False when the canvases are equal already.

        Ask the docks for the sizes that make the canvases equal (within
        :data:`TOLERANCE_PX`).

        Every size is computed from what is measured before the first ``resizeDocks``
        (Qt lays the docks out later): one round is enough once the panes are shown.
        """
        canvases = self._canvases()
        if not self.shown or set(canvases) < {"axial", *PANE_KINDS}:
            return False
        if pane_sizes_equal(canvases):
            return False
        window, docks = self._window, self._docks
        central = window.centralWidget()
        if central is None:
            return False
        axial, coronal = canvases["axial"], canvases["coronal"]
        sagittal, fourth = canvases["sagittal"], canvases["fourth"]
        right = equal_split(
            central.width(), docks["coronal"].width(), axial.width(), coronal.width()
        )
        bottom = equal_split(
            central.height(), docks["sagittal"].height(), axial.height(), sagittal.height()
        )
        left = central.width() + docks["coronal"].width() - right  # the axial column
        row = docks["sagittal"].width() + docks["fourth"].width()
        _set_left_margin(docks["sagittal"], central.width() - axial.width())  # as napari's
        window.resizeDocks([docks["coronal"]], [right], Qt.Orientation.Horizontal)
        window.resizeDocks([docks["sagittal"]], [bottom], Qt.Orientation.Vertical)
        window.resizeDocks(
            [docks["sagittal"], docks["fourth"]], [left, row - left], Qt.Orientation.Horizontal
        )
        if self._spacer is not None:  # the 3-D view has no slider: as tall as the sagittal
            slider = docks["sagittal"].height() - sagittal.height()
            others = docks["fourth"].height() - fourth.height() - self._spacer.height()
            self._spacer.setFixedHeight(max(slider - others, 0))
        return True

    def leave(self) -> None:
        """Remove the pane docks (their views closed first) and restore the window."""
        if not self.shown:
            return
        window = self._window
        window.removeEventFilter(self)
        self._rounds = 0
        for dock in self._docks.values():
            _take_out(dock.widget(), keep=self._spacer)  # the panes' widgets are not ours
            window.removeDockWidget(dock)
            dock.setParent(None)
            dock.deleteLater()
        self._docks.clear()
        self._spacer = None
        for row in (self._tool_row, self._strip_row):  # the actions are not ours: they stay
            if row is not None:
                window.removeToolBar(row)
                row.setParent(None)
                row.deleteLater()  # the strips with it
        self._tool_row = self._strip_row = None
        for corner, area in self._corners.items():
            window.setCorner(corner, area)
        for dock in self._hidden:
            dock.show()
        if self._state is not None:
            window.restoreState(self._state)
        self._hidden, self._state = [], None


def _docked(window: QMainWindow) -> list[QDockWidget]:
    """Return the window's own dock widgets that are docked (floating panels are left alone)."""
    return [
        dock
        for dock in window.findChildren(QDockWidget)
        if dock.parentWidget() is window and not dock.isFloating()
    ]


def _strip_panels(window: QMainWindow) -> list[StripPanel]:
    """Return the panels of the window's open docks that show a strip in the layout.

    A dock that is a tab behind another one is open too (its view action is checked).
    """
    panels: list[StripPanel] = []
    for dock in _docked(window):
        action = dock.toggleViewAction()
        if action is None or not action.isChecked():
            continue
        panels += [w for w in dock.findChildren(QWidget) if isinstance(w, StripPanel)]
    return panels


def bound_check_box(action: QAction, parent: QWidget) -> QCheckBox:
    """Return a check box that shows and sets a checkable ``action``'s state.

    The action owns the state (its ``toggled`` does the work): every box bound to it
    shows the same, whichever was clicked.
    """
    box = QCheckBox(action.text(), parent)
    box.setToolTip(action.toolTip())
    box.setChecked(action.isChecked())
    box.toggled.connect(action.setChecked)
    action.toggled.connect(box.setChecked)
    return box


def bound_button(action: QAction, parent: QWidget) -> QPushButton:
    """Return a push button that triggers ``action`` (named and explained as it is)."""
    button = QPushButton(action.text(), parent)
    button.setToolTip(action.toolTip())
    button.clicked.connect(action.trigger)
    return button


def _tool_row(window: QMainWindow, actions: Sequence[QAction]) -> QToolBar:
    """Make the layout's tool bar: a check box per toggle, a push button per other action.

    A tool button's checked look is lost in napari's theme, and a plain one reads as text.
    """
    row = _bar(window, "Reading tools", TOOLS_OBJECT_NAME)
    for index, action in enumerate(actions):
        if index:
            row.addSeparator()  # the controls apart (napari's theme packs them tight)
        bound = bound_check_box if action.isCheckable() else bound_button
        row.addWidget(bound(action, row))
    return row


def _bar(window: QMainWindow, title: str, name: str) -> QToolBar:
    """Make a tool bar that stays where it is put (no moving, floating or hiding)."""
    row = QToolBar(title, window)
    row.setObjectName(name)
    row.setMovable(False)
    row.setFloatable(False)
    toggle = row.toggleViewAction()
    if toggle is not None:  # not hidden by the window's context menu
        toggle.setEnabled(False)
    return row


def _pane_dock(window: QMainWindow, kind: str) -> QDockWidget:
    """Make a dock without title bar, floating or closing, holding an empty pane container."""
    dock = QDockWidget(kind, window)
    dock.setObjectName(PANE_OBJECT_NAME.format(kind=kind))
    dock.setFeatures(QDockWidget.DockWidgetFeature.NoDockWidgetFeatures)
    dock.setTitleBarWidget(QWidget(dock))  # no title bar: the pane is all canvas
    container = QWidget(dock)
    layout = QVBoxLayout(container)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    dock.setWidget(container)
    return dock


def _set_left_margin(dock: QDockWidget, margin: int) -> None:
    """Give the sagittal pane under napari's canvas its margin: the columns line up."""
    container = dock.widget()
    layout = None if container is None else container.layout()
    if layout is not None and layout.contentsMargins().left() != margin:
        layout.setContentsMargins(max(margin, 0), 0, 0, 0)


def _take_out(container: QWidget | None, *, keep: QWidget | None) -> None:
    """Take every widget but ``keep`` out of a pane's container (hidden, no parent)."""
    layout = None if container is None else container.layout()
    if layout is None:
        return
    for index in reversed(range(layout.count())):
        item = layout.itemAt(index)
        shown = None if item is None else item.widget()
        if shown is not None and shown is not keep:
            layout.removeWidget(shown)
            shown.hide()
            shown.setParent(None)
