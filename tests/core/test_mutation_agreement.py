"""Fleiss kappa (core.agreement) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.agreement import cohen_kappa, fleiss_kappa, rating_table, wilson_interval


def test_fleiss_kappa_counts_the_items():
    # 3 items, 2 readers each: agreement 2 of 3 items; p = (3/6, 3/6) -> expected 0.5
    result = fleiss_kappa(np.array([[2, 0], [0, 2], [1, 1]]))
    assert result.items == 3
    assert result.observed == pytest.approx(2 / 3)
    assert result.expected == pytest.approx(0.5)
    assert result.kappa == pytest.approx((2 / 3 - 0.5) / 0.5)


def test_one_item_is_enough_and_its_kappa_is_undefined():
    # one item, both readers agree: observed 1, expected 1 (one category used) -> kappa NaN
    result = fleiss_kappa(np.array([[2, 0]]))
    assert (result.items, result.observed, result.expected) == (1, 1.0, 1.0)
    assert np.isnan(result.kappa)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (np.array([[1.5, 0.5]]), "^counts must be whole numbers of ratings$"),
        (np.array([[3, -1]]), "^counts must not be negative$"),
    ],
)
def test_bad_counts_are_refused_with_their_reason(counts, message):
    with pytest.raises(ValueError, match=message):
        fleiss_kappa(counts)


def test_rating_table_holds_integer_counts():
    table = rating_table([["a", "a", "b"], ["b", "b", "b"]], categories=("a", "b"))
    assert table.dtype == np.int64 and table.tolist() == [[2, 1], [0, 3]]


def test_an_unknown_rating_lists_the_categories():
    with pytest.raises(ValueError, match=r"^rating 'c' is not one of 'a', 'b'$"):
        cohen_kappa(["a", "c"], ["a", "b"], categories=("a", "b"))


@pytest.mark.parametrize("trials", range(1, 40))
def test_wilson_interval_ends_exactly_at_zero_and_one(trials):
    # all or no successes: the interval reaches 1 (or 0) exactly, with no rounding
    assert wilson_interval(trials, trials)[1] == 1.0
    assert wilson_interval(0, trials)[0] == 0.0
