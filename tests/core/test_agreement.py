"""napari_mood.core.agreement: kappas and the Wilson interval against independent values."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from napari_mood.core.agreement import cohen_kappa, fleiss_kappa, rating_table, wilson_interval

statsmodels = pytest.importorskip("statsmodels")
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa  # noqa: E402
from statsmodels.stats.proportion import proportion_confint  # noqa: E402

VERDICTS = ("true finding", "false alarm", "unsure")
ratings = st.lists(st.sampled_from(VERDICTS), min_size=1, max_size=30)


def _sklearn(a, b) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # 0 / 0 when undefined
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # newer scikit-learn says so
        return float(cohen_kappa_score(a, b, labels=list(VERDICTS)))


def _statsmodels(table: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(sm_fleiss_kappa(table, method="fleiss"))


# --------------------------------------------------------------------------- Cohen


@pytest.mark.parametrize("seed", range(6))
def test_cohen_equals_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    a = list(rng.choice(VERDICTS, size=40, p=[0.5, 0.35, 0.15]))
    b = [v if rng.random() < 0.7 else rng.choice(VERDICTS) for v in a]
    found = cohen_kappa(a, b, categories=VERDICTS)
    assert found.kappa == pytest.approx(_sklearn(a, b), abs=1e-12)
    assert found.items == 40
    assert found.observed == pytest.approx(np.mean(np.array(a) == np.array(b)))


def test_cohen_hand_derived():
    # 2x2 table [[20, 5], [10, 15]]: p_o = 35/50; p_e = (25*30 + 25*20)/50^2 = 0.5
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    found = cohen_kappa(a, b, categories=("yes", "no"))
    assert (found.observed, found.expected) == (pytest.approx(0.7), pytest.approx(0.5))
    assert found.kappa == pytest.approx(0.4)


def test_cohen_tied_marginals():
    # each reader: half yes, half no (tied marginals), agreeing on 3 of 4: kappa 0.5
    found = cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "y"], categories=("y", "n"))
    assert found.expected == 0.5 and found.kappa == 0.0
    found = cohen_kappa(["y", "y", "n", "n"], ["y", "y", "n", "n"], categories=("y", "n"))
    assert found.kappa == 1.0


def test_reader_who_never_answers_unsure():
    a = ["true finding", "unsure", "false alarm", "unsure", "true finding", "false alarm"]
    b = [
        "true finding",
        "false alarm",
        "false alarm",
        "true finding",
        "true finding",
        "false alarm",
    ]
    assert "unsure" not in b
    found = cohen_kappa(a, b, categories=VERDICTS)
    assert found.kappa == pytest.approx(_sklearn(a, b))
    # neither says unsure: the unused category changes nothing
    two = cohen_kappa(b, b[::-1], categories=VERDICTS)
    assert two.kappa == pytest.approx(cohen_kappa(b, b[::-1], categories=VERDICTS[:2]).kappa)


def test_perfect_agreement_over_two_verdicts_is_one():
    a = ["true finding", "false alarm", "false alarm"]
    assert cohen_kappa(a, a, categories=VERDICTS).kappa == 1.0
    assert _sklearn(a, a) == 1.0


def test_one_verdict_for_everything_is_undefined():
    a = ["false alarm"] * 5
    found = cohen_kappa(a, a, categories=VERDICTS)
    assert math.isnan(found.kappa) and found.observed == 1.0 and found.expected == 1.0
    assert math.isnan(_sklearn(a, a))  # scikit-learn agrees (and warns)


def test_no_item():
    found = cohen_kappa([], [], categories=VERDICTS)
    assert found.items == 0 and math.isnan(found.kappa) and math.isnan(found.observed)


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        (["unsure"], [], "same items"),
        (["maybe"], ["unsure"], "'maybe' is not one of"),
    ],
)
def test_cohen_refuses(a, b, match):
    with pytest.raises(ValueError, match=match):
        cohen_kappa(a, b, categories=VERDICTS)


def test_categories_must_be_distinct():
    with pytest.raises(ValueError, match="distinct"):
        cohen_kappa(["a"], ["a"], categories=("a", "a"))


@given(ratings, st.data())
def test_cohen_is_symmetric_and_at_most_one(a, data):
    b = data.draw(st.lists(st.sampled_from(VERDICTS), min_size=len(a), max_size=len(a)))
    one, other = cohen_kappa(a, b, categories=VERDICTS), cohen_kappa(b, a, categories=VERDICTS)
    assert one.kappa == pytest.approx(other.kappa, nan_ok=True)
    assert math.isnan(one.kappa) or one.kappa <= 1.0 + 1e-12


# --------------------------------------------------------------------------- Fleiss

WIKIPEDIA = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)


def test_fleiss_hand_derived():
    # Fleiss (1971) as worked on Wikipedia: P = 0.378, P_e = 0.213, kappa = 0.210
    found = fleiss_kappa(WIKIPEDIA)
    assert found.observed == pytest.approx(0.378, abs=5e-4)
    assert found.expected == pytest.approx(0.213, abs=5e-4)
    assert found.kappa == pytest.approx(0.210, abs=5e-4)


@pytest.mark.parametrize("readers", [2, 3, 5])
@pytest.mark.parametrize("seed", range(3))
def test_fleiss_equals_statsmodels(readers, seed):
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, size=30, p=[0.5, 0.35, 0.15])
    votes = [[t if rng.random() < 0.7 else rng.integers(3) for _ in range(readers)] for t in truth]
    table = rating_table([[VERDICTS[v] for v in item] for item in votes], categories=VERDICTS)
    assert table.sum(axis=1).tolist() == [readers] * 30
    assert fleiss_kappa(table).kappa == pytest.approx(_statsmodels(table), abs=1e-12)


def test_fleiss_of_two_readers_is_scotts_pi():
    a = ["true finding", "true finding", "false alarm", "unsure", "false alarm", "false alarm"]
    b = ["true finding", "false alarm", "false alarm", "unsure", "unsure", "false alarm"]
    observed = np.mean(np.array(a) == np.array(b))
    pooled = np.array([(a + b).count(v) for v in VERDICTS]) / 12
    pi = (observed - pooled @ pooled) / (1 - pooled @ pooled)
    table = rating_table(list(zip(a, b, strict=True)), categories=VERDICTS)
    assert fleiss_kappa(table).kappa == pytest.approx(pi)


def test_fleiss_one_verdict_for_everything_is_undefined():
    table = np.array([[3, 0, 0]] * 4)
    found = fleiss_kappa(table)
    assert math.isnan(found.kappa) and found.observed == 1.0
    assert math.isnan(_statsmodels(table))


def test_fleiss_perfect_agreement_over_two_verdicts_is_one():
    assert fleiss_kappa(np.array([[3, 0, 0], [0, 3, 0]])).kappa == 1.0


def test_fleiss_no_item():
    found = fleiss_kappa(np.zeros((0, 3), int))
    assert found.items == 0 and math.isnan(found.kappa)


def test_fleiss_takes_whole_counts_stored_as_floats():
    table = WIKIPEDIA.astype(np.float64)
    assert fleiss_kappa(table).kappa == pytest.approx(_statsmodels(WIKIPEDIA), abs=1e-12)


@pytest.mark.parametrize(
    ("table", "match"),
    [
        (np.array([[2, 1, 0], [1, 1, 0]]), "^every item needs the same number of ratings"),
        (np.array([[1, 0, 0], [0, 1, 0]]), "at least two; got"),
        (np.array([[3, -1, 0]]), "negative"),
        (np.array([[1.5, 0.5, 0]]), "whole numbers"),
        (np.array([1, 2, 0]), "2-D"),
    ],
)
def test_fleiss_refuses(table, match):
    with pytest.raises(ValueError, match=match):
        fleiss_kappa(table)


# --------------------------------------------------------------------------- Wilson


@pytest.mark.parametrize("trials", [1, 2, 5, 13, 100])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_equals_statsmodels(trials, confidence):
    for successes in range(trials + 1):
        low, high = wilson_interval(successes, trials, confidence=confidence)
        ref = proportion_confint(successes, trials, alpha=1 - confidence, method="wilson")
        assert (low, high) == (pytest.approx(ref[0], abs=1e-12), pytest.approx(ref[1], abs=1e-12))
        assert 0.0 <= low <= successes / trials <= high <= 1.0


def test_wilson_ends_are_not_degenerate():
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(0, 10)[1] > 0.2
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(10, 10)[0] < 0.8


def test_wilson_of_no_trial():
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((3, 2), {}, "successes <= trials"),
        ((-1, 2), {}, "successes <= trials"),
        ((1, 2), {"confidence": 1.0}, "confidence"),
        ((1, 2), {"confidence": 0.0}, "confidence"),
    ],
)
def test_wilson_refuses(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        wilson_interval(*args, **kwargs)
