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
from qtpy.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableView,
)

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.browser import SORT_ROLE, DatasetBrowserWidget
from napari_mood.cli import main
from napari_mood.core.orientation import display_transform
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui

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


def _table(widget: DatasetBrowserWidget) -> QTableView:
    return ui.control(widget, "Cases", QTableView)


def _status(widget: DatasetBrowserWidget) -> str:
    return ui.control(widget, "Evaluation status", QLabel).text()


def _column(widget: DatasetBrowserWidget) -> list[str]:
    """The case names the table shows, top to bottom."""
    return [row[0] for row in ui.table_cells(_table(widget))]


def _sorted_values(widget: DatasetBrowserWidget, header: str) -> list[float]:
    """The numbers behind a column's cells, top to bottom (NaN: an empty cell)."""
    table = _table(widget)
    model, column = table.model(), ui.column_of(table, header)
    shown = [
        model.index(r, column).data(Qt.ItemDataRole.DisplayRole) for r in range(model.rowCount())
    ]
    values = [model.index(r, column).data(SORT_ROLE) for r in range(model.rowCount())]
    assert [math.isnan(v) for v in values] == [text == "" for text in shown]
    return values


def _header_tips(table: QTableView) -> list[str]:
    """The tooltips of the column headers the table shows."""
    model = table.model()
    return [
        str(model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole))
        for c in range(model.columnCount())
        if not table.isColumnHidden(c)
    ]


def _choose(widget: DatasetBrowserWidget, name: str, text: str) -> None:
    ui.choose(ui.control(widget, name, QComboBox), text)


def _same(a: float, b: float | None) -> bool:
    return (b is None and math.isnan(a)) or (b is not None and a == b)


# --------------------------------------------------------------------------- evaluation


def test_plugin_widget_takes_the_dataset_opened_in_napari(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [SAMPLE])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    assert isinstance(widget, DatasetBrowserWidget)
    assert Path(ui.control(widget, "Dataset folder", QLineEdit).text()) == SAMPLE
    for name in ("Evaluate", "Cases", "Method filter", "Figure resolution"):
        assert ui.control(widget, name).toolTip(), name


def test_table_equals_the_evaluate_command(browser, qtbot, cli_rows, notes):
    _, widget = browser
    bar = ui.control(widget, "Evaluation progress", QProgressBar, hidden_too=True)
    progress: list[tuple[int, int]] = []
    bar.valueChanged.connect(lambda done: progress.append((done, bar.maximum())))
    ui.type_into(ui.control(widget, "Dataset folder", QLineEdit), str(SAMPLE))
    ui.click(ui.control(widget, "Evaluate", QPushButton))
    qtbot.waitUntil(lambda: widget.evaluation is not None and not widget.busy, timeout=TIMEOUT_MS)
    table = _table(widget)
    model = table.model()
    cases = [f"{row[0]}.nii.gz" for row in ui.table_cells(table)]
    assert cases == sorted({case for case, _ in cli_rows})
    methods = ("binary", "oracle_noisy", "residual")
    assert ui.table_headers(table) == ["case", "GT\nvoxels"] + [
        f"{m}\n{t}" for m in methods for t in ("AP", "Dice", "found", "missed", "FP")
    ]
    fields = {"AP": ("pixel_ap", 3), "Dice": ("dice", 3), "found": ("object_tp", None),
              "missed": ("object_fn", None), "FP": ("object_fp", None)}  # fmt: skip
    for row, case in enumerate(cases):
        for method in methods:
            expected = cli_rows[(case, method)]
            assert model.index(row, 1).data(SORT_ROLE) == expected["gt_voxels"]
            for title, (field, digits) in fields.items():
                index = model.index(row, ui.column_of(table, f"{method}\n{title}"))
                assert _same(index.data(SORT_ROLE), expected[field]), (case, method, title)
                value, text = expected[field], index.data(Qt.ItemDataRole.DisplayRole)
                shown = "" if value is None else f"{value:.{digits}f}" if digits else str(value)
                assert text == shown, (case, method, title)
    assert progress[-1] == (7, 7)
    assert (bar.value(), bar.maximum()) == (7, 7) and bar.isHidden()
    assert "7 cases (5 with anomalies), 3 methods" in _status(widget)
    # binary has no map of brain_004: reported, and its cells are grey with a tooltip
    row = cases.index("brain_004.nii.gz")
    cell = model.index(row, ui.column_of(table, "binary\nAP"))
    assert cell.data(Qt.ItemDataRole.ForegroundRole) is not None
    assert "missing" in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert any("binary" in message and "brain_004" in message for _, message in notes)


def test_sort_puts_the_worst_case_first_and_empty_cells_last_and_filters_hide(browser, qtbot):
    _, widget = browser
    _evaluate(qtbot, widget)
    table = _table(widget)
    ui.sort_by(table, "residual\nAP", Qt.SortOrder.AscendingOrder)
    assert _column(widget)[0] == "brain_002"  # residual AP 0.005: its worst case
    values = _sorted_values(widget, "residual\nAP")
    assert all(math.isnan(v) for v in values[-2:])  # the two normal cases, last
    assert values[:-2] == sorted(values[:-2])
    ui.sort_by(table, "residual\nAP", Qt.SortOrder.DescendingOrder)
    assert _column(widget)[0] == "brain_004"
    values = _sorted_values(widget, "residual\nAP")
    assert all(math.isnan(v) for v in values[-2:])  # still last
    assert values[:-2] == sorted(values[:-2], reverse=True)
    ui.sort_by(table, "binary\nmissed", Qt.SortOrder.DescendingOrder)
    missed = _sorted_values(widget, "binary\nmissed")
    assert missed == sorted(missed, reverse=True) and len(set(missed)) > 1

    every = ui.table_headers(table)
    _choose(widget, "Method filter", "residual")  # one method: its name left out of headers
    assert ui.table_headers(table) == ["case", "GT\nvoxels", "AP", "Dice", "found", "missed", "FP"]
    assert all(tip.startswith("residual: ") for tip in _header_tips(table)[2:])
    _choose(widget, "Case kind filter", "Normal cases")
    assert sorted(_column(widget)) == ["brain_000", "brain_005"]
    _choose(widget, "Case kind filter", "Abnormal cases")
    assert len(_column(widget)) == 5
    _choose(widget, "Method filter", "All methods")
    assert ui.table_headers(table) == every and len(every) == 2 + 3 * 5


def test_bad_input_shows_a_notification_saying_what_to_do(
    browser, qtbot, tmp_path, notes, mood_dataset
):
    _, widget = browser
    missing = tmp_path / "not_a_dataset"
    widget.evaluate(missing)
    qtbot.waitUntil(lambda: any(str(missing) in m for _, m in notes), timeout=TIMEOUT_MS)
    assert widget.evaluation is None
    assert "failed" in _status(widget)
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
    ui.click(ui.control(widget, "Cancel", QPushButton))
    qtbot.waitUntil(lambda: not widget.busy, timeout=TIMEOUT_MS)
    assert widget.evaluation is None
    assert _status(widget) == "Evaluation cancelled."
    assert not any(severity == "error" for severity, _ in notes)


# --------------------------------------------------------------------------- opening a case


def _double_click(qtbot, widget: DatasetBrowserWidget, case: str) -> None:
    ui.double_click_row(_table(widget), _column(widget).index(case))
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
    boxes = ui.control_names(thresholds, QDoubleSpinBox)  # the docked widget follows
    assert boxes == ["Threshold of oracle_noisy", "Threshold of residual"]
    assert session.slice_index == int(np.argmax(gt.sum(axis=(1, 2))))  # lesion shown

    _double_click(qtbot, widget, "brain_001")
    assert session.method_names == ("binary", "oracle_noisy", "residual")
    assert session.method("binary").color == colors["binary"]
    assert session.threshold("residual") == pytest.approx(0.3)
    assert viewer.layers[0].name == "brain_001"


# --------------------------------------------------------------------------- export


def test_make_figure_uses_the_current_slice_and_thresholds(
    make_napari_viewer, qtbot, tmp_path, monkeypatch, notes, figure_requests
):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [SAMPLE])
    widget = DatasetBrowserWidget(viewer)
    viewer.dims.set_point(0, session.scan_layer.data_to_world((40, 0, 0))[0])
    session.set_threshold("residual", 0.7)
    viewer.window.add_dock_widget(widget, name="browser")
    ui.type_into(ui.control(widget, "Figure resolution", QSpinBox), "60")
    requests = figure_requests  # what the panel asks the figure job to draw
    chosen = (str(tmp_path / "fig.png"), "PNG (*.png)")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: chosen)
    ui.click(ui.control(widget, "Make figure...", QPushButton))
    qtbot.waitUntil(lambda: any("Figure saved" in m for _, m in notes), timeout=TIMEOUT_MS)
    header = (tmp_path / "fig.png").read_bytes()[16:24]
    assert int.from_bytes(header[:4], "big") > 5 * 1.8 * 60 * 0.9  # five columns
    request = requests[-1]
    assert request.index == 40 and request.dpi == 60
    assert request.thresholds["residual"] == pytest.approx(0.7)
    assert request.colors == {m.name: m.color for m in session.methods}
    assert request.convention == "radiological" and request.width is None
    _choose(widget, "Figure width", "page")  # a journal page: 183 mm at 60 dpi
    chosen = (str(tmp_path / "page.png"), "PNG (*.png)")
    ui.click(ui.control(widget, "Make figure...", QPushButton))
    qtbot.waitUntil(lambda: len(requests) == 2, timeout=TIMEOUT_MS)
    assert requests[-1].width == "page"
    qtbot.waitUntil(lambda: (tmp_path / "page.png").is_file(), timeout=TIMEOUT_MS)


def test_export_view_leaves_the_canvas_untouched_and_puts_the_colour_bars_under_it(
    make_napari_viewer, tmp_path, monkeypatch, notes
):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [SAMPLE])
    widget = DatasetBrowserWidget(viewer)
    viewer.window.add_dock_widget(widget, name="browser")
    viewer.scene.camera.zoom *= 3  # zoomed in: the lesion near the canvas' top, under napari's bars
    plain = viewer.screenshot(canvas_only=True)
    chosen = (str(tmp_path / "view"), "PNG (*.png)")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: chosen)
    ui.click(ui.control(widget, "Export view...", QPushButton))
    out = tmp_path / "view.png"
    assert out.is_file()
    assert f"View saved to {out}" in notes[-1][1]
    from imageio.v3 import imread  # napari's own dependency

    exported = imread(out)
    assert exported.shape[1] == plain.shape[1]
    assert exported.shape[0] > plain.shape[0]  # the strip with the bars, under the view
    canvas = exported[: plain.shape[0], :, :3].astype(int)
    assert (canvas == plain[..., :3]).all()  # not one pixel of the view covered
    strip = exported[plain.shape[0] :, :, :3].astype(int)
    for m in session.methods:  # each method's swatch and the top of its colour bar
        color = np.array([int(m.color[i : i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(strip - color).sum(axis=-1) <= 3).sum() > 14 * 14, m.name
    assert not viewer.canvas.overlays.scale_bar.visible
    assert not any(m.layer.colorbar.visible for m in session.methods)
    assert len(viewer.layers) == len(session.methods) + 2  # no colour-bar layer left
    widget.deleteLater()


def test_deleting_the_widget_while_it_works_is_harmless(make_napari_viewer, qtbot, monkeypatch):
    import napari_mood._napari.widgets.browser as browser_module

    runs: list[dict] = []  # the evaluation job's arguments, its cancel flag among them
    done = []
    evaluate = browser_module.evaluate

    def recording(*args, **kwargs):
        runs.append(kwargs)
        try:
            return evaluate(*args, **kwargs)
        finally:
            done.append(True)

    monkeypatch.setattr(browser_module, "evaluate", recording)
    viewer = make_napari_viewer(show=True)
    dock, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    widget.evaluate(SAMPLE)
    qtbot.waitUntil(lambda: bool(runs), timeout=TIMEOUT_MS)
    viewer.window.remove_dock_widget(dock)
    with qtbot.waitSignal(widget.destroyed, timeout=TIMEOUT_MS):
        widget.deleteLater()
    assert runs[0]["cancelled"].is_set()
    qtbot.waitUntil(lambda: bool(done), timeout=TIMEOUT_MS)  # no callback touches Qt


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
    category = ui.control(widget, "Category filter", QComboBox)
    labels = [category.itemText(i) for i in range(category.count())]
    assert labels == [
        "All categories",
        "global",
        "local",
        "global / shuffle",
        "local / slab",
        "local / sphere",
    ]
    _choose(widget, "Category filter", "local")
    assert sorted(_column(widget)) == ["brain_001", "brain_003"]
    _choose(widget, "Case kind filter", "Normal cases")  # normal cases of "local": none
    assert _column(widget) == []
    _choose(widget, "Case kind filter", "All cases")
    _choose(widget, "Category filter", "local / sphere")
    assert _column(widget) == ["brain_001"]
    _choose(widget, "Category filter", "All categories")
    assert sorted(_column(widget)) == every
    bad = tmp_path / "bad.csv"
    bad.write_text("only_one_column\n")
    assert not widget.load_categories(bad)
    assert any("bad.csv" in message for _, message in notes)
