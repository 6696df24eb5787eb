"""C-ordered copies (core._layout.c_contiguous): the rules the full mutation run left open.

Pins, against arrays written out by hand with numpy, that an array of more than three axes
is copied as ``np.ascontiguousarray`` copies it (the tiled copy is for 3-D volumes only),
even when its first axis is its fastest (a 4-D Fortran-ordered array).
"""

from __future__ import annotations

import numpy as np

from napari_mood.core._layout import c_contiguous


def test_a_four_d_fortran_array_is_copied_in_c_order():
    # 0..23 in C order, stored Fortran-ordered: the copy is C-ordered with the same values
    values = np.arange(24).reshape(2, 3, 2, 2)
    fortran = np.asfortranarray(values)
    assert abs(fortran.strides[0]) < abs(fortran.strides[2])  # first axis fastest
    out = c_contiguous(fortran)
    assert out.flags.c_contiguous
    assert out.tolist() == values.tolist()
