"""What the radiologist's acceptance walk-through (issue 36) found, driven as the reader did.

* The status bar over a large (multiscale) case printed napari's ``(level, value)`` pair,
  ``voxel 117, 107, 116: (0, np.float16(0.7686))``, instead of the scan's value.
* A layer shown again in 3-D (``V`` with it selected) stayed at its coarse level.
* The 3-D pane and a 3-D main canvas each took the whole memory budget of sharp levels.
* The vertical crosshair line through a side view's "S" made it read "$".

Everything goes through the real canvases with Qt mouse events (under ``xvfb-run -a``).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from qtpy.QtCore import QPoint, Qt
from qtpy.QtWidgets import QApplication, QCheckBox

from napari_mood._napari import layers as layer_rules
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import READING_ACTION, PlanesWidget
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui

SHOTS = Path()  # the running test's tmp_path: set by _shots_in_tmp_path

needs_sample = pytest.mark.skipif(
    not (sample_data_dir() / "toy").is_dir(), reason="sample_data/ not generated yet"
)


@pytest.fixture(autouse=True)
def _shots_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Screenshots go to the test's own tmp_path, never to a shared folder."""
    monkeypatch.setitem(globals(), "SHOTS", tmp_path)


@pytest.fixture
def pyramids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every volume shown multiscale, as a 256^3 case is (the sample cases are small)."""
    monkeypatch.setattr(layer_rules, "PYRAMID_MIN_VOXELS", 0)
    monkeypatch.setattr(layer_rules, "PYRAMID_SMALLEST_EDGE", 16)


def _hover(qtbot, widget) -> None:
    centre = QPoint(widget.width() // 2, widget.height() // 2)
    for dx in (0, 3, 6):  # several moves: napari updates the status on a move
        qtbot.mouseMove(widget, centre + QPoint(dx, dx))
        qtbot.wait(30)


VALUE = r"-?\d+(\.\d+)?(e-?\d+)?"
SCANNER_VALUE = re.compile(rf"voxel \d+, \d+, \d+: {VALUE}(  \|  [^|]+: {VALUE})*$")


@needs_sample
@pytest.mark.parametrize("view", ["main", "coronal"])
def test_status_over_a_multiscale_case_shows_plain_values(
    pyramids, make_napari_viewer, qtbot, view: str
) -> None:
    viewer = make_napari_viewer(show=True)
    _, planes = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    assert isinstance(planes, PlanesWidget)
    session = load_into_viewer(viewer, [sample_data_dir()])
    assert session.scan_layer.multiscale
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=20_000)
    method = session.method(session.method_names[0]).layer
    viewer.layers.selection.active = method  # the reader looks at a method's map
    canvas = viewer.window._qt_viewer.canvas.native if view == "main" else planes.canvas(view)
    _hover(qtbot, canvas)
    coordinates = viewer.status["coordinates"]
    viewer.window._qt_window.grab().save(str(SHOTS / f"status-multiscale-{view}.png"))
    assert SCANNER_VALUE.search(coordinates), coordinates
    assert f"  {method.name}: " in coordinates, coordinates


def _click_canvas(viewer, qtbot) -> None:
    """Click the main canvas as a reader does (at its corner: the point moves, nothing else)."""
    window, canvas = viewer.window._qt_window, viewer.window._qt_viewer.canvas.native
    window.activateWindow()
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    canvas.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is canvas, timeout=3000)


def _to_3d(viewer, session, qtbot) -> None:
    """napari's 2-D/3-D button, then wait for the sharp levels."""
    viewer.window._qt_viewer.viewerButtons.ndisplayButton.click()
    qtbot.waitUntil(lambda: viewer.dims.ndisplay == 3, timeout=10_000)
    qtbot.wait(100)
    qtbot.waitUntil(lambda: not session.sharpening, timeout=60_000)


@needs_sample
def test_a_layer_shown_again_in_3d_is_sharpened(pyramids, make_napari_viewer, qtbot) -> None:
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    scan = session.scan_layer
    coarsest = len(scan.level_shapes) - 1
    viewer.layers.selection.active = scan
    _click_canvas(viewer, qtbot)
    qtbot.keyClick(viewer.window._qt_viewer.canvas.native, Qt.Key.Key_V)  # napari: hide it
    assert not scan.visible
    _to_3d(viewer, session, qtbot)
    assert scan.data_level == coarsest  # hidden: left coarse; the GT and maps are sharp
    assert session.gt_layer.data_level == 0
    qtbot.keyClick(viewer.window._qt_viewer.canvas.native, Qt.Key.Key_V)  # shown again
    assert scan.visible
    qtbot.waitUntil(lambda: scan.data_level == 0, timeout=30_000)
    qtbot.waitUntil(lambda: not session.sharpening, timeout=30_000)
    viewer.window._qt_window.grab().save(str(SHOTS / "shown-again-3d.png"))


def _sharp_voxels(models) -> int:
    """Voxels of the levels finer than the coarsest drawn by ``models``' pyramids."""
    total = 0
    for model in models:
        for layer in model.layers:
            shapes = getattr(layer, "level_shapes", None)
            if getattr(layer, "multiscale", False) and layer.data_level != len(shapes) - 1:
                total += int(np.prod(shapes[layer.data_level]))
    return total


@needs_sample
def test_the_3d_pane_and_a_3d_canvas_share_one_sharp_budget(
    pyramids, make_napari_viewer, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    viewer = make_napari_viewer(show=True)
    viewer.window.resize(1100, 800)
    _, planes = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    session = load_into_viewer(viewer, [sample_data_dir()])
    level0 = int(np.prod(session.scan_layer.level_shapes[0]))
    budget = 2 * level0  # the scan and the GT at full resolution, the maps coarse
    monkeypatch.setattr(layer_rules, "SHARP_3D_BUDGET_VOXELS", budget)
    # (the rule's default too: the code before one shared budget read only that)
    monkeypatch.setitem(layer_rules.sharp_3d_levels.__kwdefaults__, "budget", budget)
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=20_000)
    for name in ("3-D pane", READING_ACTION):  # 3-D pane, then the reading layout
        ui.click(ui.control(planes, name, QCheckBox))
    qtbot.waitUntil(lambda: "3d" in planes.planes.models, timeout=20_000)
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=60_000)
    qtbot.wait(100)
    qtbot.waitUntil(lambda: not planes.planes.sharpening, timeout=60_000)
    pane = planes.planes.models["3d"]
    assert _sharp_voxels([pane]) == budget  # the pane alone: the whole budget
    _to_3d(viewer, session, qtbot)  # the axial pane in 3-D too
    viewer.window._qt_window.grab().save(str(SHOTS / "one-sharp-budget.png"))
    assert _sharp_voxels([viewer, pane]) <= budget
    viewer.window._qt_viewer.viewerButtons.ndisplayButton.click()  # the canvas back to 2-D
    qtbot.waitUntil(lambda: viewer.dims.ndisplay == 2, timeout=10_000)
    qtbot.waitUntil(lambda: not planes.planes.sharpening, timeout=60_000)
    assert _sharp_voxels([pane]) == budget


def _rgb(widget) -> np.ndarray:
    """The widget as drawn, an ``(h, w, 3)`` uint8 array."""
    from qtpy.QtGui import QImage

    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    height, width = image.height(), image.width()
    bits = image.constBits()
    bits.setsize(image.sizeInBytes())
    rows = np.frombuffer(bits, np.uint8).reshape(height, image.bytesPerLine())
    return rows[:, : width * 3].reshape(height, width, 3).copy()


def _yellow(rgb: np.ndarray) -> np.ndarray:
    """Pixels drawn in the crosshair's and letters' yellow (grey scans and magenta maps are not)."""
    red, green, blue = (rgb[..., i].astype(int) for i in range(3))
    return (red > 170) & (green > 130) & (blue < 90)


@needs_sample
def test_the_crosshair_never_turns_a_side_letter_into_another_sign(
    make_napari_viewer, qtbot
) -> None:
    """The vertical crosshair line through the coronal view's "S" read as "$"."""
    viewer = make_napari_viewer(show=True)
    viewer.window.resize(1100, 800)
    _, planes = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    load_into_viewer(viewer, [sample_data_dir()])
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=20_000)
    model, canvas = planes.planes.models["coronal"], planes.canvas("coronal")
    across = model.dims.displayed[-1]
    camera = model.scene.camera
    camera.center = (*tuple(camera.center)[:-1], float(model.dims.point[across]))
    camera.zoom = 3 * camera.zoom  # the line now runs from the top edge through the letter
    qtbot.wait(300)
    rgb = _rgb(canvas)
    canvas.grab().save(str(SHOTS / "coronal-letter.png"))
    yellow = _yellow(rgb[: rgb.shape[0] // 6])
    middle = rgb.shape[1] // 2
    line = yellow[:, middle - 2 : middle + 3].any(axis=1)
    beside = yellow[:, middle - 9 : middle - 3].any(axis=1) | yellow[
        :, middle + 4 : middle + 10
    ].any(axis=1)
    rows = np.flatnonzero(beside)  # the letter's rows: its strokes off the centre line
    assert rows.size, "no letter at the top of the coronal view"
    letter = slice(rows[0], rows[-1] + 1)
    assert line[: rows[0]].any(), "the crosshair line does not reach the letter"
    # an "S" crosses its centre column in three strokes; a line through it fills the column
    assert line[letter].mean() < 0.75, line[letter].astype(int)
