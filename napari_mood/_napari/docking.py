"""Dock the plugin's panels: one tab group on the right, the three planes on the left.

The three planes are in front of napari's layer controls and layer list (one tab group:
the side views get the left column's whole height), and the two columns are sized so
that the axial, coronal and sagittal views get comparable areas (:data:`COLUMN_SHARES`).

:class:`PanelDocking` docks them one at a time, so a caller can build panels while it
waits for something else (the viewer does while the case's files are read) and build
the rest after the case is on screen; :func:`dock_plugin_widgets` docks them all.

A panel opened through napari itself (the Plugins menu, ``add_plugin_dock_widget``)
joins the same arrangement when it is first shown (:func:`place_panel`, called by the
panel base class): napari stacks plugin docks one above the other, and twelve of them
grew the window past the screen. Qt and npe2 are imported inside the functions.
"""

from __future__ import annotations

from typing import Any

from napari_mood._napari.session import MoodSession, no_repaint

__all__ = [
    "DOCK_ORDER",
    "OTHER_BENCHMARK_WIDGETS",
    "PLANES_WIDGET",
    "PLUGIN_NAME",
    "TAB_TITLES",
    "PanelDocking",
    "dock_plugin_widgets",
    "place_panel",
    "window_height",
]

PLUGIN_NAME = MoodSession.TITLE_PREFIX
DOCK_ORDER = ("Display thresholds", "Per-slice scores")
"""Manifest display names docked first (the first one is the tab in front)."""
PLANES_WIDGET = "Three planes"
"""Docked on its own, between the canvas and the tool tabs (not a tab)."""
COLUMN_SHARES = (0.285, 0.33)
"""The shares of the window's width of the left column (the side views) and of the right
one (the tool tabs): napari's axial canvas between them gets about a third too, so the
three planes have comparable areas (1280 px wide: the right column keeps its smallest
width, 536 px; the left one and the canvas about 365 px each)."""
TAB_TITLES = {
    "Display thresholds": "Thresholds",
    "Per-slice scores": "Slices",
    "Dataset browser": "Browser",
    "Compare methods": "Compare",
    "Comparison table": "Table",
    "Object matching": "Objects",
    "Review flagged regions": "Review",
    "Reading tools": "Tools",
    "Reconstruction view": "Recon",
    "Boxes (NOVA-style)": "Boxes",
    "Reader study": "Study",
}
"""Short tab titles (eight full names do not fit side by side in the dock; the other
benchmarks' panels are tabs too when opened through napari, :func:`place_panel`)."""
OTHER_BENCHMARK_WIDGETS = ("Reconstruction view", "Boxes (NOVA-style)", "Reader study")
"""Widgets of the other benchmarks (PET reconstructions, NOVA boxes): in the Plugins menu, not docked
with a MOOD case."""


def dock_plugin_widgets(viewer: Any) -> list[Any]:
    """Dock every widget the napari-mood manifest contributes; return the widgets.

    They form one tab group in the right dock area (tabs on top, short titles from
    :data:`TAB_TITLES`), in the order of :data:`DOCK_ORDER` then of the manifest, with
    the first one (display thresholds) in front. Widgets are returned in that order.
    The three planes go in front of napari's layer controls.
    """
    docking = PanelDocking(viewer)
    docking.dock_rest()
    return docking.widgets


class PanelDocking:
    """The manifest's panels for ``viewer``, docked one per :meth:`dock_next` call.

    After each call the docked panels are already arranged as :func:`dock_plugin_widgets`
    leaves them (tabbed, the first tab in front, the planes beside the layer list).
    """

    def __init__(self, viewer: Any) -> None:
        from npe2 import PluginManager

        manifest = PluginManager.instance().get_manifest(PLUGIN_NAME)
        names = [c.display_name for c in manifest.contributions.widgets or ()]
        names = [n for n in names if n not in OTHER_BENCHMARK_WIDGETS]
        names.sort(key=lambda n: DOCK_ORDER.index(n) if n in DOCK_ORDER else len(DOCK_ORDER))
        self._viewer = viewer
        self._names = names
        self._tabs: list[Any] = []
        self._planes: Any = None  # the three planes' dock
        self.widgets: list[Any] = []
        """The panels docked so far, in docking order."""

    @property
    def remaining(self) -> int:
        """Panels not docked yet."""
        return len(self._names)

    def dock_next(self) -> bool:
        """Dock the next panel; False when every one is docked already."""
        if not self._names:
            return False
        name = self._names.pop(0)
        dock, widget = self._viewer.window.add_plugin_dock_widget(PLUGIN_NAME, name)
        self.widgets.append(widget)
        if name == PLANES_WIDGET:
            dock.setWindowTitle(PLANES_WIDGET)  # short: the title bar sets the dock's width
            self._planes = dock
            _beside_layer_list(dock)
        else:
            # the tab text; the dock's own title bar keeps the full name
            dock.setWindowTitle(TAB_TITLES.get(name, name))
            self._add_tab(dock)
        self._size_columns()
        return True

    def _size_columns(self) -> None:
        """Give the left and right dock columns their :data:`COLUMN_SHARES` of the width."""
        from qtpy.QtCore import Qt

        columns = [
            (self._planes, COLUMN_SHARES[0]),
            (next(iter(self._tabs), None), COLUMN_SHARES[1]),
        ]
        shown = [(dock, share) for dock, share in columns if dock is not None and dock.isVisible()]
        if not shown:
            return
        window = shown[0][0].parentWidget()  # the QMainWindow the docks live in
        window.resizeDocks(
            [dock for dock, _ in shown],
            [round(window.width() * share) for _, share in shown],
            Qt.Orientation.Horizontal,
        )

    def dock_rest(self) -> None:
        """Dock every panel not docked yet, repainting the window once.

        Dock every panel not docked yet; the window repaints once, at the end (not
        after each dock, when a case is drawn that costs a canvas redraw each). Other
        events are handled between two docks: the window answers meanwhile.
        """
        from qtpy.QtWidgets import QApplication

        with no_repaint(self._viewer):
            while self.dock_next():
                QApplication.processEvents()

    def _add_tab(self, dock: Any) -> None:
        """Tab ``dock`` behind the first one (tabs on top); the first stays in front."""
        self._tabs.append(dock)
        if len(self._tabs) < 2:
            return
        first = self._tabs[0]
        _tab_with(first, dock)
        first.raise_()


def place_panel(dock: Any, *, height_before: int | None = None) -> None:
    """Arrange a panel docked through napari's own plugin path as :class:`PanelDocking` does.

    The three planes go in front of the layer controls; any other panel gets its short tab
    title and joins the tab group of the napari-mood panels already in its dock area, in
    front (the panel just opened is the one the reader asked to see). A dock that is not
    a napari-mood panel's, floats, or is tabbed already (docked by :class:`PanelDocking`,
    or by the reader) is left as it is.

    napari docks a plugin's panel below the others, and Qt grows the window to fit the
    stack (it never shrinks it back): once the panel is a tab, the window gets back the
    height it had before, or the least the tabs need.

    Parameters
    ----------
    dock : QDockWidget
        The dock napari made for the panel (its name: ``"<display name> (napari-mood)"``).
    height_before : int, optional
        The window's height before napari docked the panel (:func:`window_height`).
    """
    from qtpy.QtWidgets import QMainWindow

    name = _panel_name(dock)
    window = dock.parentWidget()
    if name is None or not isinstance(window, QMainWindow) or dock.isFloating():
        return
    dock.setWindowTitle(TAB_TITLES.get(name, name))  # the planes' title is short already
    if window.tabifiedDockWidgets(dock):
        return
    if name == PLANES_WIDGET:
        _beside_layer_list(dock)
        _shrink_back(window, height_before)
        return
    area = window.dockWidgetArea(dock)
    group = [
        other
        for other in window.findChildren(type(dock))
        if other is not dock
        and _panel_name(other) not in (None, PLANES_WIDGET)
        and not other.isFloating()
        and not other.isHidden()
        and window.dockWidgetArea(other) == area
    ]
    if group:  # into the tab group when there is one (never a second group)
        group.sort(key=lambda other: not window.tabifiedDockWidgets(other))
        _tab_with(group[0], dock)
        dock.raise_()
        _shrink_back(window, height_before)


def window_height(viewer: Any) -> int | None:
    """Return the height of the viewer's window now (None when it has no Qt window)."""
    window = getattr(getattr(viewer, "window", None), "_qt_window", None)
    return None if window is None else int(window.height())


def _shrink_back(window: Any, height: int | None) -> None:
    """Give the window back the height it had before a dock stacked (the tabs' least)."""
    if height is None or window.height() <= height or window.isMaximized():
        return
    layout = window.layout()
    layout.invalidate()
    layout.activate()
    window.resize(window.width(), max(height, window.minimumSizeHint().height()))


def _panel_name(dock: Any) -> str | None:
    """Return the manifest display name of a napari-mood panel's dock, else None."""
    suffix = f" ({PLUGIN_NAME})"
    name = str(getattr(dock, "name", ""))
    return name.removesuffix(suffix) if name.endswith(suffix) else None


def _tab_with(first: Any, dock: Any) -> None:
    """Tab ``dock`` into the tab group of ``first`` (the tabs on top of the dock area)."""
    from qtpy.QtWidgets import QTabWidget

    window = first.parentWidget()  # the QMainWindow the docks live in
    window.setTabPosition(window.dockWidgetArea(first), QTabWidget.TabPosition.North)
    window.tabifyDockWidget(first, dock)


def _beside_layer_list(planes: Any) -> None:
    """Put the three-planes dock in front of napari's layer controls and layer list (left).

    The side views then get the left column's width and its whole height instead of a
    sliver of the right dock area; the layer controls and the layer list are one tab away.
    """
    from qtpy.QtCore import Qt
    from qtpy.QtWidgets import QDockWidget

    window = planes.parentWidget()
    controls = window.findChild(QDockWidget, "layer controls")
    if controls is None or not controls.isVisible():
        return
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, planes)
    window.tabifyDockWidget(controls, planes)
    layer_list = window.findChild(QDockWidget, "layer list")
    if layer_list is not None and layer_list.isVisible():
        window.tabifyDockWidget(controls, layer_list)
    planes.show()
    planes.raise_()
