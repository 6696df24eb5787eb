"""Survivors of the full mutation run of core._float16 (float16 codes of scores).

The codes are float16 bit patterns stored as uint16 (the module's contract): read as
float16 they must give the clipped score, worked out by hand below.
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core._float16 import integer_codes


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([False, True, True, False], np.bool_),
        ([0, 1, 7, -3], np.int8),
        ([0, 1, 7, 0], np.uint8),
        ([0, 1, 7, -3], np.int32),
        ([0, 1, 2**40, -(2**40)], np.int64),
    ],
)
def test_integer_codes_are_float16_patterns(values: list[int], dtype: type) -> None:
    # 0 -> 0.0; 1 and anything above -> 1.0 (pattern 0x3C00); a negative -> 0.0
    codes = integer_codes(np.array(values, dtype=dtype))
    assert codes.dtype == np.uint16
    assert codes.view(np.float16).tolist() == [0.0, 1.0, 1.0, 0.0]
