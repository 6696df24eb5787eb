"""Memory for the large arrays a case keeps: filled once, then read many times.

numpy asks Linux for transparent huge pages for every block of 4 MiB or more
(``madvise(MADV_HUGEPAGE)``). Under the kernel's common setting (``enabled`` and ``defrag``
both ``madvise``), each such 2 MiB page is made by *direct compaction* when no free one is
at hand, which is the rule right after a case's files were read (the page cache holds
them). For an array filled once and kept (a case's scan, maps and pyramid levels) that
compaction is system time spent for nothing: reading it afterwards is as fast on small
pages. So those arrays live on an anonymous mapping of small pages (:func:`empty_kept`).

Short-lived work arrays keep numpy's huge pages, which pay off there: a labelling frees
its work arrays and makes them again, and reuses the huge pages it was given
(``NUMPY_MADVISE_HUGEPAGE=0`` turns them off to compare; ``benchmarks/`` measures both).
"""

from __future__ import annotations

import mmap
import sys
from typing import Literal

import numpy as np
from numpy.typing import DTypeLike

__all__ = ["KEPT_MIN_BYTES", "empty_kept"]

KEPT_MIN_BYTES = 16 << 20
"""Arrays of fewer bytes come from numpy as usual (a few pages either way)."""


def empty_kept(
    shape: tuple[int, ...], dtype: DTypeLike, *, order: Literal["C", "F"] = "C"
) -> np.ndarray:
    """``np.empty``, on small pages for a large array the caller fills once and keeps.

    On Linux an array of :data:`KEPT_MIN_BYTES` or more lives in its own anonymous
    mapping (released with the array), which the kernel backs by its default pages, so
    filling it never waits for memory compaction (see the module docstring). Elsewhere,
    and for smaller arrays, this is ``np.empty``.

    Parameters
    ----------
    shape : tuple of int
        Array shape.
    dtype : dtype-like
        Element type.
    order : {"C", "F"}
        Memory order.

    Returns
    -------
    ndarray
        Uninitialised, writable, contiguous in ``order``.

    Examples
    --------
    >>> a = empty_kept((512, 512, 64), np.float16, order="F")
    >>> a.shape, a.dtype, a.flags.f_contiguous, a.flags.writeable
    ((512, 512, 64), dtype('float16'), True, True)
    """
    kind = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    nbytes = size * kind.itemsize
    if sys.platform != "linux" or nbytes < max(KEPT_MIN_BYTES, 1):
        return np.empty(shape, dtype=kind, order=order)
    pages = mmap.mmap(-1, nbytes)  # anonymous, private; unmapped with the last view
    return np.frombuffer(pages, dtype=kind, count=size).reshape(shape, order=order)
