"""The 3-D view: the maps over the scan, letters that follow the camera, coarse while moving."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.planes import THREE_D, LinkedPlanes
from napari_mood._napari.session import get_session
from napari_mood._napari.three_d import camera_letters, moving_step, small_size, volume_nodes
from napari_mood._napari.viewer import load_into_viewer
from tests.conftest import write_nifti
from tests.napari.conftest import AFFINE, SHAPE

pytestmark = pytest.mark.gui


def _saturated(shot: np.ndarray) -> np.ndarray:
    """Pixels of a colour (a map's), not grey (the scan) or black."""
    rgb = shot[..., :3].astype(int)
    return (rgb.max(axis=-1) - rgb.min(axis=-1)) > 60


def _scene(viewer):
    return viewer.window._qt_viewer.canvas._scene_canvas


def _method_colour(layer) -> np.ndarray:
    colour = layer.metadata[METADATA_KEY]["color"]
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])


def test_a_map_hot_inside_the_scan_shows_in_3d(mood_dataset: Path, make_napari_viewer, qtbot):
    """The lesion's map voxels lie inside the scan's volume: drawn over it, not hidden."""
    shell = np.full(SHAPE, 0.2, np.float32)  # a head: its surface brightest (skin, skull)
    shell[1:-1, 1:-1, 1:-1] = 0.1
    write_nifti(mood_dataset / "toy" / "case_1.nii.gz", shell, AFFINE)
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [mood_dataset])
    for layer in viewer.layers:  # the scan and one map: the colour seen is that map's
        layer.visible = layer is session.scan_layer or layer is session.method("a").layer
    viewer.dims.ndisplay = 3
    viewer.reset_view()
    qtbot.waitUntil(lambda: not session.sharpening, timeout=30_000)
    detail = session.moving_detail  # still: drawn sharp (and a small volume moves sharp too)
    qtbot.waitUntil(lambda: not detail.moving, timeout=30_000)
    shot = viewer.screenshot(canvas_only=True, flash=False)
    coloured = _saturated(shot)
    assert coloured.sum() > 20, "no map colour in the 3-D view"
    mean = shot[..., :3][coloured].mean(axis=0)
    colour = _method_colour(session.method("a").layer)
    assert np.argmax(mean) == np.argmax(colour)  # the map's own hue


@pytest.mark.parametrize("angles", [(0.0, 0.0, 90.0), (0.0, 0.0, -90.0), (0.0, 180.0, 90.0)])
def test_3d_letters_name_the_side_the_patient_right_is_drawn(make_napari_viewer, qtbot, angles):
    """A bright slab on the patient's right (high display axis 2): its side's letter is R."""
    viewer = make_napari_viewer(show=True)
    volume = np.zeros((20, 20, 20), np.float32)
    volume[:, :, 16:] = 1.0
    viewer.add_image(volume, colormap="blue", name="right side")
    planes = LinkedPlanes(viewer)  # the radiological convention (R drawn on the left in 2-D)
    viewer.dims.ndisplay = 3
    viewer.scene.camera.angles = angles
    viewer.reset_view()
    shot = viewer.screenshot(canvas_only=True, flash=False)[..., :3].astype(int)
    blue = (shot[..., 2] > 100) & (shot[..., 0] < 60) & (shot[..., 1] < 60)
    columns = np.nonzero(blue.any(axis=0))[0]
    slab_column = np.nonzero(blue.sum(axis=0) == blue.sum(axis=0).max())[0].mean()
    assert columns.size
    top, bottom, left, right = camera_letters(viewer)
    drawn_right = slab_column > (columns.min() + columns.max()) / 2
    assert (right if drawn_right else left) == "R"
    assert {top, bottom} in ({"S", "I"}, {"A", "P"})  # one other axis up and down
    shown = [viewer.canvas.overlays[k].text for k in viewer.canvas.overlays if "letter" in k]
    assert sorted(shown) == sorted((top, bottom, left, right))  # drawn on the canvas
    planes.close()


def test_3d_letters_follow_the_camera_and_leave_in_2d(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    viewer.add_image(np.zeros((8, 8, 8), np.float32))
    planes = LinkedPlanes(viewer, convention="neurological")
    viewer.dims.ndisplay = 3
    viewer.scene.camera.angles = (0.0, 0.0, 0.0)  # from above (superior), anterior up
    texts = {k: o.text for k, o in viewer.canvas.overlays.items() if "letter" in k}
    assert texts["napari_mood_letter_top_center"] == "A"
    assert {texts["napari_mood_letter_middle_left"], texts["napari_mood_letter_middle_right"]} == {
        "R",
        "L",
    }
    viewer.scene.camera.angles = (0.0, 0.0, 90.0)
    assert viewer.canvas.overlays["napari_mood_letter_top_center"].text in ("S", "I")
    viewer.dims.ndisplay = 2
    assert viewer.canvas.overlays["napari_mood_letter_top_center"].text == "A"  # axial again
    planes.close()


def test_a_turning_3d_view_is_coarse_and_sharp_once_still(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    session = get_session(viewer)
    rng = np.random.default_rng(0)
    viewer.add_image(rng.random((64, 64, 64), dtype=np.float32))  # coarse: 2 voxels a step
    viewer.add_image(rng.random((64, 64, 64), dtype=np.float32), blending="additive")
    viewer.dims.ndisplay = 3
    qtbot.waitUntil(lambda: not session.sharpening, timeout=30_000)
    viewer.screenshot(canvas_only=True, flash=False)
    detail = session.moving_detail
    qtbot.waitUntil(lambda: not detail.moving, timeout=30_000)
    sharp = {id(n): n.relative_step_size for n in volume_nodes(_scene(viewer))}
    assert len(sharp) == 2 and all(step < moving_step((64,) * 3) for step in sharp.values())

    with qtbot.waitSignal(detail.moving_changed, timeout=30_000) as went:
        viewer.scene.camera.angles = (10.0, 20.0, 80.0)  # what a rotate drag's mouse move sets
    assert went.args == [True] and detail.moving
    for node in volume_nodes(_scene(viewer)):  # coarse, or sharp already when small
        step = max(sharp[id(node)], moving_step(node._vol_shape))
        assert node.relative_step_size == pytest.approx(step)
    with qtbot.waitSignal(detail.moving_changed, timeout=30_000) as settled:
        pass
    assert settled.args == [False] and not detail.moving
    assert {id(n): n.relative_step_size for n in volume_nodes(_scene(viewer))} == sharp


def _bright_box(shot: np.ndarray) -> np.ndarray:
    rows, cols = np.nonzero(shot[..., :3].max(axis=-1) > 60)
    return np.array([rows.min(), rows.max(), cols.min(), cols.max()])


def test_a_moving_3d_view_draws_fewer_pixels_in_place_and_sharp_ones_once_still(
    make_napari_viewer, qtbot
):
    """While moving, the frame is drawn small and stretched over the canvas: the volume
    where the sharp frame has it (vispy's own small render drew a corner of it, 3x big);
    once still, the frame is the sharp one again, pixel for pixel."""
    viewer = make_napari_viewer(show=True)
    session = get_session(viewer)
    volume = np.zeros((64, 64, 64), np.float32)
    volume[16:48, 8:40, 20:60] = 1.0
    viewer.add_image(volume)
    viewer.dims.ndisplay = 3
    qtbot.waitUntil(lambda: not session.sharpening, timeout=30_000)
    detail = session.moving_detail
    qtbot.waitUntil(lambda: not detail.moving, timeout=30_000)
    sharp = viewer.screenshot(canvas_only=True, flash=False)
    scene = _scene(viewer)
    assert small_size(scene.physical_size) < tuple(scene.physical_size)
    zoom = viewer.scene.camera.zoom
    with qtbot.waitSignal(detail.moving_changed, timeout=30_000):
        viewer.scene.camera.zoom = zoom * 1.0001  # a move (the picture as good as still)
    viewer.scene.camera.zoom = zoom
    moving = viewer.screenshot(canvas_only=True, flash=False)  # the canvas's own frame
    assert detail.moving
    factor = scene.physical_size[0] / small_size(scene.physical_size)[0]
    assert np.abs(_bright_box(moving) - _bright_box(sharp)).max() <= factor + 2
    assert not np.array_equal(moving, sharp)  # drawn coarse
    with qtbot.waitSignal(detail.moving_changed, timeout=30_000) as settled:
        pass
    assert settled.args == [False]
    np.testing.assert_array_equal(viewer.screenshot(canvas_only=True, flash=False), sharp)


def test_a_held_mouse_keeps_the_3d_view_coarse(mood_dataset: Path, make_napari_viewer, qtbot):
    """A drag paused with the button down stays coarse; the release sharpens it."""
    from types import SimpleNamespace

    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [mood_dataset])
    viewer.dims.ndisplay = 3
    viewer.screenshot(canvas_only=True, flash=False)
    detail = session.moving_detail
    qtbot.waitUntil(lambda: not detail.moving, timeout=30_000)
    event = SimpleNamespace(type="mouse_press")
    drag = detail._on_mouse_drag(viewer, event)
    next(drag)  # the press
    assert detail.moving
    event.type = "mouse_move"
    next(drag)
    viewer.scene.camera.angles = (5.0, 5.0, 85.0)
    qtbot.wait(800)  # longer than SETTLE_MS: still held, still coarse
    assert detail.moving
    event.type = "mouse_release"
    with qtbot.waitSignal(detail.moving_changed, timeout=30_000) as settled:
        with pytest.raises(StopIteration):
            next(drag)
    assert settled.args == [False]


def _reading_layout_with_3d_pane(viewer, qtbot, paths: list[Path]) -> tuple[Any, Any]:
    """Every panel docked, ``paths`` loaded, then the 3-D pane and the reading layout on:
    the Three planes panel and the session."""
    from napari_mood._napari.docking import dock_plugin_widgets
    from napari_mood._napari.widgets.planes import READING_ACTION, PlanesWidget

    widgets = dock_plugin_widgets(viewer)
    planes = next(w for w in widgets if isinstance(w, PlanesWidget))
    session = load_into_viewer(viewer, paths)
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=60_000)
    planes._tools["three_d"].setChecked(True)  # the "3-D pane" box
    next(a for a in viewer.window.view_menu.actions() if a.text() == READING_ACTION).trigger()
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=60_000)
    return planes, session


def test_the_reading_layouts_3d_pane_turns_coarse_too(
    mood_dataset: Path, make_napari_viewer, qtbot
):
    viewer = make_napari_viewer(show=True)
    case = [mood_dataset / "toy" / "case_1.nii.gz"]
    planes, _ = _reading_layout_with_3d_pane(viewer, qtbot, case)
    model = planes.planes.models[THREE_D]
    detail = planes.planes.moving_detail(THREE_D)
    assert detail is not None and get_session(viewer).moving_detail is not detail
    planes.view(THREE_D).canvas._scene_canvas.render()  # its volumes are drawn
    with qtbot.waitSignal(detail.moving_changed, timeout=30_000) as went:
        model.scene.camera.angles = (10.0, 20.0, 80.0)
    assert went.args == [True]
    qtbot.waitUntil(lambda: not detail.moving, timeout=30_000)
    assert "" not in [model.canvas.overlays[k].text for k in model.canvas.overlays if "letter" in k]


def _rotate_drag(qtbot, widget) -> None:
    """A left-button drag across the middle of ``widget``, as a reader turns a 3-D view."""
    from qtpy.QtCore import QPoint, Qt

    start = QPoint(widget.width() // 2, widget.height() // 2)
    qtbot.mousePress(widget, Qt.MouseButton.LeftButton, pos=start)
    for step in range(1, 9):
        qtbot.mouseMove(widget, start + QPoint(12 * step, 4 * step))
        qtbot.wait(10)
    qtbot.mouseRelease(widget, Qt.MouseButton.LeftButton, pos=start + QPoint(96, 32))


def test_3d_letters_follow_a_rotate_drag_of_the_mouse(make_napari_viewer, qtbot):
    """A real drag on the canvas turns the camera: the edge letters name the new edges."""
    viewer = make_napari_viewer(show=True)
    viewer.add_image(np.zeros((20, 20, 20), np.float32))
    planes = LinkedPlanes(viewer)
    viewer.dims.ndisplay = 3
    viewer.scene.camera.angles = (0.0, 0.0, 90.0)
    viewer.screenshot(canvas_only=True, flash=False)  # drawn: the drag turns what is seen
    before = camera_letters(viewer)
    canvas = viewer.window._qt_viewer.canvas._scene_canvas.native
    for _ in range(3):  # 3 drags: about 90 degrees, other patient directions at the edges
        _rotate_drag(qtbot, canvas)
    viewer.screenshot(canvas_only=True, flash=False)
    qtbot.waitUntil(lambda: camera_letters(viewer) != before, timeout=30_000)

    def shown() -> list[str]:
        overlays = viewer.canvas.overlays
        return sorted(overlays[k].text for k in overlays if "letter" in k)

    qtbot.waitUntil(lambda: shown() == sorted(camera_letters(viewer)), timeout=30_000)
    planes.close()


def test_the_3d_panes_letters_follow_a_rotate_drag_of_the_mouse(
    mood_dataset: Path, make_napari_viewer, qtbot
):
    viewer = make_napari_viewer(show=True)
    case = [mood_dataset / "toy" / "case_1.nii.gz"]
    planes, _ = _reading_layout_with_3d_pane(viewer, qtbot, case)
    model = planes.planes.models[THREE_D]
    scene = planes.view(THREE_D).canvas._scene_canvas
    scene.render()  # drawn: the drag turns what is seen
    before = camera_letters(model)
    for _ in range(3):
        _rotate_drag(qtbot, scene.native)
    qtbot.waitUntil(lambda: camera_letters(model) != before, timeout=30_000)

    def shown() -> list[str]:
        overlays = model.canvas.overlays
        return sorted(overlays[k].text for k in overlays if "letter" in k)

    qtbot.waitUntil(lambda: shown() == sorted(camera_letters(model)), timeout=30_000)


def test_the_reading_layouts_3d_pane_shows_the_whole_volume_in_its_middle(
    make_napari_viewer, qtbot
):
    """The volume's projected corners lie inside the pane, around its centre (it was
    framed low, its bottom cut: the camera centred on the first layer napari saw)."""
    from napari_mood._napari.sample_data import sample_data_dir

    viewer = make_napari_viewer(show=True)
    viewer.window.resize(1280, 1024)  # Xvfb's default screen
    # the sample data: a brain, 94 x 116 x 98
    planes, session = _reading_layout_with_3d_pane(viewer, qtbot, [sample_data_dir()])
    view = planes.view(THREE_D)
    scene = view.canvas._scene_canvas
    scene.render()
    model = planes.planes.models[THREE_D]
    copy = next(lay for lay in model.layers if lay.name == session.scan_layer.name)
    assert copy.data.shape == session.scan_layer.data.shape
    node = view.canvas.layer_to_visual[copy].node
    z, y, x = (n - 0.5 for n in node._vol_shape)
    corners = np.array([[cx, cy, cz] for cx in (-0.5, x) for cy in (-0.5, y) for cz in (-0.5, z)])
    mapped = node.get_transform("visual", "canvas").map(corners)
    points = mapped[:, :2] / mapped[:, 3:4]
    width, height = scene.size
    assert points.min() >= 0 and points[:, 0].max() <= width and points[:, 1].max() <= height
    middle = (points.min(axis=0) + points.max(axis=0)) / 2
    np.testing.assert_allclose(middle, (width / 2, height / 2), atol=0.05 * max(width, height))
