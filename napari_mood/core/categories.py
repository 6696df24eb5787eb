"""Scores per anomaly category and sub-category, with constant and random baselines.

The MOOD paper's Figs. 5-7: per (sub)category and method the pixel AP, the sample AP and
the FPR at 95 % TPR; the median over the methods, the best method of each sub-class and
the best method overall.

Policies
--------
- A group's **pixel** numbers pool the voxels of its cases (normal cases add nothing to
  find, so they are left out): pixel AP and pixel FPR@95 %TPR; NaN when the group holds
  no GT voxel.
- A group's **sample** numbers rank its cases *against the normal cases* (sample label 0,
  wherever they are listed): the sample AP and FPR@95 %TPR of "this kind of anomaly vs
  normal". Without any normal case the sample AP is 1 by construction and FPR NaN.
- **Baselines** (never in medians or "best"): ``constant`` scores every voxel and case 0
  (pixel AP = the fraction of positive voxels, sample AP = the fraction of positive
  cases, FPR@95 = 1); ``random`` scores each voxel and case uniformly at random on
  ``RANDOM_LEVELS`` levels from ``numpy.random.default_rng(seed)`` (per case, the counts
  of positive and negative voxels at each level are drawn multinomially, which is the
  same distribution as drawing every voxel, without touching a voxel).
- A group made only of normal cases (e.g. category ``normal``) is left out: its cases
  are the controls of every other group.
- **Median** across methods ignores NaN; **best** is the highest AP or the lowest FPR,
  ties listing every tied method; **best overall** has the highest mean of the metric
  over the groups (lowest for FPR), NaN groups left out.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from napari_mood.core._checks import check_choice
from napari_mood.core.curves import (
    CurveAccumulator,
    curve_from_arrays,
    merge_accumulators,
)
from napari_mood.core.metrics import (
    UndefinedMetricWarning,
    average_precision_from_curve,
    fpr_at_tpr,
)
from napari_mood.core.seed import DEFAULT_SEED

__all__ = [
    "BASELINES",
    "METRICS",
    "RANDOM_LEVELS",
    "CaseCategory",
    "CategoryBest",
    "CategoryScore",
    "Level",
    "Metric",
    "baseline_scores",
    "best_overall",
    "category_groups",
    "category_scores",
    "summarise_categories",
]

Metric = Literal["pixel_ap", "sample_ap", "pixel_fpr95", "sample_fpr95"]
METRICS: tuple[Metric, ...] = ("pixel_ap", "sample_ap", "pixel_fpr95", "sample_fpr95")
Level = Literal["category", "subcategory"]
BASELINES = ("constant", "random")
RANDOM_LEVELS = 1024

SampleCase = tuple[int, float]  # (label 0/1, score)


@dataclass(frozen=True)
class CaseCategory:
    """A case's category, sub-category (``""`` if none) and optional difficulty order."""

    category: str
    subcategory: str = ""
    order: float | None = None


@dataclass(frozen=True)
class CategoryScore:
    """One method (or baseline) on one group of cases."""

    level: Level
    group: str
    parent: str
    method: str
    n_cases: int
    pixel_ap: float
    sample_ap: float
    pixel_fpr95: float
    sample_fpr95: float
    baseline: bool = False

    def metric(self, name: Metric) -> float:
        """Return the value of ``name``.

        Parameters
        ----------
        name : str
            One of ``METRICS``.

        Returns
        -------
        float
            The value (NaN when undefined).
        """
        return float(getattr(self, name))


def category_groups(
    categories: Mapping[str, CaseCategory], *, level: Level = "category"
) -> dict[str, tuple[str, list[str]]]:
    """``{group: (parent category, cases)}`` ordered by difficulty order, then name.

    A group's order is the smallest order of its cases (groups without one come last).

    Parameters
    ----------
    categories : mapping of str to CaseCategory
        The category of each case.
    level : {"category", "subcategory"}
        Which level groups the cases.

    Returns
    -------
    dict of str to (str, list of str)
        Per group, its parent category and its cases (sorted).

    Examples
    --------
    >>> cats = {"a": CaseCategory("tumour", "small", 2), "b": CaseCategory("tumour", "big", 1)}
    >>> category_groups(cats, level="subcategory")
    {'big': ('tumour', ['b']), 'small': ('tumour', ['a'])}
    """
    check_choice("level", level, ("category", "subcategory"))
    groups: dict[str, tuple[str, list[str]]] = {}
    order: dict[str, float] = {}
    for case, cat in sorted(categories.items()):
        name = cat.category if level == "category" else (cat.subcategory or cat.category)
        groups.setdefault(name, (cat.category, []))[1].append(case)
        if cat.order is not None:
            order[name] = min(order.get(name, math.inf), cat.order)
    ranked = sorted(groups, key=lambda g: (order.get(g, math.inf), g))
    return {g: groups[g] for g in ranked}


def _quiet(func, *args, **kwargs) -> float:  # noqa: ANN001
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(func(*args, **kwargs))


def _pixel(accs: Sequence[CurveAccumulator]) -> tuple[float, float]:
    if not accs or sum(a.n_pos for a in accs) == 0:
        return math.nan, math.nan
    curve = merge_accumulators(accs).curve()
    return _quiet(average_precision_from_curve, curve), fpr_at_tpr(curve, tpr=0.95)


def _sample(pairs: Sequence[SampleCase]) -> tuple[float, float]:
    labels = np.array([p[0] for p in pairs], dtype=bool)
    if not labels.any():
        return math.nan, math.nan
    curve = curve_from_arrays(
        np.array([p[1] for p in pairs], dtype=np.float64), labels, mode="exact"
    )
    return _quiet(average_precision_from_curve, curve), fpr_at_tpr(curve, tpr=0.95)


def _score(
    level: Level,
    group: str,
    parent: str,
    method: str,
    cases: Sequence[str],
    pixel: Mapping[str, CurveAccumulator],
    sample: Mapping[str, SampleCase],
    normal: Sequence[str],
    *,
    baseline: bool = False,
) -> CategoryScore:
    pixel_ap, pixel_fpr = _pixel([pixel[c] for c in cases if c in pixel])
    members = [sample[c] for c in cases if c in sample and sample[c][0] == 1]
    controls = [sample[c] for c in normal if c in sample and c not in cases]
    sample_ap, sample_fpr = _sample(members + controls) if members else (math.nan, math.nan)
    n = len(set(cases) & (set(pixel) | set(sample)))
    return CategoryScore(
        level, group, parent, method, n, pixel_ap, sample_ap, pixel_fpr, sample_fpr, baseline
    )


def category_scores(
    categories: Mapping[str, CaseCategory],
    pixel: Mapping[str, Mapping[str, CurveAccumulator]],
    sample: Mapping[str, Mapping[str, SampleCase]],
    *,
    normal: Sequence[str] = (),
    level: Level = "category",
    seed: int | None = DEFAULT_SEED,
) -> tuple[CategoryScore, ...]:
    """Every method's (and, unless ``seed`` is None, each baseline's) numbers per group.

    Parameters
    ----------
    categories : mapping case -> CaseCategory
    pixel : mapping method -> (case -> CurveAccumulator)
        Per-case voxel counts (``DatasetEvaluation.case_accumulators``).
    sample : mapping method -> (case -> (label, score))
    normal : sequence of str
        The normal cases (sample label 0): the controls of the sample numbers.
    level : {"category", "subcategory"}
    seed : int or None
        Seed of the random baseline; None leaves both baselines out.

    Returns
    -------
    tuple of CategoryScore
        One row per group and method (then baseline), groups in difficulty order.

    Examples
    --------
    >>> acc = CurveAccumulator(); acc.add(np.array([0.9, 0.1]), np.array([True, False]))
    >>> rows = category_scores({"a": CaseCategory("blob")}, {"m": {"a": acc}},
    ...                        {"m": {"a": (1, 0.8), "n": (0, 0.3)}}, normal=["n"], seed=None)
    >>> [(r.group, r.method, r.pixel_ap, r.sample_ap) for r in rows]
    [('blob', 'm', 1.0, 1.0)]
    """
    controls = set(normal)
    groups = {
        g: (parent, cases)
        for g, (parent, cases) in category_groups(categories, level=level).items()
        if not set(cases) <= controls  # a group of normal cases only: the controls
    }
    methods = sorted(set(pixel) | set(sample))
    rows = [
        _score(level, g, parent, m, cases, pixel.get(m, {}), sample.get(m, {}), normal)
        for g, (parent, cases) in groups.items()
        for m in methods
    ]
    if seed is not None and methods:
        first_pixel = next((pixel[m] for m in methods if pixel.get(m)), {})
        first_sample = next((sample[m] for m in methods if sample.get(m)), {})
        for name, (bp, bs) in baseline_scores(first_pixel, first_sample, seed=seed).items():
            rows += [
                _score(level, g, parent, name, cases, bp, bs, normal, baseline=True)
                for g, (parent, cases) in groups.items()
            ]
    return tuple(rows)


def baseline_scores(
    pixel: Mapping[str, CurveAccumulator],
    sample: Mapping[str, SampleCase],
    *,
    seed: int = DEFAULT_SEED,
) -> dict[str, tuple[dict[str, CurveAccumulator], dict[str, SampleCase]]]:
    """Return the ``constant`` and ``random`` baselines on the cases and labels of the inputs.

    Parameters
    ----------
    pixel : mapping of str to CurveAccumulator
        Per-case voxel counts of one method (their labels are used).
    sample : mapping of str to SampleCase
        Per-case ``(label, score)`` of one method.
    seed : int
        Seed of the random baseline.

    Returns
    -------
    dict
        ``{"constant": (pixel, sample), "random": (pixel, sample)}``, by case as the inputs.

    Examples
    --------
    >>> acc = CurveAccumulator(); acc.add(np.array([0.9, 0.1, 0.2]), np.array([True, False, False]))
    >>> base = baseline_scores({"a": acc}, {"a": (1, 0.9)})
    >>> base["constant"][0]["a"].curve().thresholds.tolist(), base["constant"][1]["a"]
    ([0.0], (1, 0.0))
    """
    rng = np.random.default_rng(seed)
    levels = np.linspace(0.0, 1.0, RANDOM_LEVELS)
    const_pixel, random_pixel = {}, {}
    for case in sorted(pixel):
        _, pos, total = pixel[case].histogram()
        n_pos, n_neg = int(pos.sum()), int(total.sum() - pos.sum())
        const_pixel[case] = CurveAccumulator.from_histogram(
            np.array([0.0]), np.array([n_pos]), np.array([n_pos + n_neg]), mode="exact"
        )
        p = rng.multinomial(n_pos, np.full(RANDOM_LEVELS, 1 / RANDOM_LEVELS))
        n = rng.multinomial(n_neg, np.full(RANDOM_LEVELS, 1 / RANDOM_LEVELS))
        random_pixel[case] = CurveAccumulator.from_histogram(levels, p, p + n, mode="exact")
    const_sample = {c: (label, 0.0) for c, (label, _) in sorted(sample.items())}
    random_sample = {c: (label, float(rng.random())) for c, (label, _) in sorted(sample.items())}
    return {"constant": (const_pixel, const_sample), "random": (random_pixel, random_sample)}


@dataclass(frozen=True)
class CategoryBest:
    """One group and metric: the median over the methods and the best method(s)."""

    group: str
    metric: Metric
    median: float
    best: tuple[str, ...]
    best_value: float


def _lower_is_better(metric: Metric) -> bool:
    return metric.endswith("fpr95")


def summarise_categories(rows: Sequence[CategoryScore], metric: Metric) -> tuple[CategoryBest, ...]:
    """Per group (in row order): median over the methods and the best method (baselines out).

    Parameters
    ----------
    rows : sequence of CategoryScore
        Rows of :func:`category_scores`.
    metric : str
        One of ``METRICS``.

    Returns
    -------
    tuple of CategoryBest
        One entry per group.

    Raises
    ------
    ValueError
        When ``metric`` is unknown.
    """
    check_choice("metric", metric, METRICS)
    out = []
    for group in dict.fromkeys(r.group for r in rows):
        values = {r.method: r.metric(metric) for r in rows if r.group == group and not r.baseline}
        finite = {m: v for m, v in values.items() if not math.isnan(v)}
        if not finite:
            out.append(CategoryBest(group, metric, math.nan, (), math.nan))
            continue
        pick = min if _lower_is_better(metric) else max
        best = pick(finite.values())
        winners = tuple(sorted(m for m, v in finite.items() if v == best))
        out.append(
            CategoryBest(group, metric, float(np.median(list(finite.values()))), winners, best)
        )
    return tuple(out)


def best_overall(rows: Sequence[CategoryScore], metric: Metric) -> tuple[tuple[str, ...], float]:
    """Return the method(s) with the best mean of ``metric`` over the groups (NaN groups left out).

    Parameters
    ----------
    rows : sequence of CategoryScore
        Rows of :func:`category_scores`.
    metric : str
        One of ``METRICS``.

    Returns
    -------
    tuple
        The best method(s) (sorted; ties share) and their mean; ``((), nan)`` when no
        method has a value.

    Raises
    ------
    ValueError
        When ``metric`` is unknown.
    """
    check_choice("metric", metric, METRICS)
    means = {}
    for method in dict.fromkeys(r.method for r in rows if not r.baseline):
        values = [r.metric(metric) for r in rows if r.method == method and not r.baseline]
        finite = [v for v in values if not math.isnan(v)]
        if finite:
            means[method] = float(np.mean(finite))
    if not means:
        return (), math.nan
    best = (min if _lower_is_better(metric) else max)(means.values())
    return tuple(sorted(m for m, v in means.items() if v == best)), best
