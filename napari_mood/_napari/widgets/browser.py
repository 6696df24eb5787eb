"""Dock widget: browse a dataset's cases by per-case metrics, open one, export figures.

* **Evaluate** runs :func:`napari_mood.services.engine.run_evaluation` (pixel, sample and object
  tasks, as ``napari-mood evaluate --task pixel,sample,object``) in a worker thread, one
  case after the other (``workers=1``): the progress bar advances per case, Cancel stops
  after the current case, and no process pool is started from the GUI process. The
  numbers are the engine's, bit for bit the command line's.
* The table has one row per case and, per method, the case's voxel AP, Dice (at the
  method's best dataset-wide threshold, as ``evaluate``), GT objects found and missed and
  false-positive objects. Click a header to sort (numbers sort as numbers; empty cells
  always last); filter by method (its columns only) and by normal / abnormal case.
* Double-click a row to open its case: the case's layers (scan, ground truth, maps) are
  read in a worker and replace the shown case's layers; display thresholds, colours,
  visibility and opacity of each method are kept, and docked widgets stay.
* **Make figure...** draws :func:`napari_mood.services.figures.make_figure` of the shown case at
  the current slice and thresholds; **Export view...** saves the canvas with a scale bar
  and the methods' colour bars.

A dataset opened in napari (a dataset folder dropped on the window) fills the dataset
field (:attr:`napari_mood._napari.session.MoodSession.dataset`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from napari.layers import Layer
from qtpy.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from qtpy.QtGui import QColor, QIcon, QPixmap
from qtpy.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.layers import METADATA_KEY, layer_info
from napari_mood._napari.reader import LayerData, case_layer_data
from napari_mood._napari.session import MoodSession, get_session
from napari_mood._napari.viewer import PLUGIN_NAME, focus_case
from napari_mood._napari.widgets.worker import LatestWorker
from napari_mood.core.case import load_case
from napari_mood.core.evaluate import CaseRow, DatasetEvaluation, EvaluationOptions
from napari_mood.core.io import (
    MethodFolder,
    MoodDataset,
    case_stem,
    discover_dataset,
    discover_methods,
)
from napari_mood.core.looks import METHOD_COLORS, method_colormap
from napari_mood.core.scores import threshold_limits
from napari_mood.core.validate import Problem
from napari_mood.services.engine import run_evaluation

if TYPE_CHECKING:
    import napari

__all__ = [
    "BROWSER_OPTIONS",
    "BrowserEvaluation",
    "CaseTableModel",
    "DatasetBrowserWidget",
    "EvaluationCancelled",
    "LoadedCase",
    "evaluate_dataset_folder",
    "load_case_layers",
]

BROWSER_OPTIONS = EvaluationOptions(tasks=("pixel", "sample", "object"))
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ALL_METHODS = "All methods"
CASE_KINDS = ("All cases", "Abnormal cases", "Normal cases")
MAX_PROBLEMS_SHOWN = 3
FIGURE_FILTER = "PDF (*.pdf);;PNG (*.png);;SVG (*.svg)"
DEFAULT_DPI = 300
SWATCH_SIZE = 10
MIN_COLUMN_WIDTH = 36


@dataclass(frozen=True)
class MetricColumn:
    """A per-method column of the table: a :class:`CaseRow` field and how to show it."""

    title: str
    field: str
    digits: int | None
    tip: str


METRIC_COLUMNS: tuple[MetricColumn, ...] = (
    MetricColumn("AP", "pixel_ap", 3, "voxel average precision of the case (empty: no anomaly)"),
    MetricColumn(
        "Dice", "dice", 3, "Dice at the method's best dataset-wide threshold (as evaluate)"
    ),
    MetricColumn("found", "object_tp", None, "ground-truth objects found (object task)"),
    MetricColumn("missed", "object_fn", None, "ground-truth objects missed (object task)"),
    MetricColumn("FP", "object_fp", None, "false-positive objects (object task)"),
)

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
    "table": "Click a header to sort (worst first: sort AP ascending). Double-click a row to open the case.",
    "figure": "Save a figure (scan, ground truth, each method) of the shown case at the current "
    "slice and thresholds, as PDF, PNG or SVG.",
    "export": "Save the canvas as a PNG with a scale bar and the methods' colour bars.",
    "dpi": "Resolution of figures (dots per inch).",
    "annotate": "Write each method's case AP and Dice (at its threshold) in the figure.",
}


class EvaluationCancelled(RuntimeError):
    """Raised inside the worker when the user pressed Cancel."""


# --------------------------------------------------------------------------- background work


@dataclass(frozen=True)
class BrowserEvaluation:
    """What the browser evaluated: the dataset, its methods and the engine's result."""

    dataset: MoodDataset
    methods: Mapping[str, MethodFolder]
    result: DatasetEvaluation


def evaluate_dataset_folder(
    dataset: Path,
    methods_parent: Path | None = None,
    *,
    progress: Callable[[int, int, str], None] | None = None,
    cancelled: threading.Event | None = None,
) -> BrowserEvaluation:
    """Discover a dataset and its methods and evaluate them in this thread (case by case).

    Parameters
    ----------
    dataset : Path
        MOOD dataset folder.
    methods_parent : Path, optional
        Folder of method folders (default ``dataset/methods``).
    progress : callable(done, total, case), optional
        Called after each case.
    cancelled : threading.Event, optional
        When set, the evaluation stops after the current case with
        :class:`EvaluationCancelled`.

    Raises
    ------
    MoodInputError
        When the dataset or the methods folder cannot be used (the message names it).
    """
    found = discover_dataset(dataset)
    methods = discover_methods(methods_parent or Path(dataset) / "methods")

    def report(done: int, total: int, case: str) -> None:
        if cancelled is not None and cancelled.is_set():
            raise EvaluationCancelled(f"evaluation of {dataset} cancelled")
        if progress is not None:
            progress(done, total, case)

    result, _ = run_evaluation(
        found, methods, options=BROWSER_OPTIONS, workers=1, progress=report, warn=False
    )
    return BrowserEvaluation(found, methods, result)


@dataclass(frozen=True)
class LoadedCase:
    """A case read for the viewer: its layer data tuples and what was wrong."""

    case: str
    layers: list[LayerData]
    problems: tuple[Problem, ...]


def load_case_layers(
    dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]
) -> LoadedCase:
    """Read one case (scan, GT, each method's map) as layer data tuples (worker thread)."""
    data = load_case(dataset, case, methods=methods)
    return LoadedCase(case, case_layer_data(data), data.problems)


# --------------------------------------------------------------------------- table model


def _is_abnormal(rows: Sequence[CaseRow]) -> bool:
    voxels = next((r.gt_voxels for r in rows if r.gt_voxels is not None), None)
    if voxels is not None:
        return voxels > 0
    return any(r.sample_label == 1 for r in rows)


def _as_number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _format(value: Any, digits: int | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.{digits}f}" if digits is not None else str(int(value))


class CaseTableModel(QAbstractTableModel):
    """Cases (rows) x per-method metrics (columns) of a :class:`DatasetEvaluation`.

    Column 0 is the case, column 1 its ground-truth voxels, then
    :data:`METRIC_COLUMNS` for each method. ``SORT_ROLE`` gives the number behind a cell
    (NaN when empty).
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cases: tuple[str, ...] = ()
        self._methods: tuple[str, ...] = ()
        self._rows: dict[tuple[str, str], CaseRow] = {}
        self._abnormal: dict[str, bool] = {}
        self._gt_voxels: dict[str, int | None] = {}
        self._colors: dict[str, str] = {}
        self._compact = False

    # -- content --------------------------------------------------------------------

    def set_result(self, result: DatasetEvaluation, colors: Mapping[str, str]) -> None:
        """Show a result; ``colors`` gives each method's swatch colour."""
        self.beginResetModel()
        self._methods = tuple(result.methods)
        self._rows = {(r.case, r.method): r for r in result.per_case}
        self._cases = tuple(dict.fromkeys(r.case for r in result.per_case))
        by_case: dict[str, list[CaseRow]] = {}
        for row in result.per_case:
            by_case.setdefault(row.case, []).append(row)
        self._abnormal = {case: _is_abnormal(rows) for case, rows in by_case.items()}
        self._gt_voxels = {
            case: next((r.gt_voxels for r in rows if r.gt_voxels is not None), None)
            for case, rows in by_case.items()
        }
        self._colors = dict(colors)
        self.endResetModel()

    def set_compact_headers(self, compact: bool) -> None:
        """Leave the method's name out of the headers (when one method is shown)."""
        self._compact = compact
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self.columnCount() - 1)

    @property
    def methods(self) -> tuple[str, ...]:
        """Methods shown, in column order."""
        return self._methods

    @property
    def cases(self) -> tuple[str, ...]:
        """Case names, in source row order."""
        return self._cases

    def case_at(self, row: int) -> str:
        """Case name of a source row."""
        return self._cases[row]

    def is_abnormal(self, row: int) -> bool:
        """Whether the case of a source row has an anomaly."""
        return self._abnormal[self._cases[row]]

    def method_columns(self, method: str) -> range:
        """Columns of one method."""
        start = 2 + self._methods.index(method) * len(METRIC_COLUMNS)
        return range(start, start + len(METRIC_COLUMNS))

    def column_of(self, method: str, title: str) -> int:
        """Column of a method's metric (``title`` as in :data:`METRIC_COLUMNS`)."""
        titles = [c.title for c in METRIC_COLUMNS]
        return self.method_columns(method)[titles.index(title)]

    def _cell(self, column: int) -> tuple[str, MetricColumn] | None:
        if column < 2:
            return None
        method, metric = divmod(column - 2, len(METRIC_COLUMNS))
        return self._methods[method], METRIC_COLUMNS[metric]

    # -- Qt model API -----------------------------------------------------------------

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._cases)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 2 + len(self._methods) * len(METRIC_COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        case = self._cases[index.row()]
        if index.column() == 0:
            return self._case_data(case, role)
        if index.column() == 1:
            return self._voxels_data(case, role)
        method, metric = self._cell(index.column())  # type: ignore[misc]
        return self._metric_data(self._rows.get((case, method)), metric, role)

    def _case_data(self, case: str, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE):
            return case_stem(case)
        if role == Qt.ItemDataRole.ToolTipRole:
            kind = "has an anomaly" if self._abnormal[case] else "is normal"
            return f"{case} {kind}; double-click to open it"
        return None

    def _voxels_data(self, case: str, role: int) -> Any:
        voxels = self._gt_voxels.get(case)
        if role == Qt.ItemDataRole.DisplayRole:
            return _format(voxels, None)
        if role == SORT_ROLE:
            return _as_number(voxels)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _metric_data(self, row: CaseRow | None, metric: MetricColumn, role: int) -> Any:
        value = None if row is None else getattr(row, metric.field)
        if role == Qt.ItemDataRole.DisplayRole:
            return _format(value, metric.digits)
        if role == SORT_ROLE:
            return _as_number(value)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and row is not None and row.status != "ok":
            return QColor("gray")
        if role == Qt.ItemDataRole.ToolTipRole and row is not None:
            return _cell_tip(row, metric, value)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        cell = self._cell(section)
        if cell is None:
            titles = ("case", "GT\nvoxels")
            tips = ("case name", "anomalous voxels in the ground truth (0: normal case)")
            return {
                int(Qt.ItemDataRole.DisplayRole): titles[section],
                int(Qt.ItemDataRole.ToolTipRole): tips[section],
            }.get(role)
        method, metric = cell
        if role == Qt.ItemDataRole.DisplayRole:
            return metric.title if self._compact else f"{method}\n{metric.title}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{method}: {metric.tip}"
        if role == Qt.ItemDataRole.DecorationRole and not self._compact:
            return _swatch(self._colors.get(method, METHOD_COLORS[0]))
        return None


def _swatch(color: str) -> QIcon:
    pixmap = QPixmap(SWATCH_SIZE, SWATCH_SIZE)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


def _cell_tip(row: CaseRow, metric: MetricColumn, value: Any) -> str:
    shown = _format(value, 4 if metric.digits else None) or "undefined"
    status = "" if row.status == "ok" else f" (map {row.status}: scored as zeros)"
    return f"{row.method} on {case_stem(row.case)}: {metric.title} {shown}{status}"


class CaseSortProxy(QSortFilterProxyModel):
    """Numeric sorting with empty (NaN) cells last in both orders; normal/abnormal filter."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._kind = CASE_KINDS[0]
        self.setSortRole(SORT_ROLE)

    def set_kind(self, kind: str) -> None:
        """Show ``"All cases"``, ``"Abnormal cases"`` or ``"Normal cases"``."""
        if kind not in CASE_KINDS:
            raise ValueError(f"kind must be one of {CASE_KINDS}, got {kind!r}")
        self._kind = kind
        self.invalidateFilter()

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:
        if self._kind == CASE_KINDS[0]:
            return True
        model: CaseTableModel = self.sourceModel()  # type: ignore[assignment]
        return model.is_abnormal(row) == (self._kind == CASE_KINDS[1])

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        if isinstance(a, str) or isinstance(b, str):
            return str(a) < str(b)
        a_nan, b_nan = math.isnan(a), math.isnan(b)
        if a_nan or b_nan:
            # Qt reverses the comparison for descending order: keep NaN at the end anyway
            descending = self.sortOrder() == Qt.SortOrder.DescendingOrder
            return (a_nan and not b_nan) if descending else (b_nan and not a_nan)
        return bool(a < b)


# --------------------------------------------------------------------------- widget


class _Lifetime:
    """Whether the widget still exists: worker callbacks arriving after it is gone are dropped."""

    def __init__(self) -> None:
        self.alive = True
        self.run: _Run | None = None

    def end(self, *_: object) -> None:
        """The widget was destroyed: stop its evaluation, drop later callbacks."""
        self.alive = False
        if self.run is not None:
            self.run.cancelled.set()

    def guard(self, callback: Callable[..., None]) -> Callable[..., None]:
        """Wrap a callback so that it only runs while the widget exists."""

        def call(*args: Any) -> None:
            if self.alive:
                callback(*args)

        return call


class _ProgressRelay(QObject):
    """Carries progress from the worker thread to the main thread (queued signal)."""

    advanced = Signal(int, int, int, str)  # run, done, total, case


@dataclass
class _Run:
    """One evaluation request: its number and its cancel flag."""

    number: int
    cancelled: threading.Event


class DatasetBrowserWidget(QWidget):
    """Browse a MOOD dataset's cases by per-case metrics; open one; export figures.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is shown.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._viewer = viewer
        self._session: MoodSession = get_session(viewer)
        self._evaluation: BrowserEvaluation | None = None
        self._run = _Run(0, threading.Event())
        self._thresholds: dict[str, float] = {}
        self._colors: dict[str, str] = {}
        self._relay = _ProgressRelay(self)
        self._lifetime = _Lifetime()
        guard = self._lifetime.guard
        self._evaluator = LatestWorker(
            guard(self._on_evaluator_returned),
            on_error=guard(self._on_evaluator_errored),
            on_busy=guard(self._on_evaluator_busy),
        )
        self._opener = LatestWorker(guard(self._on_opener_returned))
        self._figure_maker = LatestWorker(self._on_figure_maker_returned)
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
        layout.addWidget(self._status)
        layout.addLayout(self._build_filters())
        layout.addWidget(self._build_table(), 1)
        layout.addWidget(self._build_export())

    def _build_inputs(self) -> QGridLayout:
        grid = QGridLayout()
        self._dataset_edit = _line_edit(self, "dataset folder", TIPS["dataset"])
        self._methods_edit = _line_edit(self, "DATASET/methods", TIPS["methods"])
        self._dataset_button = _button(self, "Browse...", TIPS["dataset_button"])
        self._methods_button = _button(self, "Browse...", TIPS["methods_button"])
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
        self._evaluate_button = _button(self, "Evaluate", TIPS["evaluate"])
        self._cancel_button = _button(self, "Cancel", TIPS["cancel"])
        self._cancel_button.setEnabled(False)
        self._progress = QProgressBar(self)
        self._progress.setToolTip(TIPS["progress"])
        self._progress.setFormat("%v / %m cases")
        self._progress.setVisible(False)
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
        row.addWidget(self._method_filter, 1)
        row.addWidget(self._kind_filter, 1)
        return row

    def _build_table(self) -> QTableView:
        self._model = CaseTableModel(self)
        self._proxy = CaseSortProxy(self)
        self._proxy.setSourceModel(self._model)
        self._table = QTableView(self)
        self._table.setModel(self._proxy)
        self._table.setToolTip(TIPS["table"])
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

    def _build_export(self) -> QGroupBox:
        box = QGroupBox("Export", self)
        row = QHBoxLayout(box)
        self._figure_button = _button(box, "Make figure...", TIPS["figure"])
        self._export_button = _button(box, "Export view...", TIPS["export"])
        self._dpi = QSpinBox(box)
        self._dpi.setRange(50, 1200)
        self._dpi.setValue(DEFAULT_DPI)
        self._dpi.setSuffix(" dpi")
        self._dpi.setToolTip(TIPS["dpi"])
        self._annotate = QCheckBox("Annotate", box)
        self._annotate.setToolTip(TIPS["annotate"])
        for widget in (self._figure_button, self._export_button, self._dpi, self._annotate):
            row.addWidget(widget)
        return box

    def _connect(self) -> None:
        self._dataset_button.clicked.connect(self._on_dataset_button_clicked)
        self._methods_button.clicked.connect(self._on_methods_button_clicked)
        self._evaluate_button.clicked.connect(self._on_evaluate_clicked)
        self._cancel_button.clicked.connect(self._on_cancel_clicked)
        self._method_filter.currentTextChanged.connect(self._on_method_filter_changed)
        self._kind_filter.currentTextChanged.connect(self._on_kind_filter_changed)
        self._table.doubleClicked.connect(self._on_table_double_clicked)
        self._figure_button.clicked.connect(self._on_figure_button_clicked)
        self._export_button.clicked.connect(self._on_export_button_clicked)
        self._relay.advanced.connect(self._on_progress_advanced)
        self._session.case_changed.connect(self._on_session_case_changed)
        self.destroyed.connect(partial(_disconnect, self._session, self._on_session_case_changed))
        self.destroyed.connect(self._lifetime.end)

    # -- public API -------------------------------------------------------------------

    @property
    def session(self) -> MoodSession:
        """The session shown."""
        return self._session

    @property
    def evaluation(self) -> BrowserEvaluation | None:
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
            _notify("warning", "Dataset browser: choose a dataset folder first (Browse...).")
            return
        parent = self._methods_edit.text().strip()
        self._run.cancelled.set()
        self._run = _Run(self._run.number + 1, threading.Event())
        self._lifetime.run = self._run
        progress = partial(self._relay.advanced.emit, self._run.number)
        self._status.setText(f"Evaluating {folder}...")
        self._evaluator.submit(
            evaluate_dataset_folder,
            Path(folder),
            Path(parent) if parent else None,
            progress=progress,
            cancelled=self._run.cancelled,
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
            _notify("warning", "Dataset browser: evaluate a dataset before opening its cases.")
            return
        evaluation = self._evaluation
        self._status.setText(f"Opening {case_stem(case)}...")
        self._opener.submit(load_case_layers, evaluation.dataset, case, evaluation.methods)

    def make_figure_file(self, path: str | Path) -> None:
        """Write a figure of the shown case (current slice and thresholds) in the background."""
        request = self._figure_request(Path(path))
        if request is not None:
            self._figure_maker.submit(_write_figure, request)

    def export_view(self, path: str | Path) -> Path:
        """Save the canvas as a PNG with a scale bar and the methods' colour bars."""
        out = Path(path).with_suffix(".png") if Path(path).suffix.lower() != ".png" else Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        with _ExportLook(self._viewer, [m.layer for m in self._session.methods]):
            self._viewer.screenshot(str(out), canvas_only=True)
        return out

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

    def _on_evaluator_returned(self, evaluation: BrowserEvaluation) -> None:
        self._evaluation = evaluation
        self._progress.setVisible(False)
        self._model.set_result(
            evaluation.result, self._method_colors(tuple(evaluation.result.methods))
        )
        self._fill_method_filter(tuple(evaluation.result.methods))
        self._show_summary(evaluation)

    def _on_evaluator_errored(self, exc: BaseException) -> None:
        self._progress.setVisible(False)
        if isinstance(exc, EvaluationCancelled):
            return
        self._status.setText("Evaluation failed; see the notification.")
        _notify("error", f"Dataset browser: {exc}")

    def _method_colors(self, methods: Sequence[str]) -> dict[str, str]:
        shown = {m.name: m.color for m in self._session.methods}
        return {
            name: self._colors.get(name) or shown.get(name) or METHOD_COLORS[i % len(METHOD_COLORS)]
            for i, name in enumerate(methods)
        }

    def _fill_method_filter(self, methods: tuple[str, ...]) -> None:
        current = self._method_filter.currentText()
        self._method_filter.blockSignals(True)
        self._method_filter.clear()
        self._method_filter.addItems([ALL_METHODS, *methods])
        self._method_filter.setCurrentText(current if current in methods else ALL_METHODS)
        self._method_filter.blockSignals(False)
        self._on_method_filter_changed(self._method_filter.currentText())

    def _show_summary(self, evaluation: BrowserEvaluation) -> None:
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
            _notify("warning", f"Dataset browser: {shown}{tail}")

    # -- filters ----------------------------------------------------------------------

    def _on_method_filter_changed(self, method: str) -> None:
        self._model.set_compact_headers(method != ALL_METHODS)
        for name in self._model.methods:
            hidden = method not in (ALL_METHODS, name)
            for column in self._model.method_columns(name):
                self._table.setColumnHidden(column, hidden)

    def _on_kind_filter_changed(self, kind: str) -> None:
        self._proxy.set_kind(kind)

    # -- opening a case ---------------------------------------------------------------

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        source = self._proxy.mapToSource(index)
        self.open_case(self._model.case_at(source.row()))

    def _on_opener_returned(self, loaded: LoadedCase) -> None:
        self._remember_method_looks()
        self._replace_case_layers(loaded.layers)
        focus_case(self._viewer, self._session)
        if str(self._viewer.title).startswith(PLUGIN_NAME):
            self._viewer.title = f"{PLUGIN_NAME}: {loaded.case}"
        self._select_row(loaded.case)
        self._status.setText(f"Showing {case_stem(loaded.case)}.")
        if loaded.problems:
            shown = "; ".join(str(p) for p in loaded.problems[:MAX_PROBLEMS_SHOWN])
            _notify("warning", f"Dataset browser: {shown}")

    def _remember_method_looks(self) -> None:
        for method in self._session.methods:
            self._thresholds[method.name] = method.threshold
            self._colors[method.name] = method.color

    def _replace_case_layers(self, layers: list[LayerData]) -> None:
        old = [self._session.scan_layer, self._session.gt_layer]
        old += [m.layer for m in self._session.methods]
        looks = {_layer_key(layer): (layer.visible, layer.opacity) for layer in old if layer}
        for layer in old:
            if layer is not None and layer in self._viewer.layers:
                self._viewer.layers.remove(layer)
        for data, kwargs, kind in layers:
            key = _layer_key_of(kwargs)
            kwargs = self._with_method_look(kwargs)
            if key in looks:
                kwargs["visible"], kwargs["opacity"] = looks[key]
            self._viewer.add_layer(Layer.create(data, kwargs, kind))
        for method in self._session.methods:
            if method.name in self._thresholds:
                self._session.set_threshold(method.name, self._thresholds[method.name])
        if self._session.methods:
            self._viewer.layers.selection.active = self._session.methods[0].layer

    def _with_method_look(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        info = kwargs["metadata"][METADATA_KEY]
        name = info.get("method")
        if info["role"] != "method" or name is None:
            return kwargs
        color = self._colors.get(name, info["color"])
        threshold = self._thresholds.get(name)
        metadata = {METADATA_KEY: {**info, "color": color}}
        updated = {**kwargs, "metadata": metadata, "colormap": method_colormap(color)}
        if threshold is not None:
            updated["contrast_limits"] = list(threshold_limits(threshold))
        return updated

    def _select_row(self, case: str) -> None:
        if case in self._model.cases:
            source = self._model.index(self._model.cases.index(case), 0)
            self._table.selectRow(self._proxy.mapFromSource(source).row())

    # -- export -----------------------------------------------------------------------

    def _on_figure_button_clicked(self) -> None:
        stem = case_stem(self._session.case or "figure")
        path, _ = QFileDialog.getSaveFileName(
            self, "Save figure", f"{stem}_figure.pdf", FIGURE_FILTER
        )
        if path:
            self.make_figure_file(path)

    def _on_export_button_clicked(self) -> None:
        stem = case_stem(self._session.case or "view")
        path, _ = QFileDialog.getSaveFileName(
            self, "Export view", f"{stem}_view.png", "PNG (*.png)"
        )
        if not path:
            return
        try:
            out = self.export_view(path)
        except OSError as exc:
            _notify("error", f"Export view: cannot write {path} ({exc}); choose another folder.")
            return
        _notify("info", f"View saved to {out}")

    def _figure_request(self, path: Path) -> _FigureRequest | None:
        session = self._session
        if session.scan_layer is None and not session.methods:
            _notify("warning", "Make figure: nothing to draw; open a case first.")
            return None
        if path.suffix.lower() not in (".png", ".svg", ".pdf"):
            _notify(
                "warning",
                f"Make figure: {path} must end in .pdf, .png or .svg; choose another name.",
            )
            return None
        reference = session.scan_layer or session.methods[0].layer
        return _FigureRequest(
            path=path,
            name=case_stem(session.case or "case"),
            scan=None if session.scan_layer is None else session.scan_layer.data,
            gt=None if session.gt_layer is None else session.gt_layer.data,
            maps={m.name: m.data for m in session.methods},
            spacing=tuple(float(s) for s in reference.scale),
            index=session.slice_index,
            thresholds={m.name: m.threshold for m in session.methods},
            colors={m.name: m.color for m in session.methods},
            annotate=self._annotate.isChecked(),
            dpi=self._dpi.value(),
        )

    def _on_figure_maker_returned(self, path: Path) -> None:
        _notify("info", f"Figure saved to {path}")


@dataclass(frozen=True)
class _FigureRequest:
    """Everything the figure worker needs (arrays are the layers' data, not copies)."""

    path: Path
    name: str
    scan: Any
    gt: Any
    maps: Mapping[str, Any]
    spacing: tuple[float, ...]
    index: int | None
    thresholds: Mapping[str, float]
    colors: Mapping[str, str]
    annotate: bool
    dpi: int


def _write_figure(request: _FigureRequest) -> Path:
    """Draw and save the figure of one case (worker thread)."""
    from napari_mood.services.figures import FigureCase, FigureRow, make_figure, save_figure

    case = FigureCase(
        name=request.name,
        scan=None if request.scan is None else np.asarray(request.scan),
        gt=None if request.gt is None else np.asarray(request.gt) > 0,
        maps={name: np.asarray(data) for name, data in request.maps.items()},
        spacing=request.spacing,
    )
    figure = make_figure(
        [FigureRow(case, request.index)],
        thresholds=request.thresholds,
        colors=request.colors,
        annotate=request.annotate,
    )
    return save_figure(figure, request.path, dpi=request.dpi)


class _ExportLook:
    """Context: scale bar and the shown methods' colour bars on, then back as they were.

    The scale bar's unit is the layers' ``units`` (napari derives it from the layer list;
    changing units of shown layers does not redraw them in napari 0.9.2, so it is left).
    """

    def __init__(self, viewer: Any, layers: Sequence[Any]) -> None:
        self._bar = viewer.canvas.overlays.scale_bar
        self._layers = [layer for layer in layers if layer.visible and hasattr(layer, "colorbar")]
        self._saved: tuple[bool, list[bool]] = (False, [])

    def __enter__(self) -> _ExportLook:
        self._saved = (self._bar.visible, [layer.colorbar.visible for layer in self._layers])
        self._bar.visible = True
        for layer in self._layers:
            layer.colorbar.visible = True
        return self

    def __exit__(self, *_: object) -> None:
        visible, colorbars = self._saved
        self._bar.visible = visible
        for layer, shown in zip(self._layers, colorbars, strict=True):
            layer.colorbar.visible = shown


# --------------------------------------------------------------------------- helpers


def _layer_key(layer: Any) -> tuple[str, str | None]:
    info = layer_info(layer) or {}
    return info.get("role", ""), info.get("method")


def _layer_key_of(kwargs: Mapping[str, Any]) -> tuple[str, str | None]:
    info = kwargs["metadata"][METADATA_KEY]
    return info["role"], info.get("method")


def _line_edit(parent: QWidget, placeholder: str, tip: str) -> QLineEdit:
    edit = QLineEdit(parent)
    edit.setPlaceholderText(placeholder)
    edit.setToolTip(tip)
    return edit


def _button(parent: QWidget, text: str, tip: str) -> QPushButton:
    button = QPushButton(text, parent)
    button.setToolTip(tip)
    return button


def _notify(kind: str, message: str) -> None:
    from napari.utils.notifications import show_error, show_info, show_warning

    {"info": show_info, "warning": show_warning, "error": show_error}[kind](message)


def _disconnect(session: MoodSession, slot: Callable[[], None], *_: object) -> None:
    session.case_changed.disconnect(slot)
