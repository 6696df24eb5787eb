"""Display copies and pyramids (napari_mood.services.display), against plain numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from napari_mood.core.scores import display_threshold, flag
from napari_mood.services import display as display_module
from napari_mood.services.display import (
    build_pyramid,
    display_copy,
    display_range,
    level_for_volume,
)
from tests.reference_scorer import clip_float16

FAST = settings(max_examples=40, deadline=None)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.uint8, np.int16])
def test_float16_map_copy_is_the_mood_reading(dtype, monkeypatch):
    monkeypatch.setattr(display_module, "_SLAB_VOXELS", 50)  # several slabs
    rng = np.random.default_rng(0)
    data = (rng.standard_normal((7, 8, 9)) * 0.6 + 0.4).astype(dtype)
    before = data.copy()
    shown = display_copy(data)
    np.testing.assert_array_equal(shown.data.view(np.uint16), clip_float16(data).view(np.uint16))
    np.testing.assert_array_equal(data, before)
    assert shown.contrast_limits == (0.0, 1.0)


@FAST
@given(
    data=hnp.arrays(np.float32, (6, 7), elements=st.floats(0, 1, width=32)),
    threshold=st.floats(0, 1, exclude_min=True),
)
def test_float16_map_copy_shows_exactly_the_flagged_voxels(data, threshold):
    """A viewer draws ``shown > lower contrast limit``; that must be what the threshold flags
    (every threshold above 0: at 0 every voxel is flagged, which no lower limit shows)."""
    shown = display_copy(data).data.astype(np.float64)  # float16 > float would round the limit
    np.testing.assert_array_equal(shown > display_threshold(threshold), flag(data, threshold))


def test_nan_is_shown_as_zero_and_scans_saturate():
    shown = display_copy(np.array([np.nan, 0.5], np.float32)).data
    assert shown.tolist() == [0.0, 0.5]
    scan = display_copy(np.array([-1e6, 3.0, 1e6, np.nan]), kind="scan")
    assert scan.data.tolist() == [-65504.0, 3.0, 65504.0, 0.0]
    assert scan.limits == (-1e6, 1e6)


@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_integer_scan_copy_is_linear_and_inverts_within_half_a_step(dtype, monkeypatch):
    monkeypatch.setattr(display_module, "_SLAB_VOXELS", 64)
    rng = np.random.default_rng(1)
    scan = (rng.random((5, 6, 7)) * 900 - 100).astype(np.float32)
    shown = display_copy(scan, kind="scan", dtype=dtype)
    top = np.iinfo(dtype).max
    assert shown.data.dtype == np.dtype(dtype)
    assert shown.data.min() == 0 and shown.data.max() == top
    expected = np.rint((scan.astype(np.float64) - scan.min()) / (scan.max() - scan.min()) * top)
    np.testing.assert_array_equal(shown.data, expected)
    back = np.vectorize(shown.to_value)(shown.data)
    assert np.max(np.abs(back - scan)) <= shown.step / 2 + 1e-6
    assert shown.contrast_limits == pytest.approx((0.0, top))
    assert shown.to_display(shown.to_value(17)) == pytest.approx(17)


def test_integer_copy_limits_and_constant_data():
    shown = display_copy(np.array([0.0, 0.25, 2.0]), dtype="uint8")  # maps: [0, 1]
    assert shown.data.tolist() == [0, 64, 255]
    custom = display_copy(np.array([10.0, 20.0]), kind="scan", dtype="uint8", limits=(0, 40))
    assert custom.data.tolist() == [64, 128]
    flat = display_copy(np.full(3, 7.0), kind="scan", dtype="uint8")
    assert flat.data.tolist() == [0, 0, 0] and flat.to_value(0) == 7.0


def test_display_copy_checks_its_options():
    with pytest.raises(ValueError, match="kind"):
        display_copy(np.zeros(2), kind="label")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dtype"):
        display_copy(np.zeros(2), dtype="float32")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="real numbers"):
        display_copy(np.array(["a"]))


def _reference_pool(arr: np.ndarray, method: str) -> np.ndarray:
    """Pad odd edges by repeating the last voxel, then pool 2x2(x2) blocks."""
    pad = [(0, s % 2) for s in arr.shape]
    padded = np.pad(arr.astype(np.float64), pad, mode="edge")
    blocks = padded.reshape([d for s in padded.shape for d in (s // 2, 2)])
    axes = tuple(range(1, 2 * arr.ndim, 2))
    return blocks.max(axis=axes) if method == "max" else blocks.mean(axis=axes)


@pytest.mark.parametrize("shape", [(16, 16, 16), (9, 10, 7), (5, 33)])
@pytest.mark.parametrize("method", ["max", "mean"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.uint8])
def test_pyramid_levels_equal_block_pooling(shape, method, dtype, monkeypatch):
    monkeypatch.setattr(display_module, "_SLAB_VOXELS", 40)  # pooling slab by slab
    rng = np.random.default_rng(2)
    data = (rng.random(shape) * (200 if dtype == np.uint8 else 1)).astype(dtype)
    levels = build_pyramid(data, method=method, min_size=2)
    assert levels[0] is data
    assert max(levels[-1].shape) <= 2
    for fine, coarse in zip(levels, levels[1:], strict=False):
        assert coarse.dtype == data.dtype
        expected = _reference_pool(fine, method)
        if method == "max":
            np.testing.assert_array_equal(coarse, expected.astype(dtype))
        else:  # mean of 2**ndim values in float32, rounded back to the dtype
            tol = 1.0 if dtype == np.uint8 else 2e-3
            np.testing.assert_allclose(coarse.astype(np.float64), expected, atol=tol)


def test_max_pyramid_keeps_a_single_hot_voxel_at_every_level():
    data = np.zeros((64, 64, 64), dtype=np.float16)
    data[37, 5, 60] = 0.7
    levels = build_pyramid(data, min_size=4)
    assert [lv.shape[0] for lv in levels] == [64, 32, 16, 8, 4]
    assert all(float(lv.max()) == float(np.float16(0.7)) for lv in levels)
    mean = build_pyramid(data.astype(np.float32), method="mean", min_size=32)
    assert float(mean[1].max()) == pytest.approx(0.7 / 8, rel=1e-3)


def test_max_pyramid_of_float16_with_negative_values():
    data = np.array([[-1.0, -2.0], [-0.5, -3.0]], dtype=np.float16)
    assert build_pyramid(data, min_size=1)[1].tolist() == [[-0.5]]


def test_pyramid_options_and_level_choice():
    with pytest.raises(ValueError, match="method"):
        build_pyramid(np.zeros((4, 4)), method="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="min_size"):
        build_pyramid(np.zeros((4, 4)), min_size=0)
    levels = build_pyramid(np.zeros((40, 40, 40), np.uint8), min_size=5)
    assert [lv.shape for lv in levels][-1] == (5, 5, 5)
    assert level_for_volume(levels, max_voxels=20**3) == 1
    assert level_for_volume(levels, max_voxels=1) == len(levels) - 1


@pytest.mark.parametrize("dtype", ["float16", "uint8"])
def test_fortran_ordered_input_keeps_its_memory_order(dtype, monkeypatch):
    monkeypatch.setattr(display_module, "_SLAB_VOXELS", 30)  # slabs along the last axis
    data = np.asfortranarray(np.random.default_rng(4).random((5, 6, 7)).astype(np.float32))
    shown = display_copy(data, dtype=dtype)
    assert shown.data.flags.f_contiguous and shown.data.shape == data.shape
    np.testing.assert_array_equal(
        shown.data, display_copy(np.ascontiguousarray(data), dtype=dtype).data
    )


def _finite_range_reference(data: np.ndarray) -> tuple[float, float]:
    finite = data[np.isfinite(data)].astype(np.float64)
    if not finite.size:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    return (low, high) if high > low else (low, low + 1.0)


@given(bits=hnp.arrays(np.uint16, st.integers(1, 60)))  # every float16: +-0, subnormal, inf, NaN
@settings(max_examples=300, deadline=None)
def test_float16_display_range_equals_the_finite_min_and_max(bits):
    data = bits.view(np.float16)
    assert display_range(data) == _finite_range_reference(data)


def test_float16_display_range_over_every_bit_pattern(monkeypatch):
    monkeypatch.setattr(display_module, "_SLAB_VOXELS", 4096)  # 16 slabs, each its own range
    data = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    assert display_range(data) == (-65504.0, 65504.0)
    shuffled = np.random.default_rng(1).permutation(data)
    assert display_range(shuffled) == (-65504.0, 65504.0)
    assert display_range(shuffled[np.abs(shuffled) < 2]) == (-1.9990234375, 1.9990234375)
    assert display_range(np.array([-0.0, 0.0], np.float16)) == (-0.0, 1.0)  # constant zero


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16, np.uint8])
@pytest.mark.parametrize("order", ["C", "F"])
def test_display_range_of_slabs_in_memory_order(dtype, order, monkeypatch):
    monkeypatch.setattr(display_module, "_SLAB_VOXELS", 40)  # many slabs
    rng = np.random.default_rng(5)
    data = np.asarray((rng.standard_normal((6, 7, 8)) * 40).astype(dtype), order=order)
    if data.dtype.kind == "f":
        data[1, 2, 3], data[5, 6, 7], data[0, 0, 0] = np.nan, np.inf, -np.inf
    assert display_range(data) == _finite_range_reference(data)


def test_display_range_of_data_without_a_finite_value():
    assert display_range(np.full((3, 4), np.nan, np.float32)) == (0.0, 1.0)
    assert display_range(np.array([np.inf, -np.inf], np.float16)) == (0.0, 1.0)
    assert display_range(np.zeros((0, 4), np.float32)) == (0.0, 1.0)
    assert display_range(np.array(3.0)) == (3.0, 4.0)


def _layouts(data: np.ndarray) -> dict[str, np.ndarray]:
    """The same voxels in the memory orders a viewer hands over (NIfTI is Fortran-ordered;
    the display view of a file flips and permutes its axes)."""
    fortran = np.asfortranarray(data)
    return {
        "C": np.ascontiguousarray(data),
        "F": fortran,
        "F flipped": np.asfortranarray(data[::-1, :, ::-1])[::-1, :, ::-1],
        "permuted": np.ascontiguousarray(data.transpose(2, 0, 1)).transpose(1, 2, 0),
    }


@pytest.mark.parametrize("shape", [(16, 12, 10), (9, 10, 7)])
@pytest.mark.parametrize("method", ["max", "mean"])
@pytest.mark.parametrize("dtype", [np.float16, np.uint8])
@pytest.mark.parametrize("own_mapping", [False, True])
def test_pyramid_of_any_memory_order_pools_the_same_voxels(
    shape, method, dtype, own_mapping, monkeypatch
):
    """Levels also in their own mappings (``io._pages``, as large levels are)."""
    monkeypatch.setattr(display_module, "_SLAB_VOXELS", 60)  # slabs along the slowest axis
    if own_mapping:
        monkeypatch.setattr("napari_mood.io._pages.KEPT_MIN_BYTES", 1)
    rng = np.random.default_rng(7)
    data = (rng.random(shape) * (200 if dtype == np.uint8 else 1)).astype(dtype)
    for name, arranged in _layouts(data).items():
        np.testing.assert_array_equal(arranged, data)
        levels = build_pyramid(arranged, method=method, min_size=2)
        for fine, coarse in zip(levels, levels[1:], strict=False):
            assert _memory_order(coarse) == _memory_order(arranged), name
            expected = _reference_pool(fine, method)
            if method == "max":
                np.testing.assert_array_equal(coarse, expected.astype(dtype), err_msg=name)
            else:
                tol = 1.0 if dtype == np.uint8 else 2e-3
                np.testing.assert_allclose(coarse.astype(np.float64), expected, atol=tol)


def _memory_order(arr: np.ndarray) -> tuple[int, ...]:
    return tuple(np.argsort([-abs(st) for st in arr.strides], kind="stable"))
