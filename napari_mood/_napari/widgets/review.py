"""Dock widget "Review flagged regions": judge a method's flagged regions one at a time.

Regions, ranking, the review file and the rule that brings verdicts back are Qt-free
(:mod:`napari_mood.services.review`, ``review_store``, ``review_queue``); this panel wires
controls to them. Regions are found in a worker whenever the threshold, the methods or
the case change; the current one is outlined (layer ``"Review: current region"``, role
``"review"``) and centred in every plane. Keys work anywhere in the window (floated panels
too, never in a text field) while the panel is shown (:mod:`.review_keys`), or its strip
in the reading layout, which hides the panels (:meth:`ReviewWidget.reading_strip`,
:mod:`.review_strip`); notes stay
with their region; Next past the last region opens the next case (the queue) and at the
end of the queue says so; "Only this method" and "Blind review" are
:mod:`.review_view`; the file is :mod:`.review_files`. README "Review flagged regions"
describes what a user sees.

The panel is composed of one part per concept (:mod:`.review_state` lists them); this
module holds the regions under review: searched, shown, stepped through.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from qtpy.QtCore import Qt
from qtpy.QtWidgets import QWidget

from napari_mood._napari._soon import call_soon
from napari_mood._napari.helper_layers import shown_with
from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.prefetch import (
    REVIEW_REGIONS,
    prefetch_for,
)
from napari_mood._napari.viewer import focus_object
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.review_blind import ReviewModes
from napari_mood._napari.widgets.review_cases import ReviewCases
from napari_mood._napari.widgets.review_controls import build_controls, lay_out
from napari_mood._napari.widgets.review_files import ReviewFiles
from napari_mood._napari.widgets.review_keys import (
    REVIEW_PRIORITY,
    PanelKeys,
    key_help,
    review_bindings,
)
from napari_mood._napari.widgets.review_notes import ReviewNotes
from napari_mood._napari.widgets.review_strip import ReviewStrip
from napari_mood._napari.widgets.review_texts import (
    AUTO_DELAY_MS,
    NOTE_DELAY_MS,
    REVIEW_LAYER_NAME,
    SCOPES,
    end_text,
    position_text,
    readers_text,
)
from napari_mood._napari.widgets.review_verdicts import ReviewVerdicts
from napari_mood._napari.widgets.review_view import ReviewView, review_layer, show_region_labels
from napari_mood.services.review_regions import FlaggedRegion, FoundRegions, find_regions

if TYPE_CHECKING:
    import napari

__all__ = ["REVIEW_LAYER_NAME", "ReviewWidget"]


_REGIONS_SHOWN = shown_with(find_regions, lambda found: found.labels)  # the worker job


class ReviewWidget(ReviewCases, ReviewVerdicts, ReviewNotes, ReviewModes):
    """Step through a method's flagged regions and record a verdict for each.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is reviewed.
    """

    UPDATE_DELAY_MS = AUTO_DELAY_MS

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._found = None
        self._regions = ()
        self._index = -1
        self._drafts = {}
        self._undo = []
        self._seed = None
        self._adjudication = None
        self._queue = None
        self._opening = None
        self._opened_by_verdict = False
        self._enter_last = False
        self._verdicts = {}
        self._strip: ReviewStrip | None = None  # the reading layout's, while it is shown
        self._files = ReviewFiles(self._session)
        self._stale = True  # regions to search once the panel is visible
        self._worker = self._lifetime.worker(self._on_worker_result, on_busy=self._on_worker_busy)
        self._opener = self._lifetime.worker(self._on_case_loaded)
        self._view = ReviewView(self._session, self)
        # the view follows the session after the layer-list event that changed it: napari
        # is half-way through it there (a viewer closing in its grid raised IndexError)
        self._view_timer = kit.single_shot(self, 0, self._apply_view)
        self._lifetime.at_end(self._on_end)
        prefetch_for(self._session).add_job(REVIEW_REGIONS, self._regions_job)
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
        self.watch_session(
            methods=self._on_session_methods_changed,
            threshold=self._on_session_threshold_changed,
            case=self._on_session_case_changed,
        )

    # -- regions ---------------------------------------------------------------------

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

    def go_to(self, index: int) -> None:
        """Show region ``index`` (clipped to the regions)."""
        if not self.regions:
            return
        self._leave_region()
        self._index = min(max(index, 0), len(self.regions) - 1)
        self._show_current()

    def step(self, delta: int, *, by_verdict: bool = False) -> None:
        """Show the region ``delta`` places further; past either end, the next case.

        While a case is being opened, a step opens the case after it instead (the one
        being read is skipped), except a forward step while a verdict's advance opens
        the next case: that case is the one this step asks for (never skipped unseen).
        ``by_verdict``: the step a verdict on the last region makes (auto-advance).
        """
        index = self._index + delta
        if self.opening is not None and delta > 0 and self._opened_by_verdict:
            self._say(f"{self.opening} is opening (the verdict went on to it).")
        elif self.opening is not None:
            self.step_case(1 if delta > 0 else -1)
        elif self.regions and 0 <= index < len(self.regions):
            self.go_to(index)
        elif not self._opener.busy and not self._worker.busy:
            if not self.step_case(1 if delta > 0 else -1, by_verdict=by_verdict):
                self._say(end_text(delta, self._queue, self._session.case))

    # -- session -> widget ----------------------------------------------------------

    def _on_session_methods_changed(self) -> None:
        self._refresh_methods()
        if self.method is not None and self.method not in self._session.method_names:
            self._save_note()
            self._found, self._regions, self._index, self._verdicts = None, (), -1, {}
            self._show_current(move=False)
        self._view_timer.start()
        self._schedule()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        if name == self._chosen_method():
            self._schedule()

    def _on_session_case_changed(self) -> None:
        layer = review_layer(self._viewer)
        if layer is not None and layer.metadata[METADATA_KEY].get("case") != self._session.case:
            self._viewer.layers.remove(layer)  # the old case's region outline
        self._forget_other_case()
        if self._files.follow_case():
            self._after_open()
        if self._queue is not None and self._queue.dataset.root != self._session.dataset:
            self._queue = None
        self._view_timer.start()
        self._schedule()
        if self.in_sight():  # made while the case was read ahead: shown at once
            call_soon(self._lifetime.guard(self._regions_ahead))

    def _forget_other_case(self) -> None:
        """Drop the regions of a case no longer shown (never described under another case)."""
        found = self._found
        if found is None or found.case == self._session.case:
            return
        self._leave_region()
        self._found, self._regions, self._index, self._verdicts = None, (), -1, {}
        self._show_current(move=False)
        if self._session.method_names:
            self._c.position.setText("Searching flagged regions…")

    def _schedule(self) -> None:
        """Search regions soon; out of sight (a tab behind), when the panel shows."""
        if self._session.method_names:
            self.request_update()

    def update_now(self) -> None:
        """Search the regions (see :meth:`run`)."""
        self.run()

    def on_shown(self, visible: bool) -> None:
        """Keys on while the panel's tab or its strip is shown; back to the region under review."""
        visible = visible or self.in_sight()
        self._keys.show(visible)
        region = self.current_region
        if visible and not self.stale and region is not None:
            if self.method in self._session.method_names:
                self._focus(region)

    # -- the reading layout's strip ---------------------------------------------------

    def in_sight(self) -> bool:
        """Whether the panel, or its strip in the reading layout, can be seen."""
        strip = self._strip
        return super().in_sight() or (strip is not None and kit.is_on_screen(strip))

    def reading_strip(self, parent: QWidget) -> ReviewStrip:
        """Make the review's strip for the reading layout (see :mod:`.review_strip`).

        Its controls are this panel's: a verdict clicked, a note typed there are recorded
        as here; while it is shown the review's keys work and its regions are searched.
        """
        strip = ReviewStrip(parent)
        for verdict, button in strip.verdict_buttons.items():
            button.clicked.connect(partial(self._on_verdict_clicked, verdict))
        strip.note.textEdited.connect(self._on_strip_note_edited)
        strip.note.editingFinished.connect(self._on_note_editing_finished)
        strip.note.returnPressed.connect(strip.note.clearFocus)  # the keys work again
        strip.shown.connect(self._on_strip_shown)
        strip.destroyed.connect(self._on_strip_destroyed)
        self._strip = strip
        strip.show_state(self._c)
        return strip

    def _on_strip_note_edited(self, text: str) -> None:
        self._c.note.setText(text)  # the panel's note is the one recorded
        self._on_note_edited(text)

    def _on_strip_shown(self, visible: bool) -> None:
        self._on_dock_visibility_changed(visible)

    def _on_strip_destroyed(self, *_: object) -> None:
        self._strip = None

    def _show_strip(self) -> None:
        if self._strip is not None:
            self._strip.show_state(self._c)

    # -- controls and results -------------------------------------------------------

    def _on_method_changed(self, text: str) -> None:
        self._leave_region()
        self._queue = None
        self._apply_view()
        self._schedule()

    def _on_end(self) -> None:
        prefetch_for(self._session).remove_job(REVIEW_REGIONS)
        self._view.restore(closing=True)
        self._keys.close()

    def _on_scope_changed(self, index: int) -> None:
        self._save_note()
        self._schedule()

    def _on_worker_busy(self, busy: bool) -> None:
        if busy and self._found is None:
            self._c.position.setText("Searching flagged regions…")
            self._show_strip()

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
        self._show_current(move=self.in_sight())

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
        self._show_strip()
        layer = review_layer(self._viewer)
        if layer is not None and region is not None:
            layer.selected_label = region.object_id
        if move and region is not None and self.method in self._session.method_names:
            self._focus(region)

    def _focus(self, region: FlaggedRegion) -> None:
        assert self._found is not None
        reference = self._session.method(self._found.method).layer
        focus_object(self._viewer, reference, region.centroid_voxel, region.bbox)

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
