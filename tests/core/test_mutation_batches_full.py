"""Survivors of the full mutation run of core.batches (the MOOD challenge's batch AP).

Expectations come from Python's ``random.Random`` used as the official ``bootstrap_dir``
uses the global generator, from scikit-learn's AP and from the rule's own words.
"""

from __future__ import annotations

import math
import random
import re
import warnings

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from napari_mood.core.batches import (
    BatchWarning,
    batch_average_precision,
    check_splits,
    listing_batch_ap,
    mood_splits,
)
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.seed import DEFAULT_SEED


def _acc(scores: list[float], labels: list[int]) -> CurveAccumulator:
    acc = CurveAccumulator()
    acc.add(np.array(scores), np.array(labels, bool))
    return acc


def _official(n_entries: int, n_runs: int, batch_size: int, seed: int) -> list[tuple[int, ...]]:
    random.seed(seed)  # what evalresults.py does with the global generator
    return [tuple(random.sample(range(n_entries), k=batch_size)) for _ in range(n_runs)]


def test_the_challenge_defaults_are_ten_batches_of_two() -> None:
    assert list(mood_splits(7)) == _official(7, 10, 2, DEFAULT_SEED)
    cases = [_acc([0.9, 0.1], [1, 0]) for _ in range(7)]
    found = batch_average_precision(cases)
    assert list(found.splits) == _official(7, 10, 2, DEFAULT_SEED)
    listed = listing_batch_ap([f"c{i}" for i in range(7)], {f"c{i}": cases[i] for i in range(7)})
    assert list(listed.splits) == _official(7, 10, 2, DEFAULT_SEED)


def test_one_entry_per_batch_and_one_run_are_allowed() -> None:
    assert list(mood_splits(3, n_runs=1, batch_size=1, seed=5)) == _official(3, 1, 1, 5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0}, "batch_size must be an integer >= 1; got 0"),
        ({"batch_size": 4}, "batch_size must be in [1, n_entries=3], got 4"),
        ({"n_runs": 0}, "n_runs must be an integer >= 1; got 0"),
    ],
)
def test_mood_splits_says_what_is_out_of_range(kwargs, message) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        mood_splits(3, **kwargs)


@pytest.mark.parametrize(
    ("splits", "message"),
    [
        ([], "splits must be a non-empty list of batches"),
        ([5], "each batch of splits must be a list of indices, got 5"),
        ([[0, "a"]], "split index 'a' is not an integer"),
    ],
)
def test_check_splits_says_what_is_wrong(splits, message) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_splits(splits, 3)


def test_a_batch_as_large_as_the_listing_is_no_warning() -> None:
    cases = {"a": _acc([0.9, 0.1], [1, 0]), "b": _acc([0.2, 0.8], [1, 0])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = listing_batch_ap(["a", "b"], cases, n_runs=2, batch_size=2, seed=1)
    # both batches pool both cases: scores 0.9, 0.2 positive; 0.1, 0.8 negative
    expected = average_precision_score([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.8])
    assert found.scores == pytest.approx((expected, expected))


def test_a_batch_larger_than_the_listing_warns_in_words() -> None:
    cases = {"a": _acc([0.9, 0.1], [1, 0])}
    with pytest.warns(BatchWarning) as caught:
        listing_batch_ap(["a"], cases, n_runs=1, batch_size=2)
    assert str(caught[0].message) == (
        "batch size 2 is larger than the 1 entries of the label folder: each batch takes "
        "every entry (the official scorer stops here)"
    )


def test_batches_without_a_readable_case_are_named_and_left_out() -> None:
    cases = {"b": _acc([0.9, 0.1], [1, 0])}
    splits = [[0], [1], [0, 1]]  # entry "a" (index 0) is a stray file
    with pytest.warns(BatchWarning) as caught:
        found = listing_batch_ap(["a", "b"], cases, splits=splits, seed=77)
    assert str(caught[0].message) == (
        "1 of 3 batches hold no readable case: their AP is NaN and they are left out of the "
        "mean (the official scorer stops with ValueError here)"
    )
    assert math.isnan(found.scores[0]) and found.scores[1:] == (1.0, 1.0)
    assert found.mean == 1.0
    assert found.seed == 77
    assert found.entries == (("a",), ("b",), ("a", "b"))
    assert found.scored == ((), ("b",), ("b",))


def test_no_readable_batch_at_all_has_a_nan_mean_without_numpy_warnings() -> None:
    with pytest.warns(BatchWarning):
        found = listing_batch_ap(["stray"], {}, splits=[[0]])
    assert math.isnan(found.mean) and math.isnan(found.scores[0])
