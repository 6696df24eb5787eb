"""The review panel's controls: built and laid out (the panel wires them to the review)."""

from __future__ import annotations

from types import SimpleNamespace

from qtpy.QtCore import QSettings
from qtpy.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.review_texts import (
    ACCESSIBLE_NAMES,
    ADJUDICATION_TIP,
    ADVANCE_TIP,
    BLIND_TIP,
    CHANGE_TIP,
    EMPTY_TEXT,
    EXPORT_TIP,
    METHOD_TIP,
    NEXT_TIP,
    NOTE_TIP,
    ONLY_TIP,
    PREVIOUS_TIP,
    REVIEWER_SETTING,
    REVIEWER_TIP,
    SCOPE_TIP,
    SCOPES,
    SETTINGS,
    UNDO_TIP,
    VERDICT_TEXT,
    VERDICT_TIP,
)
from napari_mood.services.review import VERDICTS, Verdict

__all__ = ["ReviewControls", "build_controls", "lay_out"]


class ReviewControls(SimpleNamespace):
    """The panel's widgets, by name."""

    method: QComboBox
    scope: QComboBox
    file: QLabel
    change: QPushButton
    position: QLabel
    current: QLabel
    previous: QPushButton
    next: QPushButton
    verdict_buttons: dict[Verdict, QPushButton]
    group: QButtonGroup
    note: QLineEdit
    note_label: QLabel
    reviewer: QLineEdit
    only: QCheckBox
    blind: QCheckBox
    adjudication: QCheckBox
    readers: QLabel
    undo_button: QPushButton
    queue_label: QLabel
    help: QLabel
    advance: QCheckBox
    progress: QLabel
    export: QPushButton
    empty: QLabel


def build_controls(parent: QWidget) -> ReviewControls:
    """Create the review panel's controls (children of ``parent``)."""
    c = ReviewControls()
    c.method = kit.combo(parent, METHOD_TIP, [])
    c.scope = kit.combo(parent, SCOPE_TIP, [text for text, _ in SCOPES])
    c.file = QLabel(parent)
    c.file.setWordWrap(True)
    c.change = kit.button(parent, "Change…", CHANGE_TIP)
    c.position = QLabel(parent)
    c.position.setWordWrap(True)
    c.position.setToolTip("The region shown, in review order (highest max score first).")
    c.current = QLabel(parent)
    c.current.setWordWrap(True)
    c.current.setToolTip("Verdict recorded for the region shown.")
    c.previous = kit.button(parent, "◀ Previous (P)", PREVIOUS_TIP)
    c.next = kit.button(parent, "Next (N) ▶", NEXT_TIP)
    c.verdict_buttons = {v: _verdict_button(parent, v) for v in VERDICTS}
    c.group = QButtonGroup(parent)
    for button in c.verdict_buttons.values():
        c.group.addButton(button)
    c.note = QLineEdit(parent)
    c.note.setPlaceholderText("Note (optional)")
    c.note.setToolTip(NOTE_TIP)
    c.note_label = QLabel("Note", parent)
    c.reviewer = kit.line_edit(parent, "Your name or initials", REVIEWER_TIP)
    c.reviewer.setText(str(QSettings(*SETTINGS).value(REVIEWER_SETTING, "") or ""))
    c.only = QCheckBox("Only this method", parent)
    c.only.setToolTip(ONLY_TIP)
    c.blind = QCheckBox("Blind review", parent)
    c.blind.setToolTip(BLIND_TIP)
    c.adjudication = QCheckBox("Adjudication", parent)
    c.adjudication.setToolTip(ADJUDICATION_TIP)
    c.adjudication.setVisible(False)  # shown while adjudicating (Reader study panel)
    c.readers = QLabel(parent)
    c.readers.setWordWrap(True)
    c.readers.setToolTip("What each reader said of this disputed region.")
    c.undo_button = kit.button(parent, "Undo verdict (Z)", UNDO_TIP)
    c.queue_label = QLabel(parent)
    c.queue_label.setWordWrap(True)
    c.help = QLabel(parent)
    c.advance = QCheckBox("Go to the next region after a verdict", parent)
    c.advance.setChecked(True)
    c.advance.setToolTip(ADVANCE_TIP)
    c.progress = QLabel(parent)
    c.progress.setWordWrap(True)
    c.progress.setToolTip("Verdicts recorded for this case and method.")
    c.export = kit.button(parent, "Export summary…", EXPORT_TIP)
    c.empty = QLabel(EMPTY_TEXT, parent)
    c.empty.setWordWrap(True)
    c.help.setToolTip(
        "Keys work anywhere in the window (the canvas, a floated panel) while this panel is "
        "shown, never while typing in a text field."
    )
    _name_controls(c)
    return c


def _name_controls(c: ReviewControls) -> None:
    """Name each control (``review-<name>``, ``review-verdict-<verdict>``).

    UI automation and the tests find them by name (``findChild``), as a user finds them
    by sight.
    """
    for name, control in vars(c).items():
        if isinstance(control, QWidget):
            control.setObjectName(f"review-{name}")
    for verdict, button in c.verdict_buttons.items():
        button.setObjectName(f"review-verdict-{verdict}")
    for name, words in ACCESSIBLE_NAMES.items():
        getattr(c, name).setAccessibleName(words)


def _verdict_button(parent: QWidget, verdict: Verdict) -> QPushButton:
    text, key = VERDICT_TEXT[verdict]
    button = kit.button(parent, f"{text} ({key})", VERDICT_TIP.format(verdict=verdict, key=key))
    button.setCheckable(True)
    return button


def lay_out(c: ReviewControls, parent: QWidget) -> None:
    """Arrange the controls in ``parent``."""
    form = QFormLayout()
    form.addRow("Method", c.method)
    form.addRow("Regions", c.scope)
    form.addRow("Reviewer", c.reviewer)
    form.addRow("", kit.row(c.only, c.blind, c.adjudication, stretch=True))
    review_file = QHBoxLayout()
    review_file.addWidget(c.file, 1)
    review_file.addWidget(c.change)
    form.addRow("Review file", review_file)
    steps = kit.row(c.previous, c.next)
    verdicts = kit.row(*c.verdict_buttons.values())
    layout = QVBoxLayout(parent)
    layout.addWidget(c.empty)
    layout.addLayout(form)
    for widget in (c.position, c.current, c.readers):
        layout.addWidget(widget)
    layout.addLayout(steps)
    layout.addLayout(verdicts)
    for extra in (c.note_label, c.note, c.advance, c.undo_button):
        layout.addWidget(extra)
    for extra in (c.progress, c.queue_label, c.export, c.help):
        layout.addWidget(extra)
    layout.addStretch(1)
