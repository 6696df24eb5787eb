"""The reading layout (issue 36, "panes a radiologist expects"): napari's own canvas is the
axial pane, coronal, sagittal and 3-D panes are docked around it, all four of one size.

Driven as a reader does: the key and the View menu switch the layout, the wheel, arrow
keys, right-drags and clicks go to each pane's real canvas (``xvfb-run -a``, Xvfb's
default screen; the window is sized by the test, never by the screen).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qtpy.QtCore import QPoint, Qt
from qtpy.QtWidgets import QApplication, QCheckBox, QDockWidget

from napari_mood._napari.docking import dock_plugin_widgets
from napari_mood._napari.plane_marks import LETTER_POSITIONS
from napari_mood._napari.planes import window_level
from napari_mood._napari.reading_layout import READING_SHORTCUT, pane_sizes_equal
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import READING_ACTION, PlanesWidget
from tests.napari import ui
from tests.napari.test_planes_reading import _drag, _hover, _role, _wheel


def _equal(planes) -> bool:
    """The four panes have one size and no sizing round is left to run."""
    return not planes._layout.sizing and pane_sizes_equal(planes._panes())


def _letters(model) -> list[str]:
    return [model.canvas.overlays[f"napari_mood_letter_{p}"].text for p in LETTER_POSITIONS]


def _docked_visible(window) -> set[str]:
    return {
        dock.objectName()
        for dock in window.findChildren(QDockWidget)
        if dock.isVisible() and not dock.isFloating()
    }


def _action(viewer):
    return next(a for a in viewer.window.view_menu.actions() if a.text() == READING_ACTION)


@pytest.fixture
def case_in_window(make_napari_viewer, qtbot, mood_dataset: Path):
    """Every panel docked as ``napari-mood view`` docks them, case_1 shown."""

    def load(size: tuple[int, int]):
        viewer = make_napari_viewer(show=True)
        viewer.window.resize(*size)
        widgets = dock_plugin_widgets(viewer)
        planes = next(w for w in widgets if isinstance(w, PlanesWidget))
        session = load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
        qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
        planes.set_radiological(True)
        return viewer, session, planes

    return load


@pytest.mark.parametrize("size", [(1280, 1024), (1600, 1000)], ids=["xvfb-default", "1600x1000"])
def test_reading_layout_four_equal_panes_that_read_like_the_compact_ones(
    case_in_window, qtbot, tmp_path: Path, size
):
    viewer, session, planes = case_in_window(size)
    window = viewer.window._qt_window
    before = _docked_visible(window)
    canvas = viewer.window._qt_viewer.canvas.native
    window.activateWindow()  # the reader's window (no window manager under Xvfb)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton)  # the keyboard on napari's canvas
    qtbot.keyClick(
        canvas,
        Qt.Key.Key_L,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert READING_SHORTCUT == "Ctrl+Shift+L" and planes.reading_layout
    models = planes.planes.models
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    qtbot.waitUntil(lambda: _equal(planes), timeout=60_000)
    panes = planes._panes()
    assert panes["axial"] is canvas  # napari's own canvas is the axial pane: no copy
    assert min(c.width() for c in panes.values()) >= 0.4 * size[0]  # a quarter each
    assert min(c.height() for c in panes.values()) >= 0.35 * size[1]
    assert before and not before & _docked_visible(window)  # every docked panel hidden
    assert _letters(viewer) == ["A", "P", "R", "L"]  # radiological, per pane
    assert _letters(models["coronal"]) == ["S", "I", "R", "L"]
    assert _letters(models["sagittal"]) == ["S", "I", "A", "P"]
    window.grab().save(str(tmp_path / f"reading_{size[0]}x{size[1]}.png"))

    step = viewer.dims.current_step
    _wheel(canvas, notches=-1)  # the wheel pages napari's canvas too in this layout
    qtbot.wait(30)
    assert viewer.dims.current_step[0] == step[0] - 1
    _wheel(planes.canvas("sagittal"))
    qtbot.wait(30)
    assert viewer.dims.current_step[2] == step[2] + 1
    step = viewer.dims.current_step
    _hover(qtbot, planes.canvas("coronal"))
    qtbot.keyClick(canvas, Qt.Key.Key_PageUp)  # the pane under the pointer pages
    assert viewer.dims.current_step[1] == min(step[1] + 5, int(viewer.dims.nsteps[1]) - 1)
    assert viewer.dims.current_step[0] == step[0]

    zoom = float(viewer.scene.camera.zoom)
    _wheel(planes.canvas("coronal"), ctrl=True)  # linked zoom: napari's canvas follows
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

    point = tuple(viewer.dims.point)
    coronal = planes.canvas("coronal")
    qtbot.mouseClick(
        coronal, Qt.MouseButton.LeftButton, pos=QPoint(coronal.width() // 3, coronal.height() // 3)
    )
    qtbot.wait(50)
    assert tuple(viewer.dims.point) != point  # one shared cursor
    for model in models.values():
        assert tuple(model.dims.point) == pytest.approx(viewer.dims.point)
        crosshair = next(layer for layer in model.layers if _role(layer) == "crosshair")
        assert crosshair.visible

    _action(viewer).trigger()  # View > Reading layout: back to the compact layout
    qtbot.wait(100)
    assert not planes.reading_layout
    assert _docked_visible(window) == before  # the window as it was
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    assert planes._splitter.isVisibleTo(planes)


def test_reading_layout_3d_pane_is_the_fourth_equal_pane(case_in_window, qtbot):
    viewer, session, planes = case_in_window((1280, 1024))
    # chosen in the panel, shown by the reading layout
    box = ui.control(planes, "3-D pane", QCheckBox)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
    assert box.isChecked() and "3d" not in planes.planes.models
    _action(viewer).trigger()
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    three_d = planes.planes.models["3d"]
    assert three_d.dims.ndisplay == 3 and len(three_d.layers) > 0
    assert planes._panes()["fourth"] is planes.view("3d").canvas.native
    qtbot.waitUntil(lambda: _equal(planes), timeout=60_000)
    assert tuple(three_d.dims.point) == pytest.approx(viewer.dims.point)  # one point
    _action(viewer).trigger()
    qtbot.wait(100)
    assert list(planes.planes.models) == ["coronal", "sagittal"]
