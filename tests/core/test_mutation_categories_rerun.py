"""Category rows by hand (survivors of the rerun of the full mutation run of core.categories)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from napari_mood.core.categories import CaseCategory, category_groups, category_scores
from napari_mood.core.curves import CurveAccumulator


def _acc(scores: list[float], labels: list[int]) -> CurveAccumulator:
    acc = CurveAccumulator()
    acc.add(np.array(scores), np.array(labels, bool))
    return acc


CATS = {
    "a": CaseCategory("tumour", "small", 1),
    "b": CaseCategory("tumour", "big", 5),
    "c": CaseCategory("ring", "thin", 3),
    "n1": CaseCategory("normal"),
    "n2": CaseCategory("normal"),
}


def test_rows_carry_level_and_parent() -> None:
    pixel = {"m": {"a": _acc([0.9, 0.1], [1, 0])}}
    rows = category_scores({"a": CATS["a"]}, pixel, {}, level="subcategory", seed=0)
    assert [(r.level, r.group, r.parent, r.method, r.baseline) for r in rows] == [
        ("subcategory", "small", "tumour", "m", False),
        ("subcategory", "small", "tumour", "constant", True),
        ("subcategory", "small", "tumour", "random", True),
    ]


def test_group_order_is_the_smallest_order_of_its_cases() -> None:
    # tumour: a (1) and b (5) -> 1; ring: c (3); normal: no order -> last
    assert list(category_groups(CATS)) == ["tumour", "ring", "normal"]


def test_level_option_is_named_in_its_error() -> None:
    with pytest.raises(ValueError, match=r"^level must be one of 'category', 'subcategory'; "):
        category_groups(CATS, level="kind")  # type: ignore[arg-type]


def test_the_group_of_all_normal_cases_is_left_out() -> None:
    # the "normal" group is exactly the controls {n1, n2}: no row for it
    sample = {"m": {"a": (1, 0.9), "n1": (0, 0.2), "n2": (0, 0.1)}}
    rows = category_scores(CATS, {}, sample, normal=["n1", "n2"], seed=None)
    assert "normal" not in {r.group for r in rows}


def test_sample_numbers_use_the_normal_cases_the_method_has() -> None:
    # n2 is normal but m has no score for it: the controls are n1 alone.
    # tumour: a 0.9, b 0.4 against n1 0.5 -> ranking a+, n1-, b+: AP = (1 + 2/3) / 2 = 5/6
    sample = {"m": {"a": (1, 0.9), "b": (1, 0.4), "n1": (0, 0.5)}}
    rows = category_scores(CATS, {}, sample, normal=["n1", "n2"], seed=None)
    tumour = next(r for r in rows if r.group == "tumour")
    assert tumour.sample_ap == pytest.approx(5 / 6)
    assert tumour.sample_ap == pytest.approx(average_precision_score([1, 1, 0], [0.9, 0.4, 0.5]))
    # TPR 95 % needs both members: cut at 0.4 flags n1 too -> FPR 1
    assert tumour.sample_fpr95 == 1.0
    assert math.isnan(tumour.pixel_ap)  # no voxels at all


def test_sample_scores_are_read_exactly() -> None:
    # float16 reads 0.6001 and 0.6 alike; float32 ("exact") keeps the member above the control:
    # AP 1 and FPR@95 0 (a float16 tie would give AP 1/2 and FPR 1)
    assert np.float16(0.6001) == np.float16(0.6)
    sample = {"m": {"a": (1, 0.6001), "n1": (0, 0.6)}}
    rows = category_scores({"a": CATS["a"], "n1": CATS["n1"]}, {}, sample, normal=["n1"], seed=None)
    assert [(r.group, r.sample_ap, r.sample_fpr95) for r in rows] == [("tumour", 1.0, 0.0)]


def test_a_method_without_pixel_maps_gets_nan_pixel_numbers() -> None:
    # m has voxels, s has sample scores only (and the baselines are drawn from m's voxels)
    pixel = {"m": {"a": _acc([0.9, 0.1], [1, 0])}}
    sample = {"s": {"a": (1, 0.9)}}
    rows = category_scores({"a": CATS["a"]}, pixel, sample, seed=0)
    s = next(r for r in rows if r.method == "s")
    assert math.isnan(s.pixel_ap) and s.sample_ap == 1.0
    # no method has voxels at all: the baselines have no pixel numbers either
    rows = category_scores({"a": CATS["a"]}, {}, sample, seed=0)
    assert [r.method for r in rows] == ["s", "constant", "random"]
    assert all(math.isnan(r.pixel_ap) for r in rows)


def test_seed_none_leaves_the_baselines_out() -> None:
    pixel = {"m": {"a": _acc([0.9, 0.1], [1, 0])}}
    rows = category_scores({"a": CATS["a"]}, pixel, {}, seed=None)
    assert [r.method for r in rows] == ["m"]


def test_a_group_without_gt_voxels_has_nan_pixel_numbers() -> None:
    # case a has voxels but no anomalous one: AP and FPR@95 undefined
    pixel = {"m": {"a": _acc([0.9, 0.1], [0, 0])}}
    (row,) = category_scores({"a": CATS["a"]}, pixel, {}, seed=None)
    assert math.isnan(row.pixel_ap) and math.isnan(row.pixel_fpr95)


def _random_baseline_ap(seed: int) -> float:
    # without voxels the random baseline's sample scores are rng.random() drawn in sorted
    # case order: a, b (members), n1, n2 (controls); AP by scikit-learn
    # (seed 0: 1.0; seed 7: n1's draw 0.776 beats a's 0.625 -> 5/6)
    draws = np.random.default_rng(seed).random(4)
    return float(average_precision_score([1, 1, 0, 0], draws))


def test_random_baseline_follows_the_seed() -> None:
    sample = {"m": {"a": (1, 0.9), "b": (1, 0.4), "n1": (0, 0.5), "n2": (0, 0.1)}}
    for seed in (0, 7):
        rows = category_scores(CATS, {}, sample, normal=["n1", "n2"], seed=seed)
        random = next(r for r in rows if r.method == "random" and r.group == "tumour")
        assert random.sample_ap == pytest.approx(_random_baseline_ap(seed))
    # the default seed is the challenge's 123, as every drawing's (one seed default)
    rows = category_scores(CATS, {}, sample, normal=["n1", "n2"])
    random = next(r for r in rows if r.method == "random" and r.group == "tumour")
    assert random.sample_ap == pytest.approx(_random_baseline_ap(123))
    assert _random_baseline_ap(123) != _random_baseline_ap(0)
