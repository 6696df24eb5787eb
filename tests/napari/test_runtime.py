"""``build_viewer``'s interpreter settings: napari's window objects frozen for the
collector (never a case's), and a 1 ms thread switch interval.

Run in a fresh process, as ``napari-mood view`` runs (both are process-wide).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from napari_mood._napari._runtime import SWITCH_INTERVAL, quicken_thread_switches

SCRIPT = """
import gc, json, sys, weakref
from qtpy.QtCore import QCoreApplication, QEvent
from qtpy.QtWidgets import QApplication
from napari_mood._napari.layers import layer_info
from napari_mood._napari.viewer import build_viewer
from napari_mood.services.datasets import sample_data_dir

app = QApplication.instance() or QApplication([])
opened = build_viewer([sample_data_dir()])
viewer = opened.viewer
frozen_open = gc.get_freeze_count()
switch_interval = sys.getswitchinterval()
tracked = {id(obj) for obj in gc.get_objects()}  # the permanent generation is left out
case_layers = [layer for layer in viewer.layers if layer_info(layer) is not None]
out = {
    "frozen_open": frozen_open,
    "switch_interval": switch_interval,
    "case_layers_tracked": all(id(layer) in tracked for layer in case_layers),
    "window_tracked": id(viewer.window) in tracked,
}
method = next(layer for layer in case_layers if layer_info(layer)["role"] == "method")
removed = weakref.ref(method)
del case_layers, method
viewer.layers.remove(removed())
for _ in range(5):
    app.processEvents()
gc.collect()
out["removed_layer_collected"] = removed() is None
viewer.close()
for _ in range(5):
    app.processEvents()
QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
out["frozen_closed"] = gc.get_freeze_count()
print(json.dumps(out))
"""


def test_window_objects_are_frozen_a_case_is_collected_and_switches_are_quick() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=True
    )
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["frozen_open"] > 100_000  # napari's modules and window
    assert not out["window_tracked"]  # made before the freeze
    assert out["case_layers_tracked"]  # made after it: collected as usual
    assert out["removed_layer_collected"]  # a removed layer's cycles are collected
    assert out["frozen_closed"] == 0  # thawed once the window is destroyed
    assert out["switch_interval"] == pytest.approx(SWITCH_INTERVAL, abs=2e-6)


def test_a_shorter_switch_interval_is_kept() -> None:
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.0002)
        quicken_thread_switches()
        assert sys.getswitchinterval() == pytest.approx(0.0002, abs=2e-6)
        sys.setswitchinterval(0.005)
        quicken_thread_switches()
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL, abs=2e-6)
    finally:
        sys.setswitchinterval(before)
