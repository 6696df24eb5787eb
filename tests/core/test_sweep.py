"""Sweep cases: values, centre, sphere sizes against a brute-force lattice count."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from napari_mood.core.sweep import (
    MAX_VALUES,
    body_centre,
    check_values,
    default_values,
    parse_values,
    sweep_cases,
)


def _lattice_ball(r: float) -> int:
    """Integer points within Euclidean distance r of the origin (brute force)."""
    n = int(r)
    rng = range(-n, n + 1)
    return sum(1 for p in itertools.product(rng, rng, rng) if sum(c * c for c in p) <= r * r)


def test_size_sweep_counts_and_scan_untouched():
    scan = np.full((15, 15, 15), 0.5, dtype=np.float32)
    radii = [0, 1, 2, 3, 4.5]
    cases = list(sweep_cases(scan, radii, kind="size", center=(7, 7, 7), intensity=0.9))
    assert [c.voxels for c, _, _ in cases] == [_lattice_ball(r) for r in radii]
    assert [c.voxels for c, _, _ in cases][:4] == [1, 7, 33, 123]
    for case, out, mask in cases:
        assert case.center == (7, 7, 7) and case.value == case.radius
        assert np.all(out[mask] == np.float32(0.9)) and np.all(out[~mask] == 0.5)
    assert np.all(scan == 0.5)
    assert [c.name for c, _, _ in cases] == [f"size_{i:03d}" for i in range(5)]


def test_contrast_sweep_and_cut_at_border():
    scan = np.full((6, 6, 6), 0.5)
    cases = list(sweep_cases(scan, [0.0, 1.0], kind="contrast", center=(0, 0, 0), radius=1))
    assert [(c.intensity, c.value, c.voxels) for c, _, _ in cases] == [(0.0, 0.0, 4), (1.0, 1.0, 4)]
    with pytest.raises(ValueError, match="intensity"):
        list(sweep_cases(scan, [1.5], kind="contrast"))
    with pytest.raises(ValueError, match="radii"):
        list(sweep_cases(scan, [-1], kind="size"))
    with pytest.raises(ValueError, match="outside"):
        list(sweep_cases(scan, [1], kind="size", center=(9, 0, 0)))


def test_values_and_defaults():
    assert parse_values("0:1:0.25") == (0.0, 0.25, 0.5, 0.75, 1.0)
    assert parse_values("3, 1,2") == (1.0, 2.0, 3.0)
    for bad in (
        "",
        "a,b",
        "3,1,1",
        "5,,6",
        "5,",
        "0:1",
        "1:0:1",
        "0:1:0",
        "nan:1:1",
        "0:1:nan",
        "0:inf:1",
        "1,inf",
    ):
        with pytest.raises(ValueError):
            parse_values(bad)
    assert default_values("size") == tuple(float(r) for r in range(0, 81, 5))
    assert default_values("size", "abdomen") == tuple(float(r) for r in range(0, 161, 10))
    contrast = default_values("contrast")
    assert len(contrast) == 21 and contrast[7] == 0.35 and contrast[-1] == 1.0


def test_body_centre():
    scan = np.zeros((10, 10, 10))
    scan[2:5, 6:9, 0:2] = 0.3
    assert body_centre(scan) == (3, 7, 0)  # (2+3+4)/3, (6+7+8)/3, 0.5 rounds to even
    assert body_centre(np.zeros((4, 6))) == (2, 3)


@pytest.mark.parametrize("text", ["0:1e12:1", "0:80:1e-300", "0:80:5e-324", "0:1000:1"])
def test_values_are_counted_before_they_are_built(text):
    """1,001 values or more are refused at once (a hang before: the list was built first)."""
    with pytest.raises(ValueError, match="more than 1,000 values"):
        parse_values(text)
    assert len(parse_values("0:999:1")) == MAX_VALUES


def test_a_list_of_too_many_values_is_refused():
    with pytest.raises(ValueError, match="at most 1,000"):
        parse_values(",".join(str(v) for v in range(MAX_VALUES + 1)))


@pytest.mark.parametrize(
    ("kind", "values", "message"),
    [
        ("size", [-1.0], ">= 0"),
        ("size", [math.inf], ">= 0"),
        ("size", [1e9], "<= 1,000"),
        ("contrast", [1.5], r"\[0, 1\]"),
    ],
)
def test_check_values_per_kind(kind, values, message):
    with pytest.raises(ValueError, match=message):
        check_values(kind, values)
    assert check_values(kind, [0, 1]) == (0.0, 1.0)
