"""The review's verdicts: recorded, taken back, brought back from the review file.

Records and the rule matching them to regions are Qt-free
(:mod:`napari_mood.services.review`, ``review_store``); the file is :mod:`.review_files`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.review_state import ReviewPart
from napari_mood._napari.widgets.review_texts import (
    FILE_TIP,
    progress_text,
)
from napari_mood.services.review import (
    ReviewRecord,
    Verdict,
    match_reviews,
    now_iso,
    review_record,
    same_key_verdict,
)
from napari_mood.services.review_regions import FlaggedRegion

__all__ = ["ReviewVerdicts"]


class ReviewVerdicts(ReviewPart):
    """Record, undo and show the verdict of the region shown; the review file."""

    def set_verdict(self, verdict: Verdict) -> bool:
        """Record ``verdict`` (and the note) for the region shown; return whether it was saved.

        Refused, with a one-line message, while the next case is opening or its regions
        are being found (the region shown would be another case's).
        """
        waiting = self._not_shown_yet()
        if waiting:
            self._say(waiting)
            return False
        region, found = self.current_region, self._found
        if region is None or self._book is None or found is None:
            return False
        if found.method not in self._session.method_names:
            return False
        record = self._record(region, verdict)
        replaced = self._verdicts.get(region.object_id)
        hidden = same_key_verdict(self._book.records, record)  # another mode's, not shown
        if not self._save(record, replaces=replaced):
            return False
        self._undo.append((record, replaced or hidden))
        self._drafts.pop(self._draft_key(region.object_id), None)
        if not self._c.advance.isChecked():
            self._show_current()
        elif self._index < len(self.regions) - 1:
            self.go_to(self._index + 1)
        else:  # past the case's last region, as N: the next case (or the end, said)
            self._show_current(move=False)
            self.step(1, by_verdict=True)
        return True

    def undo(self) -> bool:
        """Take back the last verdict recorded here; show its region if it is in this case."""
        if not self._undo or self._book is None:
            return False
        record, replaced = self._undo.pop()
        try:
            self._book.withdraw(record, time=now_iso())
            if replaced is not None:
                self._book.save(replace(replaced, time=now_iso()))
        except OSError as error:
            kit.notify("error", f"napari-mood: could not undo the verdict: {error}")
            return False
        self._match_verdicts()
        self._drafts[self._draft_key(record.object_id, record)] = record.note
        index = self._index_of(record)
        if index is not None:
            self._index = index
        self._show_current(move=index is not None)
        return True

    def set_review_file(self, path: str | Path) -> bool:
        """Use ``path`` as review file (continued if it exists); refused inside the data."""
        self._save_note()
        if not self._files.choose(path):
            return False
        self._after_open()
        return self._book is not None

    def export_summary_to(self, path: str | Path) -> tuple[Path, Path] | None:
        """Write the verdict counts per method to ``path`` and the judged regions beside it."""
        return self._files.export(path)

    def _open_book(self, path: Path) -> None:
        self._files.open(path)
        self._after_open()

    def _after_open(self) -> None:
        path = self._files.shown
        state = "" if self._book is not None else " (not usable: choose another)"
        self._c.file.setText(f"{path.name}{state}")
        self._c.file.setToolTip(FILE_TIP.format(path=path))
        self._match_verdicts()
        self._show_current(move=False)

    def _save(self, record: ReviewRecord, *, replaces: ReviewRecord | None) -> bool:
        if not self._files.save(record, replaces=replaces):
            return False
        self._verdicts[record.object_id] = record
        return True

    def _record(self, region: FlaggedRegion, verdict: Verdict) -> ReviewRecord:
        assert self._found is not None
        layer = self._session.method(self._found.method).layer
        transform = self._session.transform
        centre = np.asarray(region.centroid_voxel, dtype=float)
        ras = () if transform is None else tuple(transform.display_index_to_world(centre))
        voxel = () if transform is None else tuple(transform.display_to_file_index(centre))
        return review_record(
            region,
            case=self._found.case or "",
            method=self._found.method,
            threshold=self._found.threshold,
            centroid_world_mm=tuple(layer.data_to_world(region.centroid_voxel)),
            verdict=verdict,
            note=self._c.note.text(),
            reviewer=self._c.reviewer.text(),
            centroid_ras_mm=ras,
            centroid_file_voxel=voxel,
            blind_seed=self._seed,
            adjudication=self._adjudication is not None,
        )

    def _index_of(self, record: ReviewRecord) -> int | None:
        found = self._found
        if found is None or (found.case or "", found.method) != (record.case, record.method):
            return None
        ids = [r.object_id for r in self.regions]
        return ids.index(record.object_id) if record.object_id in ids else None

    def _match_verdicts(self) -> None:
        found, book = self._found, self._book
        if found is None or book is None:
            self._verdicts = {}
            return
        stored = match_reviews(
            found.regions,
            self.mode.stored(book.records),
            case=found.case or "",
            method=found.method,
        )
        self._verdicts = dict(stored)

    def _on_verdict_clicked(self, verdict: Verdict) -> None:
        if not self.set_verdict(verdict):
            self._show_current(move=False)  # undo the button's own check state

    def _on_change_clicked(self) -> None:
        path = self._files.ask_review_file(self)
        if path:
            self.set_review_file(path)

    def _on_export_clicked(self) -> None:
        path = self._files.ask_summary_file(self)
        if path:
            self.export_summary_to(path)

    def _show_verdict(self, record: ReviewRecord | None) -> None:
        self._c.group.setExclusive(False)
        for verdict, button in self._c.verdict_buttons.items():
            button.setChecked(record is not None and record.verdict == verdict)
        self._c.group.setExclusive(True)
        text = "Verdict: —" if record is None else f"Verdict: <b>{record.verdict}</b>"
        self._c.current.setText(text)

    def _show_progress(self) -> None:
        self._c.progress.setText(progress_text(self._verdicts.values(), len(self.regions)))
