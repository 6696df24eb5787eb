"""ThresholdWidget: one slider + number per method, instant, optionally linked."""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood._viewer import load_into_viewer
from napari_mood._widgets._threshold import SLIDER_STEPS, ThresholdWidget


@pytest.fixture
def widget_viewer(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Display thresholds")
    return viewer, widget


def _limits(widget: ThresholdWidget, name: str) -> list[float]:
    return list(widget.session.method(name).layer.contrast_limits)


def test_plugin_widget_lists_the_methods(widget_viewer):
    _, widget = widget_viewer
    assert isinstance(widget, ThresholdWidget)
    assert list(widget._rows) == ["a", "b"]
    assert widget._rows["a"].box.value() == pytest.approx(0.5)
    assert widget._rows["a"].slider.value() == SLIDER_STEPS // 2
    assert "transparent" in widget._rows["a"].slider.toolTip()
    assert widget._empty.isHidden()


def test_empty_viewer_says_what_to_do(make_napari_viewer):
    widget = ThresholdWidget(make_napari_viewer(show=True))
    assert widget._rows == {}
    assert "No score map" in widget._empty.text()
    assert not widget._link.isEnabled()
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


def test_closed_widget_stops_listening(widget_viewer, qtbot):
    viewer, widget = widget_viewer
    session = widget.session
    viewer.window.remove_dock_widget("all")
    widget.deleteLater()
    qtbot.wait(50)
    session.set_all_thresholds(0.4)  # would raise if a deleted widget were still connected
    viewer.layers.remove("a")
    assert session.method_names == ("b",)
