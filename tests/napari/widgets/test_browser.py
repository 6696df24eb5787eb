"""DatasetBrowserWidget: evaluate a dataset, sort and filter cases, open one, export."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from qtpy.QtCore import Qt
from qtpy.QtWidgets import QFileDialog

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.browser import SORT_ROLE, DatasetBrowserWidget
from napari_mood.cli import main
from napari_mood.core.orientation import display_transform
from napari_mood.services.datasets import sample_data_dir

SAMPLE = sample_data_dir()
TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def cli_rows(tmp_path_factory) -> dict[tuple[str, str], dict]:
    """Per-case rows of ``napari-mood evaluate --task pixel,sample,object --format json``."""
    out = tmp_path_factory.mktemp("cli") / "evaluation.json"
    args = ["evaluate", str(SAMPLE), "--task", "pixel,sample,object", "--format", "json"]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    return {(r["case"], r["method"]): r for r in json.loads(out.read_text())["per_case"]}


@pytest.fixture
def browser(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    return viewer, widget


def _evaluate(qtbot, widget: DatasetBrowserWidget, dataset: Path = SAMPLE) -> None:
    widget.evaluate(dataset)
    qtbot.waitUntil(lambda: widget.evaluation is not None and not widget.busy, timeout=TIMEOUT_MS)


def _column(widget: DatasetBrowserWidget) -> list[str]:
    proxy = widget._proxy
    return [proxy.index(r, 0).data() for r in range(proxy.rowCount())]


def _sorted_values(widget: DatasetBrowserWidget, column: int) -> list[float]:
    proxy = widget._proxy
    return [proxy.index(r, column).data(SORT_ROLE) for r in range(proxy.rowCount())]


def _same(a: float, b: float | None) -> bool:
    return (b is None and math.isnan(a)) or (b is not None and a == b)


# --------------------------------------------------------------------------- evaluation


def test_plugin_widget_takes_the_dataset_opened_in_napari(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [SAMPLE])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    assert isinstance(widget, DatasetBrowserWidget)
    assert Path(widget._dataset_edit.text()) == SAMPLE
    for control in (widget._evaluate_button, widget._table, widget._method_filter, widget._dpi):
        assert control.toolTip()


def test_table_equals_the_evaluate_command(browser, qtbot, cli_rows, notes):
    _, widget = browser
    progress: list[tuple[int, int]] = []
    widget._relay.advanced.connect(lambda run, done, total, case: progress.append((done, total)))
    _evaluate(qtbot, widget)
    model = widget._model
    assert model.cases == tuple(sorted({case for case, _ in cli_rows}))
    assert model.methods == ("binary", "oracle_noisy", "residual")
    fields = {"AP": "pixel_ap", "Dice": "dice", "found": "object_tp", "missed": "object_fn",
              "FP": "object_fp"}  # fmt: skip
    for row, case in enumerate(model.cases):
        for method in model.methods:
            expected = cli_rows[(case, method)]
            assert model.index(row, 1).data(SORT_ROLE) == expected["gt_voxels"]
            for title, field in fields.items():
                value = model.index(row, model.column_of(method, title)).data(SORT_ROLE)
                assert _same(value, expected[field]), (case, method, title)
    assert progress[-1] == (7, 7)
    assert (widget._progress.value(), widget._progress.maximum()) == (7, 7)
    assert "7 cases (5 with anomalies), 3 methods" in widget._status.text()
    # binary has no map of brain_004: reported, and its cells are grey with a tooltip
    row = model.cases.index("brain_004.nii.gz")
    cell = model.index(row, model.column_of("binary", "AP"))
    assert cell.data(Qt.ItemDataRole.ForegroundRole) is not None
    assert "missing" in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert any("binary" in message and "brain_004" in message for _, message in notes)


def test_sort_puts_the_worst_case_first_and_empty_cells_last_and_filters_hide(browser, qtbot):
    _, widget = browser
    _evaluate(qtbot, widget)
    column = widget._model.column_of("residual", "AP")
    widget._table.sortByColumn(column, Qt.SortOrder.AscendingOrder)
    assert _column(widget)[0] == "brain_002"  # residual AP 0.005: its worst case
    values = _sorted_values(widget, column)
    assert all(math.isnan(v) for v in values[-2:])  # the two normal cases, last
    assert values[:-2] == sorted(values[:-2])
    widget._table.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    assert _column(widget)[0] == "brain_004"
    values = _sorted_values(widget, column)
    assert all(math.isnan(v) for v in values[-2:])  # still last
    assert values[:-2] == sorted(values[:-2], reverse=True)
    missed = widget._model.column_of("binary", "missed")
    widget._table.sortByColumn(missed, Qt.SortOrder.DescendingOrder)
    assert _sorted_values(widget, missed) == sorted(_sorted_values(widget, missed), reverse=True)

    model, table = widget._model, widget._table
    widget._method_filter.setCurrentText("residual")
    assert not any(table.isColumnHidden(c) for c in model.method_columns("residual"))
    assert all(table.isColumnHidden(c) for c in model.method_columns("binary"))
    widget._kind_filter.setCurrentText("Normal cases")
    assert sorted(_column(widget)) == ["brain_000", "brain_005"]
    widget._kind_filter.setCurrentText("Abnormal cases")
    assert len(_column(widget)) == 5
    widget._method_filter.setCurrentText("All methods")
    assert not any(table.isColumnHidden(c) for c in range(model.columnCount()))


def test_bad_input_shows_a_notification_saying_what_to_do(
    browser, qtbot, tmp_path, notes, mood_dataset
):
    _, widget = browser
    missing = tmp_path / "not_a_dataset"
    widget.evaluate(missing)
    qtbot.waitUntil(lambda: any(str(missing) in m for _, m in notes), timeout=TIMEOUT_MS)
    assert widget.evaluation is None
    assert "failed" in widget._status.text()
    shutil.rmtree(mood_dataset / "methods")
    widget.evaluate(mood_dataset)  # a dataset without methods
    qtbot.waitUntil(lambda: len(notes) == 2, timeout=TIMEOUT_MS)
    assert str(mood_dataset / "methods") in notes[1][1]
    widget.make_figure_file(tmp_path / "fig.pdf")  # nothing is shown
    assert "open a case first" in notes[2][1]
    assert not (tmp_path / "fig.pdf").exists()


def test_cancel_stops_the_evaluation(browser, qtbot, notes):
    _, widget = browser
    widget.evaluate(SAMPLE)
    widget._cancel_button.click()
    qtbot.waitUntil(lambda: not widget.busy, timeout=TIMEOUT_MS)
    assert widget.evaluation is None
    assert widget._status.text() == "Evaluation cancelled."
    assert not any(severity == "error" for severity, _ in notes)


# --------------------------------------------------------------------------- opening a case


def _double_click(qtbot, widget: DatasetBrowserWidget, case: str) -> None:
    index = widget._proxy.index(_column(widget).index(case), 0)
    widget._table.scrollTo(index)
    center = widget._table.visualRect(index).center()
    viewport = widget._table.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=center)  # Qt 5 needs the press
    qtbot.mouseDClick(viewport, Qt.MouseButton.LeftButton, pos=center)
    qtbot.waitUntil(lambda: widget.session.case == f"{case}.nii.gz", timeout=TIMEOUT_MS)


def _display(path: Path, reference: Path) -> np.ndarray:
    grid = nib.load(reference)
    return display_transform(grid.shape, grid.affine).to_display(np.asarray(nib.load(path).dataobj))


def test_double_click_opens_the_case_and_keeps_thresholds(make_napari_viewer, qtbot, notes):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [SAMPLE])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    _, thresholds = viewer.window.add_plugin_dock_widget("napari-mood", "Display thresholds")
    session.set_threshold("residual", 0.3)
    colors = {m.name: m.color for m in session.methods}
    session.method("oracle_noisy").layer.visible = False
    _evaluate(qtbot, widget)
    _double_click(qtbot, widget, "brain_004")

    scan = SAMPLE / "toy" / "brain_004.nii.gz"
    assert session.scan_layer.metadata["napari_mood"]["case"] == "brain_004.nii.gz"
    assert np.array_equal(session.scan_layer.data, _display(scan, scan))
    gt = _display(SAMPLE / "toy_label" / "pixel" / "brain_004.nii.gz", scan) > 0
    assert np.array_equal(np.asarray(session.gt_layer.data) > 0, gt)
    residual = _display(SAMPLE / "methods" / "residual" / "brain_004.nii.gz", scan)
    assert np.array_equal(session.method("residual").data, residual.astype(np.float16))
    assert session.method_names == ("oracle_noisy", "residual")  # binary has no map
    assert any("binary has no map" in message for _, message in notes)
    assert session.threshold("residual") == pytest.approx(0.3)
    assert not session.method("oracle_noisy").layer.visible
    assert {m.name: m.color for m in session.methods} == {
        k: v for k, v in colors.items() if k != "binary"
    }
    assert len(viewer.layers) == 4  # scan, 2 maps, GT: the old case's layers are gone
    assert set(thresholds._rows) == {"oracle_noisy", "residual"}  # docked widget follows
    assert session.slice_index == int(np.argmax(gt.sum(axis=(1, 2))))  # lesion shown

    _double_click(qtbot, widget, "brain_001")
    assert session.method_names == ("binary", "oracle_noisy", "residual")
    assert session.method("binary").color == colors["binary"]
    assert session.threshold("residual") == pytest.approx(0.3)
    assert viewer.layers[0].name == "brain_001"


# --------------------------------------------------------------------------- export


def test_make_figure_uses_the_current_slice_and_thresholds(
    make_napari_viewer, qtbot, tmp_path, monkeypatch, notes
):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [SAMPLE])
    widget = DatasetBrowserWidget(viewer)
    viewer.dims.set_point(0, session.scan_layer.data_to_world((40, 0, 0))[0])
    session.set_threshold("residual", 0.7)
    widget._dpi.setValue(60)
    request = widget._figure_request(tmp_path / "fig.png")
    assert request.index == 40
    assert request.thresholds["residual"] == pytest.approx(0.7)
    assert request.colors == {m.name: m.color for m in session.methods}
    chosen = (str(tmp_path / "fig.png"), "PNG (*.png)")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: chosen)
    widget._figure_button.click()
    qtbot.waitUntil(lambda: any("Figure saved" in m for _, m in notes), timeout=TIMEOUT_MS)
    header = (tmp_path / "fig.png").read_bytes()[16:24]
    assert int.from_bytes(header[:4], "big") > 5 * 1.8 * 60 * 0.9  # five columns
    assert request.convention == "radiological" and request.width is None
    widget._width.setCurrentText("page")  # a journal page: 183 mm at 60 dpi
    request = widget._figure_request(tmp_path / "page.png")
    assert request.width == "page"
    widget.deleteLater()


def test_export_view_adds_scale_bar_and_colour_bars_then_restores(
    make_napari_viewer, tmp_path, monkeypatch, notes
):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [SAMPLE])
    widget = DatasetBrowserWidget(viewer)
    plain = viewer.screenshot(canvas_only=True)
    chosen = (str(tmp_path / "view"), "PNG (*.png)")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: chosen)
    widget._export_button.click()
    out = tmp_path / "view.png"
    assert out.is_file()
    assert f"View saved to {out}" in notes[-1][1]
    from imageio.v3 import imread  # napari's own dependency

    exported = imread(out)
    assert exported.shape[1] == plain.shape[1]
    assert exported.shape[0] > plain.shape[0]  # the legend strip naming each method's colour
    canvas = exported[: plain.shape[0], :, :3].astype(int)
    assert np.abs(canvas - plain[..., :3]).sum() > 0
    strip = exported[plain.shape[0] :, :, :3]
    for m in session.methods:  # a swatch of each method's colour
        color = np.array([int(m.color[i : i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(strip.astype(int) - color).sum(axis=-1) == 0).any(), m.name
    assert not viewer.canvas.overlays.scale_bar.visible
    assert not any(m.layer.colorbar.visible for m in session.methods)
    widget.deleteLater()


def test_deleting_the_widget_while_it_works_is_harmless(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    dock, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    evaluator = widget._evaluator
    widget.evaluate(SAMPLE)
    run = widget._run
    viewer.window.remove_dock_widget(dock)
    with qtbot.waitSignal(widget.destroyed, timeout=TIMEOUT_MS):
        widget.deleteLater()
    assert run.cancelled.is_set()
    qtbot.waitUntil(lambda: not evaluator.busy, timeout=TIMEOUT_MS)  # no callback touches Qt


def test_category_filter_shows_one_category(browser, qtbot, tmp_path, notes):
    _, widget = browser
    _evaluate(qtbot, widget)
    every = sorted(_column(widget))
    categories = tmp_path / "cats.csv"
    categories.write_text(
        "case,category,subcategory\nbrain_001,local,sphere\nbrain_003,local,slab\n"
        "brain_002,global,shuffle\n"
    )
    assert widget.load_categories(categories)
    labels = [widget._category_filter.itemText(i) for i in range(widget._category_filter.count())]
    assert labels == [
        "All categories",
        "global",
        "local",
        "global / shuffle",
        "local / slab",
        "local / sphere",
    ]
    widget._category_filter.setCurrentText("local")
    assert sorted(_column(widget)) == ["brain_001", "brain_003"]
    widget._kind_filter.setCurrentIndex(2)  # normal cases of "local": none
    assert _column(widget) == []
    widget._kind_filter.setCurrentIndex(0)
    widget._category_filter.setCurrentText("local / sphere")
    assert _column(widget) == ["brain_001"]
    widget._category_filter.setCurrentText("All categories")
    assert sorted(_column(widget)) == every
    bad = tmp_path / "bad.csv"
    bad.write_text("only_one_column\n")
    assert not widget.load_categories(bad)
    assert any("bad.csv" in message for _, message in notes)
