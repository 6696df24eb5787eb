"""Dock widget: methods x metrics for the current case or for the whole dataset.

The numbers come from :mod:`napari_mood.core.compare`, computed in a worker
(:class:`~napari_mood._napari.widgets.worker.LatestWorker`):

* current case: :func:`~napari_mood.core.compare.case_comparison` on the maps and the
  ground truth shown (objects at each method's display threshold; rank only), recomputed
  shortly after a method, the case or a threshold changes;
* dataset: :func:`~napari_mood.services.evaluation.evaluate` (one process, the same numbers as
  ``napari-mood evaluate``) then :func:`~napari_mood.core.compare.dataset_comparison`
  (rank with a case-bootstrap 95% interval), on demand only.

Columns sort numerically; the best value of each column is bold on a tinted background
(lowest for FPR@95%TPR, FP, FN and rank). The table can be copied (tab-separated) or
exported as CSV.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from qtpy.QtCore import Qt
from qtpy.QtGui import QColor, QFont
from qtpy.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood._napari.widgets.table_texts import (
    Column,
    best_methods,
    describe_table,
    format_cell,
    format_table,
    problems_text,
    shown_columns,
)
from napari_mood.io.errors import MoodInputError
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.comparison import (
    ComparisonRow,
    ComparisonTable,
    TableResult,
    case_table,
    dataset_table,
)
from napari_mood.services.output import check_output_file

if TYPE_CHECKING:
    import napari

__all__ = ["TableWidget"]

RECOMPUTE_DELAY_MS = 250
MAX_VISIBLE_ROWS = 8
BEST_BACKGROUND = QColor(46, 110, 64)
SCOPES = {"case": "Current case", "dataset": "Dataset"}

# Accessible names: what a screen reader says for controls without a telling text of their own.
SCOPE_NAME = "Table scope"
STATUS_NAME = "Table status"
BUSY_NAME = "Computing the table"
TABLE_NAME = "Comparison table"
SCOPE_TIP = (
    "Current case: the maps shown, objects counted at each method's display threshold. "
    "Dataset: every case of the dataset, as `napari-mood evaluate` scores it."
)
TABLE_MARGIN = 60  # frame, scroll bar and margins around the table
WIDE_TIP = (
    "Float this panel as a window wide enough for every column (dock it back by "
    "double-clicking its title)."
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


# --------------------------------------------------------------------------- items


def _item(row: ComparisonRow, column: Column) -> QTableWidgetItem:
    if column.key == "method":
        item = QTableWidgetItem(row.method)
    else:
        item = kit.SortItem(format_cell(row, column), kit.sort_key(getattr(row, column.key)))
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
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


class TableWidget(MoodPanel):
    """Comparison table of the methods shown: for the current case or for the dataset.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is compared.
    """

    UPDATE_DELAY_MS = RECOMPUTE_DELAY_MS

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._table: ComparisonTable | None = None
        self._picked: Path | None = None
        self._worker = self._lifetime.worker(
            self._on_worker_result, on_error=self._on_worker_error, on_busy=self._on_worker_busy
        )
        self._build_ui()
        self._connect()
        self._schedule()

    # -- layout ---------------------------------------------------------------------

    def _build_ui(self) -> None:
        self._scope = QComboBox(self)
        for key, text in SCOPES.items():
            self._scope.addItem(text, key)
        self._scope.setToolTip(SCOPE_TIP)
        self._scope.setAccessibleName(SCOPE_NAME)
        self._pick = QPushButton("Dataset...", self)
        self._pick.setToolTip(PICK_TIP)
        self._evaluate = QPushButton("Evaluate", self)
        self._evaluate.setToolTip(EVALUATE_TIP)
        self._status = QLabel(self)
        self._status.setWordWrap(True)
        self._status.setToolTip("What the table shows.")
        self._status.setAccessibleName(STATUS_NAME)
        self._busy = QProgressBar(self)
        self._busy.setRange(0, 0)
        self._busy.setMaximumHeight(8)
        self._busy.setTextVisible(False)
        self._busy.setToolTip("Computing...")
        self._busy.setAccessibleName(BUSY_NAME)
        self._busy.hide()
        self._grid = self._build_table()
        self._copy = QPushButton("Copy", self)
        self._copy.setToolTip(COPY_TIP)
        self._export = QPushButton("Export CSV...", self)
        self._wide = kit.button(self, "All columns", WIDE_TIP)
        self._export.setToolTip(EXPORT_TIP)
        layout = QVBoxLayout(self)
        layout.addLayout(kit.row(self._scope, self._pick, self._evaluate, stretch=True))
        layout.addWidget(self._status)
        layout.addWidget(self._busy)
        layout.addWidget(self._grid, 1)
        layout.addLayout(kit.row(self._copy, self._export, self._wide, stretch=True))
        self._sync_buttons()

    def _build_table(self) -> QTableWidget:
        grid = QTableWidget(self)
        grid.setToolTip(TABLE_TIP)
        grid.setAccessibleName(TABLE_NAME)
        grid.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        grid.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        horizontal, vertical = kit.headers(grid)
        vertical.setVisible(False)
        horizontal.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        grid.setSortingEnabled(True)
        return grid

    def _connect(self) -> None:
        self._scope.currentIndexChanged.connect(self._on_scope_changed)
        self._pick.clicked.connect(self._on_pick_clicked)
        self._evaluate.clicked.connect(self._on_evaluate_clicked)
        self._copy.clicked.connect(self._on_copy_clicked)
        self._wide.clicked.connect(self.show_all_columns)
        self._export.clicked.connect(self._on_export_clicked)
        self.watch_session(
            methods=self._on_session_changed,
            case=self._on_session_changed,
            threshold=self._on_session_threshold_changed,
        )

    # -- public API -----------------------------------------------------------------

    def show_all_columns(self) -> None:
        """Float the panel as a window wide enough for every column of the table."""
        dock = self.parentWidget()
        while dock is not None and not isinstance(dock, QDockWidget):
            dock = dock.parentWidget()
        if dock is None:
            return
        header = self._grid.horizontalHeader()
        width = (header.length() if header is not None else 0) + TABLE_MARGIN
        dock.setFloating(True)
        dock.resize(max(width, dock.width()), max(dock.height(), 400))

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
        self._update_timer.stop()
        if self.scope == "dataset":
            self._submit_dataset()
        else:
            self._submit_case()

    def displayed_methods(self) -> list[str]:
        """Methods in the order the table shows them (after sorting)."""
        return [kit.cell(self._grid, row, 0).text() for row in range(self._grid.rowCount())]

    def table_text(self, *, delimiter: str = ",") -> str:
        """Return the table as CSV (or tab-separated) text, rows in the displayed order."""
        if self._table is None:
            return ""
        return format_table(self._table, delimiter=delimiter, order=self.displayed_methods())

    def export_csv(self, path: str | Path) -> Path:
        """Write the table as CSV to ``path`` (the save dialog asked before replacing a file).

        Refused inside the data shown or where it cannot be written: a notification names
        the file and says what to do.
        """
        path = Path(path)
        try:
            check_output_file(path, inputs=self._session.inputs(), force=True, what="the table")
            write_text_atomic(path, self.table_text())
        except MoodInputError as exc:
            kit.notify("error", f"napari-mood: {exc}")
        return path

    def copy_to_clipboard(self) -> None:
        """Copy the table (tab-separated) to the clipboard."""
        kit.present(QApplication.clipboard(), "clipboard").setText(self.table_text(delimiter="\t"))

    # -- handlers -------------------------------------------------------------------

    def _on_session_changed(self) -> None:
        if self.scope == "case":
            self._schedule()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        if self.scope == "case":
            self._schedule()
        elif self._table is not None and self._table.scope == "dataset":
            self._show_stale()

    def update_now(self) -> None:
        """Compute the table of the current scope (see :meth:`refresh`)."""
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

    def _on_worker_result(self, result: TableResult) -> None:
        table, problems = result
        if table.scope != self.scope:
            return
        self._table = table
        self._fill(table)
        self._status.setText(describe_table(table, problems))
        if problems:
            kit.notify("info", problems_text(table.name, problems))
        self._sync_buttons()

    def _on_worker_error(self, exc: BaseException) -> None:
        self._table = None
        self._fill(None)
        self._status.setText(f"Could not compute the table: {exc}")
        kit.notify("error", f"napari-mood comparison table: {exc}")
        self._sync_buttons()

    def _on_worker_busy(self, busy: bool) -> None:
        self._busy.setVisible(busy)

    # -- computing ------------------------------------------------------------------

    def _schedule(self) -> None:
        self.request_update()

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
        self._worker.submit(
            case_table,
            tuple(m.snapshot() for m in methods),
            self._session.gt_data,
            self._session.case or "",
            cache=self._session.labelling,
        )

    def _submit_dataset(self) -> None:
        root = self.dataset
        if root is None:
            self._worker.cancel()
            self._status.setText(NO_DATASET)
            return
        self._status.setText(f"Evaluating dataset {root.name}...")
        self._worker.submit(dataset_table, root, self._thresholds())

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
        height = kit.headers(grid)[0].height() + 2 * grid.frameWidth()
        height += sum(grid.rowHeight(row) for row in range(rows))
        height += kit.present(grid.horizontalScrollBar(), "scroll bar").sizeHint().height()
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
        self._status.setText(describe_table(table, ()) + ("\n" + STALE if changed else ""))

    def _sync_buttons(self) -> None:
        has_table = self._table is not None
        self._copy.setEnabled(has_table)
        self._export.setEnabled(has_table)
        dataset_scope = self.scope == "dataset"
        self._pick.setEnabled(dataset_scope)
        self._evaluate.setEnabled(dataset_scope)
