"""The best method over the groups by hand (survivors of the full mutation run of core.categories)."""

from __future__ import annotations

import math

import pytest

from napari_mood.core.categories import CategoryScore, best_overall, summarise_categories


def _row(
    group: str, method: str, ap: float, fpr95: float, *, baseline: bool = False
) -> CategoryScore:
    return CategoryScore("category", group, "", method, 1, ap, ap, fpr95, fpr95, baseline)


def test_best_overall_takes_the_lowest_fpr95() -> None:
    # means over the groups g, h: m1 FPR@95 (0.2 + 0.4) / 2 = 0.3, m2 (0.6 + 0.8) / 2 = 0.7;
    # the constant baseline (0.0) is left out. Lower is better: m1, 0.3
    rows = [
        _row("g", "m1", 0.5, 0.2),
        _row("h", "m1", 0.5, 0.4),
        _row("g", "m2", 0.9, 0.6),
        _row("h", "m2", 0.7, 0.8),
        _row("g", "constant", 0.1, 0.0, baseline=True),
    ]
    assert best_overall(rows, "pixel_fpr95") == (("m1",), pytest.approx(0.3))
    assert best_overall(rows, "sample_fpr95") == (("m1",), pytest.approx(0.3))
    # higher is better for AP: m2, (0.9 + 0.7) / 2 = 0.8
    assert best_overall(rows, "pixel_ap") == (("m2",), pytest.approx(0.8))


def test_best_overall_names_the_metric_option() -> None:
    with pytest.raises(ValueError, match=r"^metric must be one of 'pixel_ap', "):
        best_overall([_row("g", "m", 0.5, 0.5)], "dice")  # type: ignore[arg-type]


def test_group_summaries_carry_their_metric() -> None:
    # g: m1 0.2, m2 0.6 -> median 0.4, best (lowest FPR@95) m1; h: no finite value
    rows = [_row("g", "m1", 0.5, 0.2), _row("g", "m2", 0.5, 0.6), _row("h", "m1", 0.5, math.nan)]
    g, h = summarise_categories(rows, "pixel_fpr95")
    assert (g.metric, g.median, g.best, g.best_value) == (
        "pixel_fpr95",
        pytest.approx(0.4),
        ("m1",),
        0.2,
    )
    assert h.metric == "pixel_fpr95" and h.best == ()
    with pytest.raises(ValueError, match=r"^metric must be one of 'pixel_ap', "):
        summarise_categories(rows, "dice")  # type: ignore[arg-type]
