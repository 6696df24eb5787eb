"""Panels opened through napari itself (the Plugins menu, ``add_plugin_dock_widget``) are
arranged as ``view`` docks them: one tab group, the three planes beside the layer list.

napari stacks a plugin's docks one above the other: the twelve panels grew the window to
1189 x 4154 px on a 1280 x 1024 screen (issue 48).
"""

from __future__ import annotations

from npe2 import PluginManager
from qtpy.QtWidgets import QDockWidget

from napari_mood._napari.docking import PLANES_WIDGET, PLUGIN_NAME, TAB_TITLES
from napari_mood.services.datasets import sample_data_dir


def _manifest_widgets() -> list[str]:
    manifest = PluginManager.instance().get_manifest(PLUGIN_NAME)
    return [w.display_name for w in manifest.contributions.widgets or ()]


def test_every_panel_opened_through_napari_is_a_tab_and_the_window_fits_the_screen(
    make_napari_viewer, qtbot
):
    viewer = make_napari_viewer(show=True)
    viewer.open(str(sample_data_dir()), plugin=PLUGIN_NAME)
    window = viewer.window._qt_window
    height_before = window.height()
    names = _manifest_widgets()
    docks = {name: viewer.window.add_plugin_dock_widget(PLUGIN_NAME, name)[0] for name in names}
    tabs = [docks[name] for name in names if name != PLANES_WIDGET]

    def arranged() -> bool:
        return all(len(window.tabifiedDockWidgets(d)) == len(tabs) - 1 for d in tabs)

    qtbot.waitUntil(arranged, timeout=30_000)
    assert {d.windowTitle() for d in tabs} == {TAB_TITLES.get(n, n) for n in docks} - {
        PLANES_WIDGET
    }
    assert not tabs[-1].visibleRegion().isEmpty()  # the panel opened last is in front
    planes = docks[PLANES_WIDGET]
    layer_list = window.findChild(QDockWidget, "layer list")
    assert layer_list in window.tabifiedDockWidgets(planes)
    screen = window.screen().availableGeometry()
    qtbot.waitUntil(lambda: window.height() <= screen.height(), timeout=10_000)
    assert window.height() <= max(height_before, window.minimumSizeHint().height())
    assert window.width() <= screen.width()
