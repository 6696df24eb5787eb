"""Dock widget: methods x metrics for the current case or for the whole dataset.

The numbers come from :mod:`napari_mood.core.compare`, computed in a worker
(:class:`~napari_mood._napari.widgets.worker.LatestWorker`):

* current case: :func:`~napari_mood.core.compare.case_comparison` on the maps and the
  ground truth shown (objects at each method's display threshold; rank only), recomputed
  shortly after a method, the case or a threshold changes;
* dataset: :func:`~napari_mood.services.engine.run_evaluation` (one process, the same numbers as
  ``napari-mood evaluate``) then :func:`~napari_mood.core.compare.dataset_comparison`
  (rank with a case-bootstrap 95% interval), on demand only.

Columns sort numerically; the best value of each column is bold on a tinted background
(lowest for FPR@95%TPR, FP, FN and rank). The table can be copied (tab-separated) or
exported as CSV.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qtpy.QtCore import Qt, QTimer
from qtpy.QtGui import QColor, QFont
from qtpy.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.session import MoodSession, get_session
from napari_mood._napari.widgets.common import connect_while_alive
from napari_mood._napari.widgets.compare import unwrap_viewer
from napari_mood._napari.widgets.worker import LatestWorker
from napari_mood.core.case import methods_beside
from napari_mood.core.compare import (
    Column,
    ComparisonRow,
    ComparisonTable,
    best_methods,
    case_comparison,
    dataset_comparison,
    format_cell,
    format_table,
    shown_columns,
)
from napari_mood.core.evaluate import EvaluationOptions, Task
from napari_mood.core.io import MoodInputError, discover_dataset
from napari_mood.core.looks import DEFAULT_THRESHOLD
from napari_mood.core.validate import Problem
from napari_mood.services.engine import run_evaluation

if TYPE_CHECKING:
    import napari

__all__ = ["N_BOOT", "SEED", "TableWidget", "evaluate_dataset_table"]

N_BOOT = 1000
SEED = 0
RECOMPUTE_DELAY_MS = 250
MAX_VISIBLE_ROWS = 8
BEST_BACKGROUND = QColor(46, 110, 64)
SCOPES = {"case": "Current case", "dataset": "Dataset"}

SCOPE_TIP = (
    "Current case: the maps shown, objects counted at each method's display threshold. "
    "Dataset: every case of the dataset, as `napari-mood evaluate` scores it."
)
PICK_TIP = "Choose the MOOD dataset folder (holding toy/, toy_label/ and methods/)."
EVALUATE_TIP = "Evaluate the dataset again (e.g. after changing thresholds)."
COPY_TIP = "Copy the table, as sorted, to the clipboard (tab-separated, full precision)."
EXPORT_TIP = "Save the table, as sorted, as a CSV file (full precision)."
TABLE_TIP = "Click a column header to sort; the best value of each column is bold."
NO_METHOD = "No score map loaded: open a MOOD dataset or method maps."
NO_GT = "No ground truth shown: open a case with its label to compare methods on it."
NO_DATASET = "No dataset known: choose one with 'Dataset...'."
STALE = "Thresholds changed since this evaluation: press Evaluate to update the object counts."


# --------------------------------------------------------------------------- worker jobs


def evaluate_dataset_table(
    root: str | Path,
    thresholds: Mapping[str, float],
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> tuple[ComparisonTable, tuple[Problem, ...]]:
    """Evaluate a dataset's methods (``DATASET/methods/``) and return the comparison table.

    Runs in one process (``workers=1``): this is called from a widget's worker thread.
    Object counts are taken at ``thresholds[method]`` (:data:`DEFAULT_THRESHOLD` for
    methods not given).

    Raises
    ------
    MoodInputError
        When ``root`` is not a dataset, holds no labels or no method folder.
    """
    dataset = discover_dataset(root)
    methods = methods_beside(root)
    if not methods:
        raise MoodInputError(
            Path(root) / "methods",
            "holds no method folder",
            "put one folder of score maps per method in DATASET/methods/",
        )
    tasks: tuple[Task, ...] = ("pixel", "object") if dataset.pixel_labels else ()
    tasks += ("sample",) if dataset.sample_labels else ()
    if not tasks:
        raise MoodInputError(root, "holds no labels", "add toy_label/pixel or toy_label/sample")
    options = EvaluationOptions(
        tasks=tasks,
        object_threshold={m: float(thresholds.get(m, DEFAULT_THRESHOLD)) for m in methods},
    )
    result, _ = run_evaluation(dataset, methods, options=options, workers=1, warn=False)
    return dataset_comparison(result, n_boot=n_boot, seed=seed), result.problems


# --------------------------------------------------------------------------- items


class _SortItem(QTableWidgetItem):
    """A cell that sorts by a number (undefined values sort below every number)."""

    def __init__(self, text: str, key: float) -> None:
        super().__init__(text)
        self.key = key

    def __lt__(self, other: QTableWidgetItem) -> bool:
        if isinstance(other, _SortItem):
            return self.key < other.key
        return super().__lt__(other)


def _sort_key(value: object) -> float:
    if isinstance(value, int | float) and not (isinstance(value, float) and math.isnan(value)):
        return float(value)
    return -math.inf


def _item(row: ComparisonRow, column: Column) -> QTableWidgetItem:
    if column.key == "method":
        item = QTableWidgetItem(row.method)
    else:
        item = _SortItem(format_cell(row, column), _sort_key(getattr(row, column.key)))
        item.setTextAlignment(int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter))
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    item.setToolTip(column.tip)
    return item


def _mark_best(item: QTableWidgetItem) -> None:
    font = QFont(item.font())
    font.setBold(True)
    item.setFont(font)
    item.setBackground(BEST_BACKGROUND)
    item.setToolTip(item.toolTip() + " (best)")


# --------------------------------------------------------------------------- widget


class TableWidget(QWidget):
    """Comparison table of the methods shown: for the current case or for the dataset.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is compared.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session: MoodSession = get_session(unwrap_viewer(viewer))
        self._table: ComparisonTable | None = None
        self._picked: Path | None = None
        self._worker = LatestWorker(
            self._on_worker_result, on_error=self._on_worker_error, on_busy=self._on_worker_busy
        )
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RECOMPUTE_DELAY_MS)
        self._build_ui()
        self._connect()
        self._schedule()

    # -- layout ---------------------------------------------------------------------

    def _build_ui(self) -> None:
        self._scope = QComboBox(self)
        for key, text in SCOPES.items():
            self._scope.addItem(text, key)
        self._scope.setToolTip(SCOPE_TIP)
        self._pick = QPushButton("Dataset...", self)
        self._pick.setToolTip(PICK_TIP)
        self._evaluate = QPushButton("Evaluate", self)
        self._evaluate.setToolTip(EVALUATE_TIP)
        self._status = QLabel(self)
        self._status.setWordWrap(True)
        self._status.setToolTip("What the table shows.")
        self._busy = QProgressBar(self)
        self._busy.setRange(0, 0)
        self._busy.setMaximumHeight(8)
        self._busy.setTextVisible(False)
        self._busy.setToolTip("Computing...")
        self._busy.hide()
        self._grid = self._build_table()
        self._copy = QPushButton("Copy", self)
        self._copy.setToolTip(COPY_TIP)
        self._export = QPushButton("Export CSV...", self)
        self._export.setToolTip(EXPORT_TIP)
        layout = QVBoxLayout(self)
        layout.addLayout(_row(self._scope, self._pick, self._evaluate, stretch=True))
        layout.addWidget(self._status)
        layout.addWidget(self._busy)
        layout.addWidget(self._grid, 1)
        layout.addLayout(_row(self._copy, self._export, stretch=True))
        self._sync_buttons()

    def _build_table(self) -> QTableWidget:
        grid = QTableWidget(self)
        grid.setToolTip(TABLE_TIP)
        grid.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        grid.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        grid.verticalHeader().setVisible(False)
        grid.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        grid.setSortingEnabled(True)
        return grid

    def _connect(self) -> None:
        self._timer.timeout.connect(self._on_timer_timeout)
        self._scope.currentIndexChanged.connect(self._on_scope_changed)
        self._pick.clicked.connect(self._on_pick_clicked)
        self._evaluate.clicked.connect(self._on_evaluate_clicked)
        self._copy.clicked.connect(self._on_copy_clicked)
        self._export.clicked.connect(self._on_export_clicked)
        slots = (
            (self._session.methods_changed, self._on_session_changed),
            (self._session.case_changed, self._on_session_changed),
            (self._session.threshold_changed, self._on_session_threshold_changed),
        )
        connect_while_alive(self, slots)
        self.destroyed.connect(partial(_cancel, self._worker))  # drop results still running

    # -- public API -----------------------------------------------------------------

    @property
    def session(self) -> MoodSession:
        """The session compared."""
        return self._session

    @property
    def table(self) -> ComparisonTable | None:
        """The table shown, or None."""
        return self._table

    @property
    def table_widget(self) -> QTableWidget:
        """The Qt table."""
        return self._grid

    @property
    def scope(self) -> str:
        """``"case"`` or ``"dataset"``."""
        return str(self._scope.currentData())

    @property
    def dataset(self) -> Path | None:
        """The dataset compared in the dataset scope: the one chosen, else the session's."""
        return self._picked or self._session.dataset

    @property
    def busy(self) -> bool:
        """Whether a computation is running."""
        return self._worker.busy

    def set_scope(self, scope: str) -> None:
        """Show the current case (``"case"``) or the dataset (``"dataset"``)."""
        index = self._scope.findData(scope)
        if index < 0:
            raise ValueError(f"scope must be one of {list(SCOPES)}; got {scope!r}")
        self._scope.setCurrentIndex(index)

    def set_dataset(self, folder: str | Path) -> None:
        """Compare on this dataset (and switch to the dataset scope)."""
        self._picked = Path(folder)
        if self.scope == "dataset":
            self.refresh()
        else:
            self.set_scope("dataset")

    def refresh(self) -> None:
        """Compute the table of the current scope now (in a worker)."""
        self._timer.stop()
        if self.scope == "dataset":
            self._submit_dataset()
        else:
            self._submit_case()

    def displayed_methods(self) -> list[str]:
        """Methods in the order the table shows them (after sorting)."""
        return [self._grid.item(row, 0).text() for row in range(self._grid.rowCount())]

    def table_text(self, *, delimiter: str = ",") -> str:
        """The table as CSV (or tab-separated) text, rows in the displayed order."""
        if self._table is None:
            return ""
        return format_table(self._table, delimiter=delimiter, order=self.displayed_methods())

    def export_csv(self, path: str | Path) -> Path:
        """Write the table as CSV to ``path``; a notification names the file if that fails."""
        path = Path(path)
        try:
            path.write_text(self.table_text(), encoding="utf-8")
        except OSError as exc:
            _notify_error(f"napari-mood: cannot write {path}: {exc.strerror} (choose another file)")
        return path

    def copy_to_clipboard(self) -> None:
        """Copy the table (tab-separated) to the clipboard."""
        QApplication.clipboard().setText(self.table_text(delimiter="\t"))

    # -- handlers -------------------------------------------------------------------

    def _on_session_changed(self) -> None:
        if self.scope == "case":
            self._schedule()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        if self.scope == "case":
            self._schedule()
        elif self._table is not None and self._table.scope == "dataset":
            self._show_stale()

    def _on_timer_timeout(self) -> None:
        self.refresh()

    def _on_scope_changed(self, _index: int) -> None:
        self._table = None
        self._fill(None)
        self.refresh()
        self._sync_buttons()

    def _on_pick_clicked(self) -> None:
        start = str(self.dataset or Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Choose a MOOD dataset folder", start)
        if folder:
            self.set_dataset(folder)

    def _on_evaluate_clicked(self) -> None:
        self.refresh()

    def _on_copy_clicked(self) -> None:
        self.copy_to_clipboard()

    def _on_export_clicked(self) -> None:
        if self._table is None:
            return
        default = str(Path.home() / f"{self._table.name or 'comparison'}_comparison.csv")
        path, _ = QFileDialog.getSaveFileName(
            self, "Export comparison table", default, "CSV (*.csv)"
        )
        if path:
            self.export_csv(path)

    def _on_worker_result(self, result: Any) -> None:
        table, problems = result
        if table.scope != self.scope:
            return
        self._table = table
        self._fill(table)
        self._status.setText(_describe(table, problems))
        if problems:
            _notify_info(_problems_text(table.name, problems))
        self._sync_buttons()

    def _on_worker_error(self, exc: BaseException) -> None:
        self._table = None
        self._fill(None)
        self._status.setText(f"Could not compute the table: {exc}")
        _notify_error(f"napari-mood comparison table: {exc}")
        self._sync_buttons()

    def _on_worker_busy(self, busy: bool) -> None:
        self._busy.setVisible(busy)

    # -- computing ------------------------------------------------------------------

    def _schedule(self) -> None:
        self._timer.start()

    def _thresholds(self) -> dict[str, float]:
        return {m.name: m.threshold for m in self._session.methods}

    def _submit_case(self) -> None:
        methods, gt = self._session.methods, self._session.gt_layer
        message = NO_METHOD if not methods else NO_GT if gt is None else None
        if message is not None:
            self._worker.cancel()
            self._table = None
            self._fill(None)
            self._status.setText(message)
            self._sync_buttons()
            return
        self._status.setText(f"Computing case {self._session.case}...")
        scores = {m.name: m.data for m in methods}
        self._worker.submit(
            _case_job, scores, gt.data, self._thresholds(), self._session.case or ""
        )

    def _submit_dataset(self) -> None:
        root = self.dataset
        if root is None:
            self._worker.cancel()
            self._status.setText(NO_DATASET)
            return
        self._status.setText(f"Evaluating dataset {root.name}...")
        self._worker.submit(evaluate_dataset_table, root, self._thresholds())

    # -- display --------------------------------------------------------------------

    def _fill(self, table: ComparisonTable | None) -> None:
        grid = self._grid
        grid.setSortingEnabled(False)
        grid.clear()
        columns = shown_columns(table) if table is not None else ()
        grid.setColumnCount(len(columns))
        grid.setRowCount(len(table.rows) if table is not None else 0)
        for index, column in enumerate(columns):
            header = QTableWidgetItem(column.title)
            header.setToolTip(column.tip)
            grid.setHorizontalHeaderItem(index, header)
        if table is not None:
            self._fill_rows(table, columns)
        grid.setSortingEnabled(True)
        keys = [c.key for c in columns]
        if "rank" in keys:
            grid.sortItems(keys.index("rank"), Qt.SortOrder.AscendingOrder)
        self._fit_height()

    def _fit_height(self) -> None:
        """Show every row (up to :data:`MAX_VISIBLE_ROWS`) without scrolling."""
        grid = self._grid
        rows = min(grid.rowCount(), MAX_VISIBLE_ROWS)
        height = grid.horizontalHeader().height() + 2 * grid.frameWidth()
        height += sum(grid.rowHeight(row) for row in range(rows))
        height += grid.horizontalScrollBar().sizeHint().height()
        grid.setMinimumHeight(height)

    def _fill_rows(self, table: ComparisonTable, columns: tuple[Column, ...]) -> None:
        best = best_methods(table)
        colors = {m.name: m.color for m in self._session.methods}
        for row_index, row in enumerate(table.rows):
            for col_index, column in enumerate(columns):
                item = _item(row, column)
                if row.method in best.get(column.key, ()):
                    _mark_best(item)
                if column.key == "method" and row.method in colors:
                    item.setForeground(QColor(colors[row.method]))
                self._grid.setItem(row_index, col_index, item)

    def _show_stale(self) -> None:
        table = self._table
        if table is None:
            return
        thresholds = self._thresholds()
        changed = any(
            row.object_threshold is not None
            and row.method in thresholds
            and thresholds[row.method] != row.object_threshold
            for row in table.rows
        )
        self._status.setText(_describe(table, ()) + ("\n" + STALE if changed else ""))

    def _sync_buttons(self) -> None:
        has_table = self._table is not None
        self._copy.setEnabled(has_table)
        self._export.setEnabled(has_table)
        dataset_scope = self.scope == "dataset"
        self._pick.setEnabled(dataset_scope)
        self._evaluate.setEnabled(dataset_scope)


def _case_job(
    scores: Mapping[str, Any], gt: Any, thresholds: Mapping[str, float], name: str
) -> tuple[ComparisonTable, tuple[Problem, ...]]:
    return case_comparison(scores, gt, thresholds=thresholds, name=name), ()


def _describe(table: ComparisonTable, problems: tuple[Problem, ...]) -> str:
    if table.scope == "case":
        return f"Case {table.name}: objects at each method's display threshold; rank by pixel AP."
    text = (
        f"Dataset {table.name}: {table.n_cases} cases, {len(table.rows)} methods; "
        f"rank by pooled pixel AP, 95% intervals from {N_BOOT} case-bootstrap resamples."
    )
    return text + (f" {len(problems)} input problem(s), see the notification." if problems else "")


def _problems_text(name: str, problems: tuple[Problem, ...], limit: int = 5) -> str:
    lines = [str(p) for p in problems[:limit]]
    more = len(problems) - limit
    tail = [f"... and {more} more (see `napari-mood evaluate {name}`)"] if more > 0 else []
    return "\n".join([f"napari-mood: dataset {name}:", *lines, *tail])


def _row(*widgets: QWidget, stretch: bool = False) -> QHBoxLayout:
    layout = QHBoxLayout()
    for widget in widgets:
        layout.addWidget(widget)
    if stretch:
        layout.addStretch(1)
    return layout


def _cancel(worker: LatestWorker, *_: object) -> None:
    worker.cancel()


def _notify_error(message: str) -> None:
    from napari.utils.notifications import show_error

    show_error(message)


def _notify_info(message: str) -> None:
    from napari.utils.notifications import show_info

    show_info(message)
