"""What a review walks and shows: an open read, a blind read, an adjudication. Qt-free.

A reading session is in one of three modes; each decides which regions are walked, in
which order, over which cases, and which stored verdicts it shows as "already judged":

* **open** (the default): every flagged region, highest max score first; every stored
  verdict of the case and method;
* **blind** (a seed): the same regions, shuffled with the seed; only verdicts given in
  blind review (``blind_seed`` set) count, so a region judged earlier with the method's
  name in view shows as unreviewed, with no note, and is read again blind;
* **adjudication** (an :class:`~napari_mood.services.adjudication.AdjudicationList`): only
  the regions readers disagreed on, over the cases holding one; only adjudicated
  verdicts (``adjudication`` set) count. Blind as well when the seed is set.

Every verdict is a review-file row like any other, marked with the mode it was given in
(``blind_seed``, ``adjudication``: :meth:`ReviewMode.tag_of`).

Examples
--------
>>> from napari_mood.core.regions import FlaggedRegion
>>> from napari_mood.services.review import review_record
>>> region = FlaggedRegion(1, 8, None, (1.0,), ((0, 3),), 0.9, 0.7, True)
>>> seen = review_record(region, case="c", method="m", threshold=0.5,
...                      centroid_world_mm=(1.0,), verdict="true finding")
>>> ReviewMode().stored([seen]) == (seen,), ReviewMode(seed=7).stored([seen])
(True, ())
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from napari_mood.core.regions import FlaggedRegion
from napari_mood.services.adjudication import AdjudicationItem, AdjudicationList
from napari_mood.services.review import ReviewRecord
from napari_mood.services.review_queue import ReviewQueue, region_order
from napari_mood.services.review_regions import FoundRegions

__all__ = ["ReviewMode"]


@dataclass(frozen=True)
class ReviewMode:
    """The mode of a review (module docstring): blind with ``seed``, adjudicating a list."""

    seed: int | None = None
    adjudication: AdjudicationList | None = None

    @property
    def blind(self) -> bool:
        """Whether the method's name is hidden."""
        return self.seed is not None

    @property
    def tag(self) -> str:
        """``"open"``, ``"blind"``, ``"adjudication"`` or ``"blind adjudication"``."""
        return self._tag(blind=self.blind, adjudication=self.adjudication is not None)

    @staticmethod
    def tag_of(record: ReviewRecord) -> str:
        """Return the :attr:`tag` of the mode ``record`` was given in.

        Parameters
        ----------
        record : ReviewRecord
            A stored verdict.

        Returns
        -------
        str
            The mode's tag.
        """
        return ReviewMode._tag(
            blind=record.blind_seed is not None, adjudication=record.adjudication
        )

    @staticmethod
    def _tag(*, blind: bool, adjudication: bool) -> str:
        words = ("blind",) * blind + ("adjudication",) * adjudication
        return " ".join(words) or "open"

    def shows(self, record: ReviewRecord) -> bool:
        """Whether a stored verdict counts as "judged" in this mode.

        Parameters
        ----------
        record : ReviewRecord
            A stored verdict.

        Returns
        -------
        bool
            Whether the region counts as judged.
        """
        if self.adjudication is not None:
            return record.adjudication
        return not self.blind or (record.blind_seed is not None and not record.adjudication)

    def stored(self, records: Iterable[ReviewRecord]) -> tuple[ReviewRecord, ...]:
        """Return the stored verdicts this mode shows.

        Parameters
        ----------
        records : iterable of ReviewRecord
            The stored verdicts.

        Returns
        -------
        tuple of ReviewRecord
            Those shown, in order.
        """
        return tuple(r for r in records if self.shows(r))

    def regions(self, found: FoundRegions) -> tuple[FlaggedRegion, ...]:
        """Return the regions walked, in review order (shuffled in blind review).

        Parameters
        ----------
        found : FoundRegions
            The regions of the method on the case.

        Returns
        -------
        tuple of FlaggedRegion
            The regions to walk (only the disputed ones in adjudication).
        """
        case = found.case or ""
        regions = found.regions
        if self.adjudication is not None:
            regions = self.adjudication.regions(regions, case=case, method=found.method)
        order = region_order(len(regions), seed=self.seed, case=case, method=found.method)
        return tuple(regions[i] for i in order)

    def queue(self, queue: ReviewQueue, *, method: str) -> ReviewQueue:
        """Return the cases walked: in adjudication only those with a disputed region.

        Parameters
        ----------
        queue : ReviewQueue
            The cases of the dataset.
        method : str
            The method reviewed.

        Returns
        -------
        ReviewQueue
            The cases to walk.
        """
        if self.adjudication is None:
            return queue
        return self.adjudication.restrict(queue, method=method)

    def dispute(
        self, region: FlaggedRegion | None, *, case: str, method: str
    ) -> AdjudicationItem | None:
        """In adjudication, what the readers said of ``region``.

        Parameters
        ----------
        region : FlaggedRegion or None
            The region shown.
        case, method : str
            The case and method shown.

        Returns
        -------
        AdjudicationItem or None
            The readers' verdicts, or None outside adjudication.
        """
        if self.adjudication is None or region is None:
            return None
        return self.adjudication.item_of(region, case=case, method=method)
