"""Dock widget: display thresholds per method, what they flag, and the best threshold.

The widget only wires Qt controls to :class:`napari_mood._napari.session.MoodSession` and to the
pure functions of :mod:`napari_mood.core.readout`:

* moving a slider calls ``session.set_threshold`` (the layer's contrast limits change, no
  data copy) and the rows follow the session's signals, so a threshold changed elsewhere
  (napari's layer controls, another widget) shows up here too;
* under each method a readout gives the voxels flagged at its threshold (count, % of the
  volume, mm^3) and, with a ground truth, the voxel Dice and the MOOD object counts. It is
  computed in a :class:`~napari_mood._napari.widgets.worker.LatestWorker` a moment after the
  last change, so dragging a slider stays smooth and stale results are dropped;
* "Find best" computes, per method, the threshold with the best Dice or object F1 on the
  case shown or on a toy dataset folder (MOOD's procedure, through
  :func:`napari_mood.services.engine.run_evaluation`) and applies it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from qtpy.QtCore import QSignalBlocker, Qt, QTimer
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

from napari_mood._napari.session import MoodSession, SessionMethod, get_session
from napari_mood._napari.widgets.worker import LatestWorker
from napari_mood.core.evaluate import EvaluationOptions
from napari_mood.core.io import MoodInputError, discover_dataset, discover_methods
from napari_mood.core.readout import (
    BestThreshold,
    Criterion,
    Readout,
    best_case_threshold,
    best_dataset_thresholds,
    match_method_names,
    threshold_readout,
)
from napari_mood.core.scores import display_threshold

if TYPE_CHECKING:
    import napari

__all__ = ["BestResult", "ThresholdWidget", "find_best_on_case", "find_best_on_toy_dataset"]

SLIDER_STEPS = 1000
SLIDER_MIN_WIDTH = 110
BOX_MIN_WIDTH = 70
READOUT_DELAY_MS = 120
"""Readouts start this long after the last threshold change (a drag sends many)."""
CRITERIA: dict[str, Criterion] = {"Dice": "dice", "object F1": "object_f1"}
SOURCES = ("this case", "toy dataset")
METHODS_FOLDER = "methods"
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
EMPTY_TEXT = (
    "No score map loaded.\nOpen a MOOD dataset (File > Open Folder...) or drop method maps."
)


# --------------------------------------------------------------------------- computations


@dataclass(frozen=True)
class _MapSnapshot:
    """What a worker needs of one method: its data and threshold at request time."""

    name: str
    data: Any
    threshold: float
    voxel_volume: float | None


@dataclass(frozen=True)
class BestResult:
    """Best thresholds per method, where they were chosen and the methods left out."""

    best: Mapping[str, BestThreshold]
    source: str
    missing: tuple[str, ...] = ()
    available: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()


def compute_readouts(maps: Sequence[_MapSnapshot], gt: Any) -> dict[str, Readout]:
    """Readout of every map at its threshold (GT used where its shape matches)."""
    readouts = {}
    for snapshot in maps:
        data = np.asarray(snapshot.data)
        truth = gt if gt is not None and np.shape(gt) == data.shape else None
        readouts[snapshot.name] = threshold_readout(
            data, truth, threshold=snapshot.threshold, voxel_volume=snapshot.voxel_volume
        )
    return readouts


def find_best_on_case(maps: Mapping[str, Any], gt: Any, by: Criterion) -> BestResult:
    """Best threshold of every map on the case shown (see ``best_case_threshold``)."""
    best = {name: best_case_threshold(np.asarray(data), gt, by=by) for name, data in maps.items()}
    return BestResult(best, "this case")


def find_best_on_toy_dataset(folder: Path, names: Sequence[str], by: Criterion) -> BestResult:
    """MOOD's procedure: per method, the best threshold over a toy dataset's cases.

    The methods are matched to ``folder/methods/<name>`` by name; the object F1 is
    searched on the grid 0.01 .. 0.99 and the Dice threshold is the pooled best one.

    Raises
    ------
    MoodInputError
        When the folder is not a dataset, has no methods folder, or no method matches.
    """
    from napari_mood.services.engine import run_evaluation  # dask: imported when used

    dataset = discover_dataset(folder)
    methods_dir = Path(folder) / METHODS_FOLDER
    if not methods_dir.is_dir():
        raise MoodInputError(
            folder, "has no methods/ folder", "put one folder per method under DATASET/methods/"
        )
    folders = discover_methods(methods_dir)
    match = match_method_names(names, folders)
    if not match.matched:
        raise MoodInputError(
            methods_dir,
            f"has no folder named like the methods shown ({', '.join(names)}); "
            f"it has {', '.join(sorted(folders))}",
            "rename the folders or pick another toy dataset",
        )
    options = EvaluationOptions(tasks=("pixel", "object"), object_threshold="auto")
    evaluation, _ = run_evaluation(
        dataset, {n: folders[n] for n in match.matched}, options=options, warn=False
    )
    best = best_dataset_thresholds(evaluation, by=by)
    source = f"toy dataset {dataset.name} ({len(evaluation.cases)} cases)"
    problems = tuple(str(p) for p in evaluation.problems)
    return BestResult(best, source, match.missing, tuple(sorted(folders)), problems)


def _snapshot(method: SessionMethod) -> _MapSnapshot:
    layer = method.layer
    volume = float(np.prod(layer.scale)) if layer.ndim == 3 else None
    return _MapSnapshot(method.name, layer.data, method.threshold, volume)


def _gt_data(session: MoodSession) -> Any:
    layer = session.gt_layer
    return None if layer is None else np.asarray(layer.data)


# --------------------------------------------------------------------------- text


def _number(value: float, digits: int = 3) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def readout_text(readout: Readout) -> str:
    """Two short lines: what is flagged, then (with a GT) Dice and object counts."""
    parts = [f"{readout.flagged:,} voxels", f"{readout.flagged_percent:.2f} %"]
    if readout.flagged_mm3 is not None:
        parts.append(f"{readout.flagged_mm3:,.0f} mm\u00b3")
    text = " \u00b7 ".join(parts)
    if readout.dice is None or readout.objects is None:
        return f"{text}\nno ground truth: counts only"
    objects = readout.objects
    return (
        f"{text}\nDice {_number(readout.dice)} \u00b7 objects TP {objects.tp} "
        f"\u00b7 FP {objects.fp} \u00b7 FN {objects.fn}"
    )


def best_text(result: BestResult) -> str:
    """One line per method found, then the methods left out."""
    label = {"dice": "Dice", "object_f1": "object F1"}
    lines = [f"On {result.source}:"]
    lines += [
        f"{name}: {b.threshold:.3f} ({label[b.criterion]} {_number(b.value)})"
        for name, b in result.best.items()
    ]
    if result.missing:
        lines.append(
            f"No folder for {', '.join(result.missing)} under methods/ "
            f"(has {', '.join(result.available)}): left unchanged."
        )
    if result.problems:
        count = len(result.problems)
        lines.append(f"{count} input problem{'s' if count > 1 else ''}: {result.problems[0]}")
    return "\n".join(lines)


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
        self.label = QLabel(method.name, parent)
        self.label.setToolTip(tip)
        self.slider = QSlider(Qt.Orientation.Horizontal, parent)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setMinimumWidth(SLIDER_MIN_WIDTH)
        self.slider.setToolTip(tip)
        self.box = QDoubleSpinBox(parent)
        self.box.setRange(0.0, 1.0)
        self.box.setDecimals(3)
        self.box.setMinimumWidth(BOX_MIN_WIDTH)
        self.box.setSingleStep(0.01)
        self.box.setToolTip(tip)
        self.readout = QLabel("\u2026", parent)
        self.readout.setToolTip(READOUT_TIP.format(name=method.name))
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
        self.source = QComboBox(self)
        self.source.addItems(list(SOURCES))
        self.source.setToolTip(SOURCE_TIP)
        self.folder = QLineEdit(self)
        self.folder.setPlaceholderText("toy dataset folder")
        self.folder.setToolTip(FOLDER_TIP)
        self.browse = QToolButton(self)
        self.browse.setText("\u2026")
        self.browse.setToolTip(BROWSE_TIP)
        self.find = QPushButton("Find best and apply", self)
        self.find.setToolTip(FIND_TIP)
        self.result = QLabel("", self)
        self.result.setWordWrap(True)
        self.result.setToolTip(RESULT_TIP)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        self._lay_out()
        self.source.currentIndexChanged.connect(self._on_source_index_changed)
        self._on_source_index_changed(self.source.currentIndex())

    def _lay_out(self) -> None:
        choose = QHBoxLayout()
        choose.addWidget(_tipped(QLabel("Maximise", self), CRITERION_TIP))
        choose.addWidget(self.criterion, 1)
        choose.addWidget(_tipped(QLabel("on", self), SOURCE_TIP))
        choose.addWidget(self.source, 1)
        folder = QHBoxLayout()
        folder.addWidget(self.folder, 1)
        folder.addWidget(self.browse)
        layout = QVBoxLayout(self)
        layout.addLayout(choose)
        layout.addLayout(folder)
        layout.addWidget(self.find)
        layout.addWidget(self.result)

    @property
    def by(self) -> Criterion:
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


class ThresholdWidget(QWidget):
    """Display threshold of every method shown, its readout, and the best threshold.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is shown.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session: MoodSession = get_session(viewer)
        self._rows: dict[str, _ThresholdRow] = {}
        self._readouts: dict[str, Readout] = {}
        self._alive = [True]  # False once Qt has deleted the widget (late worker callbacks)
        self._link = QCheckBox("Link all methods", self)
        self._link.setToolTip(LINK_TIP)
        self._empty = QLabel(EMPTY_TEXT, self)
        self._empty.setWordWrap(True)
        self._status = QLabel("", self)
        self._status.setToolTip("Shown while the readouts are being computed.")
        self._best = _BestThresholdBox(self)
        self._grid = QGridLayout()
        self._grid.setColumnStretch(2, 1)
        self._readout_worker = LatestWorker(self._on_readouts_returned, on_busy=self._on_busy)
        self._best_worker = LatestWorker(
            self._on_best_returned, on_error=self._on_best_errored, on_busy=self._on_best_busy
        )
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(READOUT_DELAY_MS)
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
        self._timer.timeout.connect(self._on_timer_timeout)
        self._best.find.clicked.connect(self._on_find_clicked)
        self._best.browse.clicked.connect(self._on_browse_clicked)
        slots = (
            (self._session.methods_changed, self._on_session_methods_changed),
            (self._session.threshold_changed, self._on_session_threshold_changed),
            (self._session.case_changed, self._on_session_case_changed),
        )
        for signal, slot in slots:
            signal.connect(slot)
        workers = (self._readout_worker, self._best_worker)
        self.destroyed.connect(partial(_disconnect_all, slots, workers, self._alive))

    @property
    def session(self) -> MoodSession:
        """The session shown."""
        return self._session

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
        return self._timer.isActive() or self._readout_worker.busy or self._best_worker.busy

    # -- session -> widget ----------------------------------------------------------

    def _on_session_methods_changed(self) -> None:
        self._rebuild_rows()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        row = self._rows.get(name)
        if row is not None:
            row.show_value(value)
        self._schedule_readouts()

    def _on_session_case_changed(self) -> None:
        self._schedule_readouts()

    def _rebuild_rows(self) -> None:
        for row in self._rows.values():
            for widget in (*row.widgets, row.readout):
                self._grid.removeWidget(widget)
                widget.deleteLater()
        self._rows = {
            m.name: self._add_row(index, m) for index, m in enumerate(self._session.methods)
        }
        self._readouts = {n: r for n, r in self._readouts.items() if n in self._rows}
        self._empty.setVisible(not self._rows)
        self._link.setEnabled(len(self._rows) > 1)
        self._best.find.setEnabled(bool(self._rows))
        self._schedule_readouts()

    def _add_row(self, index: int, method: SessionMethod) -> _ThresholdRow:
        row = _ThresholdRow(method, self)
        for column, widget in enumerate(row.widgets):
            self._grid.addWidget(widget, 2 * index, column)
        self._grid.addWidget(row.readout, 2 * index + 1, 1, 1, 3)
        row.slider.valueChanged.connect(partial(self._on_slider_value_changed, method.name))
        row.box.valueChanged.connect(partial(self._on_box_value_changed, method.name))
        return row

    # -- readouts -------------------------------------------------------------------

    def _schedule_readouts(self) -> None:
        self._timer.start()  # restarts: one computation after the last change

    def _on_timer_timeout(self) -> None:
        maps = tuple(_snapshot(m) for m in self._session.methods)
        if maps:
            self._readout_worker.submit(compute_readouts, maps, _gt_data(self._session))

    def _on_readouts_returned(self, readouts: dict[str, Readout]) -> None:
        if not self._alive[0]:
            return
        self._readouts.update(readouts)
        for name, readout in readouts.items():
            row = self._rows.get(name)
            if row is not None:
                row.readout.setText(readout_text(readout))

    def _on_busy(self, busy: bool) -> None:
        if not self._alive[0]:
            return
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
            self._best_worker.submit(find_best_on_toy_dataset, Path(folder), names, box.by)
        elif session.gt_layer is None:
            box.show_result("This case has no ground truth: choose on a toy dataset.")
        else:
            maps = {m.name: m.data for m in session.methods}
            self._best_worker.submit(find_best_on_case, maps, _gt_data(session), box.by)

    def _on_best_returned(self, result: BestResult) -> None:
        if not self._alive[0]:
            return
        best = {n: b for n, b in result.best.items() if n in self._session.method_names}
        if self.linked and len({b.threshold for b in best.values()}) > 1:
            self._link.setChecked(False)  # the methods' best thresholds differ
        for name, value in best.items():  # flags the same voxels and draws them all
            shown = display_threshold(value.threshold)
            self._session.set_threshold(name, min(max(shown, 0.0), 1.0))
        self._best.show_result(best_text(result))

    def _on_best_errored(self, exc: BaseException) -> None:
        from napari.utils.notifications import show_error

        if not self._alive[0]:
            return
        self._best.show_result(f"Not found: {exc}")
        show_error(f"napari-mood: {exc}")

    def _on_best_busy(self, busy: bool) -> None:
        if not self._alive[0]:
            return
        self._best.find.setEnabled(not busy and bool(self._rows))
        if busy:
            self._best.show_result("Searching\u2026")


def _tipped(widget: QWidget, tip: str) -> QWidget:
    widget.setToolTip(tip)
    return widget


def _disconnect_all(
    slots: tuple[tuple[object, object], ...],
    workers: tuple[LatestWorker, ...],
    alive: list[bool],
    *_: object,
) -> None:
    alive[0] = False
    for signal, slot in slots:
        signal.disconnect(slot)  # type: ignore[attr-defined]
    for worker in workers:
        worker.cancel()  # results arriving after the widget is gone are dropped
