"""Dock widget: browse a dataset's cases by per-case metrics, open one, export figures.

* **Evaluate** runs :func:`napari_mood.services.evaluation.evaluate` (pixel, sample
  and object tasks, as ``napari-mood evaluate --task pixel,sample,object``) in a worker thread, one
  case after the other (``workers=1``): the progress bar advances per case, Cancel stops
  after the current case, and no process pool is started from the GUI process. The
  numbers are the engine's, bit for bit the command line's.
* The table has one row per case and, per method, the case's voxel AP, Dice (at the
  method's best dataset-wide threshold, as ``evaluate``), GT objects found and missed and
  false-positive objects. Click a header to sort (numbers sort as numbers; empty cells
  always last); filter by method (its columns only) and by normal / abnormal case.
* Double-click a row to open its case: the case's layers (scan, ground truth, maps) are
  read in a worker and replace the shown case's layers
  (:meth:`napari_mood._napari.session.MoodSession.replace_case`).
* Under the table, the Export group (:class:`~.browser_figure.FigureExportWidget`):
  **Make figure...** draws a figure of the shown case at the current slice and thresholds;
  **Export view...** saves the canvas with a scale bar and the methods' colour bars.

A dataset opened in napari (a dataset folder dropped on the window) fills the dataset
field (:attr:`napari_mood._napari.session.MoodSession.dataset`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from qtpy.QtCore import (
    QModelIndex,
    QObject,
    Qt,
    Signal,
)
from qtpy.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.prefetch import prefetch_for
from napari_mood._napari.reader import LoadedCase
from napari_mood._napari.viewer import focus_case
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood._napari.widgets.browser_figure import FigureExportWidget
from napari_mood._napari.widgets.case_table import (
    CASE_KINDS,
    SORT_ROLE,
    CaseSortProxy,
    CaseTableModel,
)
from napari_mood.io.errors import MoodInputError
from napari_mood.io.mood import case_stem
from napari_mood.services.evaluation import (
    EvaluationCancelled,
    EvaluationOptions,
    MoodEvaluation,
    evaluate,
)
from napari_mood.services.looks import method_colors
from napari_mood.services.report import ALL_CATEGORIES, category_choices, read_case_categories

if TYPE_CHECKING:
    import napari

__all__ = ["BROWSER_OPTIONS", "SORT_ROLE", "DatasetBrowserWidget"]

BROWSER_OPTIONS = EvaluationOptions(tasks=("pixel", "sample", "object"))
ALL_METHODS = "All methods"
MAX_PROBLEMS_SHOWN = 3
NO_CASE_SHOWN = "No MOOD case shown: double-click a row to open one."
CATEGORIES_FILE = "categories.csv"
"""Read from the dataset folder after Evaluate when it is there (as `napari-mood categories`)."""
MIN_COLUMN_WIDTH = 36


TIPS = {
    "dataset": "MOOD dataset folder (holds toy/ and toy_label/). Dropping one on napari fills it.",
    "dataset_button": "Choose the dataset folder.",
    "methods": "Folder whose subfolders are methods (METHOD/CASE.nii.gz). Empty: DATASET/methods.",
    "methods_button": "Choose the folder holding the method folders.",
    "evaluate": "Score every case and method (pixel, sample and object tasks) in the background.",
    "cancel": "Stop the evaluation after the current case.",
    "progress": "Cases evaluated so far.",
    "method_filter": "Show the columns of one method, or of all methods.",
    "kind_filter": "Show all cases, only cases with an anomaly, or only normal cases.",
    "category_filter": (
        "Show one anomaly category or sub-category (from DATASET/categories.csv, read "
        "after Evaluate, or the file chosen with 'Categories…'; columns "
        "case,category[,subcategory[,order]])."
    ),
    "table": "Click a header to sort (worst first: sort AP ascending). Double-click a row to open the case.",
}


NAMES = {  # accessible names: what a screen reader says for controls without their own text
    "dataset": "Dataset folder",
    "methods": "Methods folder",
    "dataset_button": "Browse for the dataset folder",
    "methods_button": "Browse for the methods folder",
    "progress": "Evaluation progress",
    "status": "Evaluation status",
    "method_filter": "Method filter",
    "kind_filter": "Case kind filter",
    "category_filter": "Category filter",
    "categories_button": "Choose a categories file",
    "table": "Cases",
}


def _named(widget: QWidget, key: str) -> None:
    widget.setAccessibleName(NAMES[key])


# --------------------------------------------------------------------------- widget


class _ProgressRelay(QObject):
    """Carries progress from the worker thread to the main thread (queued signal)."""

    advanced = Signal(int, int, int, str)  # run, done, total, case


@dataclass
class _Run:
    """One evaluation request: its number and its cancel flag."""

    number: int
    cancelled: threading.Event


class DatasetBrowserWidget(MoodPanel):
    """Browse a MOOD dataset's cases by per-case metrics; open one; export figures.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is shown.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._evaluation: MoodEvaluation | None = None
        self._run = _Run(0, threading.Event())
        self._relay = _ProgressRelay(self)
        self._lifetime.at_end(self._cancel_run)
        self._evaluator = self._lifetime.worker(
            self._on_evaluator_returned,
            on_error=self._on_evaluator_errored,
            on_busy=self._on_evaluator_busy,
        )
        self._opener = self._lifetime.worker(self._on_opener_returned)
        self._shown_case: str | None = None  # the case the status line names
        self._build()
        self._connect()
        self._on_session_case_changed()

    # -- construction -----------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.addLayout(self._build_inputs())
        layout.addLayout(self._build_run_row())
        self._status = QLabel("Choose a dataset and press Evaluate.", self)
        self._status.setWordWrap(True)
        _named(self._status, "status")
        layout.addWidget(self._status)
        layout.addLayout(self._build_filters())
        layout.addWidget(self._build_table(), 1)
        self._export = FigureExportWidget(self._viewer, self._session, self._lifetime, self)
        layout.addWidget(self._export)

    def _build_inputs(self) -> QGridLayout:
        grid = QGridLayout()
        self._dataset_edit = kit.line_edit(self, "dataset folder", TIPS["dataset"])
        self._methods_edit = kit.line_edit(self, "DATASET/methods", TIPS["methods"])
        self._dataset_button = kit.button(self, "Browse...", TIPS["dataset_button"])
        self._methods_button = kit.button(self, "Browse...", TIPS["methods_button"])
        _named(self._dataset_edit, "dataset")
        _named(self._methods_edit, "methods")
        _named(self._dataset_button, "dataset_button")
        _named(self._methods_button, "methods_button")
        for row, (name, edit, button) in enumerate(
            (
                ("Dataset", self._dataset_edit, self._dataset_button),
                ("Methods", self._methods_edit, self._methods_button),
            )
        ):
            label = QLabel(name, self)
            label.setToolTip(edit.toolTip())
            grid.addWidget(label, row, 0)
            grid.addWidget(edit, row, 1)
            grid.addWidget(button, row, 2)
        grid.setColumnStretch(1, 1)
        return grid

    def _build_run_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self._evaluate_button = kit.button(self, "Evaluate", TIPS["evaluate"])
        self._cancel_button = kit.button(self, "Cancel", TIPS["cancel"])
        self._cancel_button.setEnabled(False)
        self._progress = QProgressBar(self)
        self._progress.setToolTip(TIPS["progress"])
        self._progress.setFormat("%v / %m cases")
        self._progress.setVisible(False)
        _named(self._progress, "progress")
        row.addWidget(self._evaluate_button)
        row.addWidget(self._cancel_button)
        row.addWidget(self._progress, 1)
        return row

    def _build_filters(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self._method_filter = QComboBox(self)
        self._method_filter.addItem(ALL_METHODS)
        self._method_filter.setToolTip(TIPS["method_filter"])
        self._kind_filter = QComboBox(self)
        self._kind_filter.addItems(CASE_KINDS)
        self._kind_filter.setToolTip(TIPS["kind_filter"])
        self._category_filter = kit.combo(self, TIPS["category_filter"], [ALL_CATEGORIES])
        self._categories_button = kit.button(self, "Categories…", TIPS["category_filter"])
        self._categories: dict[str, frozenset[str] | None] = {ALL_CATEGORIES: None}
        _named(self._method_filter, "method_filter")
        _named(self._kind_filter, "kind_filter")
        _named(self._category_filter, "category_filter")
        _named(self._categories_button, "categories_button")
        row.addWidget(self._method_filter, 1)
        row.addWidget(self._kind_filter, 1)
        row.addWidget(self._category_filter, 1)
        row.addWidget(self._categories_button)
        return row

    def _build_table(self) -> QTableView:
        self._model = CaseTableModel(self)
        self._proxy = CaseSortProxy(self)
        self._proxy.setSourceModel(self._model)
        self._table = QTableView(self)
        self._table.setModel(self._proxy)
        self._table.setToolTip(TIPS["table"])
        _named(self._table, "table")
        self._table.setSortingEnabled(True)
        self._table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self._table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self._table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self._table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        rows, columns = self._table.verticalHeader(), self._table.horizontalHeader()
        assert rows is not None and columns is not None
        rows.setVisible(False)
        columns.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        columns.setMinimumSectionSize(MIN_COLUMN_WIDTH)
        self._table.setMinimumHeight(160)
        return self._table

    def _connect(self) -> None:
        self._dataset_button.clicked.connect(self._on_dataset_button_clicked)
        self._methods_button.clicked.connect(self._on_methods_button_clicked)
        self._evaluate_button.clicked.connect(self._on_evaluate_clicked)
        self._cancel_button.clicked.connect(self._on_cancel_clicked)
        self._method_filter.currentTextChanged.connect(self._on_method_filter_changed)
        self._kind_filter.currentTextChanged.connect(self._on_kind_filter_changed)
        self._category_filter.currentTextChanged.connect(self._on_category_filter_changed)
        self._categories_button.clicked.connect(self._on_categories_button_clicked)
        self._table.doubleClicked.connect(self._on_table_double_clicked)
        self._relay.advanced.connect(self._on_progress_advanced)
        self.watch_session(case=self._on_session_case_changed)

    # -- public API -------------------------------------------------------------------

    @property
    def evaluation(self) -> MoodEvaluation | None:
        """The last evaluation shown in the table."""
        return self._evaluation

    @property
    def busy(self) -> bool:
        """Whether an evaluation is running."""
        return self._evaluator.busy

    def evaluate(
        self, dataset: str | Path | None = None, methods: str | Path | None = None
    ) -> None:
        """Evaluate a dataset (default: the folders in the fields) in the background."""
        if dataset is not None:
            self._dataset_edit.setText(str(dataset))
        if methods is not None:
            self._methods_edit.setText(str(methods))
        folder = self._dataset_edit.text().strip()
        if not folder:
            kit.notify("warning", "Dataset browser: choose a dataset folder first (Browse...).")
            return
        parent = self._methods_edit.text().strip()
        self._run.cancelled.set()
        self._run = _Run(self._run.number + 1, threading.Event())
        progress = partial(self._relay.advanced.emit, self._run.number)
        self._status.setText(f"Evaluating {folder}...")
        self._evaluator.submit(
            evaluate,
            Path(folder),
            preds=Path(parent) if parent else None,
            options=BROWSER_OPTIONS,
            workers=1,
            progress=progress,
            cancelled=self._run.cancelled,
            warn=False,
        )

    def cancel(self) -> None:
        """Stop the running evaluation after its current case."""
        self._run.cancelled.set()
        self._evaluator.cancel()
        self._progress.setVisible(False)
        self._status.setText("Evaluation cancelled.")

    def open_case(self, case: str) -> None:
        """Read a case of the evaluated dataset in the background and show it."""
        if self._evaluation is None:
            kit.notify("warning", "Dataset browser: evaluate a dataset before opening its cases.")
            return
        evaluation = self._evaluation
        self._status.setText(f"Opening {case_stem(case)}...")
        prefetch_for(self._session).open(
            self._opener, self._on_opener_returned, evaluation.dataset, case, evaluation.methods
        )

    def make_figure_file(self, path: str | Path) -> None:
        """Write a figure of the shown case (current slice and thresholds) in the background."""
        self._export.make_figure_file(path)

    def export_view(self, path: str | Path) -> Path:
        """Save the canvas as a PNG with a scale bar and the methods' colour bars.

        Raises
        ------
        MoodInputError
            When the path is among the inputs or cannot be written (nothing is written).
        """
        return self._export.export_view(path)

    def _cancel_run(self) -> None:
        self._run.cancelled.set()

    # -- inputs -----------------------------------------------------------------------

    def _on_dataset_button_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "MOOD dataset folder", self._dataset_edit.text()
        )
        if folder:
            self._dataset_edit.setText(folder)

    def _on_methods_button_clicked(self) -> None:
        start = self._methods_edit.text() or self._dataset_edit.text()
        folder = QFileDialog.getExistingDirectory(self, "Folder of method folders", start)
        if folder:
            self._methods_edit.setText(folder)

    def _on_session_case_changed(self) -> None:
        dataset = self._session.dataset
        if dataset is not None and self._dataset_path() != dataset:
            self._dataset_edit.setText(str(dataset))
            self._methods_edit.clear()
        case, shown = self._session.case, self._shown_case
        self._shown_case = case
        if case is not None:  # whoever opened it: this table, the review queue, a drop
            self._select_row(case)
            self._status.setText(f"Showing {case_stem(case)}.")
        elif shown is not None:  # closed, or a box dataset took its place
            self._table.clearSelection()
            self._status.setText(NO_CASE_SHOWN)

    def _dataset_path(self) -> Path | None:
        text = self._dataset_edit.text().strip()
        return Path(text) if text else None

    # -- evaluation -------------------------------------------------------------------

    def _on_evaluate_clicked(self) -> None:
        self.evaluate()

    def _on_cancel_clicked(self) -> None:
        self.cancel()

    def _on_progress_advanced(self, run: int, done: int, total: int, case: str) -> None:
        if run != self._run.number:
            return
        self._progress.setRange(0, total)
        self._progress.setValue(done)
        self._status.setText(f"Evaluated {case_stem(case)} ({done} of {total}).")

    def _on_evaluator_busy(self, busy: bool) -> None:
        self._cancel_button.setEnabled(busy)
        if busy:
            self._progress.setRange(0, 0)  # busy indicator until the first case is done
            self._progress.setVisible(True)

    def _on_evaluator_returned(self, evaluation: MoodEvaluation) -> None:
        self._evaluation = evaluation
        self._progress.setVisible(False)
        self._model.set_result(
            evaluation.result, self._method_colors(tuple(evaluation.result.methods))
        )
        self._fill_method_filter(tuple(evaluation.result.methods))
        self._show_summary(evaluation)
        beside = Path(evaluation.dataset.root) / CATEGORIES_FILE
        if beside.is_file() and self._categories == {ALL_CATEGORIES: None}:
            self.load_categories(beside)

    def _on_evaluator_errored(self, exc: BaseException) -> None:
        self._progress.setVisible(False)
        if isinstance(exc, EvaluationCancelled):
            return
        self._status.setText("Evaluation failed; see the notification.")
        kit.notify("error", f"Dataset browser: {exc}")

    def _method_colors(self, methods: Sequence[str]) -> dict[str, str]:
        shown = {m.name: m.color for m in self._session.methods}
        own = method_colors(methods)
        return {name: shown.get(name) or own[name] for name in methods}

    def _fill_method_filter(self, methods: tuple[str, ...]) -> None:
        current = self._method_filter.currentText()
        self._method_filter.blockSignals(True)
        self._method_filter.clear()
        self._method_filter.addItems([ALL_METHODS, *methods])
        self._method_filter.setCurrentText(current if current in methods else ALL_METHODS)
        self._method_filter.blockSignals(False)
        self._on_method_filter_changed(self._method_filter.currentText())

    def _show_summary(self, evaluation: MoodEvaluation) -> None:
        result = evaluation.result
        abnormal = sum(self._model.is_abnormal(r) for r in range(self._model.rowCount()))
        text = (
            f"{evaluation.dataset.name}: {len(result.cases)} cases ({abnormal} with anomalies), "
            f"{len(result.methods)} methods. Double-click a case to open it."
        )
        self._status.setText(text)
        self._status.setToolTip("\n".join(str(p) for p in result.problems))
        if result.problems:
            shown = "; ".join(str(p) for p in result.problems[:MAX_PROBLEMS_SHOWN])
            more = len(result.problems) - MAX_PROBLEMS_SHOWN
            tail = f" (and {more} more; hover the status line)" if more > 0 else ""
            kit.notify("warning", f"Dataset browser: {shown}{tail}")

    # -- filters ----------------------------------------------------------------------

    def _on_method_filter_changed(self, method: str) -> None:
        self._model.set_compact_headers(method != ALL_METHODS)
        for name in self._model.methods:
            hidden = method not in (ALL_METHODS, name)
            for column in self._model.method_columns(name):
                self._table.setColumnHidden(column, hidden)

    def _on_kind_filter_changed(self, kind: str) -> None:
        self._proxy.set_kind(kind)

    def load_categories(self, path: str | Path) -> bool:
        """Offer the categories of ``path`` in the category filter; False (and a message) if unreadable."""
        try:
            choices = category_choices(read_case_categories(path))
        except MoodInputError as error:
            kit.notify("error", f"Dataset browser: {error}")
            return False
        self._categories = choices
        self._category_filter.blockSignals(True)
        self._category_filter.clear()
        self._category_filter.addItems(list(choices))
        self._category_filter.blockSignals(False)
        self._proxy.set_cases(None)
        return True

    def _on_category_filter_changed(self, label: str) -> None:
        self._proxy.set_cases(self._categories.get(label))

    def _on_categories_button_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Categories file", "", "CSV (*.csv)")
        if path:
            self.load_categories(path)

    # -- opening a case ---------------------------------------------------------------

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        source = self._proxy.mapToSource(index)
        self.open_case(self._model.case_at(source.row()))

    def _on_opener_returned(self, loaded: LoadedCase) -> None:
        self._session.replace_case(loaded.layers)
        focus_case(self._viewer, self._session)
        self._read_ahead(loaded.case)
        if loaded.problems:
            shown = "; ".join(str(p) for p in loaded.problems[:MAX_PROBLEMS_SHOWN])
            kit.notify("warning", f"Dataset browser: {shown}")

    def _read_ahead(self, case: str) -> None:
        """Read the case of the next row (as sorted and filtered) while this one is read."""
        evaluation, after = self._evaluation, self.next_case(case)
        if evaluation is not None and after is not None:
            prefetch_for(self._session).start(evaluation.dataset, after, evaluation.methods)

    def next_case(self, case: str) -> str | None:
        """Return the case of the row below ``case``'s in the table as shown (None: the last)."""
        rows = [self._model.case_at(self._proxy.mapToSource(self._proxy.index(r, 0)).row())
                for r in range(self._proxy.rowCount())]  # fmt: skip
        if case not in rows or rows.index(case) + 1 >= len(rows):
            return None
        return rows[rows.index(case) + 1]

    def _select_row(self, case: str) -> None:
        if case in self._model.cases:
            source = self._model.index(self._model.cases.index(case), 0)
            self._table.selectRow(self._proxy.mapFromSource(source).row())
