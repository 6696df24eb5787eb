"""Dock widget "Reader study": several readers' review journals compared.

The numbers are :func:`napari_mood.services.reader_study.reader_study`, computed in a
worker (:class:`~napari_mood._napari.widgets.worker.LatestWorker`) shortly after the list
of journals changes, or on "Report" (journals that grew meanwhile are read again). Four
tabs show the tables of ``napari-mood review-report``: verdicts and precision per reader
and method, agreement (Cohen's kappa per pair, Fleiss' kappa), time per region, and the
disagreements; "Export..." writes the same files into a folder, through the output guard.
"Adjudicate disagreements" opens the disagreements in the review panel as its queue
(:meth:`ReviewWidget.adjudicate <napari_mood._napari.widgets.review.ReviewWidget.adjudicate>`):
the adjudicator judges them with the usual keys, each verdict a review-file row marked
``adjudication`` and signed with the name given here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from qtpy.QtCore import Qt
from qtpy.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.docking import PLUGIN_NAME
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood.io.errors import MoodInputError
from napari_mood.services.adjudication import AdjudicationList, adjudication_list
from napari_mood.services.output import OutputRefused
from napari_mood.services.reader_study import ReaderStudy, reader_study
from napari_mood.services.reader_study_report import (
    REPORT_FILES,
    check_study_outputs,
    study_tables,
    write_study,
)
from napari_mood.services.review_location import default_review_dir, default_review_path

if TYPE_CHECKING:
    import napari

__all__ = ["ReaderStudyWidget"]

REPORT_DELAY_MS = 250
TABS = ("Verdicts", "Agreement", "Time", "Disagreements")
ADD_TIP = "Add review files (the CSV journals of the review panel), one or more per reader."
REMOVE_TIP = "Remove the selected journals from the study."
REPORT_TIP = "Read the journals again and compute the study."
EXPORT_TIP = (
    "Write the tables (readers, agreement, times, disagreements as CSV; everything as JSON) "
    "into a folder, as napari-mood review-report does."
)
LIST_TIP = (
    "Journals of the study. A reader is the journal's reviewer name (else the file name); "
    "a reader's rows in several journals are one reader."
)
EMPTY = "Add the review files of two readers or more to compare them."
REVIEW_PANEL = "Review flagged regions"
ADJUDICATOR = "adjudicator"
ADJUDICATE_TIP = (
    "Open the disagreements in the review panel as its queue (the method of the selected "
    "disagreement, else the first): judge them with the usual keys (T / F / U, N / P). "
    "Each verdict is a review-file row marked 'adjudication', signed with the name beside."
)
ADJUDICATOR_TIP = "The adjudicator's name, written with each adjudicated verdict."
TAB_TIPS = {
    "Verdicts": "Per reader and method: precision = true / (true + false), unsure left out; "
    "95% Wilson interval; blind = verdicts given in blind review.",
    "Agreement": "Cohen's kappa per pair over the regions both judged; Fleiss' kappa over "
    "the regions every reader judged (n/a: undefined, e.g. one verdict for everything).",
    "Time": "Seconds between a reader's consecutive verdicts; pauses over 10 min are breaks.",
    "Disagreements": "Regions whose readers gave different verdicts: the list to adjudicate "
    "(disagreements.csv of the export).",
}
_TITLES = {
    "true_finding": "true",
    "false_alarm": "false",
    "precision_low": "low",
    "precision_high": "high",
    "median_s": "median s",
    "mean_s": "mean s",
    "total_s": "total s",
}


def _text(value: object) -> str:
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.3f}"
    return str(value)


class ReaderStudyWidget(MoodPanel):
    """Compare readers: verdicts, precision, agreement, time and disagreements.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer; its session's default review file is listed when it exists.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._study: ReaderStudy | None = None
        self._worker = self._lifetime.worker(
            self._on_worker_result, on_error=self._on_worker_error, on_busy=self._on_worker_busy
        )
        self._timer = kit.single_shot(self, REPORT_DELAY_MS, self._on_timer_timeout)
        self._build_ui()
        own = default_review_path(self._session.dataset)
        if own.is_file():
            self.add_journals([own])
        self._show_empty()

    # -- layout ---------------------------------------------------------------------

    def _build_ui(self) -> None:
        self._list = QListWidget(self)
        self._list.setToolTip(LIST_TIP)
        self._list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self._list.setMaximumHeight(90)
        self._add = kit.button(self, "Add journals...", ADD_TIP)
        self._remove = kit.button(self, "Remove", REMOVE_TIP)
        self._report = kit.button(self, "Report", REPORT_TIP)
        self._export = kit.button(self, "Export...", EXPORT_TIP)
        self._adjudicator = kit.line_edit(self, "Adjudicator's name", ADJUDICATOR_TIP)
        self._adjudicator.setText(ADJUDICATOR)
        self._adjudicator.setAccessibleName("Adjudicator's name")
        self._adjudicate = kit.button(self, "Adjudicate disagreements", ADJUDICATE_TIP)
        self._adjudicate.setEnabled(False)
        self._status = QLabel(self)
        self._status.setWordWrap(True)
        self._busy = QProgressBar(self)
        self._busy.setRange(0, 0)
        self._busy.setMaximumHeight(8)
        self._busy.setTextVisible(False)
        self._busy.hide()
        self._tabs = QTabWidget(self)
        self._tables = {name: self._build_table(name) for name in TABS}
        layout = QVBoxLayout(self)
        layout.addWidget(self._list)
        layout.addLayout(kit.row(self._add, self._remove, self._report, stretch=True))
        layout.addWidget(self._status)
        layout.addWidget(self._busy)
        layout.addWidget(self._tabs, 1)
        layout.addLayout(kit.row(self._export, stretch=True))
        layout.addLayout(kit.row(self._adjudicator, self._adjudicate))
        self._add.clicked.connect(self._on_add_clicked)
        self._remove.clicked.connect(self._on_remove_clicked)
        self._report.clicked.connect(self._on_report_clicked)
        self._export.clicked.connect(self._on_export_clicked)
        self._adjudicate.clicked.connect(self._on_adjudicate_clicked)

    def _build_table(self, name: str) -> QTableWidget:
        grid = QTableWidget(self)
        grid.setToolTip(TAB_TIPS[name])
        grid.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        grid.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        horizontal, vertical = kit.headers(grid)
        vertical.setVisible(False)
        horizontal.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self._tabs.addTab(grid, name)
        return grid

    # -- public API -----------------------------------------------------------------

    @property
    def journals(self) -> tuple[Path, ...]:
        """The journals of the study, in the listed order."""
        items = (kit.present(self._list.item(i), "list item") for i in range(self._list.count()))
        return tuple(Path(item.data(Qt.ItemDataRole.UserRole)) for item in items)

    @property
    def study(self) -> ReaderStudy | None:
        """The study shown, or None."""
        return self._study

    @property
    def busy(self) -> bool:
        """Whether a study is being computed (or about to be)."""
        return self._worker.busy or self._timer.isActive()

    @property
    def tables(self) -> dict[str, QTableWidget]:
        """The Qt tables by tab name (:data:`TABS`)."""
        return dict(self._tables)

    def add_journals(self, paths: Iterable[str | Path]) -> None:
        """Add journals (each once) and compute the study shortly after."""
        known = set(self.journals)
        for path in (Path(p).expanduser().absolute() for p in paths):
            if path not in known:
                item = QListWidgetItem(f"{path.name}  ({path.parent})")
                item.setData(Qt.ItemDataRole.UserRole, str(path))
                item.setToolTip(str(path))
                self._list.addItem(item)
                known.add(path)
        self._timer.start()

    def remove_journals(self, paths: Iterable[str | Path]) -> None:
        """Remove journals from the study."""
        gone = {Path(p).expanduser().absolute() for p in paths}
        for row, path in reversed(list(enumerate(self.journals))):
            if path in gone:
                self._list.takeItem(row)
        self._timer.start()

    def refresh(self) -> None:
        """Read the journals and compute the study now (in a worker)."""
        self._timer.stop()
        journals = self.journals
        if not journals:
            self._worker.cancel()
            self._study = None
            self._show_empty()
            return
        self._status.setText(f"Reading {len(journals)} journal(s)...")
        self._worker.submit(reader_study, journals)

    def export(self, folder: str | Path, *, force: bool = False) -> list[Path]:
        """Write the study's files into ``folder`` (:data:`REPORT_FILES`).

        Refused (``OutputRefused``) onto a journal or the data shown, as the journals'
        folder, or over existing files without ``force``.
        """
        if self._study is None:
            raise MoodInputError(None, "no study to export", "add review journals first")
        target = Path(folder)
        check_study_outputs(
            target,
            self.journals,
            inputs=self._session.inputs(),
            force=force,
            what="the study folder",
        )
        return write_study(self._study, target, force=force)

    def disputes(self) -> AdjudicationList | None:
        """Return the study's disagreements as a list to adjudicate (None: no study or none)."""
        study = self._study
        if study is None or not study.disagreements:
            return None
        found = [(d.record, d.verdicts, d.blind) for d in study.disagreements]
        return adjudication_list(found, study.readers)

    def adjudicate(self) -> bool:
        """Open the disagreements in the review panel as its queue; False if it cannot."""
        disputes = self.disputes()
        if disputes is None:
            return False
        dock, panel = self._session.viewer.window.add_plugin_dock_widget(PLUGIN_NAME, REVIEW_PANEL)
        dock.show()
        dock.raise_()
        reader = self._adjudicator.text().strip() or ADJUDICATOR
        return bool(panel.adjudicate(disputes, reader=reader, method=self._selected_method()))

    def _selected_method(self) -> str | None:
        grid = self._tables["Disagreements"]
        rows = kit.present(grid.selectionModel(), "selection").selectedRows()
        return kit.cell(grid, rows[0].row(), 1).text() if rows else None

    # -- handlers -------------------------------------------------------------------

    def _on_adjudicate_clicked(self) -> None:
        self.adjudicate()

    def _on_add_clicked(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Add review journals", str(default_review_dir()), "Review files (*.csv)"
        )
        if paths:
            self.add_journals(paths)

    def _on_remove_clicked(self) -> None:
        selected = [self._list.row(item) for item in self._list.selectedItems()]
        self.remove_journals(self.journals[row] for row in selected)

    def _on_report_clicked(self) -> None:
        self.refresh()

    def _on_timer_timeout(self) -> None:
        self.refresh()

    def _on_export_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export the reader study", str(Path.home()))
        if folder:
            self._export_asking(Path(folder))

    def _on_worker_result(self, study: ReaderStudy) -> None:
        self._study = study
        self._fill(study)
        text = (
            f"{len(study.readers)} reader(s), {study.regions} region(s), "
            f"{len(study.disagreements)} disagreement(s)."
        )
        self._status.setText(text + "".join(f"\n{w}" for w in study.warnings))
        self._export.setEnabled(True)
        self._adjudicate.setEnabled(bool(study.disagreements))

    def _on_worker_error(self, error: BaseException) -> None:
        self._study = None
        self._fill(None)
        self._export.setEnabled(False)
        self._adjudicate.setEnabled(False)
        self._status.setText(f"Could not compute the study: {error}")
        kit.notify("error", f"napari-mood reader study: {error}")

    def _on_worker_busy(self, busy: bool) -> None:
        self._busy.setVisible(busy)

    # -- helpers --------------------------------------------------------------------

    def _export_asking(self, folder: Path) -> None:
        existing = [name for name in REPORT_FILES if (folder / name).exists()]
        force = False
        if existing:
            answer = QMessageBox.question(
                self, "Replace files?", f"{folder} already holds {', '.join(existing)}. Replace?"
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
            force = True
        try:
            written = self.export(folder, force=force)
        except (MoodInputError, OutputRefused) as error:
            kit.notify("error", f"napari-mood: could not export the study: {error}")
            return
        kit.notify("info", f"napari-mood: {len(written)} files written to {folder}")

    def _show_empty(self) -> None:
        if self._list.count() == 0:
            self._status.setText(EMPTY)
            self._fill(None)
        self._export.setEnabled(self._study is not None)
        self._adjudicate.setEnabled(self.disputes() is not None)

    def _fill(self, study: ReaderStudy | None) -> None:
        tables = study_tables(study) if study is not None else {}
        self._fill_table(self._tables["Verdicts"], *tables.get("readers", ((), [])))
        self._fill_table(self._tables["Agreement"], *tables.get("agreement", ((), [])))
        self._fill_table(self._tables["Time"], *tables.get("times", ((), [])))
        columns, rows = ((), []) if study is None else _disagreement_rows(study)
        self._fill_table(self._tables["Disagreements"], columns, rows)

    def _fill_table(
        self, grid: QTableWidget, columns: Sequence[str], rows: Sequence[Sequence[object]]
    ) -> None:
        grid.setSortingEnabled(False)
        grid.clear()
        grid.setColumnCount(len(columns))
        grid.setRowCount(len(rows))
        grid.setHorizontalHeaderLabels([_TITLES.get(c, c) for c in columns])
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                grid.setItem(r, c, _item(value))
        grid.setSortingEnabled(True)


def _item(value: object) -> QTableWidgetItem:
    """Return a read-only cell: numbers sort as numbers (undefined last) and align right."""
    if isinstance(value, str):
        item = QTableWidgetItem(value)
        item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        return item
    item = kit.SortItem(_text(value), kit.sort_key(value))
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def _disagreement_rows(study: ReaderStudy) -> tuple[tuple[str, ...], list[tuple[object, ...]]]:
    columns = ("case", "method", "threshold", "region", *study.readers)
    rows = []
    for item in study.disagreements:
        said = dict(item.verdicts)
        r = item.record
        rows.append(
            (r.case, r.method, r.threshold, r.object_id, *(said.get(n, "-") for n in study.readers))
        )
    return columns, rows
