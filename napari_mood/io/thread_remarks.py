"""Warnings and nibabel's log records, collected per thread.

nibabel reports a doubtful header in two ways: a log record on ``nibabel.global`` and,
now and then, a warning. Either is printed without the file's name, so the readers
collect both and re-emit them naming the file (:func:`napari_mood.io.errors.warn_input`).

A case's files are read in threads (:mod:`napari_mood.io.case`), and neither logging's
handlers nor ``warnings.catch_warnings`` belong to a thread: ``catch_warnings`` swaps
process-wide state, so two readers entering and leaving it in an interleaved order lose
warnings, hand one file's warning to another file's list, or leave a dead recorder in
place of the command line's warning printer. :func:`thread_remarks` therefore installs
one handler and one ``showwarning`` for as long as any thread reads; each hands a message
to the list of the thread that raised it, and passes a warning raised by any other thread
(the main thread warning about another file meanwhile) on to the previous handler.
The evaluation engine collects a case's warnings the same way (dask's workers run cases
in threads).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

__all__ = ["Remark", "carried", "thread_remarks"]

_LOGGER = "nibabel.global"
# while any thread reads: every warning reaches `showwarning` (never "error", "ignore" or
# shown once per place, whatever the filters say); removed with the last reader
_ALWAYS = ("always", None, Warning, None, 0)


Remark = tuple[str, "type[Warning] | None"]
"""A message and its warning category (None: a nibabel log record)."""


class _Collecting(threading.local):
    messages: list[Remark] | None = None


class _Installed:
    """What is replaced while any thread reads, and what to put back after the last."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.readers = 0
        self.handlers: list[logging.Handler] = []
        self.showwarning: Any = None


_T = TypeVar("_T")
_LOCAL = _Collecting()
_STATE = _Installed()


@contextlib.contextmanager
def thread_remarks() -> Iterator[list[Remark]]:
    """Collect the warnings and nibabel's log records of this thread while the block runs.

    Every warning raised in this thread is collected (whatever the filters say), and
    nothing raised in another thread.

    Yields
    ------
    list of Remark
        ``(message, category)`` in order (category None for a log record); filled while
        the block runs.

    Examples
    --------
    >>> import logging
    >>> with thread_remarks() as said:
    ...     logging.getLogger("nibabel.global").warning("qform_code 1234 not valid")
    >>> said
    [('qform_code 1234 not valid', None)]
    """
    messages: list[Remark] = []
    _enter()
    outer, _LOCAL.messages = _LOCAL.messages, messages
    try:
        yield messages
    finally:
        _LOCAL.messages = outer
        _leave()


def carried(job: Callable[[], _T]) -> Callable[[], _T]:
    """Return ``job`` made to report where the calling thread's remarks go.

    A job handed to another thread (a case's files read in a thread pool) reports its
    warnings into the collection of the thread that handed it over, as it would have
    had it run there.

    Parameters
    ----------
    job : callable
        What the other thread runs.

    Returns
    -------
    callable
        ``job``, collecting into this thread's current :func:`thread_remarks` list.
    """
    target = _LOCAL.messages

    def run() -> _T:
        outer, _LOCAL.messages = _LOCAL.messages, target
        try:
            return job()
        finally:
            _LOCAL.messages = outer

    return run


def _enter() -> None:
    with _STATE.lock:
        if _STATE.readers == 0:
            logger = logging.getLogger(_LOGGER)
            _STATE.handlers, logger.handlers = logger.handlers, [_HANDLER]
            _STATE.showwarning, warnings.showwarning = warnings.showwarning, _show
            _filters().insert(0, _ALWAYS)
            warnings._filters_mutated()  # type: ignore[attr-defined]  # as simplefilter does
        _STATE.readers += 1


def _leave() -> None:
    with _STATE.lock:
        _STATE.readers -= 1
        if _STATE.readers:
            return
        logging.getLogger(_LOGGER).handlers = _STATE.handlers
        if warnings.showwarning is _show:  # else someone set their own since: leave it
            warnings.showwarning = _STATE.showwarning
        with contextlib.suppress(ValueError):  # a catch_warnings that ended put its list back
            _filters().remove(_ALWAYS)
        warnings._filters_mutated()  # type: ignore[attr-defined]


def _show(
    message: Any, category: Any, filename: Any, lineno: Any, file: Any = None, line: Any = None
) -> None:
    """``warnings.showwarning`` while readers run: to the reading thread, else passed on."""
    messages = _LOCAL.messages
    if messages is not None:
        messages.append((str(message), category))
    elif _STATE.showwarning is not None:
        _STATE.showwarning(message, category, filename, lineno, file, line)


def _filters() -> list[Any]:
    """Return the filter list in force now (``catch_warnings`` swaps the list object)."""
    return cast("list[Any]", warnings.filters)


class _ThreadHandler(logging.Handler):
    """Hands a nibabel record to the collecting list of the thread that logged it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        messages = _LOCAL.messages
        if messages is not None:
            messages.append((record.getMessage(), None))


_HANDLER = _ThreadHandler()
