"""The review's modes: open, blind review, adjudication; and "only this method".

What a mode walks and shows is Qt-free (:class:`napari_mood.services.review_mode.ReviewMode`);
what the viewer hides or renames is :class:`~.review_view.ReviewView`.
"""

from __future__ import annotations

from qtpy.QtCore import QSettings

from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.review_state import ReviewPart
from napari_mood._napari.widgets.review_texts import (
    EMPTY_TEXT,
    REVIEWER_SETTING,
    SETTINGS,
)
from napari_mood.services.adjudication import AdjudicationList
from napari_mood.services.review_queue import (
    blind_names,
    stored_seed,
)

__all__ = ["ReviewModes"]


class ReviewModes(ReviewPart):
    """Blind review, adjudication and "only this method": the controls and what follows."""

    def set_blind(self, blind: bool) -> None:
        """Start or end a blind review (see the module docstring)."""
        self._c.blind.setChecked(blind)

    def adjudicate(
        self, disputes: AdjudicationList, *, reader: str, method: str | None = None
    ) -> bool:
        """Walk the regions readers disagreed on; verdicts are signed ``reader``, marked.

        ``method``: whose disputes (default: the first one shown); blind when they were
        judged blind. Returns False (and says why) when no disputed method is shown.
        """
        shown = [m for m in disputes.methods() if m in self._session.method_names]
        if not shown:
            kit.notify("warning", "napari-mood: no method of the disagreements is shown")
            return False
        self._leave_region()
        self._adjudication = disputes
        self._c.reviewer.setText(reader)
        self._c.adjudication.setVisible(True)
        self._c.adjudication.setChecked(True)
        chosen = method if method in shown else shown[0]
        self.select_method(chosen)
        self.set_blind(any(i.blind for i in disputes.items if i.method == chosen))
        self._on_mode_changed()
        if self._session.case not in disputes.cases(chosen):
            self.step_case(1)  # the first case with a disputed region
        return True

    def _on_only_toggled(self, checked: bool) -> None:
        self._apply_view()

    def _on_adjudication_toggled(self, checked: bool) -> None:
        if checked or self._adjudication is None:
            return
        self._leave_region()
        self._adjudication = None
        self._c.adjudication.setVisible(False)
        self._c.reviewer.setText(str(QSettings(*SETTINGS).value(REVIEWER_SETTING, "") or ""))
        self._on_mode_changed()

    def _on_mode_changed(self) -> None:
        """Blind review or adjudication began or ended: verdicts, notes and queue follow."""
        self._queue = None
        self._match_verdicts()
        self._show_current(move=False)
        self._schedule()

    def _on_blind_toggled(self, checked: bool) -> None:
        self._leave_region()
        reviewer, book = self._c.reviewer.text(), self._book
        self._seed = (
            stored_seed(() if book is None else book.records, reviewer) if checked else None
        )
        self._refresh_methods()
        self._apply_view()
        self._on_mode_changed()

    def _apply_view(self) -> None:
        method, seed = self._chosen_method() or None, self._seed
        names = {} if seed is None else blind_names(self._session.method_names, seed=seed)
        self._view.show(method, only=self._c.only.isChecked(), blind=seed is not None, names=names)

    def _refresh_methods(self) -> None:
        names = self._session.method_names
        current = self._chosen_method()
        shown = {n: n for n in names}
        if self._seed is not None:
            shown = blind_names(names, seed=self._seed)
        self._c.method.blockSignals(True)
        self._c.method.clear()
        for name in sorted(names, key=shown.__getitem__):
            self._c.method.addItem(shown[name], name)
        if current in names:
            self._c.method.setCurrentIndex(self._c.method.findData(current))
        self._c.method.blockSignals(False)
        self._c.empty.setText(kit.empty_text(self._session, EMPTY_TEXT))
        self._c.empty.setVisible(not names)

    def _on_reviewer_editing_finished(self) -> None:
        QSettings(*SETTINGS).setValue(REVIEWER_SETTING, self._c.reviewer.text().strip())
