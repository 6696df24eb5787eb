"""Review as a radiologist reads: keys from the canvas, GT safe, notes, undo, blind, queue."""

from __future__ import annotations

import numpy as np
import pytest
from qtpy.QtCore import QPoint, Qt
from qtpy.QtWidgets import QDockWidget

from napari_mood._napari.widgets.review import ReviewWidget
from napari_mood._napari.widgets.review_view import BLIND_COLOR
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.looks import method_colormap
from napari_mood.services.review_store import read_reviews
from tests.napari.widgets.test_review import _control, _open, _wait, needs_sample

pytestmark = needs_sample


def _canvas(viewer):
    return viewer.window._qt_viewer.canvas.native


def _click_canvas(viewer, qtbot) -> None:
    viewer.window._qt_window.activateWindow()
    canvas = _canvas(viewer)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    qtbot.waitUntil(lambda: viewer.window._qt_window.isActiveWindow(), timeout=3000)


def test_keys_work_from_the_canvas_and_never_paint_the_gt(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    gt = widget.session.gt_layer
    before = np.asarray(gt.data).copy()
    viewer.layers.selection.active = gt  # the GT selected: napari's F / P are fill / paint
    assert not gt.editable
    _click_canvas(viewer, qtbot)
    canvas = _canvas(viewer)
    qtbot.keyClick(canvas, Qt.Key.Key_F)
    qtbot.waitUntil(lambda: len(read_reviews(widget.review_path)) == 1, timeout=3000)
    assert read_reviews(widget.review_path)[0].verdict == "false alarm"
    assert widget.current_index == 1
    qtbot.keyClick(canvas, Qt.Key.Key_P)
    assert widget.current_index == 0
    assert gt.mode == "pan_zoom" and not gt.editable
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(200, 200))
    np.testing.assert_array_equal(gt.data, before)  # not one voxel painted
    gt.data = gt.data  # napari makes Labels editable on new data: we keep it read-only
    assert not gt.editable


def test_keys_are_off_while_the_review_is_hidden(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    assert widget._keys is not None and widget._keys.enabled
    dock = next(
        d for d in viewer.window._qt_window.findChildren(QDockWidget) if d.widget() is widget
    )
    dock.hide()
    qtbot.waitUntil(lambda: not widget._keys.enabled, timeout=3000)
    _click_canvas(viewer, qtbot)
    qtbot.keyClick(_canvas(viewer), Qt.Key.Key_T)
    assert not widget.review_path.exists() or not read_reviews(widget.review_path)


def test_notes_stay_with_their_region(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    path = widget.review_path
    _control(widget, "note").setText("draft on region 1")
    widget.step(1)
    assert _control(widget, "note").text() == ""
    assert "region 2 of" in _control(widget, "note_label").text()
    _control(widget, "note").setText("draft on region 2")
    widget.step(-1)
    assert (
        _control(widget, "note").text() == "draft on region 1"
    )  # kept, not lost on Next / Previous
    assert widget.set_verdict("true finding")  # saved with its verdict, then region 2
    assert _control(widget, "note").text() == "draft on region 2"
    (saved,) = read_reviews(path)
    assert (saved.object_id, saved.note) == (widget.regions[0].object_id, "draft on region 1")
    widget.set_verdict("unsure")
    notes = {r.object_id: r.note for r in read_reviews(path)}
    assert notes[widget.regions[1].object_id] == "draft on region 2"


def test_undo_takes_the_last_verdict_back(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    path = widget.review_path
    _control(widget, "note").setText("first look")
    widget.set_verdict("true finding")
    widget.set_verdict("false alarm")
    assert widget.current_index == 2 and len(read_reviews(path)) == 2
    _click_canvas(viewer, qtbot)
    qtbot.keyClick(_canvas(viewer), Qt.Key.Key_Z)
    assert widget.current_index == 1 and len(read_reviews(path)) == 1
    assert widget.undo() and widget.current_index == 0 and read_reviews(path) == ()
    assert _control(widget, "note").text() == "first look"  # the note comes back as a draft
    assert not widget.undo()


def test_verdicts_carry_scanner_coordinates_and_the_reviewer(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    _control(widget, "reviewer").setText("AB")
    region = widget.current_region
    widget.set_verdict("true finding")
    (saved,) = read_reviews(widget.review_path)
    transform = widget.session.transform
    voxel = transform.display_to_file_index(np.asarray(region.centroid_voxel))
    ras = transform.affine @ np.append(voxel, 1.0)
    assert saved.reviewer == "AB"
    assert saved.centroid_file_voxel == pytest.approx(tuple(voxel), abs=1e-3)
    assert saved.centroid_ras_mm == pytest.approx(tuple(ras[:3]), abs=1e-3)


def test_only_this_method_and_blind_review(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    session = widget.session
    ranked = widget.regions
    _control(widget, "only").setChecked(True)
    assert [m.layer.visible for m in session.methods] == [False, False, True]
    assert session.gt_layer.visible
    _control(widget, "only").setChecked(False)
    assert all(m.layer.visible for m in session.methods)

    viewer.window.add_plugin_dock_widget("napari-mood", "Display thresholds")  # names methods
    qtbot.wait(200)
    widget.set_blind(True)
    _wait(qtbot, widget, "residual")
    seed = widget.blind_seed
    assert seed is not None and not session.gt_layer.visible
    assert [m.layer.visible for m in session.methods] == [False, False, True]
    names = [
        _control(widget, "method").itemText(i) for i in range(_control(widget, "method").count())
    ]
    assert sorted(names) == ["Method A", "Method B", "Method C"]
    assert "residual" not in _control(widget, "position").text()
    assert session.method("residual").layer.colormap.name == method_colormap(BLIND_COLOR)["name"]
    docks = viewer.window._qt_window.findChildren(QDockWidget)
    closed = [d.windowTitle() for d in docks if not d.toggleViewAction().isChecked()]
    assert {"layer list", "layer controls"} <= set(closed)
    # the thresholds panel names the methods ("Thresholds" when docked as a tab)
    assert any("thresholds" in title.lower() for title in closed)
    layer_list = viewer.window._qt_window.findChild(QDockWidget, "layer list")
    assert not layer_list.isVisible()
    assert sorted(r.object_id for r in widget.regions) == sorted(r.object_id for r in ranked)
    assert widget.regions != ranked  # shuffled (22 regions: never the ranking by chance)
    widget.set_verdict("unsure")
    (saved,) = read_reviews(widget.review_path)
    assert saved.blind_seed == seed

    widget.set_blind(False)
    _wait(qtbot, widget, "residual")
    assert session.gt_layer.visible and all(m.layer.visible for m in session.methods)
    assert layer_list.isVisible() and widget.regions == ranked
    assert session.method("residual").layer.colormap.name != method_colormap(BLIND_COLOR)["name"]
    widget.set_blind(True)  # resumed: the same seed, the same order
    _wait(qtbot, widget, "residual")
    assert widget.blind_seed == seed


def test_next_past_the_last_region_opens_the_next_case(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    first_case = widget.session.case
    widget.go_to(len(widget.regions) - 1)
    widget.step(1)
    qtbot.waitUntil(lambda: widget.session.case != first_case, timeout=20000)
    _wait(qtbot, widget, "residual")
    queue = widget.queue
    assert queue is not None and queue.step(first_case, 1) == widget.session.case
    assert widget.current_index == 0
    assert "Case" in _control(widget, "queue_label").text()
    assert [layer.name for layer in viewer.layers].count("residual") == 1  # replaced
    widget.step(-1)  # back to the last region of the previous case
    qtbot.waitUntil(lambda: widget.session.case == first_case, timeout=20000)
    _wait(qtbot, widget, "residual")
    assert widget.current_index == len(widget.regions) - 1


def test_the_panel_lists_its_keys(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    assert isinstance(widget, ReviewWidget)
    text = _control(widget, "help").text()
    for key in "TFUNPZ":
        assert f"<b>{key}</b>" in text


def test_another_case_removes_the_old_outlines_at_once(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    first = widget.session.case
    assert any(layer.name == "Review: current region" for layer in viewer.layers)
    widget.step_case(1)
    qtbot.waitUntil(lambda: widget.session.case != first, timeout=20000)
    outlines = [layer for layer in viewer.layers if layer.name == "Review: current region"]
    assert all(layer.metadata["napari_mood"]["case"] == widget.session.case for layer in outlines)


def test_a_verdict_on_a_cases_last_region_opens_the_next_case(
    make_napari_viewer, qtbot, review_dir
):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    first_case = widget.session.case
    widget.go_to(len(widget.regions) - 1)
    _click_canvas(viewer, qtbot)
    qtbot.keyClick(_canvas(viewer), Qt.Key.Key_T)  # "Go to the next region" is on by default
    qtbot.waitUntil(lambda: len(read_reviews(widget.review_path)) == 1, timeout=3000)
    qtbot.waitUntil(lambda: widget.session.case != first_case, timeout=20000)
    _wait(qtbot, widget, "residual")
    queue = widget.queue
    assert queue is not None and queue.step(first_case, 1) == widget.session.case
    assert widget.current_index == 0
    (saved,) = read_reviews(widget.review_path)
    assert (saved.case, saved.verdict) == (first_case, "true finding")


def test_without_advance_a_verdict_on_the_last_region_stays(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    first_case, last = widget.session.case, len(widget.regions) - 1
    _control(widget, "advance").setChecked(False)
    widget.go_to(last)
    assert widget.set_verdict("false alarm")
    qtbot.wait(300)
    assert widget.session.case == first_case and widget.current_index == last
