"""Reading habits in both layouts (issue 46, item 4), at Xvfb's default screen, every panel
docked: the three planes get comparable areas and one scale (a millimetre is as many
screen pixels in each), and the wheel pages slices over every view, napari's own (axial)
canvas included: n notches page n slices, parts of a notch add up, Ctrl + wheel zooms.
"""

from __future__ import annotations

import numpy as np
import pytest
from qtpy.QtCore import QPoint, QPointF, Qt
from qtpy.QtGui import QWheelEvent
from qtpy.QtWidgets import QApplication

from napari_mood._napari.docking import dock_plugin_widgets
from napari_mood._napari.pane_events import NOTCH, ZOOM_PER_NOTCH
from napari_mood._napari.reading_layout import pane_sizes_equal
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood.services.datasets import sample_data_dir

SCREEN = (1280, 1024)


def _wheel(widget, delta: int, *, ctrl: bool = False) -> None:
    """A wheel event of ``delta`` (120 a notch) over the middle of ``widget``."""
    centre = QPointF(widget.width() / 2, widget.height() / 2)
    modifiers = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, delta),
        Qt.MouseButton.NoButton,
        modifiers,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def _zooms(widget: PlanesWidget) -> list[float]:
    return [float(model.scene.camera.zoom) for model in widget.planes.views[:3]]


@pytest.fixture
def reading_room(make_napari_viewer, qtbot):
    """The sample case in a 1280 x 1024 window, every panel docked as the viewer docks them.

    A factory: pytest keeps no viewer of it after the test (napari counts leaked views).
    """

    def load():
        viewer = make_napari_viewer(show=True)
        viewer.window.resize(*SCREEN)
        widgets = dock_plugin_widgets(viewer)
        planes = next(w for w in widgets if isinstance(w, PlanesWidget))
        load_into_viewer(viewer, [sample_data_dir()])
        qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
        return viewer, planes

    return load


def _settle(qtbot, planes: PlanesWidget, *, one_scale: bool = True) -> None:
    """Wait until no late fit changes a zoom (and the views are at ``one_scale``)."""
    seen = [_zooms(planes)]

    def still() -> bool:
        qtbot.wait(200)
        seen.append(_zooms(planes))
        return seen[-1] == seen[-2] and (not one_scale or np.ptp(seen[-1]) < 1e-9)

    qtbot.waitUntil(still, timeout=30_000)


def test_default_layout_gives_the_three_planes_usable_areas_at_one_scale(reading_room, qtbot):
    viewer, planes = reading_room()
    canvases = {
        "axial": viewer.window._qt_viewer.canvas.native,
        "coronal": planes.canvas("coronal"),
        "sagittal": planes.canvas("sagittal"),
    }
    _settle(qtbot, planes)
    for canvas in canvases.values():  # 366 x 953, 346 x 218 and 346 x 200 px before
        assert min(canvas.width(), canvas.height()) >= 300
    scan = planes.session.scan_layer
    spacing = np.abs(np.asarray(scan.scale, dtype=float))  # mm per voxel
    extent = np.asarray(scan.data.shape) * spacing
    for model, canvas in zip(planes.planes.views[:3], canvases.values(), strict=True):
        zoom = float(model.scene.camera.zoom)  # screen px per world unit (mm)
        rows, cols = model.dims.displayed[-2:]
        px_per_voxel = zoom * spacing[[rows, cols]]
        assert 1 / zoom == pytest.approx(1 / _zooms(planes)[0], rel=1e-6)  # one mm per px
        assert px_per_voxel == pytest.approx(_zooms(planes)[0] * spacing[[rows, cols]])
        shown = zoom * extent[[rows, cols]]  # the whole plane in its view
        assert shown[0] <= canvas.height() + 1 and shown[1] <= canvas.width() + 1


@pytest.mark.parametrize("layout", ["compact", "reading"])
def test_the_wheel_pages_every_view_one_slice_a_notch_and_ctrl_zooms(
    reading_room, qtbot, layout: str
):
    viewer, planes = reading_room()
    if layout == "reading":
        planes._reading.setChecked(True)
        qtbot.waitUntil(
            lambda: not planes._layout.sizing and pane_sizes_equal(planes._panes()),
            timeout=60_000,
        )
        qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    _settle(qtbot, planes, one_scale=False)
    views = {
        0: viewer.window._qt_viewer.canvas.native,  # napari's own: the axial slice
        1: planes.canvas("coronal"),
        2: planes.canvas("sagittal"),
    }
    middle = [int(n) // 2 for n in viewer.dims.nsteps]
    viewer.dims.current_step = tuple(middle)
    for axis, canvas in views.items():
        zoom = float(viewer.scene.camera.zoom)
        step = viewer.dims.current_step[axis]
        _wheel(canvas, -3 * NOTCH)  # one event of three notches: three slices
        assert viewer.dims.current_step[axis] == step - 3
        for _ in range(4):  # a touchpad's quarter notches: one slice after four
            _wheel(canvas, NOTCH // 4)
        assert viewer.dims.current_step[axis] == step - 2
        assert float(viewer.scene.camera.zoom) == pytest.approx(zoom)  # paged, not zoomed
        _wheel(canvas, NOTCH, ctrl=True)
        assert float(viewer.scene.camera.zoom) == pytest.approx(zoom * ZOOM_PER_NOTCH)
        assert viewer.dims.current_step[axis] == step - 2
