"""The review's case queue: Next past the last region opens the next case.

The queue (Qt-free: :mod:`napari_mood.services.review_queue`) walks the dataset's cases
(shuffled in blind review); the next case is read ahead while this one is reviewed, its
regions found in the reading thread (:mod:`napari_mood._napari.prefetch`) and shown at
once when they are the ones asked for.
"""

from __future__ import annotations

from napari_mood._napari.prefetch import (
    REVIEW_REGIONS,
    AheadJob,
    prefetch_for,
    review_regions_job,
)
from napari_mood._napari.reader import LoadedCase
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.review_state import ReviewPart
from napari_mood._napari.widgets.review_texts import SCOPES
from napari_mood.io.errors import MoodInputError
from napari_mood.services.review_queue import (
    ReviewQueue,
    review_queue,
)

__all__ = ["ReviewCases"]


class ReviewCases(ReviewPart):
    """Open the previous / next case of the queue; use the regions read ahead."""

    def step_case(self, delta: int, *, by_verdict: bool = False) -> bool:
        """Open the case ``delta`` places further in the queue; return whether one opens.

        While a case is still being read, the step counts from that case, and the one
        being read is never shown (stale: the opener drops it), so a reader pressing
        faster than cases are read skips the cases in between. ``by_verdict``: a verdict
        on the last region opens it (a forward step meanwhile does not skip it).
        """
        queue = self._ensure_queue()
        case = None if queue is None else queue.step(self._target_case(), delta)
        if queue is None or case is None:
            return False
        self._leave_region()
        self._enter_last = delta < 0
        self._opening = case
        self._opened_by_verdict = by_verdict
        self._c.queue_label.setText(f"Opening case {queue.position(case)[0]}…")
        prefetch_for(self._session).open(
            self._opener, self._on_case_loaded, queue.dataset, case, queue.methods
        )
        return True

    @property
    def opening(self) -> str | None:
        """The case being read to be shown next (None when none is)."""
        return self._opening if self._opener.busy else None

    def _target_case(self) -> str | None:
        """Return the case the queue steps from: the one being opened, else the one shown."""
        return self.opening or self._session.case

    def _not_shown_yet(self) -> str:
        """Say why no verdict can be recorded now ("" when one can).

        A verdict waits until the case asked for is shown and its regions are found: the
        region it would go to must be one of the case every pane shows.
        """
        opening, case, found = self.opening, self._session.case, self._found
        if opening is not None:
            return f"No verdict recorded: {opening} is still opening."
        if (found is None and self.busy) or (found is not None and found.case != case):
            return f"No verdict recorded: the regions of {case} are still being found."
        return ""

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
        self._opening = None
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

    def _regions_job(self) -> AheadJob | None:
        """Return the job the case read ahead runs for this panel.

        Its regions of the method under review, at its threshold and scope (see
        :mod:`.prefetch`); none while the panel is out of sight (it searches when shown).
        """
        name = self._chosen_method()
        if name not in self._session.method_names or not self.in_sight():
            return None
        scope = SCOPES[self._c.scope.currentIndex()][1]
        return review_regions_job(name, self._session.threshold(name), scope)

    def _regions_ahead(self) -> bool:
        """Show the regions found while this case was read ahead, if they were asked for.

        They are shown when method, threshold and scope match; return whether they
        were (no search then).
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
