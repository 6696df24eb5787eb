"""Window/level presets: the modality read from the values, the CT table, percentile windows."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.windowing import (
    CT_PRESETS,
    MRI_PRESETS,
    PERCENTILE_SAMPLE,
    WindowPreset,
    guess_modality,
    preset_limits,
    presets_for,
)


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64])
def test_a_scan_with_air_in_hounsfield_units_is_ct(dtype):
    scan = np.full((8, 8, 8), 40, dtype)
    scan[0] = -1024
    assert guess_modality(scan) == "CT"


@pytest.mark.parametrize(
    "scan",
    [
        np.random.default_rng(0).random((6, 6, 6), dtype=np.float32),  # MOOD: [0, 1]
        np.arange(0, 4000, dtype=np.uint16),  # raw MRI intensities
        np.full(10, -499.0),  # negative, but never air
        np.full(3, np.nan),
        np.zeros(0),
    ],
)
def test_anything_without_air_values_is_mri(scan):
    assert guess_modality(scan) == "MRI"


def test_nan_does_not_hide_the_air_of_a_ct():
    scan = np.array([np.nan, -1000.0, 30.0])
    assert guess_modality(scan) == "CT"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("brain", (0.0, 80.0)),
        ("lung", (-1350.0, 150.0)),
        ("bone", (-500.0, 1300.0)),
        ("soft tissue", (-160.0, 240.0)),
        ("liver", (-45.0, 105.0)),
    ],
)
def test_ct_windows_are_level_plus_minus_half_the_width(name, expected):
    preset = next(p for p in CT_PRESETS if p.name == name)
    assert preset_limits(np.zeros(4), preset) == expected


@pytest.mark.parametrize("preset", [p for p in MRI_PRESETS if p.kind == "percentile"])
def test_percentile_windows_equal_numpy_percentiles(preset):
    scan = np.random.default_rng(1).normal(size=(20, 30, 40))
    expected = tuple(np.percentile(scan, [preset.a, preset.b]))
    assert preset_limits(scan, preset) == pytest.approx(expected)


def test_full_range_is_min_to_max_ignoring_nan():
    scan = np.array([np.nan, 2.0, 5.0, np.inf, 3.0])
    full = next(p for p in MRI_PRESETS if p.name == "full range")
    assert preset_limits(scan, full) == (2.0, 5.0)


def test_a_large_scan_is_sampled_and_stays_close_to_the_exact_percentiles():
    scan = np.random.default_rng(2).random(3 * PERCENTILE_SAMPLE + 7, dtype=np.float32)
    low, high = preset_limits(scan, MRI_PRESETS[0])
    exact = np.percentile(scan, [1, 99])
    assert abs(low - exact[0]) < 2e-3 and abs(high - exact[1]) < 2e-3


def test_percentiles_on_one_background_value_fall_back_to_the_full_range():
    scan = np.zeros(1000)
    scan[:5] = [0.2, 0.4, 0.6, 0.8, 1.0]
    assert preset_limits(scan, MRI_PRESETS[0]) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("scan", "expected"), [(np.full(4, 7.0), (6.5, 7.5)), (np.full(2, np.nan), (0.0, 1.0))]
)
def test_a_constant_or_empty_scan_still_gets_an_open_window(scan, expected):
    assert preset_limits(scan, MRI_PRESETS[0]) == expected


def test_every_modality_offers_its_presets_default_first():
    assert presets_for("CT")[0].name == "brain" and presets_for("MRI")[0].name == "1-99 %"
    with pytest.raises(ValueError, match="modality must be one of 'CT', 'MRI'"):
        presets_for("PET")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "preset",
    [
        WindowPreset("x", "window", 40, 0),
        WindowPreset("x", "percentile", 99, 1),
        WindowPreset("x", "percentile", -1, 50),
        WindowPreset("x", "gamma", 0, 1),
    ],  # type: ignore[arg-type]
)
def test_an_invalid_preset_is_refused(preset):
    with pytest.raises(ValueError):
        preset_limits(np.zeros(3), preset)


def test_a_large_volume_is_sampled_along_every_axis_without_a_full_copy():
    import tracemalloc

    scan = np.random.default_rng(4).random((160, 160, 160), dtype=np.float32).transpose(2, 0, 1)
    tracemalloc.start()
    low, high = preset_limits(scan, MRI_PRESETS[0])  # a non-contiguous view, 4.1 M voxels
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < scan.nbytes / 2  # flattening the view would copy all of it
    exact = np.percentile(scan, [1, 99])
    assert abs(low - exact[0]) < 5e-3 and abs(high - exact[1]) < 5e-3
