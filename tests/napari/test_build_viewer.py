"""``build_viewer``: panels are built while the files are read, the case is drawn first
when the reading was quick, and the panels end up arranged the same either way.

Each run is a fresh process (napari's window, as ``napari-mood view`` makes it).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = """
import json, sys, threading, time
from vispy.scene import SceneCanvas
from napari_mood._napari import docking, session as session_module, viewer as viewer_module
from napari_mood.services.datasets import sample_data_dir

from napari_mood.io import case as case_module

# "1": the read (or each map's read) lasts until every panel is docked: a read as slow as
# the docking, at any load (240 s only bounds a hang: docking that waited for the read)
read_waits, maps_wait = sys.argv[1] == "1", sys.argv[2] == "1"
all_docked = threading.Event()
events, draws, canvases = [], [0], []
read, draw = viewer_module.read_paths, SceneCanvas.on_draw
replace, dock_next = session_module.MoodSession.replace_case, docking.PanelDocking.dock_next
complete, read_map = session_module.MoodSession.complete_case, case_module.read_map

def slow_map(*args, **kwargs):
    if maps_wait:
        all_docked.wait(240)
    return read_map(*args, **kwargs)

def complete_case(self, layers):
    coming = self.maps_coming
    complete(self, layers)
    events.append(["maps", draws[0], len(self.viewer.layers), coming, self.maps_coming])

def slow_read(*args, **kwargs):
    if read_waits:
        all_docked.wait(240)
    return read(*args, **kwargs)

def on_draw(canvas, event):
    draw(canvas, event)
    canvases.append(id(canvas)) if not canvases else None
    draws[0] += canvases[0] == id(canvas)  # the main canvas: the first one made

def replace_case(self, *args, **kwargs):
    replace(self, *args, **kwargs)
    events.append(["case", draws[0], len(self.viewer.layers)])

def logged_dock_next(self):
    docked = dock_next(self)
    if docked:
        events.append(["dock", draws[0], 0])
    if not self.remaining:
        all_docked.set()
    return docked

viewer_module.read_paths = slow_read
case_module.read_map = slow_map
session_module.MoodSession.complete_case = complete_case
viewer_module._warm_imports = lambda: None  # already imported here: nothing to wait for
SceneCanvas.on_draw = on_draw
session_module.MoodSession.replace_case = replace_case
docking.PanelDocking.dock_next = logged_dock_next
opened = viewer_module.build_viewer([sample_data_dir()])
window = opened.viewer.window._qt_window
from qtpy.QtWidgets import QApplication, QDockWidget
for _ in range(20):
    QApplication.processEvents()
def settled():  # the case and its maps joined (a loaded machine reads slowly)
    kinds = [e[0] for e in events]
    waiting = "case" not in kinds or (maps_wait and "maps" not in kinds)
    return not waiting and not opened.session.maps_coming

deadline = time.monotonic() + 240
while not settled() and time.monotonic() < deadline:
    QApplication.processEvents()
    time.sleep(0.02)
docks = [d for d in window.findChildren(QDockWidget) if d.widget() is not None]
layout = sorted(
    [d.windowTitle(), str(window.dockWidgetArea(d)), d.visibleRegion().isEmpty(),
     sorted(t.windowTitle() for t in window.tabifiedDockWidgets(d))]
    for d in docks
)
print(json.dumps({
    "events": events,
    "widgets": [type(w).__name__ for w in opened.widgets],
    "layout": layout,
    "layers": len(opened.viewer.layers),
}))
opened.viewer.close()
"""


def _open(*, read_waits: bool = False, maps_wait: bool = False) -> dict:
    """Open the sample data in a fresh process; a read that waits lasts until every panel
    is docked (the slowest read the docking can meet)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(int(read_waits)), str(int(maps_wait))],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def quick_and_slow() -> tuple[dict, dict]:
    return _open(), _open(read_waits=True)


def test_a_quick_read_is_drawn_before_the_panels_are_built(quick_and_slow) -> None:
    quick, _ = quick_and_slow
    kinds = [kind for kind, *_ in quick["events"]]
    assert kinds[0] == "case" and kinds.count("case") == 1, kinds
    case_draws = quick["events"][0][1]
    first_dock_draws = quick["events"][1][1]
    assert first_dock_draws > case_draws, quick["events"]  # drawn with the case, then docked


def test_panels_are_built_while_a_slow_read_lasts(quick_and_slow) -> None:
    _, slow = quick_and_slow
    kinds = [kind for kind, *_ in slow["events"]]
    docked = kinds.index("case")  # the case (its scan and GT at least) joins after them
    assert kinds[:docked] == ["dock"] * len(slow["widgets"]), kinds


def test_the_same_panels_and_layout_either_way(quick_and_slow) -> None:
    quick, slow = quick_and_slow
    assert quick["widgets"] == slow["widgets"]
    assert quick["widgets"][:2] == ["ThresholdWidget", "SliceScoresWidget"]
    assert "PlanesWidget" in quick["widgets"]
    assert quick["layout"] == slow["layout"]
    assert quick["layers"] == slow["layers"] > 0


def test_slow_maps_the_scan_and_gt_are_drawn_first_and_the_maps_join_later(quick_and_slow):
    """Maps read slowly: the scan and GT join (and are drawn) at once, panels are docked
    while the maps are read, the maps join last; the window ends as after a quick read."""
    quick, _ = quick_and_slow
    staged = _open(maps_wait=True)  # the maps are read once every panel is docked
    kinds = [kind for kind, *_ in staged["events"]]
    assert kinds[0] == "case" and kinds.count("case") == 1 and kinds.count("maps") == 1, kinds
    case, maps = staged["events"][0], staged["events"][kinds.index("maps")]
    assert case[2] == 2  # the scan and the GT
    case_layers = max(e[2] for e in quick["events"] if e[0] in ("case", "maps"))
    # every layer of the case is in once the maps joined (the crosshair may be in already)
    assert maps[2] >= case_layers > case[2] and maps[1] > case[1]  # drawn before the maps
    assert maps[3:] == [True, False]  # the panels were told the maps were coming
    assert "dock" in kinds[: kinds.index("maps")]  # panels built while the maps were read
    assert staged["widgets"] == quick["widgets"] and staged["layout"] == quick["layout"]
    assert staged["layers"] == quick["layers"]
