"""ThresholdWidget: sliders per method (instant, linkable), live readouts, best threshold."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from npe2 import PluginManager
from qtpy.QtCore import Qt
from qtpy.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDockWidget,
    QLineEdit,
    QMainWindow,
    QSlider,
)

from napari_mood._napari.viewer import (
    OTHER_BENCHMARK_WIDGETS,
    SCREENSHOT_WINDOW_SIZE,
    dock_plugin_widgets,
    load_into_viewer,
)
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood._napari.widgets.slices import SliceScoresWidget
from napari_mood._napari.widgets.threshold import SLIDER_STEPS, ThresholdWidget
from napari_mood.core.curves import curve_from_arrays
from napari_mood.core.metrics import confusion_at
from napari_mood.core.objects import match_objects
from napari_mood.core.readout import best_case_threshold
from napari_mood.core.results import EvaluationOptions
from napari_mood.core.scores import display_threshold
from napari_mood.io.errors import MoodInputWarning
from napari_mood.io.mood import discover_methods
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.evaluation import evaluate
from napari_mood.services.looks import method_colormap


@pytest.fixture
def widget_viewer(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Display thresholds")
    return viewer, widget


def _limits(widget: ThresholdWidget, name: str) -> list[float]:
    return list(widget.session.method(name).layer.contrast_limits)


def test_plugin_widget_lists_the_methods_with_tooltips(widget_viewer):
    _, widget = widget_viewer
    assert isinstance(widget, ThresholdWidget)
    assert list(widget._rows) == ["a", "b"]
    assert widget._rows["a"].box.value() == pytest.approx(0.5)
    assert widget._rows["a"].slider.value() == SLIDER_STEPS // 2
    assert "transparent" in widget._rows["a"].slider.toolTip()
    assert widget._empty.isHidden()
    kinds = (QAbstractButton, QSlider, QAbstractSpinBox, QComboBox, QLineEdit)
    controls = [c for kind in kinds for c in widget.findChildren(kind)]
    controls = [c for c in controls if not isinstance(c.parent(), (QAbstractSpinBox, QComboBox))]
    assert len(controls) == 10  # link, 2 x (slider, box), 2 combos, folder, browse, find
    for control in controls:
        assert control.toolTip(), f"{type(control).__name__} {control.objectName()} has no tooltip"


def test_empty_viewer_says_what_to_do(make_napari_viewer):
    widget = ThresholdWidget(make_napari_viewer(show=True))
    assert widget._rows == {}
    assert "No score map" in widget._empty.text()
    assert not widget._link.isEnabled()
    widget.deleteLater()


def test_panels_say_the_maps_are_being_read_while_they_are(make_napari_viewer, mood_dataset):
    """The scan and GT shown first (a large case): the panels say the maps are coming,
    not that there are none; then they list them."""
    from napari_mood._napari.reader import read_dataset_case
    from napari_mood._napari.session import get_session
    from napari_mood._napari.widgets._kit import READING_MAPS_TEXT
    from napari_mood._napari.widgets.objects import ObjectsWidget
    from napari_mood._napari.widgets.review import ReviewWidget

    viewer = make_napari_viewer(show=True)
    widgets = [ThresholdWidget(viewer), ObjectsWidget(viewer), ReviewWidget(viewer)]
    labels = [widgets[0]._empty, widgets[1]._empty, widgets[2]._c.empty]
    layers = read_dataset_case(mood_dataset, "case_1.nii.gz")
    maps = [x for x in layers if x[2] == "image" and x[1]["name"] in ("a", "b")]
    session = get_session(viewer)
    session.replace_case([x for x in layers if not any(x is m for m in maps)])
    assert all("No score map" in label.text() for label in labels)
    session.expect_maps()
    assert all(label.text() == READING_MAPS_TEXT for label in labels)
    session.complete_case(maps)
    assert session.method_names == ("a", "b") and not session.maps_coming
    assert not any(label.isVisibleTo(label.parentWidget()) for label in labels)
    assert widgets[0]._rows.keys() == {"a", "b"}
    for widget in widgets:
        widget.deleteLater()


def test_slider_and_box_set_the_layer_instantly(widget_viewer):
    _, widget = widget_viewer
    row = widget._rows["a"]
    row.slider.setValue(750)
    assert _limits(widget, "a")[0] == pytest.approx(0.75)
    assert row.box.value() == pytest.approx(0.75)
    row.box.setValue(0.2)
    assert _limits(widget, "a")[0] == pytest.approx(0.2)
    assert row.slider.value() == 200
    assert _limits(widget, "b")[0] == pytest.approx(0.5)  # not linked


def test_a_typed_threshold_applies_at_enter_not_keystroke_by_keystroke(widget_viewer, qtbot):
    """Click the box, select all, type 0.35, Enter: the first "0" set threshold 0 at once."""
    _, widget = widget_viewer
    row = widget._rows["a"]
    session = widget.session
    qtbot.mouseClick(row.box.lineEdit(), Qt.MouseButton.LeftButton)
    qtbot.keyClick(row.box.lineEdit(), Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(row.box.lineEdit(), "0.35")
    assert session.threshold("a") == pytest.approx(0.5)  # nothing applied while typing
    assert row.box.lineEdit().text() == "0.35"  # the keys were kept
    qtbot.keyClick(row.box.lineEdit(), Qt.Key.Key_Return)
    assert session.threshold("a") == pytest.approx(0.35)
    assert _limits(widget, "a")[0] == pytest.approx(0.35)
    assert row.slider.value() == 350


def test_link_all_moves_every_method(widget_viewer):
    _, widget = widget_viewer
    widget._rows["a"].box.setValue(0.3)
    widget._link.setChecked(True)
    assert _limits(widget, "b")[0] == pytest.approx(0.3)  # takes the first method's value
    widget._rows["b"].slider.setValue(900)
    assert _limits(widget, "a")[0] == pytest.approx(0.9)
    assert widget._rows["a"].slider.value() == 900


def test_rows_follow_the_session(widget_viewer):
    viewer, widget = widget_viewer
    viewer.layers["b"].contrast_limits = (0.65, 1.0)  # napari's own layer controls
    assert widget._rows["b"].box.value() == pytest.approx(0.65)
    viewer.layers.remove("a")
    assert list(widget._rows) == ["b"]
    assert not widget._link.isEnabled()


def test_rows_of_the_last_case_vanish_at_once(widget_viewer, mood_dataset):
    """Rebuilt rows: the old ones are hidden at once, not only deleted once the event
    loop runs (a script's screenshot of a dropped case drew both cases' readouts)."""
    viewer, widget = widget_viewer
    old = [w for row in widget._rows.values() for w in (*row.widgets, row.readout)]
    load_into_viewer(viewer, [mood_dataset / "toy" / "case_0.nii.gz"])
    assert old and not any(w.isVisible() for w in old)
    QApplication.processEvents()  # the new rows show; no loop runs, so nothing is deleted
    shown = [w for w in widget.findChildren(QSlider) if w.isVisible()]
    assert len(shown) == len(widget._rows) == len(widget.session.methods)


def test_closed_widget_stops_listening(widget_viewer, qtbot):
    viewer, widget = widget_viewer
    session = widget.session
    viewer.window.remove_dock_widget("all")
    widget.deleteLater()
    qtbot.wait(50)
    session.set_all_thresholds(0.4)  # would raise if a deleted widget were still connected
    viewer.layers.remove("a")
    assert session.method_names == ("b",)


# -- readouts ------------------------------------------------------------------------


@pytest.fixture
def sample_viewer(make_napari_viewer, qtbot):
    """The sample case brain_001 (three methods and a GT) with the widget, readouts done."""
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    widget = ThresholdWidget(viewer)
    viewer.window.add_dock_widget(widget, name="thresholds")
    _wait(qtbot, widget)
    assert session.case == "brain_001.nii.gz"
    return viewer, widget


def _wait(qtbot, widget: ThresholdWidget) -> None:
    qtbot.waitUntil(lambda: not widget.busy, timeout=20000)


def _gt(widget: ThresholdWidget) -> np.ndarray:
    return np.asarray(widget.session.gt_layer.data) != 0


def _flagged(data: np.ndarray, threshold: float) -> int:
    """float16 semantics: the stored float16 value compared exactly with the threshold."""
    return int(np.count_nonzero(np.asarray(data).astype(np.float64) >= threshold))


def test_moving_a_threshold_updates_display_and_readout(sample_viewer, qtbot):
    _, widget = sample_viewer
    method = widget.session.method("residual")
    data, gt = method.data, _gt(widget)
    assert data.dtype == np.float16
    curve = curve_from_arrays(data, gt)
    for threshold in (0.3, 0.757, 0.95):
        widget._rows["residual"].box.setValue(threshold)
        # display: contrast limits (t, 1) on the method's colormap, transparent at its low end
        assert list(method.layer.contrast_limits) == pytest.approx([threshold, 1.0])
        assert method.layer.colormap.name == method_colormap(method.color)["name"]
        assert method.layer.colormap.colors[0][3] == 0.0
        assert widget.session.threshold("oracle_noisy") == pytest.approx(0.5)  # not linked
        _wait(qtbot, widget)
        readout = widget.readouts["residual"]
        assert readout.threshold == pytest.approx(threshold)
        assert readout.flagged == _flagged(data, threshold)
        assert readout.flagged_mm3 == pytest.approx(readout.flagged * np.prod(method.layer.scale))
        assert readout.flagged_percent == pytest.approx(100 * readout.flagged / data.size)
        assert readout.dice == pytest.approx(confusion_at(curve, threshold).dice)
        match = match_objects(data, gt, threshold=threshold)
        objects = readout.objects
        assert (objects.tp, objects.fp, objects.fn) == (
            match.counts.tp,
            match.counts.fp,
            match.counts.fn,
        )
        text = widget._rows["residual"].readout.text()
        assert f"{readout.flagged:,} voxels" in text
        assert f"Dice {readout.dice:.3f}" in text and f"FP {match.counts.fp}" in text


def test_a_linked_drag_keeps_only_the_last_readouts(sample_viewer, qtbot):
    _, widget = sample_viewer
    widget._link.setChecked(True)
    for step in range(100, 640, 20):  # a slider drag: many values in quick succession
        widget._rows["binary"].slider.setValue(step)
    _wait(qtbot, widget)
    gt = _gt(widget)
    for method in widget.session.methods:
        readout = widget.readouts[method.name]
        assert readout.threshold == pytest.approx(0.62)
        assert readout.flagged == _flagged(method.data, 0.62)
        dice = confusion_at(curve_from_arrays(method.data, gt), 0.62).dice
        assert readout.dice == pytest.approx(dice)


def test_without_gt_counts_only_and_no_best_on_the_case(sample_viewer, qtbot):
    viewer, widget = sample_viewer
    viewer.layers.remove(widget.session.gt_layer)
    _wait(qtbot, widget)
    readout = widget.readouts["binary"]
    assert readout.dice is None and readout.objects is None
    assert readout.flagged == _flagged(widget.session.method("binary").data, 0.5)
    text = widget._rows["binary"].readout.text()
    assert "counts only" in text and "Dice" not in text
    widget.find_best_threshold()
    assert "no ground truth" in widget._best.result.text()
    assert widget.session.threshold("binary") == pytest.approx(0.5)


# -- best threshold ------------------------------------------------------------------


def test_best_threshold_on_this_case_is_applied(sample_viewer, qtbot):
    _, widget = sample_viewer
    gt = _gt(widget)
    for criterion, by in (("Dice", "dice"), ("object F1", "object_f1")):
        widget._link.setChecked(True)
        widget._best.criterion.setCurrentText(criterion)
        qtbot.mouseClick(widget._best.find_button, Qt.MouseButton.LeftButton)
        _wait(qtbot, widget)
        text = widget._best.result.text()
        assert text.startswith("On this case")
        for method in widget.session.methods:
            expected = best_case_threshold(method.data, gt, by=by)
            # applied as the display threshold that draws exactly what the best one flags
            applied = widget.session.threshold(method.name)
            assert applied == display_threshold(expected.threshold)
            assert f"{method.name}: {expected.threshold:.3f} ({criterion}" in text
            readout = widget.readouts[method.name]
            assert readout.threshold == applied
            assert readout.flagged == _flagged(method.data, expected.threshold)
            assert readout.dice == pytest.approx(
                confusion_at(curve_from_arrays(method.data, gt), expected.threshold).dice
            )
        assert not widget.linked  # the methods' best thresholds differ: the link is released


def _toy_dataset(mood_dataset: Path, tmp_path: Path, keep: tuple[str, ...]) -> Path:
    toy = tmp_path / "toy_dataset"
    shutil.copytree(mood_dataset, toy)
    for method in ("a", "b"):
        if method not in keep:
            shutil.rmtree(toy / "methods" / method)
    return toy


def test_best_thresholds_on_a_toy_dataset_say_what_is_missing(
    widget_viewer, mood_dataset, tmp_path, qtbot
):
    _, widget = widget_viewer
    toy = _toy_dataset(mood_dataset, tmp_path, keep=("a",))
    (toy / "methods" / "a" / "case_0.nii.gz").unlink()  # scores as zeros, reported
    widget._best.source.setCurrentText("toy dataset")
    widget._best.criterion.setCurrentText("object F1")
    widget._best.folder.setText(str(toy))
    widget._rows["b"].box.setValue(0.3)
    widget.find_best_threshold()
    _wait(qtbot, widget)
    options = EvaluationOptions(tasks=("pixel", "object"), object_threshold="auto")
    with pytest.warns(MoodInputWarning, match="no pixel map"):
        found = evaluate(toy, methods=discover_methods(toy / "methods"), options=options, workers=1)
    summary = found.result.methods["a"]
    expected = summary.object.counts  # MOOD: best dataset F1 over the grid 0.01 .. 0.99
    assert widget.session.threshold("a") == display_threshold(expected.threshold)
    assert widget.session.threshold("b") == pytest.approx(0.3)  # no folder: unchanged
    text = widget._best.result.text()
    assert f"a: {expected.threshold:.3f} (object F1 {expected.f1:.3f})" in text
    assert "No folder for b" in text and "toy dataset toy_dataset (2 cases)" in text
    assert "1 input problem: " in text and "no pixel map for case case_0" in text
    widget._best.criterion.setCurrentText("Dice")
    widget.find_best_threshold()
    _wait(qtbot, widget)
    pooled = summary.pixel.best_dice_threshold  # best Dice over the pooled voxels
    assert widget.session.threshold("a") == display_threshold(pooled)
    assert f"a: {pooled:.3f} (Dice {summary.pixel.best_dice:.3f})" in widget._best.result.text()


def test_a_toy_dataset_without_the_methods_is_reported(
    widget_viewer, mood_dataset, tmp_path, qtbot, monkeypatch
):
    _, widget = widget_viewer
    errors: list[str] = []
    monkeypatch.setattr("napari.utils.notifications.show_error", errors.append)
    toy = _toy_dataset(mood_dataset, tmp_path, keep=("a",))
    (toy / "methods" / "a").rename(toy / "methods" / "other")
    widget._best.source.setCurrentText("toy dataset")
    widget.find_best_threshold()
    assert "Pick the toy dataset folder" in widget._best.result.text()
    widget._best.folder.setText(str(toy))
    widget.find_best_threshold()
    _wait(qtbot, widget)
    assert "no folder named like the methods shown (a, b)" in widget._best.result.text()
    assert errors and "other" in errors[0]
    assert widget.session.threshold("a") == pytest.approx(0.5)


# -- docking layout (napari_mood._napari.viewer.dock_plugin_widgets) ----------------------------


def _dock_of(widget):
    parent = widget.parentWidget()
    while not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent


def test_all_widgets_dock_in_one_tab_group_thresholds_first(make_napari_viewer, mood_dataset):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    widgets = dock_plugin_widgets(viewer)
    manifest = PluginManager.instance().get_manifest("napari-mood")
    other = set(OTHER_BENCHMARK_WIDGETS)
    assert len(widgets) == len(
        [w for w in manifest.contributions.widgets if w.display_name not in other]
    )
    assert isinstance(widgets[0], ThresholdWidget)
    assert isinstance(widgets[1], SliceScoresWidget)
    planes = [w for w in widgets if isinstance(w, PlanesWidget)]
    assert len(planes) == 1  # beside the tab group, not in it
    docks = [_dock_of(w) for w in widgets if not isinstance(w, PlanesWidget)]
    window = docks[0].parentWidget()
    assert isinstance(window, QMainWindow)
    viewer.window.resize(*SCREENSHOT_WINDOW_SIZE)
    QApplication.processEvents()
    assert set(window.tabifiedDockWidgets(docks[0])) == set(docks[1:])
    assert all(window.dockWidgetArea(d) == Qt.DockWidgetArea.RightDockWidgetArea for d in docks)
    assert [d.windowTitle() for d in docks[:2]] == ["Thresholds", "Slices"]
    assert (window.width(), window.height()) == SCREENSHOT_WINDOW_SIZE  # nothing forces it bigger
    planes_dock = _dock_of(planes[0])  # in front of napari's layer controls, on the left
    assert window.dockWidgetArea(planes_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert planes_dock not in window.tabifiedDockWidgets(docks[0])
    assert not planes_dock.visibleRegion().isEmpty()
    assert not docks[0].visibleRegion().isEmpty()  # the thresholds tab is in front
    assert all(d.visibleRegion().isEmpty() for d in docks[1:])
    tabbed = [w for w in widgets if not isinstance(w, PlanesWidget)]
    for widget, dock in zip(tabbed, docks, strict=True):
        assert widget.minimumSizeHint().width() <= dock.width(), type(widget).__name__
