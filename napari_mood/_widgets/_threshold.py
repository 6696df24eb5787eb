"""Dock widget: one display threshold per method (slider + number), optionally linked.

The widget only wires Qt controls to :class:`napari_mood._session.MoodSession`: moving a
slider calls ``session.set_threshold`` (which changes the layer's contrast limits, no data
copy) and the rows follow the session's signals, so a threshold changed elsewhere (napari's
layer controls, another widget) shows up here too.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from qtpy.QtCore import QSignalBlocker, Qt
from qtpy.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QGridLayout,
    QLabel,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from napari_mood._session import MoodSession, SessionMethod, get_session

if TYPE_CHECKING:
    import napari

__all__ = ["ThresholdWidget"]

SLIDER_STEPS = 1000
SLIDER_MIN_WIDTH = 140
BOX_MIN_WIDTH = 90
THRESHOLD_TIP = (
    "Display threshold of {name}: voxels scoring above it are coloured, the others are "
    "transparent. Display only: the scores are not changed."
)
LINK_TIP = "Move the thresholds of all methods together (they take the first method's value)."
EMPTY_TEXT = (
    "No score map loaded.\nOpen a MOOD dataset (File > Open Folder...) or drop method maps."
)


class _ThresholdRow:
    """The controls of one method: colour swatch, name, slider and number box."""

    def __init__(self, method: SessionMethod, parent: QWidget) -> None:
        tip = THRESHOLD_TIP.format(name=method.name)
        self.name = method.name
        self.swatch = QLabel(parent)
        self.swatch.setFixedSize(12, 12)
        self.swatch.setStyleSheet(f"background-color: {method.color}; border-radius: 2px;")
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
        self.show_value(method.threshold)

    @property
    def widgets(self) -> tuple[QWidget, ...]:
        return self.swatch, self.label, self.slider, self.box

    def show_value(self, value: float) -> None:
        """Show ``value`` without emitting the controls' signals."""
        with QSignalBlocker(self.slider), QSignalBlocker(self.box):
            self.slider.setValue(round(value * SLIDER_STEPS))
            self.box.setValue(value)


class ThresholdWidget(QWidget):
    """Display threshold of every method shown, with a "link all" toggle.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._session.get_session`) is shown.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._session: MoodSession = get_session(viewer)
        self._rows: dict[str, _ThresholdRow] = {}
        self._link = QCheckBox("Link all methods", self)
        self._link.setToolTip(LINK_TIP)
        self._empty = QLabel(EMPTY_TEXT, self)
        self._empty.setWordWrap(True)
        self._grid = QGridLayout()
        self._grid.setColumnStretch(2, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self._link)
        layout.addLayout(self._grid)
        layout.addWidget(self._empty)
        layout.addStretch(1)
        self._link.toggled.connect(self._on_link_toggled)
        self._connect_session()
        self._rebuild_rows()

    def _connect_session(self) -> None:
        slots = (
            (self._session.methods_changed, self._on_session_methods_changed),
            (self._session.threshold_changed, self._on_session_threshold_changed),
        )
        for signal, slot in slots:
            signal.connect(slot)
        self.destroyed.connect(partial(_disconnect_all, slots))

    @property
    def session(self) -> MoodSession:
        """The session shown."""
        return self._session

    @property
    def linked(self) -> bool:
        """Whether all thresholds move together."""
        return self._link.isChecked()

    # -- session -> widget ----------------------------------------------------------

    def _on_session_methods_changed(self) -> None:
        self._rebuild_rows()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        row = self._rows.get(name)
        if row is not None:
            row.show_value(value)

    def _rebuild_rows(self) -> None:
        for row in self._rows.values():
            for widget in row.widgets:
                self._grid.removeWidget(widget)
                widget.deleteLater()
        self._rows = {
            m.name: self._add_row(index, m) for index, m in enumerate(self._session.methods)
        }
        self._empty.setVisible(not self._rows)
        self._link.setEnabled(len(self._rows) > 1)

    def _add_row(self, index: int, method: SessionMethod) -> _ThresholdRow:
        row = _ThresholdRow(method, self)
        for column, widget in enumerate(row.widgets):
            self._grid.addWidget(widget, index, column)
        row.slider.valueChanged.connect(partial(self._on_slider_value_changed, method.name))
        row.box.valueChanged.connect(partial(self._on_box_value_changed, method.name))
        return row

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


def _disconnect_all(slots: tuple[tuple[object, object], ...], *_: object) -> None:
    for signal, slot in slots:
        signal.disconnect(slot)  # type: ignore[attr-defined]
