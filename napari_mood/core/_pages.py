"""Memory for the large arrays a case keeps: filled once, then read many times.

numpy asks Linux for transparent huge pages for every block of 4 MiB or more
(``madvise(MADV_HUGEPAGE)``). Under the kernel's common setting (``enabled`` and ``defrag``
both ``madvise``), each such 2 MiB page is made by *direct compaction* when no free one is
at hand, which is the rule right after a case's files were read (the page cache holds
them). Measured on a 512^3 map read into its float16 array (256 MiB): 0.70 s of system time
with numpy's allocation, 0.24 s on an anonymous mapping of small pages (of 2.3 s and 1.9 s
to read the file); reading the array afterwards took the same time either way (a max over
it: 10 ms). Opening a 512^3 case with four maps in the viewer, five alternating runs each:
4.3-4.9 s of system time before, 2.5-3.7 s with the scan, maps and pyramid levels here;
the maps were drawn after 11.3-13.1 s (median 11.5) before, 10.4-12.0 s (median 11.3).

Short-lived work arrays keep numpy's huge pages, which pay off there: a labelling of a
512^3 map (the objects of one method, whose work arrays are freed and made again) took
1.68-1.78 s with them and 2.08-2.12 s with every numpy block on small pages
(``NUMPY_MADVISE_HUGEPAGE=0``).
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
