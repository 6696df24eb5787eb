"""What the radiologist's acceptance walk-through (issue 36) found, driven as the reader did.

* The status bar over a large (multiscale) case printed napari's ``(level, value)`` pair,
  ``voxel 117, 107, 116: (0, np.float16(0.7686))``, instead of the scan's value.

Everything goes through the real canvases with Qt mouse events (under ``xvfb-run -a``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from qtpy.QtCore import QPoint

from napari_mood._napari import layers as layer_rules
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood.services.datasets import sample_data_dir

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
SCANNER_VALUE = re.compile(rf"voxel \d+, \d+, \d+: {VALUE}(  \S+: {VALUE})?$")


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
