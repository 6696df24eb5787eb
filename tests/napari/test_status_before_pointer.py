"""The status bar before the pointer moves over a view (issue 36, panes slice).

napari's status bar showed its own world coordinates (``[88.00, 0, 0]``: millimetres of
display axes) or nothing until the pointer crossed a view. After a case opens and after
the axial slider moves, napari's real status bar must read napari-mood's format for the
shared point: slice number, RAS mm, file voxel and the scan's value.
"""

from __future__ import annotations

import re
from pathlib import Path

from qtpy.QtCore import QPoint
from qtpy.QtWidgets import QPushButton

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from tests.napari import ui


def _status_text(viewer) -> str:
    """What napari's own status bar shows as coordinates."""
    return viewer.window._status_bar._coordinates.text()


def _expected(session, step) -> str:
    """The slice, RAS and file voxel of a display index, from the case's NIfTI affine."""
    transform = session.transform
    voxel = transform.display_to_file_index(step)
    ras = transform.file_index_to_world(voxel)[:3]
    ras_text = ", ".join(f"{0.0 if abs(v) < 0.05 else float(v):.1f}" for v in ras)
    voxel_text = ", ".join(str(int(round(v))) for v in voxel)
    return f"slice {step[0]}  RAS {ras_text} mm  voxel {voxel_text}"


def _point_status(viewer, session, qtbot) -> None:
    expected = _expected(session, viewer.dims.current_step)
    qtbot.waitUntil(lambda: _status_text(viewer).strip().startswith(expected), timeout=10_000)
    value = session.scan_layer.get_value(viewer.dims.point, world=True)
    assert f"{expected}: {value:.3g}" in _status_text(viewer)
    assert not re.search(r"\[\d", _status_text(viewer)), "napari's world coordinates"


def test_status_shows_the_shared_point_after_opening_and_after_the_slider(
    make_napari_viewer, qtbot, mood_dataset: Path
):
    viewer = make_napari_viewer(show=True)
    _, planes = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    assert isinstance(planes, PlanesWidget)
    # the pointer rests on a button, over no view
    button = ui.control(planes, "Reset W/L", QPushButton)
    qtbot.mouseMove(button, QPoint(button.width() // 2, button.height() // 2))
    qtbot.wait(50)
    session = load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=20_000)
    _point_status(viewer, session, qtbot)
    slider = viewer.window._qt_viewer.dims.slider_widgets[0].slider
    qtbot.mouseMove(slider, QPoint(slider.width() // 2, slider.height() // 2))
    slider.setValue(2)  # as a drag of the axial slider ends
    qtbot.wait(50)
    assert viewer.dims.current_step[0] == 2
    _point_status(viewer, session, qtbot)
