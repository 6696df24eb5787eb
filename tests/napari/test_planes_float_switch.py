"""Float, dock, close and reopen the Three planes panel and its reading layout with a case
shown and while a case switch is under way (issue 36, panes slice).

A canvas moved into another window loses its OpenGL objects; a draw there failed with a
``GLError`` (exit 134 in a plain script, no napari error handler). Each step switches the
case and at once floats, docks, enters or leaves the reading layout, before the side
views got the new case's layers; the script ends by closing the window in the reading
layout. Run in a subprocess as a user's script would.
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
from napari_mood._napari.viewer import build_viewer, load_into_viewer
from napari_mood._napari.widgets._kit import dock_of
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood.services.datasets import sample_data_dir

TOY = sample_data_dir() / "toy"
opened = build_viewer([TOY / "brain_001.nii.gz"])
viewer = opened.viewer
viewer.window.resize(1280, 1000)
planes = next(w for w in opened.widgets if isinstance(w, PlanesWidget))
dock = dock_of(planes)
QTest.qWait(300)


def switch(case):  # the next case: the side views get its layers after the repaint
    load_into_viewer(viewer, [TOY / case])


def settle():
    for _ in range(150):
        if planes.planes.pending == 0 and all(
            len(m.layers) > 1 for m in planes.planes.models.values()
        ):
            QTest.qWait(300)
            return
        QTest.qWait(100)
    raise AssertionError({k: len(m.layers) for k, m in planes.planes.models.items()})


def click(canvas):
    before = tuple(viewer.dims.point)
    point = QPoint(int(canvas.width() * 0.4), int(canvas.height() * 0.4))
    QTest.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=point)
    QTest.qWait(300)
    assert tuple(viewer.dims.point) != before, "the click did not move the shared point"


main = viewer.window._qt_viewer.canvas.native
switch("brain_002.nii.gz")
dock.setFloating(True)  # during the switch
settle()
click(planes.canvas("coronal"))
print("floated", flush=True)
switch("brain_003.nii.gz")
planes._reading.setChecked(True)  # the reading layout from a floated panel, mid-switch
settle()
click(planes.canvas("sagittal"))
click(main)
print("reading", flush=True)
switch("brain_004.nii.gz")
planes._reading.setChecked(False)
dock.setFloating(False)
settle()
click(planes.canvas("sagittal"))
print("docked", flush=True)
dock.close()  # the panel closed, then opened again from the Plugins menu
QTest.qWait(500)
_, again = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
switch("brain_005.nii.gz")
again._reading.setChecked(True)
planes = again
settle()
click(again.canvas("coronal"))
print("reopened", flush=True)
viewer.close()  # in the reading layout
print("closed", flush=True)
"""

pytestmark = pytest.mark.gui


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs a display: xvfb-run -a")
@pytest.mark.skipif(not HAVE_SAMPLE, reason="sample_data/ not generated yet")
def test_float_dock_close_reopen_during_case_switches_draws_and_exits_cleanly():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["floated", "reading", "docked", "reopened", "closed"]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "GLError" not in done.stderr, done.stderr[-3000:]
