"""ReviewWidget: step through flagged regions, record verdicts, reopen, export."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from napari.utils.notifications import notification_manager
from qtpy.QtCore import Qt
from qtpy.QtWidgets import QLabel, QPushButton, QWidget

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.viewer import (
    SCREENSHOT_WINDOW_SIZE,
    _close_notifications,
    load_into_viewer,
)
from napari_mood._napari.widgets.review import AUTO_DELAY_MS, REVIEW_LAYER_NAME, ReviewWidget
from napari_mood.core.objects import object_labels
from napari_mood.core.regions import flagged_regions
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.review_store import SUMMARY_COLUMNS, read_reviews

HAVE_SAMPLE = (sample_data_dir() / "toy").is_dir()
needs_sample = pytest.mark.skipif(not HAVE_SAMPLE, reason="sample_data/ not generated yet")


def _open(make_napari_viewer, qtbot, data: Path, method: str):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [data])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Review flagged regions")
    widget.select_method(method)
    _wait(qtbot, widget, method)
    return viewer, widget


def _wait(qtbot, widget: ReviewWidget, method: str) -> None:
    def settled() -> bool:
        return widget.method == method and not widget.busy and not widget.update_pending

    qtbot.waitUntil(settled, timeout=15000)


def _control(widget: ReviewWidget, name: str):
    """The review control named ``name`` (its object name ``review-<name>``)."""
    control = widget.findChild(QWidget, f"review-{name}")
    assert control is not None, name
    return control


def _verdict_button(widget: ReviewWidget, verdict: str):
    """The button recording ``verdict``."""
    return widget.findChild(QPushButton, f"review-verdict-{verdict}")


def _expected_regions(widget: ReviewWidget, name: str, scope: str = "window"):
    method, gt = widget.session.method(name), widget.session.gt_layer
    return flagged_regions(
        method.data, gt.data, threshold=method.threshold, scope=scope, spacing=method.layer.scale
    )


def _focus(viewer, widget: ReviewWidget, qtbot) -> None:
    viewer.window._qt_window.activateWindow()
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=3000)


def _errors_since(count: int) -> list[str]:
    return [n.message for n in notification_manager.records[count:]]


@needs_sample
def test_regions_are_the_core_regions_and_the_first_is_shown(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    assert isinstance(widget, ReviewWidget)
    expected = _expected_regions(widget, "residual")
    assert widget.regions == expected and len(expected) == 22  # TP + 21 FP at 0.5
    assert [r.max_score for r in expected] == sorted((r.max_score for r in expected), reverse=True)
    first = widget.current_region
    assert widget.current_index == 0 and first == expected[0]
    method = widget.session.method("residual")
    world = method.layer.data_to_world(first.centroid_voxel)
    assert widget.session.slice_index == round(first.centroid_voxel[0])
    assert viewer.scene.camera.center[1:] == pytest.approx(tuple(world[1:]))
    layer = viewer.layers[REVIEW_LAYER_NAME]
    labels, _ = object_labels(method.data, widget.session.gt_layer.data, threshold=0.5)
    np.testing.assert_array_equal(layer.data, labels)
    assert layer.show_selected_label and layer.selected_label == first.object_id
    assert layer.metadata[METADATA_KEY]["role"] == "review"
    assert widget.session.method_names == ("binary", "oracle_noisy", "residual")
    assert "Region 1 of 22" in _control(widget, "position").text()
    assert widget.review_path is not None and widget.review_path.parent == review_dir

    _control(widget, "scope").setCurrentIndex(1)  # all flagged components, specks too
    qtbot.waitUntil(lambda: len(widget.regions) > 22, timeout=15000)
    _wait(qtbot, widget, "residual")
    assert widget.regions == _expected_regions(widget, "residual", scope="all")


@needs_sample
def test_verdicts_are_saved_at_once_and_come_back(make_napari_viewer, qtbot, review_dir, tmp_path):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    path = widget.review_path
    regions = widget.regions
    qtbot.mouseClick(_verdict_button(widget, "true finding"), Qt.MouseButton.LeftButton)
    (saved,) = read_reviews(path)
    layer = widget.session.method("residual").layer
    assert (saved.case, saved.method, saved.threshold) == ("brain_001.nii.gz", "residual", 0.5)
    assert (saved.object_id, saved.verdict, saved.size_voxels) == (
        regions[0].object_id,
        "true finding",
        2515,
    )
    world = layer.data_to_world(regions[0].centroid_voxel)
    assert saved.centroid_world_mm == pytest.approx(tuple(world), abs=1e-3)
    assert widget.current_index == 1  # went on to the next region

    _focus(viewer, widget, qtbot)
    qtbot.keyClick(widget, Qt.Key.Key_T)
    assert [r.verdict for r in read_reviews(path)] == ["true finding"] * 2
    qtbot.keyClick(widget, Qt.Key.Key_N)
    assert widget.current_index == 3
    _control(widget, "note").setFocus()
    qtbot.keyClicks(_control(widget, "note"), "fun")  # typed keys are text, not shortcuts
    assert widget.current_index == 3 and len(read_reviews(path)) == 2
    qtbot.keyClick(_control(widget, "note"), Qt.Key.Key_Return)
    assert widget.hasFocus()  # back to the panel: keys work again
    qtbot.keyClick(widget, Qt.Key.Key_F)
    assert (read_reviews(path)[-1].note, read_reviews(path)[-1].verdict) == ("fun", "false alarm")
    assert _control(widget, "note").text() == ""  # the next region has no note yet
    qtbot.keyClick(widget, Qt.Key.Key_U)
    assert [r.verdict for r in read_reviews(path)][-1] == "unsure"

    assert widget.current_index == 5
    for _ in range(4):
        qtbot.mouseClick(_control(widget, "previous"), Qt.MouseButton.LeftButton)
    assert widget.current_index == 1 and _verdict_button(widget, "true finding").isChecked()
    _control(widget, "note").setText("small cube, faint")
    _control(widget, "note").editingFinished.emit()  # a note edited after the verdict is saved too
    records = {r.object_id: r for r in read_reviews(path)}
    assert records[regions[1].object_id].note == "small cube, faint"
    assert records[regions[1].object_id].verdict == "true finding"
    assert len(records) == 4
    judged = {r.object_id: r.verdict for r in records.values()}
    widget.go_to(3)
    _control(widget, "note").setText("fun, again")  # still typing when napari closes

    viewer.close()
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    assert widget.review_path == path
    assert {i: r.verdict for i, r in widget.verdicts.items()} == judged
    assert widget.current_index == 2  # resumes at the first region without a verdict
    assert widget.verdicts[regions[3].object_id].note == "fun, again"
    widget.go_to(1)
    assert _verdict_button(widget, "true finding").isChecked()
    assert _control(widget, "note").text() == "small cube, faint"
    assert "Reviewed 4 of 22" in _control(widget, "progress").text()
    _review_screenshot(viewer, widget, qtbot, tmp_path)

    widget.session.set_threshold("residual", 0.55)
    qtbot.waitUntil(lambda: widget.regions and widget.regions != regions, timeout=15000)
    _wait(qtbot, widget, "residual")
    biggest = max(widget.regions, key=lambda r: r.size_voxels)
    assert widget.verdicts[biggest.object_id].verdict == "true finding"  # robust to thresholds

    counts, objects = widget.export_summary_to(tmp_path / "export" / "summary.csv")
    with counts.open(newline="") as stream:
        assert list(csv.reader(stream)) == [
            list(SUMMARY_COLUMNS),
            ["residual", "1", "4", "2", "1", "1"],
        ]
    assert {r.object_id for r in read_reviews(objects)} == set(judged)


def _review_screenshot(viewer, widget: ReviewWidget, qtbot, tmp_path: Path) -> None:
    for name in ("binary", "oracle_noisy"):
        viewer.layers[name].visible = False
    viewer.window.resize(*SCREENSHOT_WINDOW_SIZE)
    qtbot.wait(200)
    widget.go_to(1)
    viewer.window._qt_viewer._layers.scrollToTop()  # show the napari-mood layers
    _close_notifications()
    qtbot.wait(100)
    path = tmp_path / "review.png"
    viewer.screenshot(str(path), canvas_only=False)
    assert path.stat().st_size > 50_000


def test_review_file_inside_the_data_is_refused(
    make_napari_viewer, qtbot, review_dir, mood_dataset
):
    viewer, widget = _open(make_napari_viewer, qtbot, mood_dataset, "a")
    default = widget.review_path
    before = len(notification_manager.records)
    for inside in (mood_dataset / "notes" / "review.csv", mood_dataset / "methods" / "a" / "r.csv"):
        assert not widget.set_review_file(inside)
        assert not inside.exists()
    messages = _errors_since(before)
    assert "inside the dataset folder" in messages[0] and "choose a folder outside" in messages[0]
    assert widget.review_path == default  # unchanged
    assert widget.set_verdict("unsure")
    assert [r.verdict for r in read_reviews(default)] == ["unsure"]
    assert widget.export_summary_to(mood_dataset / "summary.csv") is None
    assert not (mood_dataset / "summary.csv").exists()

    viewer.layers["b"].data = np.full(viewer.layers["b"].data.shape, np.nan, np.float32)
    before = len(notification_manager.records)
    widget.select_method("b")
    qtbot.waitUntil(lambda: len(notification_manager.records) > before, timeout=15000)
    message = notification_manager.records[-1].message
    assert "of b (" in message and "NaN" in message and "b/case_1.nii.gz" in message
    assert widget.method == "a"  # the regions under review stay


def test_unreadable_review_file_is_left_alone(
    make_napari_viewer, qtbot, review_dir, tmp_path, mood_dataset
):
    viewer, widget = _open(make_napari_viewer, qtbot, mood_dataset, "a")
    broken = tmp_path / "elsewhere" / "broken.csv"
    broken.parent.mkdir()
    broken.write_text("not,a,review\n1,2,3\n")
    before = len(notification_manager.records)
    assert not widget.set_review_file(broken)
    (message,) = _errors_since(before)
    assert str(broken) in message and "choose another review file" in message
    assert widget.review_path is None
    assert not _verdict_button(widget, "unsure").isEnabled()
    assert not widget.set_verdict("unsure")
    assert broken.read_text() == "not,a,review\n1,2,3\n"
    assert widget.set_review_file(tmp_path / "elsewhere" / "good.csv")
    assert _verdict_button(widget, "unsure").isEnabled() and widget.set_verdict("unsure")


def test_hidden_panel_waits_until_shown(make_napari_viewer, qtbot, review_dir, mood_dataset):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    center = viewer.scene.camera.center
    widget = ReviewWidget(viewer)
    review_dock = viewer.window.add_dock_widget(widget, name="Review flagged regions")
    other_dock = viewer.window.add_dock_widget(QLabel("another panel"), name="Other")
    window = viewer.window._qt_window
    window.tabifyDockWidget(review_dock, other_dock)
    qtbot.wait(20)  # Qt makes the tab bar on the next event loop turn
    other_dock.raise_()  # the review is a tab behind: it must not compute nor move the view
    qtbot.wait(AUTO_DELAY_MS * 3)
    assert widget.regions == () and REVIEW_LAYER_NAME not in viewer.layers
    assert viewer.scene.camera.center == center
    review_dock.raise_()
    _wait(qtbot, widget, "a")
    (region,) = widget.regions
    world = viewer.layers["a"].data_to_world(region.centroid_voxel)
    assert viewer.scene.camera.center[1:] == pytest.approx(tuple(world[1:]))
    assert viewer.layers[REVIEW_LAYER_NAME].selected_label == region.object_id
