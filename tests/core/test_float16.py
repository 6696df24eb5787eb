"""The bit-pattern float16 conversion (napari_mood.core._float16 via scores.to_mood_codes).

Every check compares with the cast route the official scorer takes
(``tests.reference_scorer.clip_float16``: ``astype(float16)`` in float arithmetic, then
clip), bit for bit, for every input dtype and the values where a conversion goes wrong:
NaN, infinities, negatives, -0.0, float16 and float32/64 subnormals, values above 1,
exact float16 values, ties between two float16 values and their neighbours.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from napari_mood.core import _float16
from napari_mood.core.scores import to_mood_codes
from tests.reference_scorer import clip_float16

FAST = settings(max_examples=80, deadline=None)
FLOAT_DTYPES = [np.float16, np.float32, np.float64, ">f4", ">f8", np.longdouble]
INT_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64]


def _official_codes(scores: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):  # huge integers overflow float16 to inf (then clip)
        return clip_float16(scores).view(np.uint16)


def _edge_values() -> np.ndarray:
    """Float64 values around every float16 in [0, 1] and around the format limits."""
    f16 = np.arange(0, 0x3C01, dtype=np.uint16).view(np.float16).astype(np.float64)
    ties = (f16[:-1] + f16[1:]) / 2  # exactly halfway: round half to even decides
    special = [
        0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 2.0**-14, 2.0**-24, 2.0**-25, 3 * 2.0**-26,
        2.0**-149, 2.0**-126, 5e-324, -5e-324, 65504.0, 65520.0, 1e300, -1e300,
        1 - 2.0**-12, 1 + 2.0**-11, 1 + 2.0**-12, np.nextafter(1.0, 2.0),
    ]  # fmt: skip
    near = np.concatenate([ties, f16, special])
    return np.concatenate(
        [near, -near, np.nextafter(near, np.inf), np.nextafter(near, -np.inf), near * 3.7]
    )


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_edge_values_equal_the_cast_route(dtype):
    with np.errstate(over="ignore"):
        scores = _edge_values().astype(dtype)
    np.testing.assert_array_equal(to_mood_codes(scores), _official_codes(scores))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_bit_patterns_equal_the_cast_route(dtype):
    rng = np.random.default_rng(14)
    itemsize = np.dtype(dtype).itemsize
    bits = rng.integers(0, 2 ** (8 * itemsize), 200_000, dtype=f"u{itemsize}")
    scores = bits.view(dtype)
    scores = scores[~np.isnan(scores)]
    np.testing.assert_array_equal(to_mood_codes(scores), _official_codes(scores))


def test_every_float32_in_the_unit_interval_region_equals_the_cast_route():
    """All float32 patterns from 2**-26 to just above 1 in steps of 509 (odd: every low-bit phase)."""
    bits = np.arange(0x32800000, 0x3F800400, 509, dtype=np.uint32)
    scores = bits.view(np.float32)
    np.testing.assert_array_equal(to_mood_codes(scores), _official_codes(scores))


@FAST
@given(
    values=hnp.arrays(
        np.float64, st.integers(1, 3 * _float16.CHUNK // 2), elements=st.floats(width=64)
    ),
    dtype=st.sampled_from(FLOAT_DTYPES[:3]),
)
def test_hypothesis_floats_equal_the_cast_route_or_count_nan(values, dtype):
    with np.errstate(over="ignore"):
        scores = values.astype(dtype)
    n_nan = int(np.count_nonzero(np.isnan(scores)))
    if n_nan:
        with pytest.raises(ValueError, match=f"{n_nan} NaN"):
            to_mood_codes(scores)
    else:
        np.testing.assert_array_equal(to_mood_codes(scores), _official_codes(scores))


@FAST
@given(
    values=hnp.arrays(st.sampled_from(INT_DTYPES + [np.uint64]), st.integers(1, 50)),
)
def test_integer_and_bool_maps_equal_the_cast_route(values):
    np.testing.assert_array_equal(to_mood_codes(values), _official_codes(values))


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.uint64])
def test_integer_extremes(dtype):
    info = np.iinfo(dtype) if dtype != np.bool_ else None
    values = [0, 1] if info is None else [info.min, info.max, 0, 1, min(info.max, 2)]
    scores = np.array(values, dtype=dtype)
    np.testing.assert_array_equal(to_mood_codes(scores), _official_codes(scores))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [np.nan, -np.nan])
def test_nan_anywhere_is_counted_over_all_chunks(dtype, nan):
    scores = np.full(3 * _float16.CHUNK + 5, 0.5, dtype=dtype)
    scores[[7, _float16.CHUNK + 1, -1]] = nan
    with pytest.raises(ValueError, match="3 NaN"):
        to_mood_codes(scores)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "make",
    [
        lambda a: a,
        np.asfortranarray,
        lambda a: a[::2, ::-1, 1::3],
        lambda a: a.transpose(1, 2, 0),
    ],
    ids=["C", "F", "strided", "transposed"],
)
def test_layouts_keep_shape_values_and_memory_order(dtype, make):
    rng = np.random.default_rng(3)
    scores = make((rng.standard_normal((9, 10, 11)) * 0.7 + 0.4).astype(dtype))
    before = scores.copy()
    codes = to_mood_codes(scores)
    np.testing.assert_array_equal(codes, _official_codes(scores))
    np.testing.assert_array_equal(scores, before)  # input untouched
    if scores.flags.f_contiguous and not scores.flags.c_contiguous:
        assert codes.flags.f_contiguous


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_empty_and_zero_dimensional_inputs(dtype):
    assert to_mood_codes(np.zeros((0, 3), dtype=dtype)).shape == (0, 3)
    scalar = np.array(3, dtype=dtype)  # clipped to 1.0
    assert to_mood_codes(scalar).shape == () and int(to_mood_codes(scalar)) == 0x3C00


def test_float64_rounding_onto_a_float32_tie_is_rounded_once():
    """Float64 just above / below a float16 tie rounds to the tie in float32 (double
    rounding would then go to the even neighbour): the result must be the float64's own."""
    f16 = np.arange(0, 0x3C01, dtype=np.uint16).view(np.float16).astype(np.float64)
    ties = (f16[:-1] + f16[1:]) / 2
    for nudge in (2.0**-40, -(2.0**-40)):
        scores = ties * (1 + nudge)
        assert np.all(scores.astype(np.float32) == ties.astype(np.float32))  # the trap is set
        np.testing.assert_array_equal(to_mood_codes(scores), _official_codes(scores))
