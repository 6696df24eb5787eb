"""ObjectsWidget: MOOD object matching shown as layers and a table that drives the viewer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from napari.utils.notifications import notification_manager
from qtpy.QtCore import Qt
from qtpy.QtWidgets import QCheckBox, QComboBox, QLabel, QPushButton, QTableWidget

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.viewer import (
    SCREENSHOT_WINDOW_SIZE,
    _close_notifications,
    load_into_viewer,
)
from napari_mood._napari.widgets.objects import (
    ALL_METHODS,
    AUTO_DELAY_MS,
    KIND_COLORS,
    ObjectsWidget,
    objects_layer_name,
)
from napari_mood.core.objects import match_objects, object_labels
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui

pytestmark = pytest.mark.skipif(
    not (sample_data_dir() / "toy").is_dir(), reason="sample_data/ not generated yet"
)
METHODS = ("binary", "oracle_noisy", "residual")


@pytest.fixture
def objects_viewer(make_napari_viewer, qtbot):
    """The sample dataset's first anomalous case (brain_001) with the dock widget."""
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [sample_data_dir()])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Object matching")
    _wait(qtbot, widget)
    return viewer, widget


def _wait(qtbot, widget: ObjectsWidget) -> None:
    def settled() -> bool:
        return bool(widget.results) and not widget.busy and not widget.update_pending

    qtbot.waitUntil(settled, timeout=15000)


def _table(widget: ObjectsWidget) -> QTableWidget:
    return ui.control(widget, "Objects", QTableWidget)


def _summary(widget: ObjectsWidget) -> str:
    return ui.control(widget, "Object matching summary", QLabel).text()


def _choose(qtbot, widget: ObjectsWidget, choice: str) -> None:
    ui.choose(ui.control(widget, "Method whose objects are matched", QComboBox), choice)
    qtbot.waitUntil(lambda: not widget.update_pending, timeout=5000)
    _wait(qtbot, widget)


def _expected(widget: ObjectsWidget, name: str):
    method, gt = widget.session.method(name), widget.session.gt_layer.data
    match = match_objects(method.data, gt, threshold=method.threshold, spacing=method.layer.scale)
    return method, match, object_labels(method.data, gt, threshold=method.threshold)


def _rgba(color: str) -> list[float]:
    return [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)] + [1.0]


def test_layers_table_and_summary_are_the_core_result(objects_viewer, qtbot):
    viewer, widget = objects_viewer
    assert isinstance(widget, ObjectsWidget)
    _choose(qtbot, widget, "residual")
    method, match, (pred_labels, gt_labels) = _expected(widget, "residual")
    (result,) = widget.results
    assert result.match.counts == match.counts
    assert (match.counts.tp, match.counts.fp, match.counts.fn) == (1, 21, 1)  # brain_001 at 0.5
    layer = viewer.layers[objects_layer_name("residual")]  # one layer: TP, FP and FN
    shown_pred = sorted(
        r.id for r in match.objects if r.source == "pred" and r.kind in ("TP", "FP")
    )
    shown_gt = sorted(r.id for r in match.objects if r.source == "gt" and r.kind == "FN")
    label_of = {("pred", i): k for k, i in enumerate(shown_pred, start=1)}
    label_of |= {("gt", i): k for k, i in enumerate(shown_gt, start=len(shown_pred) + 1)}
    features = layer.features.set_index("index")
    drawn_pred = np.isin(pred_labels, shown_pred)
    for kind, source, labels in (
        ("TP", "pred", pred_labels),
        ("FP", "pred", pred_labels),
        ("FN", "gt", gt_labels),
    ):
        records = [r for r in match.objects if (r.kind, r.source) == (kind, source)]
        for record in records:  # drawn where the object is (a missed one: not under a pred)
            voxels = labels == record.id
            if source == "gt":
                voxels &= ~drawn_pred
            label = label_of[source, record.id]
            np.testing.assert_array_equal(layer.data == label, voxels)
            row = features.loc[label]  # hover and the features table show each object
            assert (row["kind"], row["voxels"]) == (kind, record.size_voxels)
            assert row["object"] == f"{'pred' if source == 'pred' else 'GT'} {record.id}"
            assert row["max_score"] == pytest.approx(record.max_score, abs=1e-4)
            np.testing.assert_allclose(layer.get_color(label), _rgba(KIND_COLORS[kind]))
    assert set(np.unique(layer.data)) - {0} <= set(features.index)  # a missed GT object
    # wholly under predicted objects is listed, not drawn
    assert layer.metadata[METADATA_KEY]["role"] == "objects"
    assert layer.contour == 1 and layer.visible and not layer.editable
    np.testing.assert_allclose(layer.scale, method.layer.scale)
    assert widget.session.method_names == METHODS  # objects layers are not methods
    assert viewer.layers.selection.active.name == "binary"  # selection left alone
    _check_table(widget, match)
    _check_summary(widget, match)


def _check_table(widget: ObjectsWidget, match) -> None:
    shown = {("TP", "pred"), ("FP", "pred"), ("FN", "gt")}
    listed = [r for r in match.objects if (r.kind, r.source) in shown]
    rows = widget.table_records()
    assert sorted((r.source, r.id) for _, r in rows) == sorted((r.source, r.id) for r in listed)
    kinds = [r.kind for _, r in rows]
    assert kinds == sorted(kinds, key=["TP", "FP", "FN"].index)  # sorted by kind at first
    table = _table(widget)
    headers = ui.table_headers(table)  # one method: no method column
    assert headers[:3] == ["Kind", "Voxels", "mm³"] and "Method" not in headers
    shown = ui.table_cells(table)
    for cells, (_, record) in zip(shown, rows, strict=True):
        assert cells[:3] == [record.kind, str(record.size_voxels), f"{record.size_mm3:.0f}"]
        assert cells[4] == f"{record.max_score:.2f}"
    tp_row = kinds.index("TP")
    assert shown[tp_row][5] == f"GT {rows[tp_row][1].matched_ids[0]}"
    ui.sort_by(table, "Voxels", Qt.SortOrder.DescendingOrder)
    sizes = [int(cells[1]) for cells in ui.table_cells(table)]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) > 3
    assert sizes == [r.size_voxels for _, r in widget.table_records()]
    ui.click(ui.control(widget, "List discarded", QCheckBox))
    assert (
        len(ui.table_cells(table))
        == len(listed) + match.counts.discarded + match.counts.matched_extra
    )
    ui.click(ui.control(widget, "List discarded", QCheckBox))
    assert len(ui.table_cells(table)) == len(listed)


def _check_summary(widget: ObjectsWidget, match) -> None:
    summary = _summary(widget)
    for value in (
        match.counts.tp,
        match.counts.fp,
        match.counts.fn,
        f"{match.counts.f1:.2f}",
        "62–4,218",
        match.counts.discarded,
    ):
        assert f">{value}<" in summary or f"{value} voxels" in summary


def test_rows_move_the_viewer_and_next_previous_step(objects_viewer, qtbot, tmp_path):
    viewer, widget = objects_viewer
    _choose(qtbot, widget, "residual")
    for name in ("binary", "oracle_noisy"):
        viewer.layers[name].visible = False  # clearer screenshot
    viewer.window.resize(*SCREENSHOT_WINDOW_SIZE)
    qtbot.wait(200)
    layer = widget.session.method("residual").layer
    zoom_before = viewer.scene.camera.zoom
    rows = widget.table_records()
    row = max(range(len(rows)), key=lambda i: abs(rows[i][1].centroid_voxel[0] - 47))
    record = rows[row][1]
    ui.click_row(_table(widget), row)
    world = layer.data_to_world(record.centroid_voxel)
    assert widget.session.slice_index == round(record.centroid_voxel[0])
    assert viewer.dims.point[0] == pytest.approx(world[0], abs=layer.scale[0] / 2)
    assert viewer.scene.camera.center[1:] == pytest.approx(tuple(world[1:]))
    assert viewer.scene.camera.zoom > zoom_before
    _check_steps(viewer, widget, qtbot)
    tp_row = next(i for i, (_, r) in enumerate(widget.table_records()) if r.kind == "TP")
    ui.click_row(_table(widget), tp_row)
    path = tmp_path / "objects.png"
    _window_shot(viewer, qtbot, path)
    assert path.stat().st_size > 50_000


def _check_steps(viewer, widget: ObjectsWidget, qtbot) -> None:
    table = _table(widget)
    table.clearSelection()
    table.setCurrentCell(-1, -1)
    rows = widget.table_records()
    widget.step(1)  # nothing selected: first row
    assert table.currentRow() == 0
    ui.click(ui.control(widget, "Next object", QPushButton))
    assert table.currentRow() == 1
    assert widget.session.slice_index == round(rows[1][1].centroid_voxel[0])
    viewer.window._qt_window.activateWindow()
    table.setFocus()
    qtbot.waitUntil(table.hasFocus, timeout=3000)
    qtbot.keyClick(table, Qt.Key.Key_N)
    assert table.currentRow() == 2
    assert widget.session.slice_index == round(rows[2][1].centroid_voxel[0])
    qtbot.keyClick(table, Qt.Key.Key_P)
    qtbot.keyClick(table, Qt.Key.Key_P)
    ui.click(ui.control(widget, "Previous object", QPushButton))
    assert table.currentRow() == 0  # stops at the first row


def test_all_methods_threshold_change_and_no_ground_truth(objects_viewer, qtbot):
    viewer, widget = objects_viewer
    _choose(qtbot, widget, ALL_METHODS)
    assert [r.method for r in widget.results] == list(METHODS)
    names = {layer.name for layer in viewer.layers}
    assert {objects_layer_name(m) for m in METHODS} <= names  # one layer per method
    expected_rows = sum(
        r.match.counts.tp + r.match.counts.fp + r.match.counts.fn for r in widget.results
    )
    assert len(widget.table_records()) == expected_rows  # one TP object per found GT here
    assert ui.table_headers(_table(widget))[0] == "Method"
    assert {m for m, _ in widget.table_records()} == set(METHODS)

    _choose(qtbot, widget, "residual")
    objects = [layer.name for layer in viewer.layers if "objects" in layer.name]
    assert objects == [objects_layer_name("residual")]

    widget.session.set_threshold("residual", 0.7)
    qtbot.waitUntil(lambda: widget.results[0].match.threshold == pytest.approx(0.7), timeout=15000)
    _wait(qtbot, widget)
    _, match, (pred_labels, _) = _expected(widget, "residual")
    fp_ids = [r.id for r in match.objects if (r.kind, r.source) == ("FP", "pred")]
    layer = viewer.layers[objects_layer_name("residual")]
    fp_labels = layer.features.set_index("object").loc[[f"pred {i}" for i in fp_ids], "index"]
    fp_drawn = np.isin(layer.data, list(fp_labels))  # the FP objects at the new threshold
    np.testing.assert_array_equal(fp_drawn, np.isin(pred_labels, fp_ids))
    assert len(widget.table_records()) == match.counts.tp + match.counts.fp + match.counts.fn

    viewer.layers.remove(widget.session.gt_layer)
    qtbot.waitUntil(lambda: not widget.results[0].has_gt, timeout=15000)
    _wait(qtbot, widget)
    match = widget.results[0].match
    assert (
        match.counts.tp == match.counts.fn == 0
        and match.counts.fp > 0
        and match.counts.size_window == (0.0, np.inf)
    )
    assert "No ground truth" in _summary(widget)


def test_bad_map_gives_a_notification_not_a_crash(make_napari_viewer, qtbot, mood_dataset):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    widget = ObjectsWidget(viewer)
    qtbot.wait(AUTO_DELAY_MS * 2)
    assert widget.results == () and len(viewer.layers) == 4  # hidden: nothing computed
    viewer.window.add_dock_widget(widget, name="Object matching")
    _wait(qtbot, widget)
    assert widget.results[0].match.counts.tp == 1  # method "a" finds the lesion
    viewer.layers["b"].data = np.full(viewer.layers["b"].data.shape, np.nan, np.float32)
    before = len(notification_manager.records)
    ui.choose(ui.control(widget, "Method whose objects are matched", QComboBox), "b")
    qtbot.waitUntil(lambda: len(notification_manager.records) > before, timeout=15000)
    message = notification_manager.records[-1].message
    assert "of b (" in message and "NaN" in message and "b/case_1.nii.gz" in message
    assert widget.results[0].method == "a"  # the last good result stays


def _window_shot(viewer, qtbot, path: Path) -> None:
    viewer.window._qt_viewer._layers.scrollToTop()  # show the napari-mood layers
    _close_notifications()
    qtbot.wait(100)
    path.parent.mkdir(parents=True, exist_ok=True)
    viewer.screenshot(str(path), canvas_only=False)
