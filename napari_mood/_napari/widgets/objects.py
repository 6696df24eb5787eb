"""Dock widget: MOOD object matching of one method (or all) at its display threshold.

For each chosen method, :func:`napari_mood.core.objects.match_objects` runs in a
:class:`~napari_mood._napari.widgets.worker.LatestWorker` on the method's map and the ground
truth, at the method's session threshold, with the layer ``scale`` as voxel spacing. The
result is shown as

* three Labels layers per method, drawn as outlines: ``"<method> TP objects"`` (green,
  predicted objects that found a GT object), ``"<method> FP objects"`` (red) and
  ``"<method> FN objects"`` (orange, GT objects the method missed); each voxel holds its
  object's id, so hovering shows the id of the table row. Their metadata role is
  ``"objects"``, which the session ignores;
* a summary line per method: TP / FP / FN / F1 and the size window used;
* a sortable table of those objects (optionally also the discarded and matched-extra
  ones). Selecting a row (or Next / Previous, keys N / P anywhere in the window, see
  :mod:`.review_keys`; the review's N / P win while it is shown) moves
  the slider to the object's centroid, centres the camera on it and zooms so that its
  bounding box (at least 40 mm) fills 40 % of the canvas (:func:`focus_object`).

Without a ground truth every kept object is a false positive (the core's rule).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from qtpy.QtCore import Qt
from qtpy.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.helper_layers import add_helper_labels, helper_layers, helper_levels
from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.looks import OBJECT_COLORS
from napari_mood._napari.viewer import focus_object
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood._napari.widgets.objects_texts import (
    KIND_TEXT,
    matched_text,
    objects_layer,
    summary_html,
)
from napari_mood._napari.widgets.review_keys import KeyBinding, PanelKeys, weak_call
from napari_mood.services.display import DisplayTransform
from napari_mood.services.labelling import LabellingCache
from napari_mood.services.object_views import (
    KINDS,
    MethodObjects,
    ObjectRecord,
    listed_records,
    match_methods,
    object_place,
)
from napari_mood.services.snapshots import MapSnapshot

if TYPE_CHECKING:
    import napari

__all__ = ["ALL_METHODS", "KIND_COLORS", "ObjectsWidget", "object_bindings", "objects_layer_name"]

ALL_METHODS = "All methods"
KIND_COLORS: dict[str, str] = dict(OBJECT_COLORS)
SUMMARY_TIP = (
    "Object counts of the last match, per method: threshold used, true positives (GT "
    "objects found), false positives, false negatives (GT objects missed), F1, the size "
    "window in voxels that keeps predicted objects, and how many objects it discarded."
)
OBJECTS_ROLE = "objects"
CONTOUR = 1
TABLE_STYLE = "QHeaderView::section { padding: 2px 4px; }"
CELL_PADDING = 12
HEADER_PADDING = 26  # room for the sort arrow
MIN_WIDTH = 480  # the table's columns (file voxel and RAS too) fit without horizontal scrolling
AUTO_DELAY_MS = 250
COLUMNS = ("Method", "Kind", "Voxels", "mm³", "Voxel i, j, k", "Max", "Match", "RAS mm")
COLUMN_TIPS = (
    "Method whose prediction the object belongs to (or that missed it).",
    "TP: predicted object matching a GT object; FP: predicted object matching none; "
    "FN: GT object no predicted object matched; extra: matched a GT object already "
    "found; discarded: outside the size window (neither TP nor FP).",
    "Object size in voxels (the size window is in voxels).",
    "Object size in cubic millimetres (voxel spacing of the layer).",
    "Centre of mass as the voxel index i, j, k of the NIfTI file (rounded), as ITK-SNAP, "
    "3D Slicer and FSLeyes show it (without an affine: the displayed index).",
    "Highest score of the method inside the object.",
    "GT objects a predicted object matches, or what became of it.",
    "Centre of mass in scanner coordinates (RAS+, millimetres, rounded; from the file's "
    "affine), as ITK-SNAP, 3D Slicer and FSLeyes show it.",
)
METHOD_TIP = "Method whose objects are matched, at its display threshold; or all methods."
RUN_TIP = (
    "Match the method's objects to the ground-truth objects with the MOOD rule (centre of "
    "mass inside the GT object's hull, size ratio in (0.5, 2), size window from the GT)."
)
AUTO_TIP = "Match again when the threshold, the methods or the case change."
EXTRA_TIP = (
    "Also list discarded objects (outside the size window) and matched-extra objects "
    "(a second match of an already found GT object). They are not drawn."
)
PREVIOUS_TIP = (
    "Go to the previous object of the table (key P, anywhere in the window; while the "
    "review panel is shown, only with the focus in this panel)."
)
NEXT_TIP = (
    "Go to the next object of the table (key N, anywhere in the window; while the review "
    "panel is shown, only with the focus in this panel)."
)
# Accessible names: what a screen reader says for controls without a telling text of their own.
METHOD_NAME = "Method whose objects are matched"
SUMMARY_NAME = "Object matching summary"
TABLE_NAME = "Objects"
PREVIOUS_NAME = "Previous object"
NEXT_NAME = "Next object"
TABLE_TIP = "Click a row to go to the object; click a header to sort."
EMPTY_TEXT = "No score map loaded.\nOpen a MOOD dataset or case to match objects."
_ROW_ROLE = Qt.ItemDataRole.UserRole + 1


def objects_layer_name(method: str) -> str:
    """Name of a method's objects layer (TP, FP and FN), e.g. ``"residual objects"``."""
    return f"{method} objects"


def _match_shown(
    maps: list[MapSnapshot], gt: Any, case: str | None, *, cache: LabellingCache | None
) -> tuple[tuple[MethodObjects, ...], list[Any], str | None]:
    """Return the worker job: :func:`match_methods`, the display levels, the case matched."""
    results = match_methods(maps, gt, cache=cache)
    return results, [helper_levels(result.image) for result in results], case


def object_bindings(panel: ObjectsWidget) -> tuple[KeyBinding, ...]:
    """N / P: the next / previous object of the table (the review's N / P win while shown)."""
    return (
        KeyBinding("N", "next object", weak_call(panel, "step", 1)),
        KeyBinding("P", "previous object", weak_call(panel, "step", -1)),
    )


def _objects_metadata(case: str | None, method: str) -> dict[str, Any]:
    return {METADATA_KEY: {"role": OBJECTS_ROLE, "case": case, "method": method}}


def _objects_colormap(kinds: dict[int, str]) -> dict[Any, str]:
    colors: dict[Any, str] = {0: "transparent", None: "transparent"}
    colors.update({label: KIND_COLORS[kind] for label, kind in kinds.items()})
    return colors


def _row_cells(
    method: str, record: ObjectRecord, transform: DisplayTransform | None
) -> list[kit.SortItem]:
    place = object_place(record, transform)
    voxel = ", ".join(str(round(v)) for v in place.file_voxel)
    ras = "" if place.ras_mm is None else ", ".join(str(round(v)) for v in place.ras_mm)
    mm3 = "" if record.size_mm3 is None else f"{record.size_mm3:.0f}"
    texts_keys = (
        (method, method),
        (KIND_TEXT[record.kind], KINDS.index(record.kind)),
        (str(record.size_voxels), record.size_voxels),
        (mm3, record.size_mm3 or 0.0),
        (voxel, place.file_voxel),
        (f"{record.max_score:.2f}", record.max_score),
        (matched_text(record), matched_text(record)),
        (ras, place.ras_mm or ()),
    )
    cells = []
    for (text, key), tip in zip(texts_keys, COLUMN_TIPS, strict=True):
        item = kit.SortItem(text, key)
        item.setToolTip(tip)
        cells.append(item)
    return cells


# --------------------------------------------------------------------------- widget


class ObjectsWidget(MoodPanel):
    """MOOD object matching of a method (or all methods) at the session thresholds.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is used.
    """

    UPDATE_DELAY_MS = AUTO_DELAY_MS

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._results: tuple[MethodObjects, ...] = ()
        self._results_case: str | None = None  # the case the results (and the rows) are of
        self._rows: list[tuple[str, ObjectRecord]] = []
        self._worker = self._lifetime.worker(self._on_worker_result, on_busy=self._on_worker_busy)
        self._build()
        self._connect()
        self._refresh_methods()
        self._stale = True  # first match once the panel is shown

    # -- building -------------------------------------------------------------------

    def _build(self) -> None:
        self.setMinimumWidth(MIN_WIDTH)
        self._method = QComboBox(self)
        self._method.setToolTip(METHOD_TIP)
        self._method.setAccessibleName(METHOD_NAME)
        self._run = QPushButton("Match objects", self)
        self._run.setToolTip(RUN_TIP)
        self._auto = QCheckBox("Update automatically", self)
        self._auto.setChecked(True)
        self._auto.setToolTip(AUTO_TIP)
        self._extra = QCheckBox("List discarded", self)
        self._extra.setToolTip(EXTRA_TIP)
        self._summary = QLabel(self)
        self._summary.setWordWrap(True)
        self._summary.setTextFormat(Qt.TextFormat.RichText)
        self._summary.setToolTip(SUMMARY_TIP)
        self._summary.setAccessibleName(SUMMARY_NAME)
        self._summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._empty = QLabel(EMPTY_TEXT, self)
        self._empty.setWordWrap(True)
        self._table = self._build_table()
        self._previous = QPushButton("◀ Previous (P)", self)
        self._previous.setToolTip(PREVIOUS_TIP)
        self._previous.setAccessibleName(PREVIOUS_NAME)
        self._next = QPushButton("Next (N) ▶", self)
        self._next.setToolTip(NEXT_TIP)
        self._next.setAccessibleName(NEXT_NAME)
        self._layout_widgets()
        self._keys = PanelKeys(self, object_bindings(self))
        self._lifetime.at_end(self._keys.close)

    def _build_table(self) -> QTableWidget:
        table = QTableWidget(0, len(COLUMNS), self)
        table.setHorizontalHeaderLabels(COLUMNS)
        for column, tip in enumerate(COLUMN_TIPS):
            kit.present(table.horizontalHeaderItem(column), "header").setToolTip(tip)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        horizontal, vertical = kit.headers(table)
        vertical.setVisible(False)
        horizontal.setStretchLastSection(True)
        table.setSortingEnabled(True)
        table.sortItems(1, Qt.SortOrder.AscendingOrder)  # by kind: TP, FP, FN, ...
        table.setToolTip(TABLE_TIP)
        table.setAccessibleName(TABLE_NAME)
        table.setMinimumHeight(160)
        vertical.setDefaultSectionSize(table.fontMetrics().height() + 6)
        horizontal.setMinimumSectionSize(24)
        table.setStyleSheet(TABLE_STYLE)
        return table

    def _layout_widgets(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self._method, 1)
        top.addWidget(self._run)
        options = QHBoxLayout()
        options.addWidget(self._auto)
        options.addWidget(self._extra)
        options.addStretch(1)
        steps = QHBoxLayout()
        steps.addWidget(self._previous)
        steps.addWidget(self._next)
        layout = QVBoxLayout(self)
        for part in (top, options):
            layout.addLayout(part)
        for widget in (self._summary, self._empty, self._table):
            layout.addWidget(widget)
        layout.addLayout(steps)

    def _connect(self) -> None:
        self._run.clicked.connect(self._on_run_clicked)
        self._method.currentTextChanged.connect(self._on_method_changed)
        self._extra.toggled.connect(self._on_extra_toggled)
        self._table.itemSelectionChanged.connect(self._on_table_selection_changed)
        self._previous.clicked.connect(partial(self.step, -1))
        self._next.clicked.connect(partial(self.step, 1))
        self.watch_session(
            methods=self._on_session_methods_changed,
            threshold=self._on_session_threshold_changed,
            case=self._on_session_case_changed,
        )

    # -- public ---------------------------------------------------------------------

    @property
    def results(self) -> tuple[MethodObjects, ...]:
        """The last match shown, one entry per method."""
        return self._results

    @property
    def busy(self) -> bool:
        """Whether a match is running."""
        return self._worker.busy

    def selected_methods(self) -> tuple[str, ...]:
        """Methods the next match runs on."""
        choice = self._method.currentText()
        if choice == ALL_METHODS:
            return self._session.method_names
        return (choice,) if choice in self._session.method_names else ()

    def run(self) -> None:
        """Match the selected methods' objects in a worker (results applied when done)."""
        maps = [self._snapshot(name) for name in self.selected_methods()]
        if maps:
            self._worker.submit(
                _match_shown,
                maps,
                self._session.gt_data,
                self._session.case,
                cache=self._session.labelling,
            )

    def table_records(self) -> list[tuple[str, ObjectRecord]]:
        """Return ``(method, record)`` of each table row, in the table's current (sorted) order."""
        return [
            self._rows[kit.cell(self._table, r, 0).data(_ROW_ROLE)]
            for r in range(self._table.rowCount())
        ]

    def step(self, delta: int) -> None:
        """Select the row ``delta`` rows below the current one (stops at the ends)."""
        count = self._table.rowCount()
        if count == 0:
            return
        current = self._table.currentRow()
        row = 0 if current < 0 else min(max(current + delta, 0), count - 1)
        self._table.selectRow(row)

    def _snapshot(self, name: str) -> MapSnapshot:
        return self._session.method(name).snapshot()

    # -- session -> widget ----------------------------------------------------------

    def _on_session_methods_changed(self) -> None:
        self._refresh_methods()
        self._schedule()

    def _on_method_changed(self, text: str) -> None:
        self._schedule()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        if name in {r.method for r in self._results}:
            self._schedule()

    def _on_session_case_changed(self) -> None:
        for layer in helper_layers(self._viewer, OBJECTS_ROLE):
            if layer.metadata[METADATA_KEY].get("case") != self._session.case:
                self._viewer.layers.remove(layer)  # another case's outlines: never shown here
        if self._results_case != self._session.case:
            self._clear_results()  # another case's rows: never listed under this one
        self._schedule()

    def _clear_results(self) -> None:
        self._worker.cancel()
        self._results, self._results_case = (), None
        self._summary.clear()
        self._fill_table()

    def _schedule(self) -> None:
        """Match again soon (when on "Update automatically"); out of sight, when shown."""
        if self._auto.isChecked():
            self.request_update()

    def hideEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """N / P off while the panel is hidden."""
        self._keys.show(False)
        super().hideEvent(event)

    def on_shown(self, visible: bool) -> None:
        """N / P work while the panel's tab is in front."""
        self._keys.show(visible)

    def update_now(self) -> None:
        """Match the selected methods (see :meth:`run`)."""
        self.run()

    def _refresh_methods(self) -> None:
        names = self._session.method_names
        current = self._method.currentText()
        self._method.blockSignals(True)
        self._method.clear()
        self._method.addItems([*names, ALL_METHODS] if len(names) > 1 else list(names))
        if current in [*names, ALL_METHODS]:
            self._method.setCurrentText(current)
        self._method.blockSignals(False)
        for control in (self._method, self._run):
            control.setEnabled(bool(names))
        self._empty.setText(kit.empty_text(self._session, EMPTY_TEXT))
        self._empty.setVisible(not names)

    # -- widget -> viewer -----------------------------------------------------------

    def _on_run_clicked(self) -> None:
        self.run()

    def _on_worker_busy(self, busy: bool) -> None:
        self._run.setText("Matching…" if busy else "Match objects")

    def _on_worker_result(
        self, outcome: tuple[tuple[MethodObjects, ...], list[Any], str | None]
    ) -> None:
        matched, levels, case = outcome
        if case != self._session.case:
            return  # matched before the case changed (its change asked for a new match)
        shown = [
            (r, lv)
            for r, lv in zip(matched, levels, strict=True)
            if r.method in self._session.method_names
        ]
        results = tuple(r for r, _ in shown)
        self._results, self._results_case = results, case
        self._show_layers(shown)
        self._summary.setText(summary_html(results))
        self._fill_table()

    def _on_extra_toggled(self, checked: bool) -> None:
        self._fill_table()

    def _show_layers(self, shown: list[tuple[MethodObjects, Any]]) -> None:
        methods = {r.method for r, _ in shown}
        for layer in helper_layers(self._viewer, OBJECTS_ROLE):
            if layer.metadata[METADATA_KEY]["method"] not in methods:
                self._viewer.layers.remove(layer)
        for result, levels in shown:
            self._show_method(result, levels)

    def _show_method(self, result: MethodObjects, levels: Any) -> None:
        drawn = objects_layer(result)
        layer = self._objects_layer(result.method)
        if layer is not None:
            # new ids, colours and features: a new layer. Setting a new direct colormap and
            # data on the shown layer would save ~0.4 s (no new visuals in the planes), but
            # vispy then draws with a freed texture ("Could not find texture with id").
            self._viewer.layers.remove(layer)
        layer = add_helper_labels(
            self._viewer,
            drawn.image,
            name=objects_layer_name(result.method),
            reference=self._session.method(result.method).layer,
            colormap=_objects_colormap(drawn.kinds),
            metadata=_objects_metadata(self._session.case, result.method),
            contour=CONTOUR,
            levels=levels,
        )
        layer.features = drawn.features

    def _objects_layer(self, method: str) -> Any:
        for layer in helper_layers(self._viewer, OBJECTS_ROLE):
            if layer.metadata[METADATA_KEY]["method"] == method:
                return layer
        return None

    # -- table ----------------------------------------------------------------------

    def _fill_table(self) -> None:
        extra = self._extra.isChecked()
        self._rows = [
            (r.method, record)
            for r in self._results
            for record in listed_records(r.match, extra=extra)
        ]
        table = self._table
        table.setSortingEnabled(False)
        table.clearContents()
        table.setRowCount(len(self._rows))
        transform = self._session.transform  # display index -> file voxel, RAS mm
        for row, (method, record) in enumerate(self._rows):
            for column, item in enumerate(_row_cells(method, record, transform)):
                item.setData(_ROW_ROLE, row)
                table.setItem(row, column, item)
        table.setColumnHidden(0, len(self._results) < 2)
        table.setSortingEnabled(True)
        _fit_columns(table)

    def _on_table_selection_changed(self) -> None:
        rows = kit.present(self._table.selectionModel(), "selection").selectedRows()
        if not rows:
            return
        method, record = self._rows[kit.cell(self._table, rows[0].row(), 0).data(_ROW_ROLE)]
        if method in self._session.method_names:
            reference = self._session.method(method).layer
            focus_object(self._viewer, reference, record.centroid_voxel, record.bbox)


def _fit_columns(table: QTableWidget) -> None:
    """Size columns to their text (Qt's own fit reserves a sort arrow in every column)."""
    metrics = table.fontMetrics()
    for column in range(table.columnCount()):
        header = metrics.horizontalAdvance(
            kit.present(table.horizontalHeaderItem(column), "header").text()
        )
        cells = [kit.cell(table, row, column).text() for row in range(table.rowCount())]
        content = max((metrics.horizontalAdvance(text) for text in cells), default=0)
        table.setColumnWidth(column, max(content + CELL_PADDING, header + HEADER_PADDING))
