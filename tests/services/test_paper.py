"""Print sizes (napari_mood.services.paper): journal widths, units, scale-bar lengths."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from napari_mood.services.paper import (
    MAX_WIDTH_MM,
    WIDTH_PRESETS,
    mm_to_points,
    parse_width,
    points_to_mm,
    scale_bar_mm,
)


@pytest.mark.parametrize(
    ("text", "mm"),
    [
        ("column", 89.0),  # Nature single column
        ("page", 183.0),  # Nature double column
        ("lncs", 122.0),  # Springer LNCS text width (MICCAI)
        ("PAGE", 183.0),
        ("89mm", 89.0),
        ("89 mm", 89.0),
        ("8.9cm", 89.0),
        ("3.5in", 88.9),
        ("7in", 177.8),
        (".5in", 12.7),
    ],
)
def test_widths_are_presets_or_lengths_with_a_unit(text, mm):
    assert parse_width(text) == pytest.approx(mm)


@pytest.mark.parametrize("text", ["89", "", "wide", "3.5 inches", "89px", "-89mm", "1e9mm", "0mm"])
def test_other_widths_are_refused_with_the_valid_forms(text):
    with pytest.raises(ValueError, match=r"column \(89 mm\)|at most") as info:
        parse_width(text)
    assert text in str(info.value) or repr(text) in str(info.value)


def test_presets_are_the_documented_journal_widths():
    assert WIDTH_PRESETS == {"column": 89.0, "lncs": 122.0, "page": 183.0}
    assert parse_width(f"{MAX_WIDTH_MM}mm") == MAX_WIDTH_MM


def test_points_and_millimetres_convert_both_ways():
    assert mm_to_points(25.4) == pytest.approx(72.0)
    assert points_to_mm(mm_to_points(89.0)) == pytest.approx(89.0)


@given(st.floats(min_value=0.01, max_value=1e5, allow_nan=False))
def test_scale_bar_is_a_round_length_between_12_and_30_percent(extent):
    bar = scale_bar_mm(extent)
    power = 10.0 ** math.floor(math.log10(bar) + 1e-9)
    assert round(bar / power, 6) in (1.0, 2.0, 5.0)
    assert bar <= 0.3 * extent * (1 + 1e-9)
    assert bar >= 0.3 * extent / 2.5 * (1 - 1e-9)


@pytest.mark.parametrize(("extent", "bar"), [(180.0, 50.0), (230.0, 50.0), (60.0, 10.0)])
def test_scale_bar_examples(extent, bar):
    assert scale_bar_mm(extent) == bar


@pytest.mark.parametrize(
    ("extent", "fraction"), [(0.0, 0.3), (-1.0, 0.3), (math.nan, 0.3), (10.0, 0.0), (10.0, 2.0)]
)
def test_scale_bar_refuses_bad_arguments(extent, fraction):
    with pytest.raises(ValueError):
        scale_bar_mm(extent, fraction=fraction)
