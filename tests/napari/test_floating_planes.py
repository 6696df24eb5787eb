"""Floating the Three planes panel and docking it again (issue 36).

Qt moves a floated dock's widgets into a window of their own, where an OpenGL widget gets
a new OpenGL context; vispy's textures stayed in the old one and the first draw failed
(``GLError ... glTexSubImage2D: invalid operation``), which aborts a plain script (exit
134). Run in a subprocess, with every panel docked, as a user would: float, click in a
side view, dock again, click again; the reading layout from the floated panel, click napari's
canvas and a pane, close the window.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.napari.widgets.test_review import HAVE_SAMPLE

SCRIPT = """
from qtpy.QtCore import QPoint, Qt
from qtpy.QtTest import QTest
from napari_mood._napari.viewer import build_viewer
from napari_mood._napari.widgets._kit import dock_of
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood.services.datasets import sample_data_dir

opened = build_viewer([sample_data_dir()])
viewer = opened.viewer
planes = next(w for w in opened.widgets if isinstance(w, PlanesWidget))
dock = dock_of(planes)
QTest.qWait(300)


def click(plane, fx, fy):
    canvas = planes.canvas(plane)
    point = QPoint(int(canvas.width() * fx), int(canvas.height() * fy))
    QTest.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=point)
    QTest.qWait(500)


def wait_for_copies():  # every pane shows the case (copies are made a view per turn)
    for _ in range(100):
        if all(len(m.layers) > 1 for m in planes.planes.models.values()):
            return
        QTest.qWait(100)
    raise AssertionError({k: len(m.layers) for k, m in planes.planes.models.items()})


for floating, plane in ((True, "coronal"), (False, "sagittal")):
    before = tuple(viewer.dims.point)
    dock.setFloating(floating)
    QTest.qWait(1500)
    assert dock.isFloating() is floating
    wait_for_copies()
    click(plane, 0.4, 0.4)
    assert tuple(viewer.dims.point) != before, "the click did not move the shared point"
    print("floated" if floating else "docked", flush=True)
planes._reading.setChecked(True)  # the 2 x 2 reading layout, floated for a reading screen
QTest.qWait(500)
dock.setFloating(True)
QTest.qWait(1500)
wait_for_copies()
main = viewer.window._qt_viewer.canvas.native  # napari's canvas: the axial pane
QTest.mouseClick(main, Qt.MouseButton.LeftButton, pos=QPoint(main.width() // 3, main.height() // 3))
QTest.qWait(500)
click("coronal", 0.6, 0.6)
print("reading", flush=True)
viewer.close()  # while floated
print("closed", flush=True)
"""

pytestmark = pytest.mark.gui


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs a display: xvfb-run -a")
@pytest.mark.skipif(not HAVE_SAMPLE, reason="sample_data/ not generated yet")
def test_floating_and_docking_the_planes_panel_draws_and_exits_cleanly():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["floated", "docked", "reading", "closed"]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "GLError" not in done.stderr, done.stderr[-3000:]
