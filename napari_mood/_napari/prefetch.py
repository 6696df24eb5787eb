"""The next case read ahead, while the reader looks at the current one.

The review queue and the dataset browser know which case the reader will most likely
open next (the next one in the queue, the next row of the table). :func:`prefetch_for`
gives the viewer's one :class:`CasePrefetch`: :meth:`CasePrefetch.start` reads that case
in a background thread (scan, GT, maps and their display levels: everything
:func:`~napari_mood._napari.reader.load_case_layers` makes); :meth:`CasePrefetch.load`,
the opener's worker job, hands it over when it is the case asked for and reads the asked
case otherwise. One case is held ahead at most (at 256^3 about 200 MB).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from napari_mood._napari.reader import LoadedCase, load_case_layers
from napari_mood.core.io import MethodFolder, MoodDataset

__all__ = ["CasePrefetch", "prefetch_for"]

_BY_SESSION: weakref.WeakKeyDictionary[Any, CasePrefetch] = weakref.WeakKeyDictionary()


def prefetch_for(session: Any) -> CasePrefetch:
    """The one :class:`CasePrefetch` of a viewer's session (shared by its panels)."""
    prefetch = _BY_SESSION.get(session)
    if prefetch is None:
        prefetch = _BY_SESSION[session] = CasePrefetch()
    return prefetch


def _key(dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]) -> Hashable:
    return (dataset.root, case, tuple((name, m.path) for name, m in methods.items()))


class CasePrefetch:
    """At most one case read ahead in a background thread."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="napari-mood-prefetch")
        self._key: Hashable = None
        self._future: Future[LoadedCase] | None = None
        self._lock = threading.Lock()  # start/drop on the main thread, load in a worker

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
            self._future = self._pool.submit(load_case_layers, dataset, case, dict(methods))

    def load(
        self, dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]
    ) -> LoadedCase:
        """The case (a worker job): handed over when read ahead, else read now.

        A case read ahead is handed over once; an error met while reading it ahead is
        raised here, as reading it now would.
        """
        with self._lock:
            future, key = self._future, self._key
            self._future, self._key = None, None
        if future is not None and key == _key(dataset, case, methods):
            return future.result()
        if future is not None:
            future.cancel()
        return load_case_layers(dataset, case, methods)

    def drop(self) -> None:
        """Forget the case read ahead (a read under way finishes and is thrown away)."""
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._future is not None:
            self._future.cancel()
        self._key, self._future = None, None
