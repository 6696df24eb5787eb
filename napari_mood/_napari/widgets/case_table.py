"""The dataset browser's table: cases x per-method metrics, sorting and filters (Qt models)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qtpy.QtCore import QAbstractTableModel, QModelIndex, QObject, QSortFilterProxyModel, Qt
from qtpy.QtGui import QColor, QIcon, QPixmap

from napari_mood.io.case import is_anomalous
from napari_mood.io.mood import case_stem
from napari_mood.services.evaluation import CaseRow, DatasetEvaluation
from napari_mood.services.looks import method_color

__all__ = [
    "CASE_KINDS",
    "METRIC_COLUMNS",
    "SORT_ROLE",
    "CaseSortProxy",
    "CaseTableModel",
    "MetricColumn",
]

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
CASE_KINDS = ("All cases", "Abnormal cases", "Normal cases")
SWATCH_SIZE = 10


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

# --------------------------------------------------------------------------- table model


def _is_abnormal(rows: Sequence[CaseRow]) -> bool:
    sample = next((r.sample_label for r in rows if r.sample_label is not None), None)
    voxels = next((r.gt_voxels for r in rows if r.gt_voxels is not None), None)
    return is_anomalous(sample, voxels)


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
            return _swatch(self._colors.get(method, method_color(0)))
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
        self._cases: frozenset[str] | None = None  # a category's cases (None: every case)
        self.setSortRole(SORT_ROLE)

    def set_kind(self, kind: str) -> None:
        """Show ``"All cases"``, ``"Abnormal cases"`` or ``"Normal cases"``."""
        if kind not in CASE_KINDS:
            raise ValueError(f"kind must be one of {CASE_KINDS}, got {kind!r}")
        self._change_filter(lambda: setattr(self, "_kind", kind))

    def set_cases(self, cases: frozenset[str] | None) -> None:
        """Show only ``cases`` (a category's), or every case (None)."""
        self._change_filter(lambda: setattr(self, "_cases", cases))

    def _change_filter(self, change: Callable[[], None]) -> None:
        begin = getattr(self, "beginFilterChange", None)  # Qt >= 6.10; invalidateFilter: older
        if begin is None:
            change()
            self.invalidateFilter()
            return
        begin()
        change()
        self.endFilterChange()

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:
        model: CaseTableModel = self.sourceModel()  # type: ignore[assignment]
        if self._cases is not None and model.case_at(row) not in self._cases:
            return False
        if self._kind == CASE_KINDS[0]:
            return True
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
