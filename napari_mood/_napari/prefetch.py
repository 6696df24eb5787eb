"""The next case read ahead, while the reader looks at the current one.

The review queue and the dataset browser know which case the reader will most likely
open next (the next one in the queue, the next row of the table). :func:`prefetch_for`
gives the viewer's one :class:`CasePrefetch`: :meth:`CasePrefetch.start` reads that case
in a background thread (scan, GT, maps and their display levels: everything
:func:`~napari_mood._napari.reader.load_case_layers` makes); :meth:`CasePrefetch.load`,
the opener's worker job, hands it over when it is the case asked for and reads the asked
case otherwise; :meth:`CasePrefetch.take` hands a case read ahead over at once, on the
main thread (no worker round trip: the case is shown in the same event-loop turn as the
key press). One case is held ahead at most (at 256^3 about 200 MB).

What the panels need of the next case is made ahead too: a panel registers a job
(:meth:`CasePrefetch.add_job`; the review panel: :func:`review_regions_job`, the flagged
regions of the method under review) that runs in the same thread on the case read ahead,
and finds its result with :meth:`CasePrefetch.result` once that case is shown.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from napari_mood._napari.helper_layers import shown_with
from napari_mood._napari.layers import METADATA_KEY, gt_truth
from napari_mood._napari.reader import LoadedCase, load_case_layers
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset
from napari_mood.services.review_regions import RegionScope, find_regions
from napari_mood.services.snapshots import MapSnapshot

__all__ = ["REVIEW_REGIONS", "AheadJob", "CasePrefetch", "prefetch_for", "review_regions_job"]

AheadJob = Callable[[LoadedCase], Any]
"""A panel's job on a case read ahead (run in the prefetch thread; no Qt, no viewer)."""

_BY_SESSION: weakref.WeakKeyDictionary[Any, CasePrefetch] = weakref.WeakKeyDictionary()


def prefetch_for(session: Any) -> CasePrefetch:
    """Return the one :class:`CasePrefetch` of a viewer's session (shared by its panels)."""
    prefetch = _BY_SESSION.get(session)
    if prefetch is None:
        prefetch = _BY_SESSION[session] = CasePrefetch()
    return prefetch


def _key(dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]) -> Hashable:
    return (dataset.root, case, tuple((name, m.path) for name, m in methods.items()))


def _read_ahead(
    dataset: MoodDataset,
    case: str,
    methods: Mapping[str, MethodFolder],
    jobs: Mapping[str, AheadJob],
) -> tuple[LoadedCase, dict[str, Any]]:
    """Read the case, then run the panels' jobs on it.

    A job refusing the case (ValueError, e.g. a map the core refuses) leaves no result:
    the panel then runs its own job once the case is shown, and reports that error.
    """
    loaded = load_case_layers(dataset, case, methods)
    results: dict[str, Any] = {}
    for name, job in jobs.items():
        try:
            results[name] = job(loaded)
        except ValueError:
            continue
    return loaded, results


class CasePrefetch:
    """At most one case read ahead in a background thread."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="napari-mood-prefetch")
        self._key: Hashable = None
        self._future: Future[tuple[LoadedCase, dict[str, Any]]] | None = None
        self._lock = threading.Lock()  # start/drop on the main thread, load in a worker
        self._jobs: dict[str, Callable[[], AheadJob | None]] = {}
        self._results: tuple[str, dict[str, Any]] = ("", {})  # of the case handed over

    def add_job(self, name: str, prepare: Callable[[], AheadJob | None]) -> None:
        """Register a job to run on each case read ahead.

        Make something of each case read ahead: ``prepare()`` (on the main thread, when
        a read ahead starts) returns the job to run on that case, or None for none.
        """
        self._jobs[name] = prepare

    def remove_job(self, name: str) -> None:
        """Stop making ``name`` ahead (a panel closed)."""
        self._jobs.pop(name, None)

    def result(self, name: str, case: str | None) -> Any | None:
        """Return the result of job ``name`` on ``case``, if the read ahead made one.

        The result of job ``name`` on ``case``, when that case was handed over read
        ahead and the job gave one (it stays until the next case is handed over).
        """
        held_case, results = self._results
        return results.get(name) if case is not None and case == held_case else None

    @property
    def case(self) -> str | None:
        """The case held or being read ahead, if any."""
        return None if self._key is None else self._key[1]  # type: ignore[index]

    @property
    def ready(self) -> bool:
        """Whether the case read ahead is read (False when there is none)."""
        return self._future is not None and self._future.done()

    def start(self, dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]) -> None:
        """Read ``case`` ahead (dropping a case read ahead before, unless it is this one)."""
        key = _key(dataset, case, methods)
        with self._lock:
            if key == self._key:
                return
            self._drop()
            self._key = key
            jobs = {name: job for name, prepare in self._jobs.items() if (job := prepare())}
            self._future = self._pool.submit(_read_ahead, dataset, case, dict(methods), jobs)

    def take(
        self, dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]
    ) -> LoadedCase | None:
        """Return the case read ahead, if it is the one asked for and ready.

        The case, handed over now when it was read ahead and is read; else None
        (nothing changes: :meth:`load` in a worker then hands it over or reads it).
        """
        with self._lock:
            future = self._future
            if future is None or self._key != _key(dataset, case, methods) or not future.done():
                return None
            if future.cancelled() or future.exception() is not None:
                return None  # load() raises it in the worker, as reading it now would
            self._future, self._key = None, None
        return self._hand_over(case, future)

    def open(
        self,
        opener: Any,
        shown: Callable[[LoadedCase], None],
        dataset: MoodDataset,
        case: str,
        methods: Mapping[str, MethodFolder],
    ) -> None:
        """Show ``case``, from the read ahead when possible.

        Show ``case``: at once when read ahead (no worker round trip), else read by
        ``opener`` (a :class:`LatestWorker` whose result goes to ``shown``).
        """
        ahead = self.take(dataset, case, methods)
        if ahead is None:
            opener.submit(self.load, dataset, case, methods)
        else:
            opener.cancel()
            shown(ahead)

    def load(
        self, dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]
    ) -> LoadedCase:
        """Return the case (a worker job): handed over when read ahead, else read now.

        A case read ahead is handed over once; an error met while reading it ahead is
        raised here, as reading it now would.
        """
        with self._lock:
            future, key = self._future, self._key
            self._future, self._key = None, None
        if future is not None and key == _key(dataset, case, methods):
            return self._hand_over(case, future)
        if future is not None:
            future.cancel()
        self._results = ("", {})
        return load_case_layers(dataset, case, methods)

    def _hand_over(self, case: str, future: Future[tuple[LoadedCase, dict[str, Any]]]) -> Any:
        loaded, results = future.result()
        self._results = (case, results)
        return loaded

    def drop(self) -> None:
        """Forget the case read ahead (a read under way finishes and is thrown away)."""
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._future is not None:
            self._future.cancel()
        self._key, self._future = None, None


REVIEW_REGIONS = "review regions"
"""The review panel's job name: the flagged regions of the method it reviews."""

_REGIONS_SHOWN = shown_with(find_regions, lambda found: found.labels)


def review_regions_job(method: str, threshold: float, scope: RegionScope) -> AheadJob:
    """Job that finds the review panel's regions on a case read ahead.

    The review panel's job on a case read ahead: ``method``'s flagged regions at
    ``threshold`` (the one its layer keeps across cases), as the panel's own worker
    returns them (:func:`~napari_mood.services.review_regions.find_regions` with the
    labels' display levels), with ``scope``: ``(scope, (found, levels))``. None when the
    case has no map of ``method``.
    """

    def job(loaded: LoadedCase) -> Any:
        tuples = {_layer_key(kwargs): (data, kwargs) for data, kwargs, _ in loaded.layers}
        if ("method", method) not in tuples:
            return None
        data, kwargs = tuples[("method", method)]
        info = kwargs["metadata"][METADATA_KEY]
        spacing = tuple(abs(float(x)) for x in kwargs.get("scale", ()))
        source = None if info.get("path") is None else str(info["path"])
        color = info.get("color") or ""
        snapshot = MapSnapshot(method, _level0(data), threshold, color, spacing, source)
        gt = tuples.get(("gt", None))
        truth = None if gt is None else gt_truth(_level0(gt[0]))
        return scope, _REGIONS_SHOWN(snapshot, truth, case=loaded.case, scope=scope)

    return job


def _layer_key(kwargs: Mapping[str, Any]) -> tuple[Any, Any]:
    info = kwargs.get("metadata", {}).get(METADATA_KEY, {})
    return info.get("role"), info.get("method") if info.get("role") == "method" else None


def _level0(data: Any) -> Any:
    return data[0] if isinstance(data, list | tuple) else data
