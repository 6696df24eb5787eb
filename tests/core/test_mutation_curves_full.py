"""Survivors of the full mutation run of core.curves (the table a curve is built from).

Expectations come from the rule's own words (the messages a user reads, the documented
float64 / int64 types of a table and a curve) and from counts worked out by hand.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from napari_mood.core.curves import CurveAccumulator, curve_from_histogram, merge_accumulators
from napari_mood.core.scores import N_CODES, code_values


def _exact(values: list[float], pos: list[int], total: list[int]) -> CurveAccumulator:
    return CurveAccumulator.from_histogram(
        np.array(values), np.array(pos), np.array(total), mode="exact"
    )


@pytest.mark.parametrize(
    ("table", "error", "message"),
    [
        (
            ([0.1, 0.2], [0], [1, 1]),
            ValueError,
            "values, pos and total must be 1-D arrays of the same length",
        ),
        (([0.1], [0.0], [1]), TypeError, "pos and total must be integer arrays"),
        (([0.1], [2], [1]), ValueError, "counts must satisfy 0 <= pos <= total"),
        (
            ([0.2, 0.1], [0, 0], [1, 1]),
            ValueError,
            "exact-mode values must be strictly increasing within [0, 1]",
        ),
    ],
)
def test_a_bad_table_is_refused_word_for_word(table, error, message) -> None:
    values, pos, total = table
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        _exact(values, pos, total)


def test_a_mood_table_on_other_values_is_refused_word_for_word() -> None:
    zeros = np.zeros(N_CODES, dtype=np.int64)
    message = "mood-mode values must be the N_CODES float16 code values"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        CurveAccumulator.from_histogram(code_values() * 0.5, zeros, zeros, mode="mood")


def test_merging_nothing_is_refused_word_for_word() -> None:
    with pytest.raises(ValueError, match=r"^need at least one accumulator to merge$"):
        merge_accumulators([])


def test_a_negative_count_is_refused_even_when_below_the_total() -> None:
    # -1 <= 2: only the "0 <= pos" half of the rule catches it
    with pytest.raises(ValueError, match="0 <= pos <= total"):
        _exact([0.1, 0.5], [-1, 0], [2, 1])


@pytest.mark.parametrize(
    "values",
    [
        [0.5, 1.5],  # above 1 only (nothing below 0)
        [0.5, 2.5],  # above 2 as well
        [-0.5, 0.5],  # below 0 only (nothing above 1)
        [0.5, 0.5],  # a repeated value is not strictly increasing
    ],
)
def test_an_exact_table_outside_the_unit_interval_or_repeating_is_refused(values) -> None:
    with pytest.raises(ValueError, match=r"strictly increasing within \[0, 1\]"):
        _exact(values, [0, 0], [1, 1])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64])
def test_an_exact_table_keeps_its_values_as_float64(dtype) -> None:
    # histogram() documents float64 values whatever the table was given in
    acc = CurveAccumulator.from_histogram(
        np.array([0, 1], dtype=dtype), np.array([0, 1]), np.array([1, 1]), mode="exact"
    )
    values, pos, total = acc.histogram()
    assert values.dtype == np.float64
    assert values.tolist() == [0.0, 1.0] and pos.tolist() == [0, 1] and total.tolist() == [1, 1]


def test_a_curve_has_float64_thresholds_and_int64_counts_whatever_the_table_dtype() -> None:
    # values 0.25 / 0.5 / 0.75 are exact in float32; totals as uint64 (unsigned minus
    # signed would turn numpy's counts into floats)
    curve = curve_from_histogram(
        np.array([0.25, 0.5, 0.75], np.float32),
        np.array([0, 1, 1], np.uint64),
        np.array([2, 2, 1], np.uint64),
    )
    assert curve.thresholds.dtype == np.float64
    assert curve.tp.dtype == curve.fp.dtype == np.int64
    # by hand, from the top: 0.75 -> 1 TP 0 FP; 0.5 -> +1 TP +1 FP; 0.25 -> +0 TP +2 FP
    assert curve.thresholds.tolist() == [0.75, 0.5, 0.25]
    assert curve.tp.tolist() == [1, 2, 2] and curve.fp.tolist() == [0, 1, 3]


def test_a_float_total_still_gives_int64_false_positives() -> None:
    curve = curve_from_histogram(np.array([0.1, 0.9]), np.array([0, 1]), np.array([2.0, 1.0]))
    assert curve.fp.dtype == np.int64 and curve.fp.tolist() == [0, 2]


def test_an_empty_exact_accumulator_has_an_empty_table_and_copies() -> None:
    acc = CurveAccumulator(mode="exact")
    values, pos, total = acc.histogram()
    assert values.size == pos.size == total.size == 0
    copied = acc.copy()
    assert copied.n_total == 0 and copied.curve().thresholds.size == 0
    copied.add(np.array([0.5]), np.array([True]))
    assert [a.size for a in copied.histogram()] == [1, 1, 1]
