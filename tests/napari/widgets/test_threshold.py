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
    QCheckBox,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
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
from napari_mood.io.methods import discover_methods
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.evaluation import evaluate
from napari_mood.services.looks import method_colormap
from tests.napari import ui


@pytest.fixture
def widget_viewer(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Display thresholds")
    return viewer, widget


def _limits(viewer, name: str) -> list[float]:
    """The contrast limits napari shows for method ``name``'s layer."""
    return list(viewer.layers[name].contrast_limits)


def _box(widget: ThresholdWidget, name: str) -> QDoubleSpinBox:
    return ui.control(widget, f"Threshold of {name}", QDoubleSpinBox)


def _slider(widget: ThresholdWidget, name: str) -> QSlider:
    return ui.control(widget, f"Threshold slider of {name}", QSlider)


def _link(widget: ThresholdWidget) -> QCheckBox:
    return ui.control(widget, "Link all methods", QCheckBox)


def _result(widget: ThresholdWidget) -> str:
    return ui.control(widget, "Best threshold result", QLabel).text()


def _readout(widget: ThresholdWidget, name: str) -> str:
    return ui.control(widget, f"What {name} flags", QLabel).text()


def _methods_listed(widget: ThresholdWidget) -> list[str]:
    boxes = ui.control_names(widget, QDoubleSpinBox)
    return [name.removeprefix("Threshold of ") for name in boxes]


def test_plugin_widget_lists_the_methods_with_tooltips(widget_viewer):
    _, widget = widget_viewer
    assert isinstance(widget, ThresholdWidget)
    assert _methods_listed(widget) == ["a", "b"]
    assert _box(widget, "a").value() == pytest.approx(0.5)
    assert _slider(widget, "a").value() == SLIDER_STEPS // 2
    assert "transparent" in _slider(widget, "a").toolTip()
    assert not any("No score map" in text for text in ui.shown_texts(widget))
    kinds = (QAbstractButton, QSlider, QAbstractSpinBox, QComboBox, QLineEdit)
    controls = [c for kind in kinds for c in widget.findChildren(kind)]
    controls = [c for c in controls if not isinstance(c.parent(), (QAbstractSpinBox, QComboBox))]
    assert len(controls) == 10  # link, 2 x (slider, box), 2 combos, folder, browse, find
    for control in controls:
        assert control.toolTip(), f"{type(control).__name__} {control.objectName()} has no tooltip"
        assert control.accessibleName() or control.text(), f"{control.toolTip()} has no name"


def test_empty_viewer_says_what_to_do(make_napari_viewer):
    widget = ThresholdWidget(make_napari_viewer(show=True))
    assert _methods_listed(widget) == []
    assert any("No score map" in text for text in ui.shown_texts(widget))
    assert not _link(widget).isEnabled()
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
    layers = read_dataset_case(mood_dataset, "case_1.nii.gz")
    maps = [x for x in layers if x[2] == "image" and x[1]["name"] in ("a", "b")]
    session = get_session(viewer)
    session.replace_case([x for x in layers if not any(x is m for m in maps)])
    for widget in widgets:
        assert any("No score map" in text for text in ui.shown_texts(widget))
    session.expect_maps()
    for widget in widgets:
        texts = ui.shown_texts(widget)
        assert READING_MAPS_TEXT in texts and not any("No score map" in t for t in texts)
    session.complete_case(maps)
    assert session.method_names == ("a", "b") and not session.maps_coming
    for widget in widgets:
        texts = ui.shown_texts(widget)
        assert not any(t == READING_MAPS_TEXT or "No score map" in t for t in texts)
    assert _methods_listed(widgets[0]) == ["a", "b"]
    for widget in widgets:
        widget.deleteLater()


def test_slider_and_box_set_the_layer_instantly(widget_viewer):
    viewer, widget = widget_viewer
    _slider(widget, "a").setValue(750)  # what a drag of the handle sends
    assert _limits(viewer, "a")[0] == pytest.approx(0.75)
    assert _box(widget, "a").value() == pytest.approx(0.75)
    ui.type_into(_box(widget, "a"), "0.2")
    assert _limits(viewer, "a")[0] == pytest.approx(0.2)
    assert _slider(widget, "a").value() == 200
    assert _limits(viewer, "b")[0] == pytest.approx(0.5)  # not linked
    assert _box(widget, "b").value() == pytest.approx(0.5)


def test_a_typed_threshold_applies_at_enter_not_keystroke_by_keystroke(widget_viewer, qtbot):
    """Click the box, select all, type 0.35, Enter: the first "0" set threshold 0 at once."""
    viewer, widget = widget_viewer
    field = _box(widget, "a").lineEdit()
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, "0.35")
    assert _limits(viewer, "a")[0] == pytest.approx(0.5)  # nothing applied while typing
    assert field.text() == "0.35"  # the keys were kept
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert _limits(viewer, "a")[0] == pytest.approx(0.35)
    assert _slider(widget, "a").value() == 350


def test_link_all_moves_every_method(widget_viewer):
    viewer, widget = widget_viewer
    ui.type_into(_box(widget, "a"), "0.3")
    ui.click(_link(widget))
    assert _link(widget).isChecked() and widget.linked
    assert _limits(viewer, "b")[0] == pytest.approx(0.3)  # takes the first method's value
    _slider(widget, "b").setValue(900)
    assert _limits(viewer, "a")[0] == pytest.approx(0.9)
    assert _slider(widget, "a").value() == 900
    assert _box(widget, "a").value() == pytest.approx(0.9)


def test_rows_follow_the_session(widget_viewer):
    viewer, widget = widget_viewer
    viewer.layers["b"].contrast_limits = (0.65, 1.0)  # napari's own layer controls
    assert _box(widget, "b").value() == pytest.approx(0.65)
    assert _slider(widget, "b").value() == 650
    viewer.layers.remove("a")
    assert _methods_listed(widget) == ["b"]
    assert not _link(widget).isEnabled()


def test_rows_of_the_last_case_vanish_at_once(widget_viewer, mood_dataset):
    """Rebuilt rows: the old ones are hidden at once, not only deleted once the event
    loop runs (a script's screenshot of a dropped case drew both cases' readouts)."""
    viewer, widget = widget_viewer
    names = [f"{kind} {m}" for m in "ab" for kind in ("Colour of", "Threshold slider of")]
    names += [f"Threshold of {m}" for m in "ab"] + [f"What {m} flags" for m in "ab"]
    old = [ui.control(widget, name) for name in names] + [ui.control(widget, "a", QLabel)]
    load_into_viewer(viewer, [mood_dataset / "toy" / "case_0.nii.gz"])
    assert old and not any(w.isVisible() for w in old)
    QApplication.processEvents()  # the new rows show; no loop runs, so nothing is deleted
    shown = [w for w in widget.findChildren(QSlider) if w.isVisible()]
    assert len(shown) == len(_methods_listed(widget)) == len(widget.session.methods)


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
        ui.type_into(_box(widget, "residual"), f"{threshold:.3f}")
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
        text = _readout(widget, "residual")
        assert f"{readout.flagged:,} voxels" in text
        assert f"Dice {readout.dice:.3f}" in text and f"FP {match.counts.fp}" in text


def test_a_linked_drag_keeps_only_the_last_readouts(sample_viewer, qtbot):
    _, widget = sample_viewer
    ui.click(_link(widget))
    for step in range(100, 640, 20):  # a slider drag: many values in quick succession
        _slider(widget, "binary").setValue(step)
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
    text = _readout(widget, "binary")
    assert "counts only" in text and "Dice" not in text
    ui.click(ui.control(widget, "Find best and apply", QPushButton))
    assert "no ground truth" in _result(widget)
    assert widget.session.threshold("binary") == pytest.approx(0.5)


# -- best threshold ------------------------------------------------------------------


def test_best_threshold_on_this_case_is_applied(sample_viewer, qtbot):
    _, widget = sample_viewer
    gt = _gt(widget)
    for criterion, by in (("Dice", "dice"), ("object F1", "object_f1")):
        if not _link(widget).isChecked():
            ui.click(_link(widget))
        ui.choose(ui.control(widget, "Best threshold criterion", QComboBox), criterion)
        ui.click(ui.control(widget, "Find best and apply", QPushButton))
        _wait(qtbot, widget)
        text = _result(widget)
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
        assert not _link(widget).isChecked()  # the best thresholds differ: link released


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
    ui.choose(ui.control(widget, "Best threshold source", QComboBox), "toy dataset")
    ui.choose(ui.control(widget, "Best threshold criterion", QComboBox), "object F1")
    ui.type_into(ui.control(widget, "Toy dataset folder", QLineEdit), str(toy))
    ui.type_into(_box(widget, "b"), "0.3")
    ui.click(ui.control(widget, "Find best and apply", QPushButton))
    _wait(qtbot, widget)
    options = EvaluationOptions(tasks=("pixel", "object"), object_threshold="auto")
    with pytest.warns(MoodInputWarning, match="no pixel map"):
        found = evaluate(toy, methods=discover_methods(toy / "methods"), options=options, workers=1)
    summary = found.result.methods["a"]
    expected = summary.object.counts  # MOOD: best dataset F1 over the grid 0.01 .. 0.99
    assert widget.session.threshold("a") == display_threshold(expected.threshold)
    assert widget.session.threshold("b") == pytest.approx(0.3)  # no folder: unchanged
    text = _result(widget)
    assert f"a: {expected.threshold:.3f} (object F1 {expected.f1:.3f})" in text
    assert "No folder for b" in text and "toy dataset toy_dataset (2 cases)" in text
    assert "1 input problem: " in text and "no pixel map for case case_0" in text
    ui.choose(ui.control(widget, "Best threshold criterion", QComboBox), "Dice")
    ui.click(ui.control(widget, "Find best and apply", QPushButton))
    _wait(qtbot, widget)
    pooled = summary.pixel.best_dice_threshold  # best Dice over the pooled voxels
    assert widget.session.threshold("a") == display_threshold(pooled)
    assert f"a: {pooled:.3f} (Dice {summary.pixel.best_dice:.3f})" in _result(widget)


def test_a_toy_dataset_without_the_methods_is_reported(
    widget_viewer, mood_dataset, tmp_path, qtbot, monkeypatch
):
    _, widget = widget_viewer
    errors: list[str] = []
    monkeypatch.setattr("napari.utils.notifications.show_error", errors.append)
    toy = _toy_dataset(mood_dataset, tmp_path, keep=("a",))
    (toy / "methods" / "a").rename(toy / "methods" / "other")
    ui.choose(ui.control(widget, "Best threshold source", QComboBox), "toy dataset")
    ui.click(ui.control(widget, "Find best and apply", QPushButton))
    assert "Pick the toy dataset folder" in _result(widget)
    ui.type_into(ui.control(widget, "Toy dataset folder", QLineEdit), str(toy))
    ui.click(ui.control(widget, "Find best and apply", QPushButton))
    _wait(qtbot, widget)
    assert "no folder named like the methods shown (a, b)" in _result(widget)
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
