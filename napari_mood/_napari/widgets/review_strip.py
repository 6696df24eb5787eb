"""The review in one row, for the reading layout (its panels are hidden, its panes equal).

:class:`ReviewStrip` shows what a reader needs to judge the region centred in the panes:
"Region k of n" with the method (its blind name in blind review), the verdict buttons,
the note and the progress. It holds no state: the review panel
(:meth:`~napari_mood._napari.widgets.review.ReviewWidget.reading_strip`) makes it, wires
its controls to its own slots and copies its controls' state into it
(:meth:`ReviewStrip.show_state`). The reading layout lays it out in a tool bar at the
bottom of the window, under the four panes (it covers none of them).
"""

from __future__ import annotations

from typing import Any

from qtpy.QtCore import Signal
from qtpy.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QSizePolicy, QWidget

from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.review_controls import ReviewControls
from napari_mood._napari.widgets.review_texts import NOTE_TIP, VERDICT_TEXT, VERDICT_TIP
from napari_mood.services.review import VERDICTS, Verdict

__all__ = ["ReviewStrip"]

NOTE_WIDTH = 200
"""The note's width in the strip (px): the position and the progress take the rest."""
LABEL_MIN_WIDTH = 80
"""The position and the progress may be cut to this width (px; the tool tip has all)."""


class ReviewStrip(QWidget):
    """Region k of n and method, verdict buttons, note and progress in one row.

    Parameters
    ----------
    parent : QWidget, optional
        The Qt parent (the reading layout's tool bar).
    """

    shown = Signal(bool)
    """Emitted with True when the strip is shown, False when it is hidden."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("review-strip")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.position = QLabel(self)
        self.position.setToolTip("The region shown, in review order (highest max score first).")
        self.verdict_buttons: dict[Verdict, QPushButton] = {v: _button(self, v) for v in VERDICTS}
        self.note = QLineEdit(self)
        self.note.setPlaceholderText("Note (optional)")
        self.note.setToolTip(NOTE_TIP)
        self.note.setFixedWidth(NOTE_WIDTH)
        self.progress = QLabel(self)
        self.progress.setToolTip("Verdicts recorded for this case and method.")
        for name in ("position", "note", "progress"):
            getattr(self, name).setObjectName(f"review-strip-{name}")
        for label in (self.position, self.progress):  # never widen the window: cut short
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            label.setMinimumWidth(LABEL_MIN_WIDTH)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.position, 1)
        for button in self.verdict_buttons.values():
            layout.addWidget(button)
        layout.addWidget(self.note)
        layout.addWidget(self.progress, 1)

    def show_state(self, controls: ReviewControls) -> None:
        """Show what the review panel's ``controls`` show (a note being typed is kept)."""
        first, _, rest = controls.position.text().partition("<br>")
        self.position.setText(first)  # "Region k of n · method @ threshold"
        self.position.setToolTip(rest or first)  # its max score and size
        for verdict, button in self.verdict_buttons.items():
            source = controls.verdict_buttons[verdict]
            button.setChecked(source.isChecked())
            button.setEnabled(source.isEnabled())
        self.note.setEnabled(controls.note.isEnabled())
        if not self.note.hasFocus():
            self.note.setText(controls.note.text())
        self.progress.setText(controls.progress.text().partition(":")[0])  # "Reviewed k of n"
        self.progress.setToolTip(controls.progress.text())

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Say that the strip can be seen (the review's keys work meanwhile)."""
        super().showEvent(event)
        self.shown.emit(True)

    def hideEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Say that the strip is out of sight."""
        super().hideEvent(event)
        self.shown.emit(False)


def _button(parent: QWidget, verdict: Verdict) -> QPushButton:
    text, key = VERDICT_TEXT[verdict]
    button = kit.button(parent, f"{text} ({key})", VERDICT_TIP.format(verdict=verdict, key=key))
    button.setCheckable(True)
    button.setObjectName(f"review-strip-verdict-{verdict}")
    return button
