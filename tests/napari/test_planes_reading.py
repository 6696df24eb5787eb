"""The three planes as a reader uses them: panels' proxies, napari's grid, deleting layers,
2-D stacks, linked zoom and pan, the wheel and keys that page, window/level by right-drag.

Everything is driven through the real canvases with Qt mouse, wheel and key events
(under ``xvfb-run -a``); the positions asserted are computed from the camera, not read
back from napari's own mapping.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from qtpy.QtCore import QPoint, QPointF, Qt
from qtpy.QtGui import QWheelEvent
from qtpy.QtWidgets import QApplication, QCheckBox, QPushButton, QTableWidget

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.plane_marks import LETTER_POSITIONS
from napari_mood._napari.planes import planes_of, window_level
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui

SHOTS = Path()  # the running test's tmp_path: set by _shots_in_tmp_path


@pytest.fixture(autouse=True)
def _shots_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Screenshots go to the test's own tmp_path, never to a shared folder."""
    monkeypatch.setitem(globals(), "SHOTS", tmp_path)


def _role(layer) -> str | None:
    info = layer.metadata.get(METADATA_KEY)
    return info.get("role") if isinstance(info, dict) else None


def _canvas(viewer):
    return viewer.window._qt_viewer.canvas.native


def _shot(widget, name: str) -> None:
    if SHOTS.is_dir():
        widget.grab().save(str(SHOTS / name))


@pytest.fixture
def reading(make_napari_viewer, qtbot, mood_dataset: Path):
    """case_1 (methods a, b) with the planes docked as napari docks a panel (a proxy)."""

    def load(path: Path | None = None):
        viewer = make_napari_viewer(show=True)
        viewer.window.resize(1100, 800)
        _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
        assert isinstance(widget, PlanesWidget)
        widget.set_radiological(True)
        session = load_into_viewer(viewer, [path or mood_dataset / "toy" / "case_1.nii.gz"])
        qtbot.waitUntil(lambda: widget.planes.pending == 0, timeout=20_000)
        qtbot.wait(100)
        return viewer, session, widget, qtbot

    return load


def _wheel(widget, *, notches: int = 1, ctrl: bool = False) -> None:
    """A wheel turn over the middle of ``widget`` (QTest has no wheel)."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    modifiers = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        modifiers,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def _hover(qtbot, widget) -> None:
    centre = QPoint(widget.width() // 2, widget.height() // 2)
    for dx in (0, 3):
        qtbot.mouseMove(widget, centre + QPoint(dx, dx))
        qtbot.wait(20)


def _drag(qtbot, widget, button, start: QPoint, end: QPoint) -> None:
    qtbot.mousePress(widget, button, pos=start)
    for step in range(1, 6):
        qtbot.mouseMove(widget, start + (end - start) * step / 5)
        qtbot.wait(10)
    qtbot.mouseRelease(widget, button, pos=end)
    qtbot.wait(50)


# --------------------------------------------------------------------------- defect 8


def test_a_panels_proxy_finds_the_planes_and_objects_centre_zoomed_side_views(
    make_napari_viewer, qtbot
):
    """The Objects panel holds napari's proxy of the viewer: selecting a row must centre
    the zoomed coronal and sagittal views on the object (they stayed where they were)."""
    from napari.utils._proxies import PublicOnlyProxy

    viewer = make_napari_viewer(show=True)
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    session = load_into_viewer(viewer, [sample_data_dir() / "toy" / "brain_001.nii.gz"])
    _, objects = viewer.window.add_plugin_dock_widget("napari-mood", "Object matching")
    planes = widget.planes
    assert planes_of(PublicOnlyProxy(viewer)) == [planes]  # what every panel holds
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=30_000)
    qtbot.waitUntil(lambda: bool(objects.results) and not objects.busy, timeout=30_000)
    coronal, sagittal = planes.models["coronal"], planes.models["sagittal"]
    for model in (coronal, sagittal):
        model.scene.camera.zoom = 4 * float(model.scene.camera.zoom)  # zoomed in
    table = ui.control(objects, "Objects", QTableWidget)
    index = table.model().index(table.rowCount() - 1, 1)
    table.scrollTo(index)  # in view at any screen size, so the click lands on the row
    qtbot.mouseClick(
        table.viewport(), Qt.MouseButton.LeftButton, pos=table.visualRect(index).center()
    )
    qtbot.waitUntil(lambda: table.currentRow() == index.row(), timeout=5_000)
    method, record = objects.table_records()[table.currentRow()]
    world = session.method(method).layer.data_to_world(record.centroid_voxel)

    def centred() -> bool:
        return all(
            np.allclose(model.scene.camera.center[-2:], [world[a] for a in model.dims.displayed])
            for model in (coronal, sagittal)
        )

    qtbot.waitUntil(centred, timeout=10_000)


# --------------------------------------------------------------------------- defect 9


def _expected_world(viewer, canvas, cell: tuple[int, int], offset: tuple[int, int]):
    """Where a click ``offset`` pixels from the centre of grid ``cell`` lands, from the
    camera (every cell shows the camera's centre in its middle)."""
    rows, cols = viewer.canvas.grid.actual_shape(viewer.layers)
    width, height = canvas.width() / cols, canvas.height() / rows
    pixel = QPoint(
        int(width * (cell[1] + 0.5)) + offset[0], int(height * (cell[0] + 0.5)) + offset[1]
    )
    camera = viewer.scene.camera
    zoom = float(camera.zoom)
    vertical, horizontal = map(str, camera.orientation2d)
    row_axis, col_axis = viewer.dims.displayed
    world = {
        row_axis: camera.center[-2] + (1 if vertical == "down" else -1) * offset[1] / zoom,
        col_axis: camera.center[-1] + (1 if horizontal == "right" else -1) * offset[0] / zoom,
    }
    return pixel, world


def test_napari_grid_click_in_every_cell_moves_the_point_there(reading):
    viewer, session, widget, qtbot = reading()
    qtbot.mouseClick(
        viewer.window._qt_viewer.viewerButtons.gridViewButton, Qt.MouseButton.LeftButton
    )
    qtbot.wait(200)
    assert viewer.canvas.grid.enabled
    canvas = _canvas(viewer)
    data_layers = [layer for layer in viewer.layers if _role(layer) != "crosshair"]
    rows, cols = viewer.canvas.grid.actual_shape(viewer.layers)
    _, occupied = viewer.canvas.grid._viewbox_groups(viewer.layers)
    assert len(occupied) == len(data_layers), "the crosshair takes a cell of its own"
    for key in (f"napari_mood_letter_{p}" for p in LETTER_POSITIONS):
        assert viewer.canvas.overlays[key].gridded  # the letters in every cell
    scan = session.scan_layer
    # a side view's slider snaps the point to a slice; the expected place is known to a pixel
    tolerance = float(np.max(scan.scale)) / 2 + 1 / float(viewer.scene.camera.zoom)
    for index in range(len(data_layers)):
        cell = divmod(index, cols)
        pixel, world = _expected_world(viewer, canvas, cell, (9, -7))
        qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=pixel)
        qtbot.wait(30)
        for axis, value in world.items():
            assert viewer.dims.point[axis] == pytest.approx(value, abs=tolerance), (cell, axis)
    _shot(canvas, "grid_napari.png")
    qtbot.mouseClick(
        viewer.window._qt_viewer.viewerButtons.gridViewButton, Qt.MouseButton.LeftButton
    )
    qtbot.wait(100)
    crosshair = next(layer for layer in viewer.layers if _role(layer) == "crosshair")
    assert crosshair.visible  # back out of the grid: the crosshair is drawn again


# --------------------------------------------------------------------------- defect 12


def test_deleting_every_layer_bottom_first_raises_nothing(reading, mood_dataset: Path):
    viewer, session, widget, qtbot = reading()
    for layer in list(viewer.layers):  # as a script or the layer list removing them in turn
        viewer.layers.remove(layer)
    qtbot.wait(50)
    assert len(viewer.layers) == 0
    load_into_viewer(viewer, [mood_dataset / "toy" / "case_0.nii.gz"])
    qtbot.waitUntil(lambda: widget.planes.pending == 0, timeout=20_000)
    qtbot.wait(50)
    assert [_role(layer) for layer in viewer.layers].count("crosshair") == 1  # back


def test_a_stack_of_2d_slices_gets_a_message_not_side_views(reading):
    viewer, session, widget, qtbot = reading()  # a volume first: radiological, mirrored
    assert tuple(map(str, viewer.scene.camera.orientation2d)) == ("down", "left")
    viewer.layers.clear()
    viewer.open(str(sample_data_dir() / "nova"), plugin="napari-mood")
    qtbot.wait(200)
    widget.planes.flush()
    qtbot.wait(50)
    assert "2-D slices" in widget.stack_message
    assert all(len(model.layers) == 0 for model in widget.planes.models.values())
    assert not any(_role(layer) == "crosshair" for layer in viewer.layers)
    letters = [viewer.canvas.overlays[f"napari_mood_letter_{p}"].text for p in LETTER_POSITIONS]
    assert letters == ["", "", "", ""]  # no A/P/R/L on a photograph of a slice
    assert tuple(map(str, viewer.scene.camera.orientation2d)) == ("down", "right")  # unmirrored
    _shot(viewer.window._qt_window, "planes_nova_stack.png")


# --------------------------------------------------------------------------- reading habits


def _zooms(planes) -> list[float]:
    return [float(model.scene.camera.zoom) for model in planes.views]


def _settle(qtbot, planes) -> None:
    """Wait until the views are fitted (at one scale) and no late fit changes a zoom."""
    qtbot.waitUntil(lambda: planes.pending == 0)  # every side view has its layers: fitted after
    seen = [_zooms(planes), _zooms(planes)]

    def still() -> bool:  # the same zooms three times over 0.6 s: the window laid out
        qtbot.wait(200)
        seen.append(_zooms(planes))
        return seen[-1] == seen[-2] == seen[-3] and max(seen[-1]) - min(seen[-1]) < 1e-9

    qtbot.waitUntil(still, timeout=10_000)


def test_zoom_and_pan_are_linked_across_the_three_views(reading):
    viewer, session, widget, qtbot = reading()
    planes = widget.planes
    coronal, sagittal = planes.models["coronal"], planes.models["sagittal"]
    assert ui.control(widget, "Link zoom/pan", QCheckBox).isChecked()  # on by default
    _settle(qtbot, planes)
    before = _zooms(planes)
    _wheel(widget.canvas("coronal"), notches=2, ctrl=True)  # Ctrl + wheel zooms a side view
    zoomed = [z * 1.25**2 for z in before]
    qtbot.waitUntil(lambda: _zooms(planes) == pytest.approx(zoomed, rel=1e-6))
    canvas = _canvas(viewer)
    centre = QPoint(canvas.width() // 2, canvas.height() // 2)
    _drag(qtbot, canvas, Qt.MouseButton.LeftButton, centre, centre + QPoint(40, 30))
    qtbot.wait(100)  # napari reads the pan back from vispy when it draws
    main = viewer.scene.camera.center
    assert coronal.scene.camera.center[-1] == pytest.approx(main[-1])  # R: shared with axial
    assert sagittal.scene.camera.center[-1] == pytest.approx(main[-2])  # A: shared with axial
    _shot(widget, "planes_linked_zoom.png")
    ui.click(ui.control(widget, "Link zoom/pan", QCheckBox))
    assert not planes.linked
    zoom = float(viewer.scene.camera.zoom)
    _wheel(widget.canvas("sagittal"), ctrl=True)
    qtbot.wait(50)
    assert float(viewer.scene.camera.zoom) == pytest.approx(zoom)  # unlinked: alone


def test_wheel_pages_a_side_view_and_keys_page_the_view_under_the_pointer(reading):
    viewer, session, widget, qtbot = reading()
    planes = widget.planes
    sagittal = planes.models["sagittal"]
    zoom = float(sagittal.scene.camera.zoom)
    step = viewer.dims.current_step
    _wheel(widget.canvas("sagittal"))  # no modifier: the next sagittal slice
    qtbot.wait(30)
    assert viewer.dims.current_step[2] == step[2] + 1
    assert float(sagittal.scene.camera.zoom) == pytest.approx(zoom)  # not zoomed
    canvas = _canvas(viewer)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton)  # the keyboard on the main canvas
    step = viewer.dims.current_step
    _hover(qtbot, widget.canvas("coronal"))
    qtbot.keyClick(canvas, Qt.Key.Key_Up)
    assert viewer.dims.current_step[1] == step[1] + 1  # the coronal view's slice
    qtbot.keyClick(canvas, Qt.Key.Key_PageDown)
    assert viewer.dims.current_step[1] == max(step[1] + 1 - 5, 0)
    assert viewer.dims.current_step[0] == step[0]  # the axial slice did not move


def test_right_drag_sets_window_and_level_of_the_scan_in_every_view(reading):
    viewer, session, widget, qtbot = reading()
    scan = session.scan_layer
    opened = tuple(scan.contrast_limits)
    low, high = scan.contrast_limits_range
    coronal_canvas = widget.canvas("coronal")
    _settle(qtbot, widget.planes)
    zoom = float(widget.planes.models["coronal"].scene.camera.zoom)
    start = QPoint(coronal_canvas.width() // 2, coronal_canvas.height() // 2)
    _drag(qtbot, coronal_canvas, Qt.MouseButton.RightButton, start, start + QPoint(-40, 20))
    expected = window_level(opened, (-40, 20), span=high - low)
    assert tuple(scan.contrast_limits) == pytest.approx(expected, rel=1e-4)
    for model in widget.planes.models.values():
        copy = next(layer for layer in model.layers if _role(layer) == "scan")
        assert tuple(copy.contrast_limits) == pytest.approx(expected, rel=1e-4)
    assert float(widget.planes.models["coronal"].scene.camera.zoom) == pytest.approx(zoom)
    _shot(viewer.window._qt_window, "planes_window_level.png")
    ui.click(ui.control(widget, "Reset W/L", QPushButton))
    assert tuple(scan.contrast_limits) == pytest.approx(opened)


def test_compare_grid_colour_bars_read_scores_0_to_1_and_clicks_land_in_every_cell(
    make_napari_viewer, qtbot
):
    """The binary map at its best threshold (contrast limits 0.9998-1.0008): its cell's
    colour bar reads 0..1 and shows the colour the map draws a 1 in."""
    from napari_mood.core.scores import display_threshold

    viewer = make_napari_viewer(show=True)
    viewer.window.resize(1280, 900)
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    session = load_into_viewer(viewer, [sample_data_dir() / "toy" / "brain_001.nii.gz"])
    _, compare = viewer.window.add_plugin_dock_widget("napari-mood", "Compare methods")
    qtbot.waitUntil(lambda: widget.planes.pending == 0, timeout=30_000)
    session.set_threshold("binary", display_threshold(1.0))
    ui.click(ui.control(compare, "Grid view", QPushButton))
    qtbot.wait(300)
    grid = compare.grid
    assert grid.enabled
    _, occupied = viewer.canvas.grid._viewbox_groups(viewer.layers)
    assert len(occupied) == len(session.method_names)  # no cell for the crosshair
    binary = session.method("binary").layer
    low, high = binary.contrast_limits
    assert high - low < 0.01  # napari's own bar would read 0.9998 .. 1.0008
    for name, legend in grid.legends.items():
        layer = session.method(name).layer
        assert legend.face_colorbar.visible and not layer.colorbar.visible
        assert tuple(legend._face.contrast_limits) == (0.0, 1.0)  # the bar reads 0..1
        top = legend._face.continuous_colormap.map(np.asarray([1.0]))[0]
        lo, hi = layer.contrast_limits
        drawn = layer.colormap.map(np.asarray([min((1.0 - lo) / (hi - lo), 1.0)]))[0]
        np.testing.assert_allclose(top, drawn, atol=0.02)  # a score of 1: the same colour
    canvas = _canvas(viewer)
    rows, cols = viewer.canvas.grid.actual_shape(viewer.layers)
    # the point may snap to the nearest voxel centre; the expected place is known to a pixel
    pixel_mm = 1 / float(viewer.scene.camera.zoom)
    tolerance = float(np.max(session.scan_layer.scale)) / 2 + pixel_mm
    for index in range(len(occupied)):
        pixel, world = _expected_world(viewer, canvas, divmod(index, cols), (12, 8))
        qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=pixel)
        qtbot.wait(30)
        for axis, value in world.items():
            assert viewer.dims.point[axis] == pytest.approx(value, abs=tolerance), (index, axis)
    _shot(canvas, "grid_compare.png")
    session.set_threshold("binary", 0.5)  # the bar follows the threshold
    qtbot.wait(50)
    legend = grid.legends["binary"]
    assert legend._face.continuous_colormap.map(np.asarray([0.4]))[0][3] == 0  # not drawn
    assert legend._face.continuous_colormap.map(np.asarray([0.6]))[0][3] > 0
    ui.click(ui.control(compare, "Overlay view", QPushButton))
    assert all(legend not in viewer.layers for legend in grid.legends.values())


# The reading layout (napari's canvas and three docked panes): tests/napari/test_reading_layout.py
