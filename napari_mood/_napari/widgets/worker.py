"""Run core computations off the Qt main thread and apply only the newest result.

Every dock widget uses :class:`LatestWorker`: ``submit(fn, *args)`` runs ``fn`` in a
napari thread worker; when it returns, ``on_result`` is called on the main thread, but
only if no newer request was submitted meanwhile (a generation counter drops stale
results, as ndv does). Errors go to ``on_error`` (default: napari's notification), never
into a silent except.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from napari.qt.threading import create_worker

__all__ = ["LatestWorker"]


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
        self._workers: set[Any] = set()

    @property
    def busy(self) -> bool:
        """Whether a request is still running."""
        return bool(self._workers)

    @property
    def generation(self) -> int:
        """Number of requests submitted so far."""
        return self._generation

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` in a thread; return the napari worker."""
        self._generation += 1
        generation = self._generation
        # errors come back as values: napari's own ``errored`` handlers break on PySide6
        worker = create_worker(_capture, fn, args, kwargs, _start_thread=False)
        worker.returned.connect(lambda outcome: self._returned(generation, outcome))
        worker.finished.connect(lambda: self._finished(worker))
        self._workers.add(worker)
        if self._on_busy is not None:
            self._on_busy(True)
        worker.start()
        return worker

    def cancel(self) -> None:
        """Forget pending requests: their results will be dropped."""
        self._generation += 1

    def _returned(self, generation: int, outcome: _Outcome) -> None:
        if generation != self._generation:
            return
        if outcome.error is not None:
            self._on_error(outcome.error)
        else:
            self._on_result(outcome.value)

    def _finished(self, worker: Any) -> None:
        self._workers.discard(worker)
        if self._on_busy is not None and not self._workers:
            self._on_busy(False)


@dataclass(frozen=True)
class _Outcome:
    value: Any = None
    error: Exception | None = None


def _capture(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Outcome:
    """Run ``fn``; an exception is returned, for the main thread's error handler."""
    try:
        return _Outcome(value=fn(*args, **kwargs))
    except Exception as error:  # handed to on_error on the main thread, never hidden
        return _Outcome(error=error)


def _notify_error(exc: BaseException) -> None:
    from napari.utils.notifications import show_error

    show_error(f"napari-mood: {exc}")
