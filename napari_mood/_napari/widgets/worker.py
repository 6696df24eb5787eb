"""Run core computations off the Qt main thread and apply only the newest result.

Every dock widget uses :class:`LatestWorker`: ``submit(fn, *args)`` runs ``fn`` in a
napari thread worker; when it returns, ``on_result`` is called on the main thread, but
only if no newer request was submitted meanwhile (a generation counter drops stale
results, as ndv does). One request runs at a time: a request submitted while another
runs waits, and a newer one replaces it, so dragging a slider through ten values runs at
most two computations, never ten in parallel. Errors go to ``on_error`` (default:
napari's notification), never into a silent except.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from napari.qt.threading import create_worker

__all__ = ["LatestWorker", "all_idle"]

_ALL: weakref.WeakSet[LatestWorker] = weakref.WeakSet()


def all_idle() -> bool:
    """Whether no :class:`LatestWorker` has a request running or waiting."""
    return not any(worker.busy for worker in list(_ALL))


class LatestWorker:
    """Submit background computations; keep only the latest one's result.

    Parameters
    ----------
    on_result : callable(result)
        Called on the main thread with the newest request's result.
    on_error : callable(exception), optional
        Called on the main thread when the newest request raised.
    on_busy : callable(bool), optional
        Called with True when work starts and False when the newest request is done
        (e.g. to show a progress indicator).
    """

    def __init__(
        self,
        on_result: Callable[[Any], None],
        *,
        on_error: Callable[[BaseException], None] | None = None,
        on_busy: Callable[[bool], None] | None = None,
    ) -> None:
        self._on_result = on_result
        self._on_error = on_error or _notify_error
        self._on_busy = on_busy
        self._generation = 0
        self._running: Any = None
        self._waiting: tuple[int, Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None = None
        _ALL.add(self)

    @property
    def busy(self) -> bool:
        """Whether a request is running or waiting."""
        return self._running is not None or self._waiting is not None

    @property
    def generation(self) -> int:
        """Number of requests submitted so far."""
        return self._generation

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Run ``fn(*args, **kwargs)`` in a thread once the running request is done."""
        self._generation += 1
        was_busy = self.busy
        self._waiting = (self._generation, fn, args, kwargs)
        if self._running is None:
            self._start_waiting()
        if not was_busy and self._on_busy is not None:
            self._on_busy(True)

    def cancel(self) -> None:
        """Forget pending requests: the waiting one is dropped, running results ignored."""
        self._generation += 1
        self._waiting = None
        if self._running is None and self._on_busy is not None:
            self._on_busy(False)

    def _start_waiting(self) -> None:
        assert self._waiting is not None
        generation, fn, args, kwargs = self._waiting
        self._waiting = None
        job = _Job(fn, args, kwargs)
        # napari keeps every worker it made while a viewer is current (its task-status
        # list, never emptied): the worker holds only ``job``, emptied once it finished,
        # so a finished job keeps no array of an old case alive
        worker = create_worker(job, _start_thread=False)
        worker.returned.connect(lambda outcome: self._returned(generation, outcome))
        worker.finished.connect(lambda: self._finished(worker, job))
        self._running = worker
        worker.start()

    def _returned(self, generation: int, outcome: _Outcome) -> None:
        if generation != self._generation:
            return
        if outcome.error is not None:
            self._on_error(outcome.error)
        else:
            self._on_result(outcome.value)

    def _finished(self, worker: Any, job: _Job) -> None:
        job.release()
        if worker is not self._running:
            return
        self._running = None
        if self._waiting is not None:
            self._start_waiting()
        elif self._on_busy is not None:
            self._on_busy(False)


@dataclass(frozen=True)
class _Outcome:
    value: Any = None
    error: Exception | None = None


class _Job:
    """One request: ``fn(*args, **kwargs)`` run once; its arguments dropped by ``release``."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]):
        self._call: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None
        self._call = (fn, args, kwargs)

    def __call__(self) -> _Outcome:
        """Run the request; an exception is returned, for the main thread's error handler.

        Errors come back as values: napari's own ``errored`` handlers break on PySide6.
        """
        assert self._call is not None, "a job runs once"
        fn, args, kwargs = self._call
        try:
            return _Outcome(value=fn(*args, **kwargs))
        except Exception as error:  # handed to on_error on the main thread, never hidden
            return _Outcome(error=error)

    def release(self) -> None:
        """Forget the arguments (the arrays of the case the request was made for)."""
        self._call = None


def _notify_error(exc: BaseException) -> None:
    from napari.utils.notifications import show_error

    show_error(f"napari-mood: {exc}")
