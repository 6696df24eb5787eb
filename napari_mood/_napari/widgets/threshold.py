"""Dock widget: display thresholds per method, what they flag, and the best threshold.

The widget only wires Qt controls to :class:`napari_mood._napari.session.MoodSession` and
to the jobs of :mod:`napari_mood.services.readouts` (run in a worker):

* moving a slider calls ``session.set_threshold`` (the layer's contrast limits change, no
  data copy) and the rows follow the session's signals, so a threshold changed elsewhere
  (napari's layer controls, another widget) shows up here too;
* under each method a readout gives the voxels flagged at its threshold (count, % of the
  volume, mm^3) and, with a ground truth, the voxel Dice and the MOOD object counts. It is
  computed by two :class:`~napari_mood._napari.widgets.worker.LatestWorker` jobs a moment
  after the last change, so dragging a slider stays smooth and stale results are dropped:
  first the voxel numbers (from each map's histograms, kept by the session: instant after
  the first time), then the objects (one labelling per map and threshold, shared with the
  other panels through ``session.labelling``);
* "Find best" computes, per method, the threshold with the best Dice or object F1 on the
  case shown or on a toy dataset folder (MOOD's procedure,
  :func:`napari_mood.services.evaluation.toy_thresholds`) and applies it.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from qtpy.QtCore import QSignalBlocker, Qt
from qtpy.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.session import MoodSession, SessionMethod
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood._napari.widgets.threshold_texts import best_text, readout_text
from napari_mood.services.evaluation import ThresholdChoice, toy_thresholds
from napari_mood.services.options import display_threshold
from napari_mood.services.readouts import (
    BestCriterion,
    Readout,
    best_on_case,
    compute_readouts,
    compute_voxel_readouts,
)

if TYPE_CHECKING:
    import napari

__all__ = ["SLIDER_STEPS", "ThresholdWidget"]

SLIDER_STEPS = 1000
SLIDER_MIN_WIDTH = 110
BOX_MIN_WIDTH = 70
READOUT_DELAY_MS = 120
"""Readouts start this long after the last threshold change (a drag sends many)."""
CRITERIA: dict[str, BestCriterion] = {"Dice": "dice", "object F1": "object_f1"}
SOURCES = ("this case", "toy dataset")
THRESHOLD_TIP = (
    "Display threshold of {name}: voxels scoring above it are coloured, the others are "
    "transparent. Display only: the scores are not changed."
)
READOUT_TIP = (
    "What {name} flags at its threshold (score >= threshold, scores read as float16 like "
    "the MOOD scorer): voxels, share of the volume, volume in mm\u00b3; with a ground truth "
    "also the voxel Dice and the MOOD object counts (TP / FP / FN) on this case."
)
LINK_TIP = "Move the thresholds of all methods together (they take the first method's value)."
CRITERION_TIP = (
    "What the best threshold maximises: the voxel Dice (pooled over cases for a toy "
    "dataset), or the MOOD object F1 over the grid 0.01 .. 0.99."
)
SOURCE_TIP = (
    "Choose the threshold on the case shown (needs its ground truth; optimistic) or, as "
    "MOOD does, on a separate toy dataset with the same methods under DATASET/methods/."
)
FOLDER_TIP = (
    "Toy dataset folder: toy/ and toy_label/ with one folder per method under methods/, "
    "named like the methods shown."
)
BROWSE_TIP = "Pick the toy dataset folder."
FIND_TIP = "Compute each method's best threshold and apply it (the display changes only)."
RESULT_TIP = "The thresholds found, the value reached there, and any method left out."
# Accessible names: what a screen reader says for a control without a visible text of its own.
THRESHOLD_NAME = "Threshold of {name}"
SLIDER_NAME = "Threshold slider of {name}"
SWATCH_NAME = "Colour of {name}"
READOUT_NAME = "What {name} flags"
CRITERION_NAME = "Best threshold criterion"
SOURCE_NAME = "Best threshold source"
FOLDER_NAME = "Toy dataset folder"
BROWSE_NAME = "Browse for the toy dataset folder"
RESULT_NAME = "Best threshold result"
STATUS_NAME = "Readout status"
EMPTY_TEXT = (
    "No score map loaded.\nOpen a MOOD dataset (File > Open Folder...) or drop method maps."
)


def _gt_data(session: MoodSession) -> Any:
    gt = session.gt_data
    return None if gt is None else np.asarray(gt)


# --------------------------------------------------------------------------- widgets


class _ThresholdRow:
    """The controls of one method: colour swatch, name, slider, number box and readout."""

    def __init__(self, method: SessionMethod, parent: QWidget) -> None:
        tip = THRESHOLD_TIP.format(name=method.name)
        self.name = method.name
        self.swatch = QLabel(parent)
        self.swatch.setFixedSize(12, 12)
        self.swatch.setStyleSheet(f"background-color: {method.color}; border-radius: 2px;")
        self.swatch.setToolTip(f"Colour of {method.name} in the viewer and in every plot.")
        self.swatch.setAccessibleName(SWATCH_NAME.format(name=method.name))
        self.label = QLabel(method.name, parent)
        self.label.setToolTip(tip)
        self.slider = QSlider(Qt.Orientation.Horizontal, parent)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setMinimumWidth(SLIDER_MIN_WIDTH)
        self.slider.setToolTip(tip)
        self.slider.setAccessibleName(SLIDER_NAME.format(name=method.name))
        self.box = QDoubleSpinBox(parent)
        self.box.setRange(0.0, 1.0)
        self.box.setDecimals(3)
        self.box.setMinimumWidth(BOX_MIN_WIDTH)
        self.box.setSingleStep(0.01)
        self.box.setKeyboardTracking(False)  # typed "0.35" applies at Enter, not "0" at once
        self.box.setToolTip(tip)
        self.box.setAccessibleName(THRESHOLD_NAME.format(name=method.name))
        self.readout = QLabel("\u2026", parent)
        self.readout.setToolTip(READOUT_TIP.format(name=method.name))
        self.readout.setAccessibleName(READOUT_NAME.format(name=method.name))
        self.readout.setWordWrap(True)
        self.readout.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.show_value(method.threshold)

    @property
    def widgets(self) -> tuple[QWidget, ...]:
        return self.swatch, self.label, self.slider, self.box

    def show_value(self, value: float) -> None:
        """Show ``value`` without emitting the controls' signals."""
        with QSignalBlocker(self.slider), QSignalBlocker(self.box):
            self.slider.setValue(round(value * SLIDER_STEPS))
            self.box.setValue(value)


class _BestThresholdBox(QGroupBox):
    """Controls of the best-threshold search (criterion, source, folder, button, result)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__("Best threshold", parent)
        self.criterion = QComboBox(self)
        self.criterion.addItems(list(CRITERIA))
        self.criterion.setToolTip(CRITERION_TIP)
        self.criterion.setAccessibleName(CRITERION_NAME)
        self.source = QComboBox(self)
        self.source.addItems(list(SOURCES))
        self.source.setToolTip(SOURCE_TIP)
        self.source.setAccessibleName(SOURCE_NAME)
        self.folder = QLineEdit(self)
        self.folder.setPlaceholderText("toy dataset folder")
        self.folder.setToolTip(FOLDER_TIP)
        self.folder.setAccessibleName(FOLDER_NAME)
        self.browse = QToolButton(self)
        self.browse.setText("\u2026")
        self.browse.setToolTip(BROWSE_TIP)
        self.browse.setAccessibleName(BROWSE_NAME)
        self.find_button = QPushButton("Find best and apply", self)
        self.find_button.setToolTip(FIND_TIP)
        self.result = QLabel("", self)
        self.result.setWordWrap(True)
        self.result.setToolTip(RESULT_TIP)
        self.result.setAccessibleName(RESULT_NAME)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        self._lay_out()
        self.source.currentIndexChanged.connect(self._on_source_index_changed)
        self._on_source_index_changed(self.source.currentIndex())

    def _lay_out(self) -> None:
        choose = QHBoxLayout()
        choose.addWidget(kit.tipped(QLabel("Maximise", self), CRITERION_TIP))
        choose.addWidget(self.criterion, 1)
        choose.addWidget(kit.tipped(QLabel("on", self), SOURCE_TIP))
        choose.addWidget(self.source, 1)
        folder = QHBoxLayout()
        folder.addWidget(self.folder, 1)
        folder.addWidget(self.browse)
        layout = QVBoxLayout(self)
        layout.addLayout(choose)
        layout.addLayout(folder)
        layout.addWidget(self.find_button)
        layout.addWidget(self.result)

    @property
    def by(self) -> BestCriterion:
        """The criterion chosen."""
        return CRITERIA[self.criterion.currentText()]

    @property
    def on_toy_dataset(self) -> bool:
        """Whether the search runs on a toy dataset folder."""
        return self.source.currentText() == SOURCES[1]

    def show_result(self, text: str) -> None:
        """Show ``text`` under the button (hidden when empty)."""
        self.result.setText(text)
        self.result.setVisible(bool(text))

    def _on_source_index_changed(self, _: int) -> None:
        self.folder.setEnabled(self.on_toy_dataset)
        self.browse.setEnabled(self.on_toy_dataset)


class ThresholdWidget(MoodPanel):
    """Display threshold of every method shown, its readout, and the best threshold.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is shown.
    """

    UPDATE_DELAY_MS = READOUT_DELAY_MS  # one computation after the last change

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._rows: dict[str, _ThresholdRow] = {}
        self._readouts: dict[str, Readout] = {}
        self._link = QCheckBox("Link all methods", self)
        self._link.setToolTip(LINK_TIP)
        self._empty = QLabel(EMPTY_TEXT, self)
        self._empty.setWordWrap(True)
        self._status = QLabel("", self)
        self._status.setToolTip("Shown while the readouts are being computed.")
        self._status.setAccessibleName(STATUS_NAME)
        self._best = _BestThresholdBox(self)
        self._grid = QGridLayout()
        self._grid.setColumnStretch(2, 1)
        self._voxel_worker = self._lifetime.worker(
            self._on_voxel_readouts_returned, on_busy=self._on_busy
        )
        self._readout_worker = self._lifetime.worker(
            self._on_readouts_returned, on_busy=self._on_busy
        )
        self._best_worker = self._lifetime.worker(
            self._on_best_returned, on_error=self._on_best_errored, on_busy=self._on_best_busy
        )
        self._lay_out()
        self._connect()
        self._rebuild_rows()

    def _lay_out(self) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(self._link)
        layout.addLayout(self._grid)
        layout.addWidget(self._empty)
        layout.addWidget(self._status)
        layout.addWidget(self._best)
        layout.addStretch(1)

    def _connect(self) -> None:
        self._link.toggled.connect(self._on_link_toggled)
        self._best.find_button.clicked.connect(self._on_find_clicked)
        self._best.browse.clicked.connect(self._on_browse_clicked)
        self.watch_session(
            methods=self._on_session_methods_changed,
            threshold=self._on_session_threshold_changed,
            case=self._on_session_case_changed,
        )

    @property
    def linked(self) -> bool:
        """Whether all thresholds move together."""
        return self._link.isChecked()

    @property
    def readouts(self) -> dict[str, Readout]:
        """The latest readout of each method (empty until computed)."""
        return dict(self._readouts)

    @property
    def busy(self) -> bool:
        """Whether readouts or a best-threshold search are pending."""
        workers = (self._voxel_worker, self._readout_worker, self._best_worker)
        return self.update_pending or any(worker.busy for worker in workers)

    # -- session -> widget ----------------------------------------------------------

    def _on_session_methods_changed(self) -> None:
        self._rebuild_rows()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        row = self._rows.get(name)
        if row is not None:
            row.show_value(value)
        self.request_update()

    def _on_session_case_changed(self) -> None:
        self.request_update()

    def _rebuild_rows(self) -> None:
        for row in self._rows.values():
            for widget in (*row.widgets, row.readout):
                self._grid.removeWidget(widget)
                kit.discard(widget)
        self._rows = {
            m.name: self._add_row(index, m) for index, m in enumerate(self._session.methods)
        }
        self._readouts = {n: r for n, r in self._readouts.items() if n in self._rows}
        self._empty.setText(kit.empty_text(self._session, EMPTY_TEXT))
        self._empty.setVisible(not self._rows)
        self._link.setEnabled(len(self._rows) > 1)
        self._best.find_button.setEnabled(bool(self._rows))
        self.request_update()

    def _add_row(self, index: int, method: SessionMethod) -> _ThresholdRow:
        row = _ThresholdRow(method, self)
        for column, widget in enumerate(row.widgets):
            self._grid.addWidget(widget, 2 * index, column)
        self._grid.addWidget(row.readout, 2 * index + 1, 1, 1, 3)
        row.slider.valueChanged.connect(partial(self._on_slider_value_changed, method.name))
        row.box.valueChanged.connect(partial(self._on_box_value_changed, method.name))
        return row

    # -- readouts -------------------------------------------------------------------

    def update_now(self) -> None:
        """Compute the readouts of every method (voxels first, then objects) in workers."""
        self._readout_worker.cancel()  # objects at an older threshold are not wanted
        maps = tuple(m.snapshot() for m in self._session.methods)
        if maps:
            gt, cache = _gt_data(self._session), self._session.labelling
            self._voxel_worker.submit(compute_voxel_readouts, maps, gt, cache=cache)
            self._readout_worker.submit(compute_readouts, maps, gt, cache=cache)

    def on_stale(self) -> None:
        """Out of sight: readouts of an older case or threshold are not wanted."""
        self._voxel_worker.cancel()
        self._readout_worker.cancel()

    def _on_voxel_readouts_returned(self, readouts: dict[str, Readout]) -> None:
        if self._readout_worker.busy:  # else the objects came first: keep them
            self._on_readouts_returned(readouts)

    def _on_readouts_returned(self, readouts: dict[str, Readout]) -> None:
        self._readouts.update(readouts)
        for name, readout in readouts.items():
            row = self._rows.get(name)
            if row is not None:
                row.readout.setText(readout_text(readout))

    def _on_busy(self, busy: bool) -> None:
        busy = self._voxel_worker.busy or self._readout_worker.busy
        self._status.setText("Updating readouts\u2026" if busy else "")

    # -- widget -> session ----------------------------------------------------------

    def _on_slider_value_changed(self, name: str, step: int) -> None:
        self._apply(name, step / SLIDER_STEPS)

    def _on_box_value_changed(self, name: str, value: float) -> None:
        self._apply(name, value)

    def _on_link_toggled(self, checked: bool) -> None:
        names = self._session.method_names
        if checked and names:
            self._session.set_all_thresholds(self._session.threshold(names[0]))

    def _apply(self, name: str, value: float) -> None:
        if self.linked:
            self._session.set_all_thresholds(value)
        else:
            self._session.set_threshold(name, value)

    # -- best threshold -------------------------------------------------------------

    def _on_browse_clicked(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Toy dataset folder", self._best.folder.text()
        )
        if folder:
            self._best.folder.setText(folder)

    def _on_find_clicked(self) -> None:
        self.find_best_threshold()

    def find_best_threshold(self) -> None:
        """Start the best-threshold search the controls describe (result applied when done)."""
        box, session = self._best, self._session
        names = session.method_names
        if not names:
            return
        if box.on_toy_dataset:
            folder = box.folder.text().strip()
            if not folder:
                box.show_result("Pick the toy dataset folder first (\u2026 button).")
                return
            self._best_worker.submit(toy_thresholds, Path(folder), names, by=box.by)
        elif session.gt_layer is None:
            box.show_result("This case has no ground truth: choose on a toy dataset.")
        else:
            maps = {m.name: m.data for m in session.methods}
            self._best_worker.submit(best_on_case, maps, _gt_data(session), box.by)

    def _on_best_returned(self, result: ThresholdChoice) -> None:
        best = {n: b for n, b in result.best.items() if n in self._session.method_names}
        if self.linked and len({b.threshold for b in best.values()}) > 1:
            self._link.setChecked(False)  # the methods' best thresholds differ
        for name, value in best.items():  # flags the same voxels and draws them all
            shown = display_threshold(value.threshold)
            self._session.set_threshold(name, min(max(shown, 0.0), 1.0))
        self._best.show_result(best_text(result))

    def _on_best_errored(self, exc: BaseException) -> None:
        self._best.show_result(f"Not found: {exc}")
        kit.notify("error", f"napari-mood: {exc}")

    def _on_best_busy(self, busy: bool) -> None:
        self._best.find_button.setEnabled(not busy and bool(self._rows))
        if busy:
            self._best.show_result("Searching\u2026")
