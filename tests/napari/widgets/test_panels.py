"""The panel base class: a panel out of sight does not recompute on a case switch.

A user docks two panels as tabs of one dock area, looks at one of them, switches case:
the panel behind is not recomputed then (it only marks itself stale), and is computed
once when its tab is clicked. Counted at the compute function its worker runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qtpy.QtWidgets import QDockWidget

from napari_mood._napari.reader import read_dataset_case
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets import objects, slices, threshold

PANELS = {
    # display name -> (module, the compute function its worker runs)
    "Display thresholds": (threshold, "compute_readouts"),
    "Object matching": (objects, "_match_shown"),
    "Per-slice scores": (slices, "compute_slice_curves"),
}
SETTLE_MS = 1500  # longer than any panel's debounce: a computation would have started


def _dock_of(widget) -> QDockWidget:
    parent = widget.parentWidget()
    while not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent


def _count_calls(monkeypatch: pytest.MonkeyPatch, module, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("panel", list(PANELS))
def test_a_panel_behind_another_tab_computes_once_when_shown(
    make_napari_viewer, qtbot, monkeypatch, mood_dataset: Path, panel: str
):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
    hidden_dock, widget = viewer.window.add_plugin_dock_widget("napari-mood", panel)
    other = "Comparison table" if panel != "Comparison table" else "Dataset browser"
    front_dock, _ = viewer.window.add_plugin_dock_widget("napari-mood", other, tabify=True)
    front_dock.raise_()  # the other tab clicked
    qtbot.waitUntil(lambda: widget.visibleRegion().isEmpty(), timeout=5000)
    qtbot.wait(SETTLE_MS)
    module, name = PANELS[panel]
    calls = _count_calls(monkeypatch, module, name)

    session = widget.session
    session.replace_case(read_dataset_case(mood_dataset, "case_0.nii.gz"))  # a case switch
    qtbot.wait(SETTLE_MS)
    assert calls == []  # behind another tab: nothing computed

    hidden_dock.raise_()  # its tab clicked
    qtbot.waitUntil(lambda: calls == [1] and not widget.busy, timeout=15000)
    qtbot.wait(SETTLE_MS)
    assert calls == [1]  # once
