"""What every part of the review panel shares: its state and what it reads of it.

The review panel (:class:`~.review.ReviewWidget`) is composed of parts, one concept each:
the regions under review (:mod:`.review`), the case queue (:mod:`.review_cases`), the
verdicts and the review file (:mod:`.review_verdicts`), notes (:mod:`.review_notes`),
blind review, adjudication and "only this method" (:mod:`.review_blind`), and keys
(:mod:`.review_keys`). :class:`ReviewPart` declares the state they share and the
read-only views of it; a part calls another part's steps through the names declared here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qtpy.QtCore import QTimer

from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood._napari.widgets.review_controls import ReviewControls
from napari_mood._napari.widgets.review_files import ReviewFiles
from napari_mood._napari.widgets.review_keys import PanelKeys
from napari_mood._napari.widgets.review_view import ReviewView
from napari_mood._napari.widgets.worker import LatestWorker
from napari_mood.services.adjudication import AdjudicationList
from napari_mood.services.review import ReviewRecord
from napari_mood.services.review_mode import ReviewMode
from napari_mood.services.review_queue import ReviewQueue
from napari_mood.services.review_regions import FlaggedRegion, FoundRegions
from napari_mood.services.review_store import ReviewFile

__all__ = ["ReviewPart"]


class ReviewPart(MoodPanel):
    """The review panel's shared state (set in :class:`~.review.ReviewWidget`)."""

    _found: FoundRegions | None
    _regions: tuple[FlaggedRegion, ...]  # in review order
    _index: int
    _drafts: dict[tuple[str, str, int, str], str]  # (case, method, id, mode) -> note
    _undo: list[tuple[ReviewRecord, ReviewRecord | None]]
    _seed: int | None  # blind review seed
    _adjudication: AdjudicationList | None  # the disputes walked
    _queue: ReviewQueue | None
    _enter_last: bool  # a case opened by stepping back: start at its last region
    _verdicts: dict[int, ReviewRecord]
    _files: ReviewFiles
    _view: ReviewView
    _c: ReviewControls
    _keys: PanelKeys
    _worker: LatestWorker  # the regions search
    _opener: LatestWorker  # the next case's reading
    _opening: str | None  # the case the opener reads (the queue steps on from it)
    _opened_by_verdict: bool  # it opens because a verdict went past the last region
    _note_timer: QTimer
    _view_timer: QTimer

    # -- what the parts read ----------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Whether regions are being searched."""
        return self._worker.busy

    @property
    def method(self) -> str | None:
        """The method of the regions shown."""
        return None if self._found is None else self._found.method

    @property
    def regions_case(self) -> str | None:
        """The case whose regions the panel describes (None while it describes none)."""
        return None if self._found is None else self._found.case

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

    @property
    def _book(self) -> ReviewFile | None:
        return self._files.book

    def _chosen_method(self) -> str:
        data = self._c.method.currentData()
        return data if isinstance(data, str) else ""

    def _say(self, text: str) -> None:
        """Show a message in the panel (until the next move) and in napari's status bar."""
        self._c.queue_label.setText(text)
        self._viewer.status = text

    # -- steps of other parts (defined by the parts) ------------------------------------

    def _show_current(self, *, move: bool = True) -> None:
        raise NotImplementedError

    def _leave_region(self) -> None:
        raise NotImplementedError

    def _not_shown_yet(self) -> str:
        raise NotImplementedError

    def _save_note(self) -> None:
        raise NotImplementedError

    def _draft_key(
        self, object_id: int, record: ReviewRecord | None = None
    ) -> tuple[str, str, int, str]:
        raise NotImplementedError

    def _match_verdicts(self) -> None:
        raise NotImplementedError

    def _save(self, record: ReviewRecord, *, replaces: ReviewRecord | None) -> bool:
        raise NotImplementedError

    def _schedule(self) -> None:
        raise NotImplementedError

    def _apply_view(self) -> None:
        raise NotImplementedError

    def _refresh_methods(self) -> None:
        raise NotImplementedError

    def _on_worker_result(self, outcome: tuple[FoundRegions, Any]) -> None:
        raise NotImplementedError

    def select_method(self, name: str) -> None:
        raise NotImplementedError

    def step_case(self, delta: int, *, by_verdict: bool = False) -> bool:
        raise NotImplementedError

    def go_to(self, index: int) -> None:
        raise NotImplementedError

    def step(self, delta: int, *, by_verdict: bool = False) -> None:
        raise NotImplementedError
