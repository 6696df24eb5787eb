"""The demo and ``open_viewer``: layers, docked widgets, view, and a whole-window screenshot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.session import get_session
from napari_mood._napari.viewer import (
    SCREENSHOT_WINDOW_SIZE,
    dock_plugin_widgets,
    focus_case,
    load_into_viewer,
)
from napari_mood._napari.widgets.threshold import ThresholdWidget
from napari_mood.services.datasets import sample_data_dir
from tests.napari.conftest import LESION

HAVE_SAMPLE = (sample_data_dir() / "toy").is_dir()
needs_sample = pytest.mark.skipif(not HAVE_SAMPLE, reason="sample_data/ not generated yet")


def _roles(viewer) -> list[tuple[str, str]]:
    return [(layer.name, layer.metadata[METADATA_KEY]["role"]) for layer in viewer.layers]


def test_open_case_docks_widgets_and_shows_the_lesion(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [mood_dataset])
    widgets = dock_plugin_widgets(viewer)
    focus_case(viewer, session)
    assert isinstance(widgets[0], ThresholdWidget)  # in front of the tab group
    assert sorted(type(w).__name__ for w in widgets) == [
        "CompareWidget",
        "DatasetBrowserWidget",
        "ObjectsWidget",
        "PlanesWidget",
        "ReadingToolsWidget",
        "ReviewWidget",
        "SliceScoresWidget",
        "TableWidget",
        "ThresholdWidget",
    ]
    assert _roles(viewer) == [
        ("case_1", "scan"),
        ("a", "method"),
        ("b", "method"),
        ("case_1 GT", "gt"),
        ("crosshair", "crosshair"),  # the three planes' crosshair, on top
    ]
    assert viewer.layers.selection.active.name == "a"
    axial = LESION[2]  # file axis 2 (S) is display axis 0 for this RAS grid
    assert session.slice_index in range(axial.start, axial.stop)
    assert viewer.dims.axis_labels == ("axial", "coronal", "sagittal")


@needs_sample
def test_sample_case_menu_entry(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    get_session(viewer)
    viewer.open_sample("napari-mood", "brain_001")
    assert _roles(viewer) == [
        ("brain_001", "scan"),
        ("binary", "method"),
        ("oracle_noisy", "method"),
        ("residual", "method"),
        ("brain_001 GT", "gt"),
    ]
    assert get_session(viewer).gt_layer.contour == 1


def _screenshot_in_subprocess(code: str, png: Path) -> np.ndarray:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert png.is_file(), f"{png} was not written"
    rgba = imread(png)  # floats in [0, 1]; independent of the Qt binding
    return np.round(rgba[..., :3] * 255).astype(np.uint8)


def _check_window_png(pixels: np.ndarray) -> None:
    width, height = SCREENSHOT_WINDOW_SIZE
    assert pixels.shape[:2] in {(height, width), (2 * height, 2 * width)}
    assert pixels.std() > 20  # not blank


@needs_sample
@pytest.mark.gui
def test_run_demo_screenshot(tmp_path: Path):
    png = tmp_path / "demo.png"
    code = f"from napari_mood._napari.viewer import run_demo; raise SystemExit(run_demo(screenshot={str(png)!r}))"
    pixels = _screenshot_in_subprocess(code, png)
    _check_window_png(pixels)
    heat = (pixels[..., 0] > 200) & (pixels[..., 2] > 150) & (pixels[..., 1] < 120)  # magenta
    outline = (pixels[..., 1] > 200) & (pixels[..., 0] < 100) & (pixels[..., 2] < 100)  # GT green
    assert heat.sum() > 100 and outline.sum() > 50


@pytest.mark.gui
def test_open_viewer_screenshot_of_a_dataset(tmp_path: Path, mood_dataset: Path):
    png = tmp_path / "shot.png"
    png.write_bytes(b"an older file: replaced only because force=True")
    code = (
        "from napari_mood._napari.viewer import open_viewer; "
        f"raise SystemExit(open_viewer([{str(mood_dataset)!r}], screenshot={str(png)!r}, force=True))"
    )
    _check_window_png(_screenshot_in_subprocess(code, png))
    assert not list(tmp_path.glob(".shot.png*"))  # no temporary left


@needs_sample
def test_browser_switch_with_every_dock_open(make_napari_viewer, qtbot, tmp_path, monkeypatch):
    """Bug 1: evaluate, then open another case from the browser with every panel shown."""
    from qtpy.QtCore import QPoint, Qt
    from qtpy.QtWidgets import QDockWidget

    from napari_mood._napari.widgets.browser import DatasetBrowserWidget
    from napari_mood._napari.widgets.objects import ObjectsWidget
    from napari_mood._napari.widgets.slices import SliceScoresWidget

    monkeypatch.setenv("NAPARI_MOOD_REVIEW_DIR", str(tmp_path / "reviews"))
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    widgets = dock_plugin_widgets(viewer)
    docks = viewer.window._qt_window.findChildren(QDockWidget)

    def panel(kind):
        widget = next(w for w in widgets if isinstance(w, kind))
        dock = next(d for d in docks if d.isAncestorOf(widget))
        dock.raise_()  # shown: its plot / table reacts to the switch
        return widget

    objects = panel(ObjectsWidget)
    objects.run()
    qtbot.waitUntil(lambda: bool(objects.results) and not objects.busy, timeout=30000)
    panel(SliceScoresWidget)
    browser = panel(DatasetBrowserWidget)
    browser.evaluate(sample_data_dir())
    qtbot.waitUntil(lambda: browser.evaluation is not None and not browser.busy, timeout=60000)
    session.set_threshold("residual", 0.6)
    before = session.case
    browser.open_case("brain_003.nii.gz")
    qtbot.waitUntil(lambda: session.case == "brain_003.nii.gz", timeout=30000)
    qtbot.wait(300)  # the plot's marker and the panels' jobs run on later turns
    assert session.case != before
    names = [layer.name for layer in viewer.layers]
    assert not any(name.endswith("]") for name in names), names  # no "[1]" copies
    assert session.method_names == ("binary", "oracle_noisy", "residual")
    assert session.threshold("residual") == pytest.approx(0.6)  # kept across the switch
    assert names[-1] == "crosshair"  # helpers stay on top
    stale = [
        layer.name
        for layer in viewer.layers
        if layer.metadata.get(METADATA_KEY, {}).get("case") not in (None, session.case)
    ]
    assert stale == []  # no outline of the previous case is left
    canvas = viewer.window._qt_viewer.canvas.native
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(50, 50))
    qtbot.keyClick(canvas, Qt.Key.Key_N)  # a key after a canvas click: no crash either


@pytest.mark.gui
def test_ctrl_c_in_the_viewer_is_one_line_and_exit_130(mood_dataset: Path):
    """Ctrl-C while the window is up: the window closes, one line, exit 130 (it ended in a
    segmentation fault with the window still open)."""
    code = (
        "import os, signal, sys\n"
        "from qtpy.QtCore import QTimer\n"
        "from napari_mood._napari import viewer as v\n"
        "built = v.build_viewer\n"
        "def build(*a, **k):\n"
        "    opened = built(*a, **k)\n"
        "    QTimer.singleShot(1500, lambda: os.kill(os.getpid(), signal.SIGINT))\n"
        "    return opened\n"
        "v.build_viewer = build\n"
        "from napari_mood.cli import main\n"
        f"sys.exit(main(['view', {str(mood_dataset)!r}]))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 130, run.stderr
    assert run.stderr.strip().splitlines() == [
        "napari-mood: interrupted (nothing half-written was left behind)"
    ], run.stderr


@pytest.mark.gui
def test_ctrl_c_before_a_screenshot_writes_nothing_and_is_one_line(
    mood_dataset: Path, tmp_path: Path
):
    """Ctrl-C while the window is built for --screenshot: it aborted in a paint event."""
    png = tmp_path / "shot.png"
    code = (
        "import os, signal, sys\n"
        "from napari_mood._napari import viewer as v\n"
        "built = v.build_viewer\n"
        "def build(*a, **k):\n"
        "    opened = built(*a, **k)\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    v._settle()  # Qt events run, Python sees the signal among them\n"
        "    return opened\n"
        "v.build_viewer = build\n"
        "from napari_mood.cli import main\n"
        f"sys.exit(main(['view', {str(mood_dataset)!r}, '--screenshot', {str(png)!r}]))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 130, run.stderr
    assert "Traceback" not in run.stderr and "Aborted" not in run.stderr, run.stderr
    assert not png.exists() and not list(tmp_path.glob(".shot.png*"))
