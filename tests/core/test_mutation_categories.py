"""Category summaries (core.categories) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np

from napari_mood.core.categories import CategoryScore, summarise_categories


def test_summary_of_a_group_without_a_finite_value_is_nan():
    rows = [
        CategoryScore("category", "g", "", "m1", 1, np.nan, np.nan, np.nan, np.nan),
        CategoryScore("category", "h", "", "m1", 1, 0.5, np.nan, np.nan, np.nan),
    ]
    g, h = summarise_categories(rows, "pixel_ap")
    assert g.group == "g" and np.isnan(g.median) and g.best == () and np.isnan(g.best_value)
    assert (h.median, h.best, h.best_value) == (0.5, ("m1",), 0.5)
