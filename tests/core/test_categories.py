"""Per (sub)category numbers against scikit-learn and hand-derived values; baselines."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from napari_mood.core.categories import (
    CaseCategory,
    best_overall,
    category_groups,
    category_scores,
    summarise_categories,
)
from napari_mood.core.curves import CurveAccumulator

# voxels (scores, labels) per case and method; n1, n2 are normal cases
VOXELS = {
    "m1": {
        "t1": ([0.9, 0.8, 0.1, 0.2], [1, 1, 0, 0]),
        "t2": ([0.3, 0.7, 0.6, 0.0], [1, 0, 0, 0]),
        "s1": ([0.5, 0.5, 0.4, 0.1], [0, 1, 0, 0]),
        "n1": ([0.1, 0.2, 0.3, 0.4], [0, 0, 0, 0]),
    },
    "m2": {
        "t1": ([0.1, 0.2, 0.9, 0.8], [1, 1, 0, 0]),
        "t2": ([0.9, 0.1, 0.1, 0.1], [1, 0, 0, 0]),
        "s1": ([0.2, 0.9, 0.1, 0.1], [0, 1, 0, 0]),
        "n1": ([0.0, 0.0, 0.0, 0.0], [0, 0, 0, 0]),
    },
}
SAMPLE = {
    "m1": {"t1": (1, 0.9), "t2": (1, 0.2), "s1": (1, 0.6), "n1": (0, 0.5), "n2": (0, 0.3)},
    "m2": {"t1": (1, 0.4), "t2": (1, 0.8), "s1": (1, 0.1), "n1": (0, 0.7), "n2": (0, 0.2)},
}
CATS = {
    "t1": CaseCategory("tumour", "small", 2),
    "t2": CaseCategory("tumour", "big", 1),
    "s1": CaseCategory("shift", "global"),
}
NORMAL = ["n1", "n2"]


def _accs():
    out = {}
    for method, cases in VOXELS.items():
        out[method] = {}
        for case, (scores, labels) in cases.items():
            acc = CurveAccumulator(mode="exact")
            acc.add(np.array(scores), np.array(labels, bool))
            out[method][case] = acc
    return out


def _rows(level, seed=None):
    rows = category_scores(CATS, _accs(), SAMPLE, normal=NORMAL, level=level, seed=seed)
    return {(r.group, r.method): r for r in rows}


def _pooled(method, cases):
    scores = sum((VOXELS[method][c][0] for c in cases), [])
    labels = sum((VOXELS[method][c][1] for c in cases), [])
    return average_precision_score(labels, scores)


def _sample_ap(method, cases):
    pairs = [SAMPLE[method][c] for c in cases + NORMAL]
    return average_precision_score([p[0] for p in pairs], [p[1] for p in pairs])


@pytest.mark.parametrize("method", ["m1", "m2"])
def test_aps_equal_sklearn(method):
    rows = _rows("category")
    tumour, shift = rows[("tumour", method)], rows[("shift", method)]
    assert tumour.pixel_ap == pytest.approx(_pooled(method, ["t1", "t2"]))
    assert shift.pixel_ap == pytest.approx(_pooled(method, ["s1"]))
    assert tumour.sample_ap == pytest.approx(_sample_ap(method, ["t1", "t2"]))
    assert shift.sample_ap == pytest.approx(_sample_ap(method, ["s1"]))
    assert tumour.n_cases == 2 and shift.n_cases == 1


def test_fpr95_by_hand():
    rows = _rows("subcategory")
    # m1 sample, "small" (t1 0.9) vs normal 0.5, 0.3: TPR 1 at 0.9 with no FP -> 0
    assert rows[("small", "m1")].sample_fpr95 == 0.0
    # m1 "big": t2 0.2 is below both normal cases -> both flagged: FPR 1
    assert rows[("big", "m1")].sample_fpr95 == 1.0
    # m2 "big": t2 0.8 above 0.7 and 0.2 -> 0; m2 "global": s1 0.1 below all -> 1
    assert rows[("big", "m2")].sample_fpr95 == 0.0 and rows[("global", "m2")].sample_fpr95 == 1.0
    # pixel, m1 "big" (t2 only): positive 0.3; negatives 0.7, 0.6, 0.0 -> 2 of 3 above
    assert rows[("big", "m1")].pixel_fpr95 == pytest.approx(2 / 3)
    # pixel, m1 "global": positive 0.5 tied with a negative 0.5 -> 1 of 3
    assert rows[("global", "m1")].pixel_fpr95 == pytest.approx(1 / 3)


def test_groups_follow_difficulty_order():
    assert list(category_groups(CATS, level="subcategory")) == ["big", "small", "global"]
    assert category_groups(CATS)["tumour"] == ("tumour", ["t1", "t2"])
    assert list(_rows("subcategory"))[0] == ("big", "m1")


def test_summary_median_best_and_overall():
    rows = category_scores(CATS, _accs(), SAMPLE, normal=NORMAL, level="subcategory", seed=None)
    by = {(r.group, r.method): r for r in rows}
    summary = {s.group: s for s in summarise_categories(rows, "sample_fpr95")}
    assert summary["big"].best == ("m2",) and summary["big"].median == 0.5
    assert summary["global"].median == pytest.approx(
        np.median([by[("global", "m1")].sample_fpr95, 1.0])
    )
    ap = {s.group: s for s in summarise_categories(rows, "pixel_ap")}
    expected = max(by[("small", "m1")].pixel_ap, by[("small", "m2")].pixel_ap)
    assert ap["small"].best_value == expected and ap["small"].best == ("m1",)
    names, value = best_overall(rows, "pixel_ap")
    means = {
        m: np.mean([by[(g, m)].pixel_ap for g in ("big", "small", "global")]) for m in ("m1", "m2")
    }
    assert names == (max(means, key=means.get),) and value == pytest.approx(max(means.values()))


def test_constant_and_random_baselines():
    rows = _rows("category", seed=7)
    constant, random = rows[("tumour", "constant")], rows[("tumour", "random")]
    assert constant.baseline and random.baseline
    assert constant.pixel_ap == pytest.approx(3 / 8)  # 3 positive voxels of 8
    assert constant.sample_ap == pytest.approx(2 / 4)  # 2 tumour cases, 2 normal
    assert constant.pixel_fpr95 == 1.0 and constant.sample_fpr95 == 1.0
    assert 0.0 < random.pixel_ap <= 1.0
    again = _rows("category", seed=7)[("tumour", "random")]
    assert again == random
    summary = summarise_categories(list(rows.values()), "pixel_ap")
    assert all("constant" not in s.best and "random" not in s.best for s in summary)


def test_random_baseline_ap_is_the_prevalence_on_many_voxels():
    acc = CurveAccumulator(mode="exact")
    labels = np.zeros(200_000, bool)
    labels[:20_000] = True
    acc.add(np.zeros(labels.size), labels)
    rows = category_scores({"a": CaseCategory("x")}, {"m": {"a": acc}}, {}, seed=1)
    random = [r for r in rows if r.method == "random"][0]
    assert random.pixel_ap == pytest.approx(0.1, abs=0.005)
    assert random.pixel_fpr95 == pytest.approx(0.95, abs=0.01)
    assert math.isnan(random.sample_ap)
