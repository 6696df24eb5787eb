"""The reading layout's 3-D pane sharpens like napari's canvas, and its tool row.

* The 3-D pane of the reading layout draws a case's pyramids from the coarsest level
  first, then from the sharp level the session's rule chooses (``sharp_3d_levels``).
* While the reading layout is shown the Three planes panel is hidden: the layout's
  own tool row (radiological, crosshair, link zoom/pan, reset W/L, 3-D pane) drives the
  same toggles, and the panel and the row show the same states both ways.

Driven as a reader does (``xvfb-run -a``, Xvfb's default screen): the real buttons are
clicked with QTest, the window is sized by the test.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from qtpy.QtCore import QPoint, Qt
from qtpy.QtWidgets import QAbstractButton, QApplication, QCheckBox, QToolBar

from napari_mood._napari import layers as layer_rules
from napari_mood._napari.docking import dock_plugin_widgets
from napari_mood._napari.layers import layer_info, sharp_3d_levels
from napari_mood._napari.planes import window_level
from napari_mood._napari.reader import read_dataset_case
from napari_mood._napari.reading_layout import READING_SHORTCUT, TOOLS_OBJECT_NAME
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from tests.conftest import write_nifti
from tests.napari import ui
from tests.napari.test_planes_reading import _drag, _role, _wheel
from tests.napari.test_reading_layout import _action, _equal, _letters

EDGE = 64
SHOTS = Path()  # the running test's tmp_path: set by _shots_in_tmp_path

TOGGLES = ("Radiological", "Crosshair", "Link zoom/pan", "3-D pane")


@pytest.fixture(autouse=True)
def _shots_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pictures go to the test's own tmp_path, never to a shared folder."""
    monkeypatch.setitem(globals(), "SHOTS", tmp_path)


def _shot(widget, name: str) -> None:
    if SHOTS.is_dir():
        widget.grab().save(str(SHOTS / name))


@pytest.fixture
def pyramids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every volume of the case shown multiscale: 64^3, 32^3, 16^3."""
    monkeypatch.setattr(layer_rules, "PYRAMID_MIN_VOXELS", 0)
    monkeypatch.setattr(layer_rules, "PYRAMID_SMALLEST_EDGE", 16)


def _write_ball_case(root: Path, name: str, edge: int) -> None:
    """A MOOD case of ``edge``^3 voxels: a ball scan, a lesion, method ``a``'s map."""
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    grid = np.indices((edge,) * 3).astype(np.float32) - edge / 2
    ball = (np.sqrt((grid**2).sum(axis=0)) < edge / 2.5).astype(np.float32)
    mask = np.zeros((edge,) * 3, np.uint8)
    mask[edge // 3 : edge // 2, edge // 2 : 2 * edge // 3, edge // 3 : edge // 2] = 1
    write_nifti(root / "toy" / name, ball * (1 + 0.2 * np.sin(grid[0] / 3)), affine)
    write_nifti(root / "toy_label" / "pixel" / name, mask, affine)
    write_nifti(root / "methods" / "a" / name, (mask * 0.9).astype(np.float32), affine)


@pytest.fixture
def big_case(tmp_path: Path) -> Path:
    """A 64^3 case (case_1) and a 48^3 one (case_2, pyramids of other shapes)."""
    root = tmp_path / "data"
    _write_ball_case(root, "case_1.nii.gz", EDGE)
    _write_ball_case(root, "case_2.nii.gz", 48)
    return root / "toy" / "case_1.nii.gz"


@pytest.fixture
def reading_window(make_napari_viewer, qtbot):
    """Every panel docked as ``napari-mood view`` docks them, a case shown."""

    def load(path: Path, size: tuple[int, int] = (1280, 1024)):
        viewer = make_napari_viewer(show=True)
        viewer.window.resize(*size)
        widgets = dock_plugin_widgets(viewer)
        planes = next(w for w in widgets if isinstance(w, PlanesWidget))
        session = load_into_viewer(viewer, [path])
        qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=60_000)
        planes.set_radiological(True)
        return viewer, session, planes

    return load


def _case_copies(model) -> list:
    return [layer for layer in model.layers if layer_info(layer) is not None]


def test_3d_pane_draws_coarse_first_then_the_sessions_sharp_level(
    pyramids, big_case, reading_window, qtbot
):
    viewer, session, planes = reading_window(big_case)
    ui.click(ui.control(planes, "3-D pane", QCheckBox))
    _action(viewer).trigger()
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=60_000)
    three_d = planes.planes.models["3d"]
    copies = _case_copies(three_d)
    assert copies and all(layer.multiscale for layer in copies)
    first = {layer.name: layer.data_level for layer in copies}
    assert set(first.values()) == {len(copies[0].data) - 1}  # the first frame: coarsest
    _shot(viewer.window._qt_window, "reading_3d_coarse.png")
    qtbot.waitUntil(lambda: _equal(planes), timeout=60_000)
    qtbot.waitUntil(lambda: not getattr(planes.planes, "sharpening", False), timeout=60_000)
    wanted = sharp_3d_levels([layer.level_shapes for layer in copies])
    assert wanted == [0] * len(copies)  # 64^3 layers: full resolution fits the budget
    assert [layer.data_level for layer in copies] == wanted
    assert viewer.dims.ndisplay == 2  # napari's canvas (the axial pane) stays 2-D
    shot = planes.view("3d").canvas.native.grab().toImage()
    assert shot.width() > 0
    _shot(viewer.window._qt_window, "reading_3d_sharp.png")

    root = big_case.parent.parent  # the next case, other shapes: napari drops the locked
    session.replace_case(read_dataset_case(root, "case_2.nii.gz"))  # levels: coarse again
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=60_000)
    qtbot.waitUntil(lambda: not planes.planes.sharpening, timeout=60_000)
    copies = _case_copies(three_d)
    assert {max(layer.level_shapes[0]) for layer in copies} == {48}
    assert [layer.data_level for layer in copies] == [0] * len(copies)


def _button(window, text: str) -> QAbstractButton:
    """The reading layout's tool-row check box or button named ``text``."""
    row = window.findChild(QToolBar, TOOLS_OBJECT_NAME)
    assert row is not None and row.isVisible(), "no tool row in the reading layout"
    button = next(b for b in row.findChildren(QAbstractButton) if b.text() == text)
    assert button.isVisible()
    return button


def _click(qtbot, button) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=QPoint(8, button.height() // 2))
    qtbot.wait(30)


def _crosshairs(planes) -> list:
    return [
        layer
        for model in planes.planes.views
        for layer in model.layers
        if _role(layer) == "crosshair"
    ]


def test_tool_row_drives_the_panels_toggles_both_ways(mood_dataset, reading_window, qtbot):
    viewer, session, planes = reading_window(mood_dataset / "toy" / "case_1.nii.gz")
    window = viewer.window._qt_window
    _action(viewer).trigger()
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    qtbot.waitUntil(lambda: _equal(planes), timeout=60_000)
    assert not planes.isVisible()  # the panel is hidden: the row holds its toggles
    models = planes.planes.models

    radiological = _button(window, "Radiological")
    assert radiological.isChecked()
    _click(qtbot, radiological)  # neurological: the patient's left on the screen's left
    assert _letters(viewer) == ["A", "P", "L", "R"]
    assert _letters(models["coronal"]) == ["S", "I", "L", "R"]
    assert not radiological.isChecked() and planes.convention == "neurological"

    crosshair = _button(window, "Crosshair")
    _click(qtbot, crosshair)
    assert _crosshairs(planes) and not any(layer.visible for layer in _crosshairs(planes))

    linked = _button(window, "Link zoom/pan")
    _click(qtbot, linked)  # unlinked: zooming the coronal pane leaves napari's canvas
    zoom = float(viewer.scene.camera.zoom)
    _wheel(planes.canvas("coronal"), ctrl=True)
    qtbot.wait(50)
    assert float(viewer.scene.camera.zoom) == pytest.approx(zoom)
    linked.setFocus()  # the keyboard: Space on the focused button links them again
    qtbot.keyClick(linked, Qt.Key.Key_Space)
    assert linked.isChecked() and planes.planes.linked
    _wheel(planes.canvas("coronal"), ctrl=True)
    qtbot.wait(50)
    assert float(viewer.scene.camera.zoom) == pytest.approx(zoom * 1.25, rel=1e-6)

    scan = session.scan_layer
    opened = tuple(scan.contrast_limits)
    low, high = scan.contrast_limits_range
    sagittal = planes.canvas("sagittal")
    start = QPoint(sagittal.width() // 2, sagittal.height() // 2)
    _drag(qtbot, sagittal, Qt.MouseButton.RightButton, start, start + QPoint(30, -20))
    assert tuple(scan.contrast_limits) == pytest.approx(
        window_level(opened, (30, -20), span=high - low), rel=1e-4
    )
    _click(qtbot, _button(window, "Reset W/L"))
    assert tuple(scan.contrast_limits) == pytest.approx(opened)

    _click(qtbot, _button(window, "3-D pane"))
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    assert "3d" in models and planes._panes()["fourth"] is planes.view("3d").canvas.native
    qtbot.waitUntil(lambda: _equal(planes), timeout=60_000)
    QApplication.processEvents()
    _shot(window, "reading_tool_row.png")
    reading = _button(window, "Reading layout (2 x 2)")
    assert READING_SHORTCUT in reading.toolTip()

    _click(qtbot, reading)  # leave: the panel shows the states chosen in the row
    qtbot.waitUntil(lambda: planes.isVisible(), timeout=10_000)
    assert window.findChild(QToolBar, TOOLS_OBJECT_NAME) is None
    assert not planes.reading_layout and "3d" not in planes.planes.models
    ticked = {name: ui.control(planes, name, QCheckBox).isChecked() for name in TOGGLES}
    assert ticked == {"Radiological": False, "Crosshair": False, "Link zoom/pan": True,
                      "3-D pane": True}  # fmt: skip
    _shot(planes, "planes_panel_after_row.png")

    # and back: a click in the panel shows in the row
    ui.click(ui.control(planes, "Radiological", QCheckBox))
    assert planes.convention == "radiological"
    _action(viewer).trigger()
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    assert _button(window, "Radiological").isChecked()
    assert not _button(window, "Crosshair").isChecked()
    assert _button(window, "3-D pane").isChecked() and "3d" in planes.planes.models
    _action(viewer).trigger()
    qtbot.wait(100)
