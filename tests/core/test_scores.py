"""The one owner of the score, ground-truth and threshold rules (napari_mood.core.scores).

Each rule is checked against an independent statement of it: the official scorer's float16
arithmetic (``tests.reference_scorer.clip_float16``) and its ``clip(rint(x), 0, 1) == 1``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from napari_mood.core.scores import (
    N_CODES,
    ONE_CODE,
    check_threshold,
    code_values,
    display_threshold,
    flag,
    gt_mask,
    key_threshold,
    key_values,
    score_keys,
    threshold_code,
    threshold_limits,
    to_exact_values,
    to_mood_codes,
    to_mood_scores,
)
from tests.reference_scorer import clip_float16

FAST = settings(max_examples=60, deadline=None)
FLOATS = st.floats(allow_nan=False, allow_infinity=True, width=64)


@FAST
@given(
    values=hnp.arrays(np.float64, st.integers(1, 40), elements=FLOATS),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
)
def test_mood_codes_equal_the_official_float16_clip(values, dtype):
    with np.errstate(over="ignore"):
        scores = values.astype(dtype)
    expected = clip_float16(scores).view(np.uint16)
    np.testing.assert_array_equal(to_mood_codes(scores), expected)
    np.testing.assert_array_equal(to_mood_scores(scores), clip_float16(scores))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.bool_])
def test_integer_and_bool_maps_are_scores_too(dtype):
    scores = np.array([0, 1, 3, 255] if dtype != np.bool_ else [0, 1, 1, 0]).astype(dtype)
    np.testing.assert_array_equal(to_mood_codes(scores), clip_float16(scores).view(np.uint16))


def test_float16_in_range_is_a_view_and_nothing_is_modified():
    scores = np.array([0.0, 0.25, 1.0], dtype=np.float16)
    codes = to_mood_codes(scores)
    assert np.shares_memory(codes, scores)
    outside = np.array([-1.0, 2.0], dtype=np.float16)
    to_mood_codes(outside)
    assert outside.tolist() == [-1.0, 2.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_is_never_a_score(dtype):
    scores = np.array([0.5, np.nan, -np.nan], dtype=dtype)
    for convert in (to_mood_codes, to_exact_values):
        with pytest.raises(ValueError, match="2 NaN"):
            convert(scores)


def test_exact_mode_keeps_float32_values():
    assert to_exact_values(np.array([-0.0, 0.1, 7.0])).tolist() == [0.0, np.float32(0.1), 1.0]
    assert np.signbit(to_exact_values(np.array([-0.0]))).sum() == 0


@FAST
@given(threshold=st.floats(0.0, 1.0), mode=st.sampled_from(["mood", "exact"]))
def test_key_threshold_flags_exactly_value_ge_threshold(threshold, mode):
    scores = np.concatenate([np.linspace(0, 1, 2001), [threshold, np.nextafter(threshold, 0)]])
    keys = score_keys(scores, mode=mode)
    values = key_values(keys, mode=mode)
    np.testing.assert_array_equal(keys >= key_threshold(threshold, mode=mode), values >= threshold)
    np.testing.assert_array_equal(flag(scores, threshold, mode=mode), values >= threshold)


def test_threshold_codes_cover_the_unit_interval():
    assert threshold_code(0.0) == 0 and threshold_code(1.0) == ONE_CODE
    assert code_values().size == N_CODES and not code_values().flags.writeable


@pytest.mark.parametrize("bad", [-0.1, 1.0001, math.inf, -math.inf, "x", None])
def test_thresholds_are_numbers_in_the_unit_interval(bad):
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        check_threshold(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NaN"):
        check_threshold(math.nan)
    assert check_threshold("0.25") == 0.25


def test_key_values_read_mood_codes_by_default():
    keys = score_keys(np.array([0.3, 0.5]))
    assert key_values(keys).tolist() == key_values(keys, mode="mood").tolist()
    assert key_values(keys).tolist() == [0.300048828125, 0.5]  # the float16 values


def test_minus_zero_threshold_is_plus_zero():
    """-0.0 would print as "-0.00" in tables and file names."""
    for value in (-0.0, "-0", "-0.0"):
        found = check_threshold(value)
        assert found == 0.0 and math.copysign(1.0, found) == 1.0


@FAST
@given(values=hnp.arrays(np.float64, st.integers(1, 50), elements=FLOATS))
def test_gt_mask_equals_the_official_rint_rule(values):
    with np.errstate(invalid="ignore"):
        official = np.clip(np.rint(values), 0, 1) == 1
    np.testing.assert_array_equal(gt_mask(values), official)


def test_gt_mask_edges_and_strict_labels():
    assert gt_mask(np.array([0.5, 0.5000001, 1.5, 2.5, -3])).tolist() == [
        False,
        True,
        True,
        True,
        False,
    ]
    assert gt_mask(np.array([0, 1, 7], np.uint8)).tolist() == [False, True, True]
    with pytest.raises(ValueError, match="only 0 and 1"):
        gt_mask(np.array([0, 2]), strict=True)
    with pytest.raises(TypeError):
        gt_mask(np.array(["a"]))


def test_display_threshold_and_limits():
    assert display_threshold(1.0) < 1.0 and display_threshold(0.0) == 0.0
    values = code_values()
    for t in (0.5, 0.25, float(values[123])):
        shown = display_threshold(t)
        np.testing.assert_array_equal(values > shown, values >= t)
    assert threshold_limits(0.3) == (0.3, 1.0) and threshold_limits(1.0)[1] > 1.0
