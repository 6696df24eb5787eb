"""The body mask by hand (survivors of the rerun of the full mutation run of core.slices)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from napari_mood.core.slices import body_box, body_mask


def test_body_is_strictly_above_the_level() -> None:
    # min 0, p99.5 1 (the top two values are 1): cut 0 + 0.25 * (1 - 0) = 0.25, exact in
    # float32; 0.25 itself is not body
    scan = np.array([[0.0, 0.25], [1.0, 1.0]])
    assert body_mask(scan, level=0.25).tolist() == [[False, False], [True, True]]


def test_body_cut_is_measured_from_the_minimum() -> None:
    # min 2, p99.5 4: cut 2 + 0.25 * (4 - 2) = 2.5 -> 2.75 and both 4s are body
    scan = np.array([2.0, 2.5, 2.75, 4.0, 4.0])
    assert body_mask(scan, level=0.25).tolist() == [False, False, True, True, True]


def test_level_zero_is_allowed() -> None:
    # level 0: everything above the minimum is body
    scan = np.array([[0.0, 0.5], [1.0, 1.0]])
    assert body_mask(scan, level=0.0).tolist() == [[False, True], [True, True]]
    with pytest.raises(ValueError, match=re.escape("level must be in [0, 1), got 1.0")):
        body_mask(scan, level=1.0)


def test_an_empty_scan_has_no_body() -> None:
    assert body_mask(np.zeros((0, 4))).shape == (0, 4)


def test_body_box_names_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match=re.escape("scan must be 2-D or 3-D, got shape (4,)")):
        body_box(np.zeros(4))


def test_the_scan_is_read_as_float32() -> None:
    # 1e300 overflows float32 to inf, which is background; read as float64 it would be the
    # whole robust range and leave 0.5 and 1.0 below the cut: [[F, T], [F, F]]
    scan = np.array([[0.0, 1e300], [0.5, 1.0]], dtype=np.float64)
    assert body_mask(scan).tolist() == [[False, False], [True, True]]
