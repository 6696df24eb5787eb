"""TableWidget: methods x metrics for the case or the dataset, sortable, copy and CSV."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest
from qtpy.QtCore import Qt
from qtpy.QtGui import QColor
from qtpy.QtWidgets import QApplication, QComboBox, QDockWidget, QLabel, QPushButton, QTableWidget

from napari_mood._napari.viewer import SCREENSHOT_WINDOW_SIZE, focus_case, load_into_viewer
from napari_mood._napari.widgets.table import STALE, TableWidget
from napari_mood._napari.widgets.table_texts import format_cell, shown_columns
from napari_mood.cli import main
from napari_mood.core.compare import ComparisonRow, ComparisonTable, case_comparison
from napari_mood.services.comparison import N_BOOT, SEED
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui

needs_sample = pytest.mark.skipif(
    not (sample_data_dir() / "toy").is_dir(), reason="sample_data/ not generated yet"
)


@pytest.fixture
def table_viewer(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Comparison table")
    return viewer, widget


@pytest.fixture
def errors(monkeypatch) -> list[str]:
    messages: list[str] = []
    monkeypatch.setattr("napari.utils.notifications.show_error", messages.append)
    return messages


def _wait(qtbot, widget: TableWidget, previous=None) -> ComparisonTable:
    def ready() -> bool:
        idle = not widget.busy and not widget.update_pending
        return idle and widget.table is not None and widget.table is not previous

    qtbot.waitUntil(ready, timeout=20_000)
    return widget.table


def _cells(widget: TableWidget) -> dict[str, dict[str, str]]:
    """Displayed text by method and column title."""
    grid = widget.table_widget
    titles = [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())]
    return {
        grid.item(r, 0).text(): {t: grid.item(r, c).text() for c, t in enumerate(titles)}
        for r in range(grid.rowCount())
    }


def _status(widget: TableWidget) -> str:
    return ui.control(widget, "Table status", QLabel).text()


def _button(widget: TableWidget, text: str) -> QPushButton:
    return ui.control(widget, text, QPushButton)


def _jobs(monkeypatch: pytest.MonkeyPatch, table: ComparisonTable | None = None) -> list:
    """Record each case table the panel computes (or answer every one with ``table``)."""
    import napari_mood._napari.widgets.table as panel

    calls: list = []
    compute = panel.case_table

    def recording(*args, **kwargs):
        calls.append(args)
        return (table, ()) if table is not None else compute(*args, **kwargs)

    monkeypatch.setattr(panel, "case_table", recording)
    return calls


def _column(widget: TableWidget, title: str) -> int:
    grid = widget.table_widget
    titles = [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())]
    return titles.index(title)


def _is_best(widget: TableWidget, method: str, title: str) -> bool:
    grid = widget.table_widget
    row = widget.displayed_methods().index(method)
    return grid.item(row, _column(widget, title)).font().bold()


# --------------------------------------------------------------------------- case


def test_case_table_equals_the_core(table_viewer, qtbot):
    _, widget = table_viewer
    session = widget.session
    session.set_threshold("b", 0.7)  # b scores 0.6 on the lesion: no object found
    table = _wait(qtbot, widget)
    expected = case_comparison(
        {m.name: m.data for m in session.methods},
        session.gt_layer.data,
        thresholds={"a": 0.5, "b": 0.7},
        name=session.case,
    )
    assert table == expected
    assert table.row("a").object_tp == 1 and table.row("b").object_tp == 0
    cells = _cells(widget)
    for column in shown_columns(table):
        for method in ("a", "b"):
            assert cells[method][column.title] == format_cell(table.row(method), column)
    assert "Sample AP" not in cells["a"] and cells["a"]["Rank"] in ("1", "2")  # no interval
    # best values: ties are all bold; FN is lower-is-better
    assert _is_best(widget, "a", "Pixel AP") and _is_best(widget, "b", "Pixel AP")
    assert _is_best(widget, "a", "TP") and not _is_best(widget, "b", "TP")
    assert _is_best(widget, "a", "FN") and not _is_best(widget, "b", "FN")
    assert not _is_best(widget, "a", "Obj. thr.")
    grid = widget.table_widget
    colour = grid.item(widget.displayed_methods().index("a"), 0).foreground().color()
    assert colour == QColor(session.method("a").color)
    for column in range(grid.columnCount()):
        assert grid.horizontalHeaderItem(column).toolTip()
    assert session.case in _status(widget)


def test_case_table_follows_thresholds(table_viewer, qtbot, monkeypatch):
    _, widget = table_viewer
    first = _wait(qtbot, widget)
    assert first.row("b").object_tp == 1
    jobs = _jobs(monkeypatch)
    widget.session.set_threshold("b", 0.65)
    widget.session.set_threshold("b", 0.7)  # several changes, one recomputation
    second = _wait(qtbot, widget, first)
    assert second.row("b").object_threshold == pytest.approx(0.7)
    assert second.row("b").object_tp == 0 and second.row("b").object_fn == 1
    assert len(jobs) == 1


def test_columns_sort_by_number(table_viewer, qtbot, monkeypatch):
    _, widget = table_viewer
    first = _wait(qtbot, widget)
    rows = tuple(
        ComparisonRow(name, ap, 0.5, 0.5, 0.5, 0.5, 0.5, 1, fp, 0, 0.5, rank=rank)
        for name, ap, fp, rank in (
            ("x", 0.9, 100, 1),
            ("y", math.nan, 9, None),
            ("z", 0.25, 10, 2),
        )
    )
    _jobs(monkeypatch, ComparisonTable("case", widget.session.case, 1, rows))
    widget.refresh()
    _wait(qtbot, widget, first)
    assert widget.displayed_methods() == ["y", "x", "z"]  # by rank; undefined first
    grid = ui.control(widget, "Comparison table", QTableWidget)
    ui.sort_by(grid, "FP", Qt.SortOrder.AscendingOrder)
    assert widget.displayed_methods() == ["y", "z", "x"]  # 9 < 10 < 100, not "10" < "100" < "9"
    ui.sort_by(grid, "Pixel AP", Qt.SortOrder.DescendingOrder)
    assert widget.displayed_methods() == ["x", "z", "y"]  # NaN last
    assert _is_best(widget, "y", "FP") and _is_best(widget, "x", "Pixel AP")


def test_export_csv_and_copy_follow_the_displayed_order(table_viewer, qtbot, tmp_path):
    _, widget = table_viewer
    table = _wait(qtbot, widget)
    grid = ui.control(widget, "Comparison table", QTableWidget)
    ui.sort_by(grid, "Method", Qt.SortOrder.DescendingOrder)
    path = widget.export_csv(tmp_path / "table.csv")
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert [r["method"] for r in rows] == ["b", "a"]
    for row in rows:
        expected = table.row(row["method"])
        assert row["scope"] == "case" and row["name"] == table.name
        assert float(row["pixel_ap"]) == expected.pixel_ap  # full precision
        assert float(row["best_dice_threshold"]) == expected.best_dice_threshold
        assert int(row["object_fn"]) == expected.object_fn
        assert int(row["rank"]) == expected.rank
    ui.click(_button(widget, "Copy"))
    copied = QApplication.clipboard().text()
    tsv = list(csv.DictReader(io.StringIO(copied), delimiter="\t"))
    assert tsv == rows


def test_export_into_the_data_is_refused(table_viewer, qtbot, mood_dataset, errors):
    _, widget = table_viewer
    _wait(qtbot, widget)
    target = mood_dataset / "methods" / "a" / "table.csv"
    widget.export_csv(target)
    assert not target.exists()
    assert str(target) in errors[-1] and "inside the input folder" in errors[-1]


def test_cases_without_gt_or_maps_say_what_to_do(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    widget = TableWidget(viewer)
    widget.refresh()
    assert "No score map" in _status(widget)
    assert widget.table is None and not _button(widget, "Copy").isEnabled()
    assert ui.table_cells(ui.control(widget, "Comparison table", QTableWidget)) == []
    widget.set_scope("dataset")
    assert "choose one" in _status(widget)
    with pytest.raises(ValueError, match="scope"):
        widget.set_scope("study")
    widget.deleteLater()


# --------------------------------------------------------------------------- dataset


def _cli_json(dataset: Path, tmp_path: Path) -> dict:
    out = tmp_path / "evaluate.json"
    argv = ["evaluate", str(dataset), "--task", "pixel,object", "--format", "json"]
    argv += ["--out", str(out), "--quiet", "--workers", "1"]
    argv += ["--bootstrap", str(N_BOOT), "--seed", str(SEED)]
    assert main(argv) == 0  # --quiet: no warning is shown (healthy resamples warn)
    return json.loads(out.read_text())


def test_dataset_table_equals_napari_mood_evaluate(table_viewer, qtbot, tmp_path, mood_dataset):
    _, widget = table_viewer
    case_table = _wait(qtbot, widget)
    ui.choose(ui.control(widget, "Table scope", QComboBox), "Dataset")
    assert widget.scope == "dataset"
    table = _wait(qtbot, widget, case_table)
    assert (table.scope, table.name, table.n_cases) == ("dataset", "data", 2)
    expected = _cli_json(mood_dataset, tmp_path)["methods"]
    for method in ("a", "b"):
        row, pixel, objects = (
            table.row(method),
            expected[method]["pixel"],
            expected[method]["object"],
        )
        assert row.pixel_ap == pixel["ap"] and row.auroc == pixel["auroc"]
        assert row.best_dice == pixel["best_dice"]
        assert row.best_dice_threshold == pixel["best_dice_threshold"]
        assert [row.ap_low, row.ap_high] == pixel["ap_ci95"]
        assert (row.object_tp, row.object_fp, row.object_fn) == (
            objects["tp"],
            objects["fp"],
            objects["fn"],
        )
        assert row.object_f1 == objects["f1"] and row.object_threshold == objects["threshold"]
        assert row.rank == 1 and (row.rank_low, row.rank_high) == (1, 1)  # a tie: both perfect
    cells = _cells(widget)
    assert cells["a"]["Rank"] == "1 [1, 1]"
    ap_low, ap_high = (f"{v:.2f}" for v in expected["a"]["pixel"]["ap_ci95"])
    assert cells["a"]["Pixel AP"] == f"{table.row('a').pixel_ap:.4f} [{ap_low}, {ap_high}]"
    assert "2 cases" in _status(widget)
    assert _button(widget, "Evaluate").isEnabled() and _button(widget, "Dataset...").isEnabled()
    # thresholds changed after the evaluation: the table says so, and Evaluate updates it
    widget.session.set_threshold("b", 0.7)
    assert STALE in _status(widget)
    ui.click(_button(widget, "Evaluate"))
    updated = _wait(qtbot, widget, table)
    assert updated.row("b").object_tp == 0 and updated.row("b").object_threshold == 0.7


def test_bad_dataset_folder_is_reported(table_viewer, qtbot, tmp_path, errors):
    viewer, widget = table_viewer
    (tmp_path / "empty").mkdir()
    widget.set_dataset(tmp_path / "empty")
    qtbot.waitUntil(lambda: bool(errors) and not widget.busy, timeout=10_000)
    assert str(tmp_path / "empty") in errors[0] and "toy" in errors[0]
    assert widget.table is None and "Could not compute" in _status(widget)
    assert len(viewer.layers) == 4  # the viewer is untouched
    widget.export_csv(tmp_path)  # a folder: cannot be written
    assert str(tmp_path) in errors[-1] and "is a folder" in errors[-1]


@needs_sample
def test_screenshot_of_the_dataset_table(make_napari_viewer, qtbot, tmp_path):
    from napari_mood._napari.viewer import _close_notifications

    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    widget = TableWidget(viewer)
    viewer.window.add_dock_widget(widget, name="Comparison table", area="bottom")
    viewer.window.resize(*SCREENSHOT_WINDOW_SIZE)
    focus_case(viewer, session)
    case_table = _wait(qtbot, widget)
    widget.set_scope("dataset")
    table = _wait(qtbot, widget, case_table)
    assert table.n_cases == 7 and len(table.rows) == 3
    assert table.row("oracle_noisy").rank == 1
    assert table.row("binary").sample_ap == pytest.approx(0.6762, abs=1e-4)
    qtbot.wait(100)
    _close_notifications()
    path = tmp_path / "table.png"
    image = viewer.screenshot(str(path), canvas_only=False)
    assert path.stat().st_size > 10_000 and image.shape[1] >= 1200


def test_all_columns_floats_the_panel_wide_enough(table_viewer, qtbot):
    viewer, widget = table_viewer
    _wait(qtbot, widget)
    dock = widget.parentWidget()
    while not isinstance(dock, QDockWidget):
        dock = dock.parentWidget()
    grid = ui.control(widget, "Comparison table", QTableWidget)
    header = grid.horizontalHeader()
    assert header.length() > dock.width()  # docked: some columns need scrolling
    ui.click(_button(widget, "All columns"))
    qtbot.waitUntil(lambda: dock.isFloating() and dock.width() >= header.length(), timeout=3000)
    assert grid.viewport().width() >= header.length() - 2  # every column shown
