"""services.view_legend: the legend strip under an exported view."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from napari_mood.services.view_legend import (
    LEGEND_BACKGROUND,
    LegendBar,
    add_legend,
    legend_strip,
)


def _has_colour(image: np.ndarray, color: tuple[int, int, int]) -> bool:
    return bool((np.abs(image.astype(int) - np.array(color)).sum(axis=-1) == 0).any())


def test_each_method_gets_a_swatch_of_its_colour():
    strip = legend_strip(400, [LegendBar("a", "#ff7a1a"), LegendBar("b", "#2f8fff")])
    assert strip.shape[1] == 400 and strip.dtype == np.uint8
    assert _has_colour(strip, (0xFF, 0x7A, 0x1A)) and _has_colour(strip, (0x2F, 0x8F, 0xFF))
    assert _has_colour(strip, LEGEND_BACKGROUND)


def test_names_that_do_not_fit_wrap_onto_more_lines():
    one = legend_strip(1000, [LegendBar("method", "#ff7a1a")] * 2)
    many = legend_strip(150, [LegendBar("a long method name", "#ff7a1a")] * 4)
    assert many.shape[0] > one.shape[0]


def test_add_legend_appends_under_the_image(tmp_path: Path):
    png = tmp_path / "view.png"
    Image.fromarray(np.full((50, 120, 3), 200, np.uint8)).save(png)
    add_legend(png, [LegendBar("m", "#ff33d6")])
    out = np.asarray(Image.open(png).convert("RGB"))
    assert out.shape[1] == 120 and out.shape[0] > 50
    assert (out[:50] == 200).all()  # the view itself untouched
    add_legend(png, [])  # nothing to name: unchanged
    assert np.asarray(Image.open(png).convert("RGB")).shape == out.shape


def test_a_colour_bar_runs_from_nothing_below_the_threshold_to_the_full_colour():
    ramp = np.zeros((256, 4))
    ramp[128:] = [1.0, 0.0, 0.0, 1.0]  # nothing drawn below 0.5, red above
    bar = LegendBar("m", "#ff0000", ramp, ((0.0, "0"), (0.5, "0.5"), (1.0, "1")))
    plain = legend_strip(400, [LegendBar("m", "#ff0000")])
    strip = legend_strip(400, [bar])
    red = (strip == (255, 0, 0)).all(axis=-1)
    assert red.sum() > (plain == (255, 0, 0)).all(axis=-1).sum() + 50  # the bar's top half


def test_a_scale_bar_of_a_round_length_follows_the_bars():
    without = legend_strip(600, [LegendBar("m", "#ff0000")])
    with_scale = legend_strip(600, [LegendBar("m", "#ff0000")], mm_per_pixel=0.5)
    white = (with_scale >= 230).all(axis=-1).sum()
    assert white > (without >= 230).all(axis=-1).sum() + 2 * 100  # a 50 mm bar: 100 px, 3 px thick


def test_a_scale_alone_still_gets_a_strip(tmp_path: Path):
    png = tmp_path / "view.png"
    Image.fromarray(np.full((50, 300, 3), 200, np.uint8)).save(png)
    add_legend(png, [], mm_per_pixel=1.0)
    assert np.asarray(Image.open(png)).shape[0] > 50
