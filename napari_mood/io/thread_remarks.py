"""nibabel's log records, collected per thread.

nibabel reports a doubtful header (``qform_code 1234 not valid``, ``sizeof_hdr should be
348``) as a log record on ``nibabel.global``, printed without the file's name. The
readers collect those records and re-emit them as warnings naming the file
(:func:`napari_mood.io.errors.warn_input`).

A case's files are read in threads (:mod:`napari_mood.io.case`), and logging's handlers
belong to no thread. So one filter stays on nibabel's logger for good: a record logged by
a thread inside :func:`thread_remarks` goes to that thread's list and no further; a
record of any other thread passes on to nibabel's handlers untouched. Nothing
process-wide is swapped while threads read: no handler list, and no ``warnings`` state
(``warnings.catch_warnings`` is process-wide in Python < 3.14; entered and left by
threads in an interleaved order, it loses warnings or strands a recorder in place of the
command line's printer, so the readers never use it).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

__all__ = ["thread_remarks"]

_LOGGER = "nibabel.global"


class _Collecting(threading.local):
    messages: list[str] | None = None


_LOCAL = _Collecting()


@contextlib.contextmanager
def thread_remarks() -> Iterator[list[str]]:
    """Collect nibabel's log records of this thread while the block runs.

    Yields
    ------
    list of str
        The messages, in order; filled while the block runs. Records logged by other
        threads meanwhile are not in it (they reach nibabel's handlers as usual).

    Examples
    --------
    >>> import logging
    >>> with thread_remarks() as said:
    ...     logging.getLogger("nibabel.global").warning("qform_code 1234 not valid")
    >>> said
    ['qform_code 1234 not valid']
    """
    messages: list[str] = []
    outer, _LOCAL.messages = _LOCAL.messages, messages
    try:
        yield messages
    finally:
        _LOCAL.messages = outer


class _ToCollectingThread(logging.Filter):
    """Hands a record to the collecting thread's list (and stops it), else lets it pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        messages = _LOCAL.messages
        if messages is None:
            return True
        if record.levelno >= logging.WARNING:
            messages.append(record.getMessage())
        return False


def _install() -> None:
    logger = logging.getLogger(_LOGGER)
    if not any(isinstance(f, _ToCollectingThread) for f in logger.filters):
        logger.addFilter(_ToCollectingThread())


_install()
