"""CompareWidget: grid view with one cell per method, toggles, and the difference of two."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from napari.utils.colormaps import DirectLabelColormap
from qtpy.QtWidgets import QCheckBox, QComboBox, QGroupBox, QLabel, QPushButton

from napari_mood._napari.grid import COMPARE_KEY, grid_shape
from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.viewer import SCREENSHOT_WINDOW_SIZE, focus_case, load_into_viewer
from napari_mood._napari.widgets.compare import DIFFERENCE_COLORS, CompareWidget
from napari_mood.core.compare import A_ONLY, B_ONLY, BOTH
from napari_mood.core.scores import flag
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui
from tests.reference_scorer import clip_float16

needs_sample = pytest.mark.skipif(
    not (sample_data_dir() / "toy").is_dir(), reason="sample_data/ not generated yet"
)


@pytest.fixture
def compare(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Compare methods")
    return viewer, widget


def _snapshot(viewer) -> list[tuple[object, bool]]:
    return [(layer, layer.visible) for layer in viewer.layers]


def _vispy_canvas(viewer):
    return viewer.window._qt_viewer.canvas


def _wait_for_difference(qtbot, widget: CompareWidget, previous=None) -> None:
    def ready() -> bool:
        result = widget.difference_result
        return result is not None and result is not previous and not widget.busy

    qtbot.waitUntil(ready, timeout=5000)


def _button(widget: CompareWidget, text: str) -> QPushButton:
    return ui.control(widget, text, QPushButton)


def _toggle(widget: CompareWidget, name: str) -> QCheckBox:
    return ui.control(widget, f"Show {name}", QCheckBox)


def _toggles(widget: CompareWidget) -> list[str]:
    return [
        n.removeprefix("Show ")
        for n in ui.control_names(widget, QCheckBox)
        if n != "Show difference"
    ]


def _difference_box(widget: CompareWidget) -> QGroupBox:
    return ui.control(widget, "Difference of two methods", QGroupBox)


def _show_difference(widget: CompareWidget) -> QCheckBox:
    return ui.control(widget, "Show difference", QCheckBox)


def _numpy_difference(a: np.ndarray, b: np.ndarray, ta: float, tb: float) -> dict[int, int]:
    fa, fb = flag(clip_float16(a), ta), flag(clip_float16(b), tb)
    return {
        A_ONLY: int(np.count_nonzero(fa & ~fb)),
        B_ONLY: int(np.count_nonzero(~fa & fb)),
        BOTH: int(np.count_nonzero(fa & fb)),
    }


# --------------------------------------------------------------------------- grid


def test_plugin_widget_lists_the_methods(compare):
    _, widget = compare
    assert isinstance(widget, CompareWidget)
    assert _toggles(widget) == ["a", "b"]
    assert all(_toggle(widget, name).isChecked() for name in ("a", "b"))
    combos = [ui.control(widget, f"Method {x} of the difference", QComboBox) for x in "AB"]
    assert [combo.currentText() for combo in combos] == ["a", "b"]
    assert _button(widget, "Grid view").isEnabled()
    assert not _button(widget, "Overlay view").isEnabled()
    for control in (_button(widget, "Grid view"), _button(widget, "Overlay view")):
        assert control.toolTip()
    assert _show_difference(widget).toolTip()


def test_grid_has_one_cell_per_method_with_shared_slice_and_zoom(compare, qtbot):
    viewer, widget = compare
    session = widget.session
    scan, gt = session.scan_layer, session.gt_layer
    ui.click(_button(widget, "Grid view"))
    qtbot.wait(50)
    grid = viewer.canvas.grid
    assert grid.enabled and grid.stride == 4  # scan, map, GT and the colour bar
    height, width = viewer.canvas.size  # the canvas in pixels; a cell: a slice's extent
    low, high = viewer.layers.extent.world
    cell = tuple(float(high[axis] - low[axis]) for axis in viewer.dims.displayed[-2:])
    assert tuple(grid.shape) == grid_shape(2, canvas=(height, width), cell=cell)
    cells = widget.grid.cells
    assert list(cells) == ["a", "b"]
    assert cells["a"] == (scan, session.method("a").layer, gt)  # the originals in cell 1
    canvas = _vispy_canvas(viewer)
    assert len(canvas.grid_views) == 2
    for view, (name, layers) in zip(canvas.grid_views, cells.items(), strict=True):
        cell_scan, method, cell_gt = layers
        assert method is session.method(name).layer
        assert cell_scan.data is scan.data and cell_gt.data is gt.data  # shared, not copied
        assert cell_gt.contour == 1 and cell_gt.visible  # the GT outline in every cell
        np.testing.assert_array_equal(cell_gt.colormap.map(1), gt.colormap.map(1))
        assert method.name_overlay.visible and widget.grid.legends[name].face_colorbar.visible
        indices = [viewer.layers.index(layer) for layer in layers]
        assert indices == sorted(indices)  # scan below the map below the GT
        assert len({grid.position(i, viewer.layers) for i in indices}) == 1
        for layer in layers:  # drawn in this cell's view box
            assert canvas.layer_to_visual[layer].node.parent is view.scene
    # one slice and one zoom for every cell
    viewer.dims.set_point(0, viewer.dims.point[0] + 2 * viewer.dims.range[0].step)
    viewer.scene.camera.zoom = 3.5
    qtbot.wait(50)
    points = {layer._slice_input.world_slice.point for layer in viewer.layers}
    assert points == {tuple(viewer.dims.point)}
    assert [camera.zoom for camera in canvas.grid_cameras] == pytest.approx([3.5, 3.5])
    # the helper copies are not part of the session
    assert len(widget.grid.helpers) == 2
    for helper in widget.grid.helpers:
        assert COMPARE_KEY in helper.metadata and METADATA_KEY not in helper.metadata
    assert session.scan_layer is scan and session.gt_layer is gt
    assert session.method_names == ("a", "b")
    assert not _difference_box(widget).isEnabled()  # difference only in the overlay view
    assert not _button(widget, "Grid view").isEnabled()
    assert _button(widget, "Overlay view").isEnabled()


def test_leaving_restores_order_visibility_grid_and_links(compare, qtbot):
    viewer, widget = compare
    scan = viewer.layers["case_1"]
    extra = viewer.add_points(np.zeros((1, 3)), name="notes")
    viewer.layers.move(viewer.layers.index(extra), 0)
    scan.visible = False  # a hidden layer stays hidden
    viewer.canvas.grid.shape = (1, -1)
    viewer.layers.selection.active = viewer.layers["b"]
    before = _snapshot(viewer)
    ui.click(_button(widget, "Grid view"))
    # layers outside the cells are hidden and put after them
    assert not extra.visible and viewer.layers[-1] is extra
    assert viewer.canvas.grid.actual_shape(viewer.layers) == tuple(viewer.canvas.grid.shape)
    # the copies follow the originals
    scan_copy, _, gt_copy = widget.grid.cells["b"]
    assert not scan_copy.visible and gt_copy.visible  # as visible as their originals
    scan.contrast_limits = (0.2, 0.7)
    assert tuple(scan_copy.contrast_limits) == pytest.approx((0.2, 0.7))
    with pytest.warns(UserWarning, match="Contours are not displayed"):  # napari, once
        viewer.dims.ndisplay = 3  # the session fills the GT in 3-D
    assert gt_copy.contour == 0 and gt_copy.opacity == viewer.layers["case_1 GT"].opacity
    viewer.dims.ndisplay = 2
    assert gt_copy.contour == 1
    ui.click(_button(widget, "Overlay view"))
    assert _snapshot(viewer) == before
    grid = viewer.canvas.grid
    assert (grid.enabled, tuple(grid.shape), grid.stride) == (False, (1, -1), 1)
    assert viewer.layers.selection.active is viewer.layers["b"]
    for name in ("a", "b"):
        layer = viewer.layers[name]
        assert not layer.name_overlay.visible and not layer.colorbar.visible
        assert tuple(layer.colorbar.size) == (25, 150)  # napari's default, restored
    assert scan_copy not in viewer.layers and gt_copy not in viewer.layers
    scan.contrast_limits = (0.1, 0.3)  # unlinked: the removed copy no longer follows
    assert tuple(scan_copy.contrast_limits) == pytest.approx((0.2, 0.7))
    assert _button(widget, "Grid view").isEnabled() and _difference_box(widget).isEnabled()


def test_method_toggle_hides_its_cell(compare, qtbot):
    viewer, widget = compare
    ui.click(_button(widget, "Grid view"))
    ui.click(_toggle(widget, "b"))
    assert not _toggle(widget, "b").isChecked()
    assert not any(layer.visible for layer in widget.grid.cells["b"])
    assert all(layer.visible for layer in widget.grid.cells["a"])
    assert tuple(viewer.canvas.grid.shape) == (1, 1)
    viewer.layers["b"].visible = True  # napari's eye: the toggle and the cell follow
    assert _toggle(widget, "b").isChecked()
    assert all(layer.visible for layer in widget.grid.cells["b"])
    ui.click(_toggle(widget, "b"))
    ui.click(_button(widget, "Overlay view"))
    assert not viewer.layers["b"].visible  # methods keep the visibility of their toggle
    assert viewer.layers["case_1"].visible and viewer.layers["case_1 GT"].visible
    ui.click(_toggle(widget, "b"))
    assert viewer.layers["b"].visible


def test_a_method_leaving_rebuilds_the_grid(compare, qtbot):
    viewer, widget = compare
    widget.show_grid()
    viewer.layers.remove("b")
    qtbot.waitUntil(lambda: list(widget.grid.cells) == ["a"], timeout=2000)
    assert list(widget.grid.cells) == ["a"]
    assert _toggles(widget) == ["a"]
    assert len(viewer.layers) == 4 and not widget.grid.helpers  # b's helpers are gone
    assert list(widget.grid.legends) == ["a"]  # a's colour bar stays
    widget.show_overlay()
    assert [layer.name for layer in viewer.layers] == ["case_1", "a", "case_1 GT"]
    assert not _difference_box(widget).isEnabled()  # one method left: nothing to compare


def test_grid_without_methods_says_what_to_do(make_napari_viewer, monkeypatch):
    messages: list[str] = []
    monkeypatch.setattr("napari.utils.notifications.show_warning", messages.append)
    viewer = make_napari_viewer(show=True)
    widget = CompareWidget(viewer)
    widget.show_grid()  # the button is disabled: called as a script would
    assert not viewer.canvas.grid.enabled
    assert messages and "open a dataset" in messages[0]
    assert not _button(widget, "Grid view").isEnabled()
    widget.deleteLater()


def test_docked_before_the_case_the_difference_pairs_two_methods(
    make_napari_viewer, mood_dataset: Path
):
    # napari's Plugins menu, then the case through napari's reader: its methods join the
    # session one by one (the first alone)
    viewer = make_napari_viewer(show=True)
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Compare methods")
    viewer.open(str(mood_dataset), plugin="napari-mood")
    assert widget.session.method_names == ("a", "b")
    combos = [ui.control(widget, f"Method {x} of the difference", QComboBox) for x in "AB"]
    assert [combo.currentText() for combo in combos] == ["a", "b"]
    combos[1].setCurrentText("a")  # the reader's own choice stays while the methods stay
    combos[0].setCurrentText("b")
    widget.session.set_threshold("a", 0.4)
    assert [combo.currentText() for combo in combos] == ["b", "a"]


# --------------------------------------------------------------------------- difference


def test_difference_counts_equal_numpy(compare, qtbot):
    viewer, widget = compare
    session = widget.session
    session.set_threshold("b", 0.7)  # b scores 0.6 on the lesion: flagged by a only
    ui.click(_show_difference(widget))  # A and B: a and b, the first two methods
    _wait_for_difference(qtbot, widget)
    result = widget.difference_result
    a, b = session.method("a").data, session.method("b").data
    assert {A_ONLY: result.a_only, B_ONLY: result.b_only, BOTH: result.both} == (
        _numpy_difference(a, b, 0.5, 0.7)
    )
    assert result.a_only == 27 and result.both == 0
    layer = widget.difference_layer
    np.testing.assert_array_equal(layer.data, result.labels)
    assert isinstance(layer.colormap, DirectLabelColormap)
    for value in (A_ONLY, B_ONLY, BOTH):
        np.testing.assert_allclose(
            layer.colormap.map(value), DirectLabelColormap(color_dict=DIFFERENCE_COLORS).map(value)
        )
    assert viewer.layers.index(layer) == viewer.layers.index(session.gt_layer) - 1
    assert ui.control(widget, "Voxels flagged by A only", QLabel).text() == "27 voxels"
    assert ui.control(widget, "Voxels flagged by both", QLabel).text() == "0 voxels"
    assert "a only" in ui.shown_texts(widget) and "b only" in ui.shown_texts(widget)
    assert session.method_names == ("a", "b")  # not a method


def test_difference_follows_thresholds_and_goes_away(compare, qtbot):
    viewer, widget = compare
    widget.show_difference("a", "b")
    _wait_for_difference(qtbot, widget)
    assert widget.difference_result.both == 27
    first = widget.difference_result
    widget.session.set_threshold("a", 0.95)
    _wait_for_difference(qtbot, widget, first)
    assert (widget.difference_result.b_only, widget.difference_result.both) == (27, 0)
    assert ui.control(widget, "Voxels flagged by B only", QLabel).text() == "27 voxels"
    ui.click(_show_difference(widget))
    assert widget.difference_layer is None
    assert not any(COMPARE_KEY in layer.metadata for layer in viewer.layers)
    ui.click(_show_difference(widget))
    _wait_for_difference(qtbot, widget)
    viewer.layers.remove(widget.difference_layer)  # deleting the layer unticks the box
    assert not _show_difference(widget).isChecked()


# --------------------------------------------------------------------------- screenshot


@needs_sample
def test_screenshot_of_the_grid(make_napari_viewer, qtbot, tmp_path):
    from napari_mood._napari.viewer import _close_notifications

    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Compare methods")
    viewer.window.resize(*SCREENSHOT_WINDOW_SIZE)
    focus_case(viewer, session)
    # the difference of two real (float16) maps at thresholds between float16 values
    session.set_threshold("residual", 0.3)
    session.set_threshold("oracle_noisy", 0.45)
    widget.show_difference("residual", "oracle_noisy")
    _wait_for_difference(qtbot, widget)
    result = widget.difference_result
    expected = _numpy_difference(
        session.method("residual").data, session.method("oracle_noisy").data, 0.3, 0.45
    )
    assert {A_ONLY: result.a_only, B_ONLY: result.b_only, BOTH: result.both} == expected
    assert min(expected.values()) > 0
    ui.click(_show_difference(widget))
    session.set_all_thresholds(0.5)
    ui.click(_button(widget, "Grid view"))
    viewer.reset_view()
    _close_notifications()
    qtbot.wait(100)
    path = tmp_path / "compare.png"
    image = viewer.screenshot(str(path), canvas_only=False)
    assert path.stat().st_size > 10_000
    assert image.shape[0] >= 700 and image.shape[1] >= 1200
    assert len(widget.grid.cells) == 3
    rows, cols = viewer.canvas.grid.shape
    assert rows * cols >= 3 and len(_vispy_canvas(viewer).grid_views) == rows * cols


def test_closing_the_widget_leaves_the_grid(compare, qtbot):
    viewer, widget = compare
    before = [layer.name for layer in viewer.layers]
    ui.click(_button(widget, "Grid view"))
    assert len(viewer.layers) == 8  # two helpers for the second cell, a colour bar a cell
    viewer.window.remove_dock_widget("all")
    widget.deleteLater()
    qtbot.waitUntil(lambda: not viewer.canvas.grid.enabled, timeout=2000)
    assert [layer.name for layer in viewer.layers] == before
