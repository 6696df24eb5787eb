"""Body masks (core.slices) and sweep centres (core.sweep), by hand (mutation survivors)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.slices import body_mask
from napari_mood.core.sweep import body_centre, sweep_cases


def test_body_mask_counts_minus_infinity_as_background():
    # -inf -> 0: min 0, p99.5 of (0, 0, 0.5, 1) = 0.9925, cut 0.05 * 0.9925
    scan = np.array([[-np.inf, 0.0], [0.5, 1.0]])
    assert body_mask(scan).tolist() == [[False, False], [True, True]]


def test_blank_scan_has_a_bool_empty_body():
    mask = body_mask(np.full((3, 4), 2.0))
    assert mask.dtype == np.bool_ and not mask.any()


def test_body_centre_reaches_the_last_voxel():
    scan = np.zeros((3, 4))
    scan[2, 3] = 1.0
    assert body_centre(scan) == (2, 3)


def test_sweep_kind_is_named_in_the_error():
    with pytest.raises(ValueError, match="^kind must be one of"):
        next(sweep_cases(np.zeros((4, 4, 4)), [1.0], kind="glow"))  # type: ignore[arg-type]
