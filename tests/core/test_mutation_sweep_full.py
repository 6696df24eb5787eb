"""Sweep values, centres and messages, by hand (survivors of the full mutation run of core.sweep)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.sweep import (
    MAX_RADIUS,
    body_centre,
    check_values,
    default_values,
    parse_values,
    sweep_cases,
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"^expected numbers separated by commas, got ''$"),  # one item: no "empty item"
        ("a,b", r"^expected numbers separated by commas, got 'a,b'$"),
        ("5,", r"^an empty item in '5,' \(a comma too many\?\): give numbers only$"),
        ("5,,6", r"^an empty item in '5,,6'"),
        ("1,inf", r"^expected finite numbers, got '1,inf'$"),
        ("1,3,3", r"^value 3 given twice in '1,3,3': give each value once$"),
        ("0:1", r"^expected START:STOP:STEP, got '0:1'$"),
        ("0:inf:1", r"^expected finite numbers, got '0:inf:1'$"),
        ("1:0:1", r"^need STEP > 0 and STOP >= START, got '1:0:1'$"),
    ],
)
def test_parse_values_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_values(text)


def test_a_range_starts_at_start_and_may_hold_one_value() -> None:
    # 2:4:1 -> (4 - 2) / 1 = 2 steps -> 2, 3, 4; 1:1:1 -> the single value 1 (STOP == START)
    assert parse_values("2:4:1") == (2.0, 3.0, 4.0)
    assert parse_values("1:1:1") == (1.0,)
    # 0.1 * 3 = 0.30000000000000004 in floats: the range gives the decimal value
    assert parse_values("0:0.3:0.1") == (0.0, 0.1, 0.2, 0.3)


def test_check_values_bounds_and_messages() -> None:
    assert check_values("size", [0.0, MAX_RADIUS]) == (0.0, 1000.0)  # both ends allowed
    with pytest.raises(ValueError, match=r"^a sweep needs at least one value$"):
        check_values("size", [])
    with pytest.raises(ValueError, match=r"^intensity must lie in \[0, 1\], got 1.5$"):
        check_values("contrast", [1.5])


def test_default_values_name_the_bad_option() -> None:
    with pytest.raises(ValueError, match=r"^kind must be one of 'size', 'contrast'; got 'glow'$"):
        default_values("glow")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^preset must be one of 'brain', 'abdomen'; got 'leg'$"):
        default_values("size", "leg")


def test_empty_scan_centre_is_the_integer_middle() -> None:
    # no body: the middle voxel n // 2 of each axis, as ints (5 // 2 = 2, 7 // 2 = 3)
    centre = body_centre(np.zeros((5, 7)))
    assert centre == (2, 3) and all(type(c) is int for c in centre)


def test_sweep_defaults_centre_on_the_body_and_radius_20() -> None:
    # body: rows 1-3, cols 4-6 of a 5 x 7 x 3 scan -> centre of mass (2, 5, 1)
    scan = np.zeros((5, 7, 3))
    scan[1:4, 4:7, :] = 0.5
    ((case, _, mask),) = sweep_cases(scan, [0.7], kind="contrast")
    assert case.center == (2, 5, 1) and mask[2, 5, 1]
    # radius 20 covers the whole 5 x 7 x 3 scan: all 105 voxels
    assert case.radius == 20.0 and case.voxels == 105


def test_a_sweep_records_its_radius() -> None:
    scan = np.full((5, 5, 5), 0.5)
    cases = [c for c, _, _ in sweep_cases(scan, [0, 2], kind="size", center=(2, 2, 2))]
    assert [c.radius for c in cases] == [0.0, 2.0]
    ((contrast, _, _),) = sweep_cases(scan, [0.2], kind="contrast", center=(2, 2, 2), radius=1)
    assert contrast.radius == 1.0 and contrast.voxels == 7  # centre and its 6 face neighbours


def test_contrast_sweep_radius_zero_is_the_centre_voxel() -> None:
    scan = np.full((3, 3, 3), 0.5)
    ((case, out, mask),) = sweep_cases(scan, [1.0], kind="contrast", center=(1, 1, 1), radius=0)
    assert case.voxels == 1 and mask[1, 1, 1] and out[1, 1, 1] == 1.0


@pytest.mark.parametrize("radius", [-1.0, float("inf"), float("nan")])
def test_sweep_refuses_a_bad_radius_in_its_own_words(radius: float) -> None:
    with pytest.raises(ValueError, match=r"^radius must be >= 0 voxels, got"):
        next(sweep_cases(np.zeros((3, 3, 3)), [0.5], kind="contrast", radius=radius))


def test_sweep_names_the_intensity_option() -> None:
    with pytest.raises(ValueError, match=r"^intensity must lie in \[0, 1\], got 1.5$"):
        next(sweep_cases(np.zeros((3, 3, 3)), [1.0], kind="size", intensity=1.5))
