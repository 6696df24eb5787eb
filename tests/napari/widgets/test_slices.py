"""SliceScoresWidget: per-slice curves equal slice_scores, follow the viewer, click to navigate."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_hex
from qtpy.QtCore import QPoint, Qt
from qtpy.QtWidgets import QComboBox, QLabel, QWidget

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.slices import SliceScoresWidget
from napari_mood.core.metrics import slice_scores
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.looks import GT_COLOR
from napari_mood.services.slice_curves import METRICS, gt_runs
from tests.napari import ui


@pytest.fixture
def slices_viewer(make_napari_viewer, qtbot):
    """The sample case brain_001 with the per-slice widget docked and computed."""
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [sample_data_dir()])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Per-slice scores")
    assert isinstance(widget, SliceScoresWidget)
    _wait(qtbot, widget)
    return viewer, widget


def _wait(qtbot, widget: SliceScoresWidget) -> None:
    # napari shows a new dock on a later turn; a hidden panel waits to be shown
    qtbot.waitUntil(lambda: not widget.stale, timeout=20000)
    qtbot.waitUntil(lambda: widget.plot_ready and not widget.busy, timeout=20000)


def _expected(widget: SliceScoresWidget, name: str, axis: int):
    method = widget.session.method(name)
    gt = np.asarray(widget.session.gt_layer.data).astype(bool)
    return slice_scores(method.data, gt, axis=axis, threshold=method.threshold)


def _canvas(widget: SliceScoresWidget) -> QWidget:
    """The plot's canvas (a matplotlib FigureCanvasQTAgg: its figure is what is drawn)."""
    return ui.control(widget, "Per-slice scores plot")


def _axes(widget: SliceScoresWidget):
    return _canvas(widget).figure.axes[0]


def _marker(widget: SliceScoresWidget):
    """The dashed line at the slice shown."""
    (marker,) = [line for line in _axes(widget).get_lines() if line.get_label() == "_shown slice"]
    return marker


def _caption(widget: SliceScoresWidget) -> str:
    return ui.control(widget, "Per-slice plot caption", QLabel).text()


def _choose_metric(widget: SliceScoresWidget, metric: str) -> None:
    ui.choose(ui.control(widget, "Per-slice metric", QComboBox), METRICS[metric])


def _lines(widget: SliceScoresWidget) -> dict[str, object]:
    lines = _axes(widget).get_lines()
    return {line.get_label(): line for line in lines if line.get_label() != "_shown slice"}


def _click_slice(qtbot, widget: SliceScoresWidget, index: int) -> None:
    """Left-click the plot at x = ``index`` (half-way up), like a user."""
    canvas, ax = _canvas(widget), _axes(widget)
    canvas.draw()
    x, y = ax.transData.transform((index, float(np.mean(ax.get_ylim()))))
    ratio = canvas.device_pixel_ratio
    pos = QPoint(round(x / ratio), round((canvas.figure.bbox.height - y) / ratio))
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=pos)


def test_curves_equal_slice_scores_for_every_metric(slices_viewer):
    _, widget = slices_viewer
    curves = widget.curves
    assert curves is not None and curves.axis == 0 and curves.has_gt
    names = widget.session.method_names
    assert set(curves.scores) == set(names)
    for name in names:
        expected = _expected(widget, name, axis=0)
        got = curves.scores[name]
        for field in ("gt_voxels", "flagged_voxels", "dice", "ap"):
            np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    for metric in METRICS:
        _choose_metric(widget, metric)
        assert widget.metric_key == metric
        plotted = widget.plotted()
        assert set(plotted) == set(names)
        for name in names:
            expected = getattr(_expected(widget, name, axis=0), metric)
            np.testing.assert_array_equal(plotted[name], expected.astype(float))
        assert _axes(widget).get_ylabel() == METRICS[metric]
        for name, line in _lines(widget).items():  # what is drawn, in the method's colour
            np.testing.assert_array_equal(line.get_ydata(), plotted[name])
            assert to_hex(line.get_color()) == widget.session.method(name).color
    assert set(_lines(widget)) == set(names)


def test_gt_extent_is_shaded_and_the_shown_slice_marked(slices_viewer):
    _, widget = slices_viewer
    gt_voxels = widget.curves.gt_voxels
    runs = gt_runs(gt_voxels)
    assert runs and all(gt_voxels[a:b].all() for a, b in runs)
    spans = [
        p for p in _axes(widget).patches if to_hex(p.get_facecolor(), keep_alpha=False) == GT_COLOR
    ]
    assert len(spans) == len(runs)
    for span, (start, stop) in zip(spans, runs, strict=True):
        x0, x1 = span.get_x(), span.get_x() + span.get_width()
        assert (x0, x1) == (start - 0.5, stop - 0.5)
    assert _marker(widget).get_xdata()[0] == widget.session.slice_index
    assert f"Slice shown: {widget.session.slice_index}" in _caption(widget)


def test_clicking_the_plot_shows_that_slice(slices_viewer, qtbot):
    viewer, widget = slices_viewer
    before = widget.session.slice_index
    target = 30 if before != 30 else 60
    _click_slice(qtbot, widget, target)
    assert widget.session.slice_index == target
    assert viewer.dims.current_step[0] == target  # every layer has scale 2 and no offset
    qtbot.waitUntil(lambda: _marker(widget).get_xdata()[0] == target, timeout=3000)  # next turn
    assert f"Slice shown: {target}" in _caption(widget)
    widget.show_slice(10_000)  # out of range: clamped to the last slice
    assert widget.session.slice_index == widget.curves.n_slices - 1


def test_threshold_and_axis_changes_recompute(slices_viewer, qtbot):
    viewer, widget = slices_viewer
    widget.session.set_threshold("residual", 0.8)
    _wait(qtbot, widget)
    got = widget.curves.scores["residual"]
    assert got.threshold == pytest.approx(0.8)
    np.testing.assert_array_equal(got.dice, _expected(widget, "residual", axis=0).dice)
    viewer.dims.order = (1, 0, 2)  # the slider now runs along display axis 1 (coronal)
    _wait(qtbot, widget)
    assert widget.curves.axis == 1 == widget.session.slice_axis
    expected = _expected(widget, "oracle_noisy", axis=1)
    np.testing.assert_array_equal(widget.plotted()["oracle_noisy"], expected.dice)
    assert widget.curves.n_slices == widget.session.method("binary").data.shape[1]
    assert _axes(widget).get_xlabel() == "coronal slice"


def test_method_set_gt_and_3d_view_are_followed(slices_viewer, qtbot):
    viewer, widget = slices_viewer
    viewer.layers.remove("binary")
    _wait(qtbot, widget)
    assert set(widget.plotted()) == {"oracle_noisy", "residual"}
    viewer.layers.remove(widget.session.gt_layer)
    _wait(qtbot, widget)
    assert not widget.curves.has_gt
    _choose_metric(widget, "ap")
    assert widget.plotted() == {} and _lines(widget) == {}
    assert "needs a ground truth" in _axes(widget).texts[0].get_text()
    _choose_metric(widget, "flagged_voxels")
    flagged = widget.plotted()["residual"]
    method = widget.session.method("residual")
    expected = np.count_nonzero(method.data.astype(np.float64) >= method.threshold, axis=(1, 2))
    np.testing.assert_array_equal(flagged, expected)
    viewer.dims.ndisplay = 3
    _wait(qtbot, widget)
    assert widget.curves is None
    assert "2-D view" in _axes(widget).texts[0].get_text()


def test_controls_have_tooltips_and_bad_metric_is_refused(slices_viewer):
    _, widget = slices_viewer
    assert "Dice" in ui.control(widget, "Per-slice metric", QComboBox).toolTip()
    assert "Click" in _canvas(widget).toolTip()
    with pytest.raises(ValueError, match="metric must be one of"):
        widget.set_metric("auroc")


def test_a_panel_behind_another_tab_waits_until_shown(make_napari_viewer, qtbot):
    # computing and rendering 4 maps' curves cost the main thread 0.4 s at 256^3 (the
    # text alone 0.3 s) on every case, threshold or axis change, for a panel nobody sees
    from napari_mood._napari.widgets._kit import is_on_screen
    from napari_mood._napari.widgets.threshold import ThresholdWidget

    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [sample_data_dir()])
    slices = SliceScoresWidget(viewer)
    front = ThresholdWidget(viewer)
    slices_dock = viewer.window.add_dock_widget(slices, name="slices")
    front_dock = viewer.window.add_dock_widget(front, name="thresholds")
    qtbot.wait(500)  # napari shows new docks on later turns
    viewer.window._qt_window.tabifyDockWidget(slices_dock, front_dock)  # as the viewer docks them
    front_dock.raise_()
    # Qt still calls a dock tab behind another "visible"; nothing of it is on screen
    qtbot.waitUntil(lambda: not is_on_screen(slices) and is_on_screen(front), timeout=5000)
    qtbot.waitUntil(lambda: not slices.busy, timeout=20000)
    slices.session.set_threshold("residual", 0.8)
    qtbot.wait(300)  # longer than the update delay: nothing starts while hidden
    assert slices.stale and not slices.busy and slices.curves is None
    rendered = []
    _canvas(slices).mpl_connect("draw_event", lambda event: rendered.append(event))
    qtbot.wait(300)
    assert not rendered  # no hidden matplotlib render
    slices_dock.raise_()  # the user clicks the tab
    _wait(qtbot, slices)
    assert slices.curves is not None and slices.curves.scores["residual"].threshold == 0.8
    expected = _expected(slices, "residual", axis=0).dice
    np.testing.assert_array_equal(slices.plotted()["residual"], expected)
    qtbot.waitUntil(lambda: bool(rendered), timeout=5000)  # and the plot is drawn


def test_the_plot_is_made_when_the_panel_is_first_seen(make_napari_viewer, qtbot):
    # matplotlib takes 0.6 s to import: a panel docked behind another tab (as the viewer
    # opens it) makes its plot when the user first shows it, not while the window opens
    from napari_mood._napari.widgets.threshold import ThresholdWidget

    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [sample_data_dir()])
    front_dock = viewer.window.add_dock_widget(ThresholdWidget(viewer), name="thresholds")
    slices = SliceScoresWidget(viewer)
    slices_dock = viewer.window.add_dock_widget(slices, name="slices")
    viewer.window._qt_window.tabifyDockWidget(front_dock, slices_dock)
    front_dock.raise_()
    qtbot.wait(800)
    assert not slices.plot_ready and slices.plotted() == {}
    slices_dock.raise_()  # the user clicks the tab
    _wait(qtbot, slices)
    expected = _expected(slices, "residual", axis=0).dice
    np.testing.assert_array_equal(slices.plotted()["residual"], expected)
    assert "Click" in _canvas(slices).toolTip()


def test_opening_the_viewer_does_not_import_matplotlib(tmp_path):
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from napari_mood._napari.viewer import build_viewer\n"
        "from napari_mood.services.datasets import sample_data_dir\n"
        "opened = build_viewer([sample_data_dir()])\n"
        "print('matplotlib' in sys.modules, len(opened.widgets))\n"
        "opened.viewer.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    loaded, docked = done.stdout.split()[-2:]
    assert int(docked) >= 7 and loaded == "False", done.stdout
