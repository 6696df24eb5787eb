"""Memory layout: C-ordered copies of column-major (NIfTI) volumes, made tile by tile.

NIfTI stores the first axis fastest, so a volume read from disk is Fortran-ordered.
cc3d numbers objects in C raster order only when it is given a C-ordered volume, and
element-wise work between a C-ordered label image and a Fortran-ordered score map walks
one of them across memory. ``np.ascontiguousarray`` on a Fortran volume reads one element
per cache line (2 s for a 512^3 uint16 map here); copying tiles that fit in the cache is
4-8x faster and gives the same array.
"""

from __future__ import annotations

import numpy as np

__all__ = ["c_contiguous"]

# Tile edges along (axis 0, axis 1, axis 2): a 128 x 8 x 128 tile of a Fortran volume is
# 128 contiguous elements along axis 0 read once per (axis 1, axis 2) pair, written as
# 128-element rows along axis 2: both sides stay in the cache (256 KiB of uint16).
_TILE = (128, 8, 128)


def c_contiguous(arr: np.ndarray) -> np.ndarray:
    """Return ``arr`` as a C-contiguous array (itself when it already is one).

    Equal to ``np.ascontiguousarray(arr)``; a 3-D array whose first axis is its fastest
    (a Fortran-ordered volume or a crop of one) is copied tile by tile.

    Examples
    --------
    >>> f = np.asfortranarray(np.arange(24).reshape(2, 3, 4))
    >>> c = c_contiguous(f)
    >>> c.flags.c_contiguous, bool((c == f).all())
    (True, True)
    >>> c_contiguous(c) is c
    True
    """
    if arr.flags.c_contiguous:
        return arr
    if arr.ndim != 3 or abs(arr.strides[0]) >= abs(arr.strides[2]):
        return np.ascontiguousarray(arr)
    out = np.empty(arr.shape, dtype=arr.dtype)
    (n0, n1, n2), (t0, t1, t2) = arr.shape, _TILE
    for i in range(0, n0, t0):
        for j in range(0, n1, t1):
            for k in range(0, n2, t2):
                out[i : i + t0, j : j + t1, k : k + t2] = arr[i : i + t0, j : j + t1, k : k + t2]
    return out
