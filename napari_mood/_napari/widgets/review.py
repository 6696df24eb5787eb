"""Dock widget "Review flagged regions": judge a method's flagged regions one at a time.

Regions, ranking, the review file and the rule that brings verdicts back are Qt-free
(:mod:`napari_mood.services.review`, ``review_store``, ``review_queue``); this panel wires
controls to them. Regions are found in a worker whenever the threshold, the methods or
the case change; the current one is outlined (layer ``"Review: current region"``, role
``"review"``) and centred in every plane. Keys work anywhere in the window (floated panels
too, never in a text field) while the panel is shown (:mod:`.review_keys`); notes stay
with their region; Next past the last region opens the next case (the queue) and at the
end of the queue says so; "Only this method" and "Blind review" are
:mod:`.review_view`; the file is :mod:`.review_files`. README "Review flagged regions"
describes what a user sees.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from qtpy.QtCore import QSettings, Qt
from qtpy.QtWidgets import (
    QDockWidget,
    QWidget,
)

from napari_mood._napari._soon import call_soon
from napari_mood._napari.helper_layers import shown_with
from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.prefetch import (
    REVIEW_REGIONS,
    AheadJob,
    prefetch_for,
    review_regions_job,
)
from napari_mood._napari.reader import LoadedCase
from napari_mood._napari.session import MoodSession, get_session
from napari_mood._napari.viewer import focus_object
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.review_controls import build_controls, lay_out
from napari_mood._napari.widgets.review_files import ReviewFiles
from napari_mood._napari.widgets.review_keys import (
    REVIEW_PRIORITY,
    PanelKeys,
    key_help,
    review_bindings,
)
from napari_mood._napari.widgets.review_texts import (
    AUTO_DELAY_MS,
    EMPTY_TEXT,
    FILE_TIP,
    NOTE_DELAY_MS,
    REVIEW_LAYER_NAME,
    REVIEWER_SETTING,
    SCOPES,
    SETTINGS,
    end_text,
    position_text,
    progress_text,
    readers_text,
)
from napari_mood._napari.widgets.review_view import ReviewView, review_layer, show_region_labels
from napari_mood.io.errors import MoodInputError
from napari_mood.services.adjudication import AdjudicationList
from napari_mood.services.review import (
    ReviewRecord,
    Verdict,
    match_reviews,
    now_iso,
    review_record,
    same_key_verdict,
)
from napari_mood.services.review_mode import ReviewMode
from napari_mood.services.review_queue import (
    ReviewQueue,
    blind_names,
    review_queue,
    stored_seed,
)
from napari_mood.services.review_regions import FlaggedRegion, FoundRegions, find_regions
from napari_mood.services.review_store import (
    ReviewFile,
)

if TYPE_CHECKING:
    import napari

__all__ = ["REVIEW_LAYER_NAME", "ReviewWidget"]


_REGIONS_SHOWN = shown_with(find_regions, lambda found: found.labels)  # the worker job


class ReviewWidget(QWidget):
    """Step through a method's flagged regions and record a verdict for each.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is reviewed.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._viewer = viewer
        self._session: MoodSession = get_session(viewer)
        self._found: FoundRegions | None = None
        self._regions: tuple[FlaggedRegion, ...] = ()  # in review order
        self._index = -1
        self._drafts: dict[tuple[str, str, int, str], str] = {}  # (case, method, id, mode)
        self._undo: list[tuple[ReviewRecord, ReviewRecord | None]] = []
        self._seed: int | None = None  # blind review seed
        self._adjudication: AdjudicationList | None = None  # the disputes walked
        self._queue: ReviewQueue | None = None
        self._enter_last = False  # a case opened by stepping back: start at its last region
        self._verdicts: dict[int, ReviewRecord] = {}
        self._files = ReviewFiles(self._session)
        self._stale = True  # regions to search once the panel is visible
        self._dock: QDockWidget | None = None
        self._lifetime = kit.Lifetime(self)
        self._worker = self._lifetime.worker(self._on_worker_result, on_busy=self._on_worker_busy)
        self._opener = self._lifetime.worker(self._on_case_loaded)
        self._view = ReviewView(self._session, self)
        self._lifetime.at_end(self._on_end)
        prefetch_for(self._session).add_job(REVIEW_REGIONS, self._regions_job)
        self._timer = kit.single_shot(self, AUTO_DELAY_MS, self._on_timer_timeout)
        self._note_timer = kit.single_shot(self, NOTE_DELAY_MS, self._on_note_timer_timeout)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self._connect()
        self._refresh_methods()
        self._open_book(self._files.default_path())
        self._schedule()

    # -- building -------------------------------------------------------------------

    def _build(self) -> None:
        self._c = build_controls(self)
        self._bindings = review_bindings(self)
        self._keys = PanelKeys(self, self._bindings, priority=REVIEW_PRIORITY)
        self._c.help.setText(key_help(self._bindings))
        lay_out(self._c, self)

    def _connect(self) -> None:
        self._c.method.currentTextChanged.connect(self._on_method_changed)
        self._c.scope.currentIndexChanged.connect(self._on_scope_changed)
        self._c.change.clicked.connect(self._on_change_clicked)
        self._c.previous.clicked.connect(partial(self.step, -1))
        self._c.next.clicked.connect(partial(self.step, 1))
        for verdict, button in self._c.verdict_buttons.items():
            button.clicked.connect(partial(self._on_verdict_clicked, verdict))
        self._c.note.textEdited.connect(self._on_note_edited)
        self._c.note.editingFinished.connect(self._on_note_editing_finished)
        self._c.note.returnPressed.connect(self._on_note_return_pressed)
        self._c.export.clicked.connect(self._on_export_clicked)
        self._c.reviewer.editingFinished.connect(self._on_reviewer_editing_finished)
        self._c.only.toggled.connect(self._on_only_toggled)
        self._c.blind.toggled.connect(self._on_blind_toggled)
        self._c.adjudication.toggled.connect(self._on_adjudication_toggled)
        self._c.undo_button.clicked.connect(self.undo)
        connect = self._lifetime.connect
        connect(self._session.methods_changed, self._on_session_methods_changed)
        connect(self._session.threshold_changed, self._on_session_threshold_changed)
        connect(self._session.case_changed, self._on_session_case_changed)

    # -- public ---------------------------------------------------------------------

    @property
    def session(self) -> MoodSession:
        """The session reviewed."""
        return self._session

    @property
    def busy(self) -> bool:
        """Whether regions are being searched."""
        return self._worker.busy

    @property
    def method(self) -> str | None:
        """The method of the regions shown."""
        return None if self._found is None else self._found.method

    @property
    def regions(self) -> tuple[FlaggedRegion, ...]:
        """Regions under review, in review order (shuffled in blind review)."""
        return self._regions

    @property
    def blind_seed(self) -> int | None:
        """The seed of the blind review (None: not blind)."""
        return self._seed

    @property
    def mode(self) -> ReviewMode:
        """What the review walks and shows: open, blind, adjudication."""
        return ReviewMode(self._seed, self._adjudication)

    @property
    def queue(self) -> ReviewQueue | None:
        """The cases walked by Next / Previous past the ends (None: not built yet)."""
        return self._queue

    @property
    def current_index(self) -> int:
        """Index of the region shown in :attr:`regions` (-1: none)."""
        return self._index

    @property
    def current_region(self) -> FlaggedRegion | None:
        """The region shown."""
        return self.regions[self._index] if 0 <= self._index < len(self.regions) else None

    @property
    def verdicts(self) -> dict[int, ReviewRecord]:
        """Recorded verdict of each region (by object id) for this case and method."""
        return dict(self._verdicts)

    @property
    def review_path(self) -> Path | None:
        """The review file in use (None when it could not be opened)."""
        return self._files.path

    def run(self) -> None:
        """Search the chosen method's flagged regions in a worker."""
        name = self._chosen_method()
        if name not in self._session.method_names:
            return
        if self._regions_ahead():
            return
        snapshot = self._session.method(name).snapshot()
        self._worker.submit(
            _REGIONS_SHOWN,
            snapshot,
            self._session.gt_data,
            case=self._session.case,
            scope=SCOPES[self._c.scope.currentIndex()][1],
            cache=self._session.labelling,
        )

    def select_method(self, name: str) -> None:
        """Review ``name`` (one of the session's methods)."""
        index = self._c.method.findData(name)
        if index >= 0:
            self._c.method.setCurrentIndex(index)

    def _chosen_method(self) -> str:
        data = self._c.method.currentData()
        return data if isinstance(data, str) else ""

    def go_to(self, index: int) -> None:
        """Show region ``index`` (clipped to the regions)."""
        if not self.regions:
            return
        self._leave_region()
        self._index = min(max(index, 0), len(self.regions) - 1)
        self._show_current()

    def step(self, delta: int) -> None:
        """Show the region ``delta`` places further; past either end, the next case."""
        index = self._index + delta
        if self.regions and 0 <= index < len(self.regions):
            self.go_to(index)
        elif not self._opener.busy and not self._worker.busy:
            if not self.step_case(1 if delta > 0 else -1):
                self._say(end_text(delta, self._queue, self._session.case))

    def step_case(self, delta: int) -> bool:
        """Open the case ``delta`` places further in the queue; return whether one opens."""
        queue = self._ensure_queue()
        case = None if queue is None else queue.step(self._session.case, delta)
        if queue is None or case is None:
            return False
        self._leave_region()
        self._enter_last = delta < 0
        self._c.queue_label.setText(f"Opening case {queue.position(case)[0]}…")
        prefetch_for(self._session).open(
            self._opener, self._on_case_loaded, queue.dataset, case, queue.methods
        )
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

    def set_verdict(self, verdict: Verdict) -> bool:
        """Record ``verdict`` (and the note) for the region shown; return whether it was saved."""
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
        if self._c.advance.isChecked() and self._index < len(self.regions) - 1:
            self.go_to(self._index + 1)
        else:
            self._show_current()
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

    @property
    def _book(self) -> ReviewFile | None:
        return self._files.book

    # -- review file ----------------------------------------------------------------

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

    def _draft_key(
        self, object_id: int, record: ReviewRecord | None = None
    ) -> tuple[str, str, int, str]:
        """Return a note draft's key (case, method, object id, mode): drafts stay in their mode."""
        if record is not None:
            return record.case, record.method, object_id, ReviewMode.tag_of(record)
        found, tag = self._found, self.mode.tag
        where = ("", "") if found is None else (found.case or "", found.method)
        return (*where, object_id, tag)

    def _index_of(self, record: ReviewRecord) -> int | None:
        found = self._found
        if found is None or (found.case or "", found.method) != (record.case, record.method):
            return None
        ids = [r.object_id for r in self.regions]
        return ids.index(record.object_id) if record.object_id in ids else None

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

    # -- session -> widget ----------------------------------------------------------

    def _on_session_methods_changed(self) -> None:
        self._refresh_methods()
        if self.method is not None and self.method not in self._session.method_names:
            self._save_note()
            self._found, self._regions, self._index, self._verdicts = None, (), -1, {}
            self._show_current(move=False)
        self._apply_view()
        self._schedule()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        if name == self._chosen_method():
            self._schedule()

    def _on_session_case_changed(self) -> None:
        layer = review_layer(self._viewer)
        if layer is not None and layer.metadata[METADATA_KEY].get("case") != self._session.case:
            self._viewer.layers.remove(layer)  # the old case's region outline
        if self._files.follow_case():
            self._after_open()
        if self._queue is not None and self._queue.dataset.root != self._session.dataset:
            self._queue = None
        self._apply_view()
        self._schedule()
        if kit.is_on_screen(self):  # made while the case was read ahead: shown at once
            call_soon(self._lifetime.guard(self._regions_ahead))

    def _regions_job(self) -> AheadJob | None:
        """Job the read ahead runs for this panel.

        What the case read ahead needs of this panel: its regions of the method
        under review, at its threshold and scope (see :mod:`.prefetch`).
        """
        name = self._chosen_method()
        if name not in self._session.method_names:
            return None
        scope = SCOPES[self._c.scope.currentIndex()][1]
        return review_regions_job(name, self._session.threshold(name), scope)

    def _regions_ahead(self) -> bool:
        """Show the regions found during the read ahead, if they match the request.

        Show the regions made while this case was read ahead, when they are the ones
        asked for (method, threshold, scope); return whether they were (no search then).
        """
        name = self._chosen_method()
        held = prefetch_for(self._session).result(REVIEW_REGIONS, self._session.case)
        if held is None or name not in self._session.method_names:
            return False
        scope, outcome = held
        found = outcome[0]
        wanted = (SCOPES[self._c.scope.currentIndex()][1], name, self._session.threshold(name))
        if (scope, found.method, found.threshold) != wanted:
            return False
        if found is not self._found:
            self._worker.cancel()
            self._on_worker_result(outcome)
        return True

    def _schedule(self) -> None:
        """Search regions soon; while the panel is hidden (a tab behind), when it shows."""
        self._stale = not self.isVisible()
        if self._session.method_names and not self._stale:
            self._timer.start()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Start the postponed search, or go back to the region under review."""
        super().showEvent(event)
        self._dock = kit.watch_dock(self, self._on_dock_visibility_changed, self._dock)
        self._on_dock_visibility_changed(True)

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        region = self.current_region
        self._keys.show(visible)
        if not visible:
            return
        if self._stale:
            self._schedule()
        elif region is not None and self.method in self._session.method_names:
            self._focus(region)

    def _on_timer_timeout(self) -> None:
        if not kit.is_on_screen(self):  # closed, or a tab behind another panel
            self._stale = True
            return
        self.run()

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

    # -- controls -> review ---------------------------------------------------------

    def _on_method_changed(self, text: str) -> None:
        self._leave_region()
        self._queue = None
        self._apply_view()
        self._schedule()

    def _on_reviewer_editing_finished(self) -> None:
        QSettings(*SETTINGS).setValue(REVIEWER_SETTING, self._c.reviewer.text().strip())

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

    def _ensure_queue(self) -> ReviewQueue | None:
        dataset, method = self._session.dataset, self._chosen_method()
        if self._queue is not None or dataset is None or not method:
            return self._queue
        maps = {m.name: m.path for m in self._session.methods if m.path is not None}
        try:
            queue = review_queue(dataset, maps, method=method, seed=self._seed)
            self._queue = self.mode.queue(queue, method=method)
        except (MoodInputError, OSError) as error:
            kit.notify("error", f"napari-mood: cannot walk the dataset's cases: {error}")
        return self._queue

    def _on_case_loaded(self, loaded: LoadedCase) -> None:
        self._session.replace_case(loaded.layers)
        queue = self._queue
        after = None if queue is None else queue.step(loaded.case, 1)
        if queue is not None and after is not None:  # read while this one is reviewed
            prefetch_for(self._session).start(queue.dataset, after, queue.methods)
        if loaded.problems:
            kit.notify("warning", "; ".join(str(p) for p in loaded.problems[:3]))

    def _show_queue(self) -> None:
        queue, case = self._queue, self._session.case
        if queue is None or case is None:
            self._c.queue_label.setText("")
            return
        index, total = queue.position(case)
        order = "shuffled" if queue.seed is not None else "sorted"
        self._c.queue_label.setText(f"Case {index} of {total} ({order})")

    def _on_end(self) -> None:
        prefetch_for(self._session).remove_job(REVIEW_REGIONS)
        self._view.restore(closing=True)
        self._keys.close()

    def _on_scope_changed(self, index: int) -> None:
        self._save_note()
        self._schedule()

    def _on_verdict_clicked(self, verdict: Verdict) -> None:
        if not self.set_verdict(verdict):
            self._show_current(move=False)  # undo the button's own check state

    def _on_note_edited(self, text: str) -> None:
        self._note_timer.start()

    def _on_note_timer_timeout(self) -> None:
        self._save_note()

    def _on_note_editing_finished(self) -> None:
        self._save_note()

    def _on_note_return_pressed(self) -> None:
        self.setFocus()  # back to the panel, so that the keys work again

    def _on_change_clicked(self) -> None:
        path = self._files.ask_review_file(self)
        if path:
            self.set_review_file(path)

    def _on_export_clicked(self) -> None:
        path = self._files.ask_summary_file(self)
        if path:
            self.export_summary_to(path)

    def _on_worker_busy(self, busy: bool) -> None:
        if busy and self._found is None:
            self._c.position.setText("Searching flagged regions…")

    def _on_worker_result(self, outcome: tuple[FoundRegions, Any]) -> None:
        found, levels = outcome
        if found.method not in self._session.method_names:
            return
        self._leave_region()
        self._found = found
        self._regions = self.mode.regions(found)
        self._match_verdicts()
        show_region_labels(self._session, found, levels)
        unjudged = [i for i, r in enumerate(self._regions) if r.object_id not in self._verdicts]
        if self._enter_last:
            self._index = len(self._regions) - 1
        else:
            self._index = unjudged[0] if unjudged else (0 if self._regions else -1)
        self._enter_last = False
        self._show_current(move=kit.is_on_screen(self))

    # -- display --------------------------------------------------------------------

    def _show_current(self, *, move: bool = True) -> None:
        """Show the current region's details; ``move`` the viewer to it."""
        region = self.current_region
        record = None if region is None else self._verdicts.get(region.object_id)
        self._show_position(region)
        self._show_verdict(record)
        draft = "" if region is None else self._drafts.get(self._draft_key(region.object_id), "")
        self._c.note.setText(draft if record is None else record.note)
        self._c.note_label.setText(
            "Note" if region is None else f"Note on region {self._index + 1} of {len(self.regions)}"
        )
        self._show_dispute(region)
        self._show_progress()
        for control in (*self._c.verdict_buttons.values(), self._c.note):
            control.setEnabled(region is not None and self._book is not None)
        self._c.previous.setEnabled(self._index > 0 or self._session.dataset is not None)
        self._c.next.setEnabled(
            0 <= self._index < len(self.regions) - 1 or self._session.dataset is not None
        )
        self._c.undo_button.setEnabled(bool(self._undo))
        self._show_queue()
        layer = review_layer(self._viewer)
        if layer is not None and region is not None:
            layer.selected_label = region.object_id
        if move and region is not None and self.method in self._session.method_names:
            self._focus(region)

    def _focus(self, region: FlaggedRegion) -> None:
        assert self._found is not None
        reference = self._session.method(self._found.method).layer
        focus_object(self._viewer, reference, region.centroid_voxel, region.bbox)

    def _show_verdict(self, record: ReviewRecord | None) -> None:
        self._c.group.setExclusive(False)
        for verdict, button in self._c.verdict_buttons.items():
            button.setChecked(record is not None and record.verdict == verdict)
        self._c.group.setExclusive(True)
        text = "Verdict: —" if record is None else f"Verdict: <b>{record.verdict}</b>"
        self._c.current.setText(text)

    def _show_position(self, region: FlaggedRegion | None) -> None:
        method = self._c.method.currentText()  # the blind name in blind review
        self._c.position.setText(
            position_text(self._found, region, self._index, len(self.regions), method)
        )

    def _show_dispute(self, region: FlaggedRegion | None) -> None:
        found = self._found
        where = ("", "") if found is None else (found.case or "", found.method)
        item = self.mode.dispute(region, case=where[0], method=where[1])
        self._c.readers.setText(readers_text(item))
        self._c.readers.setVisible(self._adjudication is not None)

    def _say(self, text: str) -> None:
        """Show a message in the panel (until the next move) and in napari's status bar."""
        self._c.queue_label.setText(text)
        self._viewer.status = text

    def _show_progress(self) -> None:
        self._c.progress.setText(progress_text(self._verdicts.values(), len(self.regions)))
