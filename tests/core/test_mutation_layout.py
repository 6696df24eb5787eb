"""C-ordered copies and memory walks (core._layout, core._float16): mutation survivors."""

from __future__ import annotations

import numpy as np

from napari_mood.core._float16 import memory_walk, walked
from napari_mood.core._layout import c_contiguous


def test_tiles_cover_a_long_last_axis():
    # 300 along the last axis: three 128-wide tiles; every element is copied
    values = np.arange(1, 3 * 2 * 300 + 1, dtype=np.int32).reshape(3, 2, 300)
    np.testing.assert_array_equal(c_contiguous(np.asfortranarray(values)), values)


def test_memory_walk_of_a_flipped_c_array():
    # C order, axis 0 reversed: keep the axis order, walk axis 0 backwards
    arr = np.arange(24).reshape(2, 3, 4)[::-1]
    axes, steps = memory_walk(arr)
    assert tuple(axes) == (0, 1, 2)
    assert steps == (slice(None, None, -1), slice(None), slice(None))
    assert walked(arr, (axes, steps)).flags.c_contiguous
