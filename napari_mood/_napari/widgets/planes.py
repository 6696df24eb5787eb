"""Three planes dock: coronal and sagittal views next to napari's (axial) canvas.

The views are napari's own canvases (``napari.qt.QtViewer`` on a ``ViewerModel``), each
with its slider; :class:`~napari_mood._napari.planes.LinkedPlanes` keeps them on one
point with the main canvas. The controls: the radiological / neurological convention
(remembered between sessions), the crosshair, linked zoom and pan, and a reset of the
scan's window/level. The status bar shows the cursor in scanner RAS millimetres and file
voxels in all three views (:class:`~napari_mood._napari.status.ScannerStatus`).

The reading habits of ITK-SNAP and FSLeyes on the three canvases (wheel paging, paging
keys, right-drag window/level) are :class:`~napari_mood._napari.pane_events.PaneEvents`;
every view shows the scan's contrast limits.

*Reading layout* (:class:`~napari_mood._napari.reading_layout.ReadingLayout`) makes
napari's window four equal panes: napari's own canvas is the axial pane, the coronal,
sagittal and an optional 3-D view are docked around it; the other panels are hidden
until the layout is left (this panel's check box, View > Reading layout, or
Ctrl+Shift+L). In the reading layout a tool row at the top of the window holds this panel's controls. The compact
layout (the two side views stacked in this panel) is the default.

Each control is one ``QAction`` (:meth:`PlanesWidget.tool_actions`), the owner of its
state: the panel's check box and the reading layout's tool row both show and set it.

A stack of 2-D slices (a NOVA folder) gets a short message instead of the side views.
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import Any, cast

from qtpy.QtCore import QEvent, QSettings, Qt
from qtpy.QtGui import QAction, QKeySequence
from qtpy.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QGridLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari._qt_objects import deleted
from napari_mood._napari._soon import call_soon
from napari_mood._napari.pane_events import PaneEvents, ScanLimits
from napari_mood._napari.planes import (
    SIDE_PLANES,
    THREE_D,
    LinkedPlanes,
    ViewKind,
    shows_slice_stack,
)
from napari_mood._napari.reading_layout import (
    READING_SHORTCUT,
    ReadingLayout,
    bound_button,
    bound_check_box,
)
from napari_mood._napari.status import ScannerStatus
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood.services.options import Convention

__all__ = ["CONVENTION_KEY", "PlanesWidget", "saved_convention"]

SETTINGS = ("napari-mood", "napari-mood")
CONVENTION_KEY = "viewer/convention"
RADIOLOGICAL_TIP = (
    "Radiological convention: the patient's right on the screen's left (axial, coronal),\n"
    "as if facing the patient. Off: neurological (the patient's left on the left)."
)
CROSSHAIR_TIP = "Show the crosshair at the shared point in all three views."
LINK_TIP = (
    "Zoom and pan linked: zooming a view zooms the others by the same factor,\n"
    "panning one moves the others along the axes they share."
)
RESET_WL_TIP = "Back to the scan's window/level as the case opened (right-drag changes it)."
READING_TIP = (
    "Reading layout: napari's canvas (axial), coronal, sagittal and a 3-D pane as four\n"
    f"equal panes of the window ({READING_SHORTCUT} or View > Reading layout switches back).\n"
    "Off: the compact layout, side views in this panel."
)
READING_ACTION = "Reading layout (2 x 2)"
THREE_D_TIP = (
    "The fourth pane of the reading layout: a 3-D view of the case (slower).\n"
    "Chosen here, shown while the reading layout is."
)
NO_THREE_D = "3-D pane off"
HELP = (
    "Click a view to move the point there; drag to pan. Every view: the wheel pages slices\n"
    "(one a notch), Ctrl+wheel zooms. Arrows / PageUp / PageDown page the view under the pointer.\n"
    "Right-drag on any view: window (left/right) and level (up/down) of the scan."
)
STACK_MESSAGE = (
    "A stack of 2-D slices: no coronal or sagittal view (its third axis runs across "
    "images, not across the body)."
)


def saved_convention() -> Convention:
    """Return the convention last chosen on this machine (radiological the first time)."""
    value = QSettings(*SETTINGS).value(CONVENTION_KEY, "radiological")
    return "neurological" if value == "neurological" else "radiological"


SIDE_VIEW_MIN = (120, 120)
"""Smallest size of a side view (napari's own hint, 271 px wide, widens the window)."""


class PlanesWidget(MoodPanel):
    """Coronal and sagittal views of the case, linked to napari's axial canvas.

    Parameters
    ----------
    napari_viewer : napari.Viewer
        Injected by napari.
    """

    def __init__(self, napari_viewer: Any) -> None:
        super().__init__(napari_viewer)
        self.planes = LinkedPlanes(self._viewer, convention=saved_convention())
        self._status = ScannerStatus(self._viewer, self._session)
        self._qt_views: dict[str, Any] = {}
        self._surface_dock: QDockWidget | None = None  # watched for floating
        self._window = _main_window(self._viewer)
        self._tools = self._make_tools()
        self._layout = (
            None
            if self._window is None
            else ReadingLayout(
                self._window, self._panes, on_sized=self._on_panes_sized, tools=self.tool_actions
            )
        )
        for plane in SIDE_PLANES:
            self._make_view(plane)
        self._build()
        self._limits = ScanLimits(self._session)
        self._events = PaneEvents(self.planes, self._canvases(), self._limits)
        self.watch_session(case=self._on_session_case_changed)
        self._lifetime.connect(self._viewer.layers.events.inserted, self._on_layers_changed)
        self._lifetime.connect(self._viewer.layers.events.removed, self._on_layers_changed)
        self._lifetime.at_end(self._close)
        self._action = self._add_action()
        self._show_stack_message()

    def _make_tools(self) -> dict[str, QAction]:
        """Make the controls' actions: each owns its state (panel box and layout button)."""
        tools = {
            "radiological": _tool(self, "Radiological", RADIOLOGICAL_TIP, checked=True),
            "crosshair": _tool(self, "Crosshair", CROSSHAIR_TIP, checked=True),
            "linked": _tool(self, "Link zoom/pan", LINK_TIP, checked=self.planes.linked),
            "reset_wl": _tool(self, "Reset W/L", RESET_WL_TIP, checked=None),
            "three_d": _tool(self, "3-D pane", THREE_D_TIP, checked=False),
        }
        tools["radiological"].setChecked(self.planes.convention == "radiological")
        tools["radiological"].toggled.connect(self._on_radiological_toggled)
        tools["crosshair"].toggled.connect(self._on_crosshair_toggled)
        tools["linked"].toggled.connect(self._on_linked_toggled)
        tools["reset_wl"].triggered.connect(self._on_reset_wl_triggered)
        tools["three_d"].toggled.connect(self._on_three_d_toggled)
        return tools

    def _build(self) -> None:
        tools = self._tools
        self._radiological = bound_check_box(tools["radiological"], self)
        self._crosshair = bound_check_box(tools["crosshair"], self)
        self._linked = bound_check_box(tools["linked"], self)
        self._reset_wl = bound_button(tools["reset_wl"], self)
        self._reading = QCheckBox(READING_ACTION, self)
        self._reading.setToolTip(READING_TIP)
        self._reading.toggled.connect(self._on_reading_toggled)
        self._three_d = bound_check_box(tools["three_d"], self)
        self._reading.setEnabled(self._layout is not None)  # napari's window: the panes
        controls = QGridLayout()  # two columns: the side views keep the column's height
        for index, widget in enumerate(
            (
                self._radiological,
                self._crosshair,
                self._linked,
                self._reset_wl,
                self._reading,
                self._three_d,
            )
        ):
            controls.addWidget(widget, index // 2, index % 2)
        self.setToolTip(HELP)
        self._splitter = splitter = QSplitter(Qt.Orientation.Vertical, self)
        for view in self._qt_views.values():
            splitter.addWidget(view)
        self._stack_label = QLabel(STACK_MESSAGE, self)
        self._stack_label.setWordWrap(True)
        self._stack_label.setAlignment(Qt.AlignmentFlag.AlignTop)
        self._stack_label.hide()
        self._no_three_d = QLabel(NO_THREE_D, self)  # the reading layout's 4th pane, 3-D off
        self._no_three_d.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._no_three_d.hide()
        self._no_three_d.setMinimumSize(*SIDE_VIEW_MIN)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(controls)
        layout.addWidget(self._stack_label)
        layout.addWidget(splitter, 1)

    def _add_action(self) -> QAction | None:
        """View > Reading layout (and its key, anywhere in the window): the check box's twin."""
        if self._window is None:
            return None
        action = QAction(READING_ACTION, self._window)
        action.setCheckable(True)
        action.setShortcut(QKeySequence(READING_SHORTCUT))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.setToolTip(READING_TIP)
        action.toggled.connect(self._reading.setChecked)
        self._window.addAction(action)
        menu = getattr(getattr(self._viewer, "window", None), "view_menu", None)
        if menu is not None:
            menu.addAction(action)
        return action

    # -- public ---------------------------------------------------------------------

    def tool_actions(self) -> list[QAction]:
        """Return the controls' actions, in the reading layout's tool row order.

        Radiological, crosshair, link zoom/pan, reset W/L, 3-D pane and (in napari's
        window) the reading layout itself, whose tool tip names its key.
        """
        actions = list(self._tools.values())
        if self._action is not None:
            actions.append(self._action)
        return actions

    @property
    def convention(self) -> Convention:
        """The convention shown."""
        return self.planes.convention

    def set_radiological(self, radiological: bool) -> None:
        """Switch the convention (and remember it for the next session)."""
        self._radiological.setChecked(radiological)

    def canvas(self, plane: str) -> Any:
        """Return the Qt canvas widget of a side view (for tests and screenshots)."""
        return self._qt_views[plane].canvas.native  # type: ignore[index]

    @property
    def reading_layout(self) -> bool:
        """Whether the reading layout (2 x 2 equal panes) is shown."""
        return self._reading.isChecked()

    def view(self, kind: str) -> Any:
        """Return the ``QtViewer`` of a pane: a side plane, ``"axial"`` or ``"3d"``."""
        return self._qt_views[kind]

    @property
    def stack_message(self) -> str:
        """The message shown instead of the side views ("" while they are shown)."""
        return self._stack_label.text() if self._stack_label.isVisibleTo(self) else ""

    def _panes(self) -> dict[str, Any]:
        """Return the canvas of each pane of the reading layout (napari's is the axial pane)."""
        panes: dict[str, Any] = {"axial": _main_canvas(self._viewer)}
        for plane in SIDE_PLANES:
            panes[plane] = self._qt_views[plane].canvas.native
        three_d = self._qt_views.get(THREE_D)
        panes["fourth"] = self._no_three_d if three_d is None else three_d.canvas.native
        return panes

    def _canvases(self) -> dict[Any, Any]:
        """Return the Qt canvas of each view (napari's main canvas first) and its model."""
        canvases = {}
        qt_viewer = getattr(getattr(self._viewer, "window", None), "_qt_viewer", None)
        if qt_viewer is not None:
            canvases[qt_viewer.canvas.native] = self._viewer
        for plane, view in self._qt_views.items():
            canvases[view.canvas.native] = self.planes.models[plane]
        return canvases

    # -- events ---------------------------------------------------------------------

    def _on_radiological_toggled(self, checked: bool) -> None:
        convention: Convention = "radiological" if checked else "neurological"
        QSettings(*SETTINGS).setValue(CONVENTION_KEY, convention)
        self.planes.set_convention(convention)

    def _on_crosshair_toggled(self, checked: bool) -> None:
        self.planes.set_crosshair_visible(checked)

    def _on_linked_toggled(self, checked: bool) -> None:
        self.planes.set_linked(checked)

    def _on_reset_wl_triggered(self) -> None:
        self._limits.reset()

    def _on_reading_toggled(self, checked: bool) -> None:
        if self._action is not None and self._action.isChecked() != checked:
            self._action.setChecked(checked)
        if checked and self._three_d.isChecked():
            self._make_view("3d")
        elif not checked:
            self._drop_view(THREE_D)
        self._renew_views()  # the views move to other docks: new canvases there

    def _on_three_d_toggled(self, checked: bool) -> None:
        if not self.reading_layout:
            return  # remembered for the reading layout
        if checked:
            self._make_view("3d")
        else:
            self._drop_view(THREE_D)
        self._lay_out_views()

    # -- views ----------------------------------------------------------------------

    def _make_view(self, kind: ViewKind) -> None:
        """Make a pane for a view of the planes (its Qt view, status, keys and wheel)."""
        from napari.qt import QtViewer

        model = self.planes.add_view(kind)
        view = QtViewer(model, show_welcome_screen=False)
        view.setMinimumSize(*SIDE_VIEW_MIN)  # the window must fit 1280 px with every panel
        self._qt_views[kind] = view
        self.planes.draws_with(kind, partial(_scene_of, weakref.ref(view)))
        self._status.follow(model)
        events = getattr(self, "_events", None)
        if events is not None:  # panes added later (the reading layout's)
            events.watch(view.canvas.native, model)
            self._reset_soon()

    def _drop_view(self, kind: str) -> None:
        if kind in self._qt_views:
            self._close_view(kind)
            self.planes.remove_view(kind)

    def _close_view(self, kind: str) -> None:
        """Close the Qt view of a pane (its model stays in the planes)."""
        view = self._qt_views.pop(kind)
        self._events.forget(view.canvas.native)
        self._status.unfollow(self.planes.models[kind])
        view.close()
        view.setParent(None)
        view.deleteLater()

    def _lay_out_views(self) -> None:
        """Place the side views in the reading layout's docks, or in this panel's splitter."""
        coronal, sagittal = (self._qt_views[plane] for plane in SIDE_PLANES)
        layout = self._layout
        if self.reading_layout and layout is not None:
            layout.enter()
            layout.place("coronal", coronal)
            layout.place("sagittal", sagittal)
            layout.place("fourth", self._qt_views.get(THREE_D, self._no_three_d))
        else:
            if layout is not None:
                layout.leave()
            self._splitter.addWidget(coronal)
            self._splitter.addWidget(sagittal)
        if self._no_three_d.parent() is None:  # not in a pane: back in this panel, hidden
            self._no_three_d.setParent(self)  # (a widget without parent outlives Qt at exit)
            self._no_three_d.hide()
        self._show_stack_message()

    def _on_panes_sized(self) -> None:
        """Fit every view once the reading layout's panes got their size."""
        self._viewer.reset_view()
        self._reset_soon(main=True)

    def _on_session_case_changed(self) -> None:
        self._limits.remember()
        self._reset_soon(main=True)

    def _on_layers_changed(self, event: Any = None) -> None:
        """React to layers added or removed by updating the 2-D stack message.

        Layers came or went: the message for a stack of 2-D slices, on the next turn
        (not inside the layer list's event; a pending call keeps no widget).
        """
        show = weakref.WeakMethod(self._show_stack_message)

        def later() -> None:
            method = show()
            if method is not None:
                method()

        call_soon(later)

    def _show_stack_message(self) -> None:
        if not self._lifetime.alive:
            return
        stack = shows_slice_stack(self._viewer)
        self._stack_label.setVisible(stack)
        self._splitter.setVisible(not stack and not self.reading_layout)
        if stack and self.reading_layout:
            self._reading.setChecked(False)  # no coronal or sagittal pane on 2-D slices

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Fit the side views once they have their size; watch the dock being floated."""
        super().showEvent(event)  # the panel's dock: self._dock
        dock = self._dock
        if dock is not None and dock is not self._surface_dock:
            if self._surface_dock is not None:
                self._surface_dock.removeEventFilter(self)
            self._surface_dock = dock
            dock.installEventFilter(self)
        self._reset_soon()

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt override)
        """Give every pane a new canvas when the dock gets or leaves a window of its own.

        Qt moves the dock's widgets into another window (floated, or docked again), and
        an OpenGL widget there gets a new OpenGL context; vispy's textures and shaders
        stay in the old one, and the first draw in the new window fails
        (``GL_INVALID_OPERATION``: an abort without napari's error handler). Canvases
        that never drew move safely, so the panes are built again (Qt views and their
        models, on the same point) when the dock's own window surface is created or about
        to go, before anything is drawn there.
        """
        dock = getattr(self, "_surface_dock", None)  # None while Qt destroys the panel
        if watched is dock and event.type() == QEvent.Type.PlatformSurface:
            self._renew_views()
        return False

    def _renew_views(self) -> None:
        if not self._lifetime.alive or self.planes.closed:
            return
        kinds = [cast(ViewKind, kind) for kind in self._qt_views]
        for kind in kinds:
            self._close_view(kind)
        self.planes.renew_views()
        for kind in kinds:
            self._make_view(kind)
        self._lay_out_views()
        self._reset_soon()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Fit the side views again when the panel changes size (docked, moved, resized)."""
        super().resizeEvent(event)
        self._reset_soon()

    def _reset_soon(self, *, main: bool = False) -> None:
        """Fit the views on the next event-loop turn (a pending call keeps no view).

        The side views only, at the main canvas's scale when they are whole at it (a
        panel resized); with ``main`` every view at one scale (a new case, new panes).
        """
        planes = weakref.ref(self.planes)

        def reset() -> None:
            linked = planes()
            if linked is not None and not linked.closed:
                linked.reset_views(main=main)

        call_soon(reset)

    def _close(self) -> None:
        dock = self._surface_dock
        if dock is not None and not deleted(dock) and not deleted(self):
            dock.removeEventFilter(self)
        self._events.close()
        self._status.close()
        self.planes.close()
        for view in self._qt_views.values():
            view.close()
        window = self._window
        if window is not None and not deleted(window):
            if self._layout is not None:
                self._layout.leave()  # the window as it was before the reading layout
            if self._action is not None and not deleted(self._action):
                window.removeAction(self._action)
                menu = getattr(getattr(self._viewer, "window", None), "view_menu", None)
                if menu is not None and not deleted(menu):
                    menu.removeAction(self._action)


def _tool(parent: QWidget, text: str, tip: str, *, checked: bool | None) -> QAction:
    """Make a control's action (``checked`` None: a button, not a toggle)."""
    action = QAction(text, parent)
    action.setToolTip(tip)
    if checked is not None:
        action.setCheckable(True)
        action.setChecked(checked)
    return action


def _main_window(viewer: Any) -> Any | None:
    """Napari's QMainWindow (None for a viewer without a window)."""
    return getattr(getattr(viewer, "window", None), "_qt_window", None)


def _main_canvas(viewer: Any) -> Any:
    return viewer.window._qt_viewer.canvas.native


def _scene_of(view: weakref.ref[Any]) -> Any | None:
    """Return the vispy canvas of a pane's ``QtViewer`` (None once the view is gone)."""
    shown = view()
    return None if shown is None else shown.canvas._scene_canvas
