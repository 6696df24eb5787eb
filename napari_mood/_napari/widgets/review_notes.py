"""The review's notes: a note stays with its region.

A judged region's note is saved with its verdict (typed changes saved after a pause, on
Enter, when leaving the region or when the panel hides); an unjudged region's note is a
draft kept for the session. Notes written in one mode are not shown in another (blind
review shows none of the open review's).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from napari_mood._napari.widgets.review_state import ReviewPart
from napari_mood.services.review import (
    ReviewRecord,
    now_iso,
)
from napari_mood.services.review_mode import ReviewMode

__all__ = ["ReviewNotes"]


class ReviewNotes(ReviewPart):
    """Drafts and saved notes of the regions."""

    def _draft_key(
        self, object_id: int, record: ReviewRecord | None = None
    ) -> tuple[str, str, int, str]:
        """Return a note draft's key: drafts of one mode are not shown in another (blind: none)."""
        if record is not None:
            return record.case, record.method, object_id, ReviewMode.tag_of(record)
        found, tag = self._found, self.mode.tag
        where = ("", "") if found is None else (found.case or "", found.method)
        return (*where, object_id, tag)

    def _leave_region(self) -> None:
        """Keep the note of the region shown: saved if judged, a draft otherwise."""
        region = self.current_region
        if region is not None and region.object_id not in self._verdicts:
            key = self._draft_key(region.object_id)
            text = self._c.note.text().strip()
            if text:
                self._drafts[key] = text
            else:
                self._drafts.pop(key, None)
        self._save_note()

    def _save_note(self) -> None:
        """Save the note of a judged region if it changed (no layer needed: closing is fine)."""
        self._note_timer.stop()
        region = self.current_region
        old = None if region is None else self._verdicts.get(region.object_id)
        note = self._c.note.text().strip()
        if old is None or self._book is None or old.note == note:
            return
        self._save(replace(old, note=note, time=now_iso()), replaces=old)

    def hideEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Save a note being typed when the panel is hidden or napari closes; keys off."""
        self._leave_region()
        self._keys.show(False)
        super().hideEvent(event)

    def _on_note_edited(self, text: str) -> None:
        self._note_timer.start()

    def _on_note_timer_timeout(self) -> None:
        self._save_note()

    def _on_note_editing_finished(self) -> None:
        self._save_note()

    def _on_note_return_pressed(self) -> None:
        self.setFocus()  # back to the panel, so that the keys work again
