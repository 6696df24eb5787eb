"""Reading tools: window/level presets per modality, a ruler in mm, ROI statistics.

Each test opens a toy case in a real viewer with the three planes and the tools docked and
checks the numbers against numpy by hand.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood._napari.widgets.reading_tools import ReadingToolsWidget, saved_preset
from tests.conftest import write_nifti
from tests.napari.conftest import AFFINE, SHAPE


@pytest.fixture
def tools_on(make_napari_viewer, qtbot):
    """Open ``path`` with the planes and the tools docked (called inside the test)."""

    def load(path: Path):
        viewer = make_napari_viewer(show=True)
        _, planes = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
        _, tools = viewer.window.add_plugin_dock_widget("napari-mood", "Reading tools")
        assert isinstance(planes, PlanesWidget) and isinstance(tools, ReadingToolsWidget)
        session = load_into_viewer(viewer, [path])
        qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
        return viewer, session, planes, tools, qtbot

    return load


def _ct(tmp_path: Path, name: str) -> Path:
    scan = np.random.default_rng(0).normal(40, 30, SHAPE).astype(np.float32)
    scan[0] = -1024.0  # air
    return write_nifti(tmp_path / "ct" / "toy" / name, scan, AFFINE)


def _wait(tools, qtbot) -> None:
    qtbot.waitUntil(lambda: not tools.busy, timeout=30_000)


def test_an_mri_case_gets_percentile_windows(tools_on, mood_dataset):
    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    assert tools.modality == "MRI" and tools.presets[0] == "1-99 %"
    tools.choose_preset("0.5-99.5 %")
    expected = np.percentile(session.scan_data, [0.5, 99.5])
    qtbot.waitUntil(
        lambda: np.allclose(session.scan_layer.contrast_limits, expected), timeout=30_000
    )
    assert saved_preset("MRI") == "0.5-99.5 %"


def test_a_ct_window_is_remembered_for_the_next_ct_case(tools_on, tmp_path):
    viewer, session, planes, tools, qtbot = tools_on(_ct(tmp_path, "a.nii.gz"))
    assert tools.modality == "CT" and "lung" in tools.presets
    tools.choose_preset("bone")  # level 400, width 1800
    qtbot.waitUntil(
        lambda: tuple(session.scan_layer.contrast_limits) == (-500, 1300), timeout=30_000
    )
    first = session.case
    load_into_viewer(viewer, [_ct(tmp_path, "b.nii.gz")])
    qtbot.waitUntil(lambda: session.case not in (None, first), timeout=30_000)
    qtbot.waitUntil(
        lambda: tuple(session.scan_layer.contrast_limits) == (-500, 1300), timeout=30_000
    )
    assert saved_preset("CT") == "bone" and saved_preset("MRI") is None


def test_shift_w_over_the_canvas_steps_to_the_next_preset(tools_on, mood_dataset):
    from qtpy.QtCore import Qt

    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    canvas = viewer.window._qt_viewer.canvas.native
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_W, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: saved_preset("MRI") == tools.presets[1], timeout=30_000)


@pytest.mark.parametrize("pane", ["axial", "coronal", "sagittal"])
def test_a_ruler_states_its_length_in_mm_in_its_own_pane(tools_on, mood_dataset, pane):
    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    layer = tools.start("ruler", pane)
    model = viewer if pane == "axial" else planes.planes.models[pane]
    assert layer in model.layers and model.layers.selection.active is layer
    assert layer.mode == "add_line"
    point = session.scan_layer.world_to_data(viewer.dims.point)
    rows, cols = model.dims.displayed[-2:]
    start, end = np.array(point, float), np.array(point, float)
    start[[rows, cols]] = (1, 1)
    end[[rows, cols]] = (4, 5)
    layer.add_lines(np.stack([start, end]))
    spacing = np.abs(session.scan_layer.scale)
    expected = np.hypot(3 * spacing[rows], 4 * spacing[cols])
    qtbot.waitUntil(lambda: list(layer.features["length"]) == [f"{expected:.1f} mm"])
    others = [viewer, *planes.planes.models.values()]
    assert all(layer not in m.layers for m in others if m is not model)  # never mirrored
    tools.stop()
    assert layer.mode == "pan_zoom" and not layer.editable


def test_an_roi_box_gives_the_mean_max_and_flagged_voxels_numpy_gives(tools_on, mood_dataset):
    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    layer = tools.start("box")
    z = session.slice_index
    axis = session.slice_axis
    assert axis == 0
    corners = np.array([[z, 5.5, 4.5], [z, 5.5, 7.5], [z, 8.5, 7.5], [z, 8.5, 4.5]], float)
    layer.add_rectangles(corners)
    qtbot.waitUntil(lambda: len(tools.roi_rows) == 3, timeout=30_000)
    _wait(tools, qtbot)
    inside = (z, slice(6, 9), slice(5, 8))
    scan = np.asarray(session.scan_data)[inside]
    rows = {row[0]: row for row in tools.roi_rows}
    assert rows[session.scan_layer.name][1:] == (f"{scan.mean():.4g}", f"{scan.max():.4g}", "")
    for name in ("a", "b"):
        method = session.method(name)
        values = np.asarray(method.data)[inside]
        flagged = int(np.count_nonzero(values.astype(np.float16) >= np.float16(method.threshold)))
        assert rows[name][1:] == (f"{values.mean():.3f}", f"{values.max():.3f}", str(flagged))
    spacing = np.abs(session.scan_layer.scale)
    area = 9 * spacing[1] * spacing[2]
    assert f"9 voxels on the slice: {area:.1f} mm²" in tools.roi_size
    session.set_threshold("a", 0.95)  # above a's 0.9: nothing flagged
    qtbot.waitUntil(lambda: {r[0]: r for r in tools.roi_rows}["a"][3] == "0", timeout=30_000)


def test_an_roi_ellipse_in_a_side_view_is_measured_on_that_slice(tools_on, mood_dataset):
    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    layer = tools.start("ellipse", "sagittal")
    model = planes.planes.models["sagittal"]
    rows, cols = model.dims.displayed[-2:]
    fixed = ({0, 1, 2} - {rows, cols}).pop()
    point = np.round(session.scan_layer.world_to_data(viewer.dims.point))
    corners = np.tile(point, (4, 1))
    corners[:, [rows, cols]] = [[1, 1], [1, 5], [5, 5], [5, 1]]  # centre (3, 3), radius 2
    layer.add_ellipses(corners)
    qtbot.waitUntil(lambda: bool(tools.roi_rows), timeout=30_000)
    _wait(tools, qtbot)
    r, c = np.mgrid[0:7, 0:7]
    disc = (r - 3) ** 2 + (c - 3) ** 2 <= 4
    assert tools.roi_size.startswith(f"{int(disc.sum())} voxels on the slice")
    index: list = [slice(None)] * 3
    index[fixed] = int(point[fixed])
    plane = np.asarray(session.scan_data)[tuple(index)][:7, :7]
    scan_row = tools.roi_rows[0]
    assert scan_row[1] == f"{plane[disc].mean():.4g}"


def test_clear_removes_every_shape_and_a_new_case_starts_empty(tools_on, mood_dataset):
    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    layer = tools.start("box")
    z = session.slice_index
    layer.add_rectangles(np.array([[z, 0, 0], [z, 0, 3], [z, 3, 3], [z, 3, 0]], float))
    qtbot.waitUntil(lambda: bool(tools.roi_rows), timeout=30_000)
    load_into_viewer(viewer, [mood_dataset / "toy" / "case_0.nii.gz"])
    qtbot.waitUntil(lambda: len(layer.data) == 0 and not tools.roi_rows, timeout=30_000)
    tools.stop()
    ruler = tools.start("ruler")
    ruler.add_lines(np.array([[z, 0, 0], [z, 3, 3]], float))
    tools._clear.click()
    assert len(ruler.data) == 0 and not ruler.editable


@pytest.mark.parametrize("first, second", [("box", "ellipse"), ("box", "box"), ("ruler", "ruler")])
def test_a_tool_used_again_draws_instead_of_panning(tools_on, mood_dataset, first, second):
    """The walk-through (issue 46) clicked ROI box, drew, then ROI ellipse: the drag panned.

    The shared layer, made read-only when the first tool ended, was made editable again
    and at once put back to read-only (the tool was not marked active yet), so napari
    kept it in pan/zoom and a drag moved the view instead of drawing.
    """
    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    tools.start(first)
    if first == second:
        tools.stop()
    layer = tools.start(second)
    mode = {"ruler": "add_line", "box": "add_rectangle", "ellipse": "add_ellipse"}[second]
    assert layer.editable and layer.mode == mode
    tools.stop()
    assert layer.mode == "pan_zoom" and not layer.editable


def test_shift_w_in_a_side_view_steps_to_the_next_preset(tools_on, mood_dataset):
    """A side view is a viewer of its own: the viewer's Shift+W reaches it too."""
    from qtpy.QtCore import Qt

    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    canvas = planes.canvas("coronal")
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton)
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_W, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: saved_preset("MRI") == tools.presets[1], timeout=30_000)
    expected = np.percentile(session.scan_data, [0.5, 99.5])
    qtbot.waitUntil(
        lambda: np.allclose(session.scan_layer.contrast_limits, expected), timeout=30_000
    )


def test_the_reading_layout_offers_the_tools_in_a_strip_wired_to_the_panel(tools_on, mood_dataset):
    """The panel is hidden there: its strip chooses presets and tools and shows the ROI."""
    from qtpy.QtCore import QPoint, Qt
    from qtpy.QtWidgets import QApplication, QComboBox, QLabel, QPushButton, QToolBar

    from napari_mood._napari.reading_layout import STRIPS_OBJECT_NAME, pane_sizes_equal

    viewer, session, planes, tools, qtbot = tools_on(mood_dataset / "toy" / "case_1.nii.gz")
    viewer.window.resize(1280, 1024)
    window = viewer.window._qt_window
    canvas = viewer.window._qt_viewer.canvas.native
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    modifiers = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(canvas, Qt.Key.Key_L, modifiers)
    assert planes.reading_layout and not tools.isVisible()
    strips = window.findChild(QToolBar, STRIPS_OBJECT_NAME)
    assert strips is not None
    qtbot.waitUntil(strips.isVisible, timeout=5_000)
    preset = next(c for c in strips.findChildren(QComboBox) if c.isVisible())
    assert [preset.itemText(i) for i in range(preset.count())] == tools.presets
    summary = strips.findChild(QLabel, "reading-tools-strip-summary")
    assert summary.text() == "No ROI"
    qtbot.waitUntil(
        lambda: not planes._layout.sizing and pane_sizes_equal(planes._panes()), timeout=60_000
    )

    preset.activated.emit(1)  # as a reader's choice in the list
    qtbot.waitUntil(lambda: saved_preset("MRI") == tools.presets[1], timeout=30_000)
    assert tools._preset.currentIndex() == 1
    qtbot.keyClick(canvas, Qt.Key.Key_W, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: preset.currentIndex() == 2, timeout=30_000)  # the panel's, shown

    box = strips.findChild(QPushButton, "reading-tools-strip-box")
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    layer = tools.layer("roi")
    assert layer is not None and layer.mode == "add_rectangle" and tools._buttons["box"].isChecked()
    z = session.slice_index
    corners = np.array([[z, 5.5, 4.5], [z, 5.5, 7.5], [z, 8.5, 7.5], [z, 8.5, 4.5]], float)
    layer.add_rectangles(corners)
    qtbot.waitUntil(lambda: summary.text().startswith("ROI "), timeout=30_000)
    _wait(tools, qtbot)
    assert " a max " in summary.text() and "flagged" in summary.text()
    assert all(row[0] in summary.toolTip() for row in tools.roi_rows)
    ruler = strips.findChild(QPushButton, "reading-tools-strip-ruler")
    qtbot.mouseClick(ruler, Qt.MouseButton.LeftButton)
    assert ruler.isChecked() and not box.isChecked() and tools._buttons["ruler"].isChecked()
    qtbot.mouseClick(ruler, Qt.MouseButton.LeftButton)
    assert not tools._buttons["ruler"].isChecked()
    assert pane_sizes_equal(planes._panes())
