"""Fleiss kappa (core.agreement) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.agreement import fleiss_kappa


def test_fleiss_kappa_counts_the_items():
    # 3 items, 2 readers each: agreement 2 of 3 items; p = (3/6, 3/6) -> expected 0.5
    result = fleiss_kappa(np.array([[2, 0], [0, 2], [1, 1]]))
    assert result.items == 3
    assert result.observed == pytest.approx(2 / 3)
    assert result.expected == pytest.approx(0.5)
    assert result.kappa == pytest.approx((2 / 3 - 0.5) / 0.5)
