"""Give large freed blocks back to the system while the viewer runs (glibc only).

The viewer's threads allocate and free many blocks of a few MB to a few hundred MB:
chunked reading, labelling, histograms, pyramids. glibc serves a block from its own
``mmap`` only above a threshold that it *raises* each time such a block is freed (up to
32 MiB), after which same-sized blocks come from the threads' heaps, and freed heap
memory stays resident, which raises the peak resident memory while a case opens
(``benchmarks/bench_viewer.py`` measures it).

:func:`fix_mmap_threshold` sets that threshold once (``mallopt(M_MMAP_THRESHOLD)``,
which also stops its adjustment), as dask recommends ``MALLOC_TRIM_THRESHOLD_`` for its
workers. Blocks under 4 MiB (the chunk-sized work arrays, reused at once) stay on the
heap. It is called by :func:`napari_mood._napari.viewer.build_viewer` (``napari-mood
view`` / ``demo``), not when the plugin is loaded into someone else's napari process.
A threshold the user set (``MALLOC_MMAP_THRESHOLD_``, or ``glibc.malloc.mmap_threshold``
in ``GLIBC_TUNABLES``) is left to win.

:func:`release_free_heap` gives the heap's free pages back (``malloc_trim(0)``, a few
milliseconds): a labelling frees thousands of blocks under 4 MiB (each slab's runs and
statistics) between the ones it keeps, and these stay resident otherwise. The session's
labelling cache calls it after each labelling, so each later labelling starts from the
memory a trim at the end would leave.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["MMAP_THRESHOLD", "fix_mmap_threshold", "release_free_heap"]

MMAP_THRESHOLD = 4 << 20
"""Bytes from which a block gets its own mapping (returned to the system when freed)."""
_M_MMAP_THRESHOLD = -3  # glibc <malloc.h>


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """Serve blocks of ``threshold`` bytes or more from their own mappings, for good.

    Returns
    -------
    bool
        Whether the setting was made: False without glibc's ``mallopt`` (macOS, Windows,
        musl) or when the user set a threshold in the environment.
    """
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if "MALLOC_MMAP_THRESHOLD_" in os.environ or "malloc.mmap_threshold" in tunables:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, int(threshold)))


def release_free_heap() -> bool:
    """Give the free pages of every heap back to the system (glibc's ``malloc_trim``).

    Returns
    -------
    bool
        Whether memory was given back (False without glibc).
    """
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return bool(trim(0))
