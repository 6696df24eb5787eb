"""The hypometabolism study of reconstructions: per region and degree, with its t-tests.

Each reconstructed case (:class:`CaseRecon`, measured by :mod:`napari_mood.core.recon`)
belongs to a region and a degree of simulated hypometabolism (0: the healthy input).
:func:`summarise_recon` makes the per-region, per-degree table of mean metrics, with the
t-test of the MSE between the healthy and the diseased inputs and its Bonferroni
correction (:func:`mse_test`, :func:`bonferroni`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_choice
from napari_mood.core.recon import ReconMetrics, Where

__all__ = [
    "TESTS",
    "CaseRecon",
    "DegreeRow",
    "MseTest",
    "TTest",
    "bonferroni",
    "mse_test",
    "summarise_recon",
]

TTest = Literal["welch", "student", "paired"]
TESTS: tuple[str, ...] = get_args(TTest)


@dataclass(frozen=True)
class MseTest:
    """The t-test of the MSE of reconstructions of diseased inputs against healthy inputs.

    ``statistic`` is positive when the diseased inputs' MSE is larger; ``p_bonferroni``
    is ``min(1, p * n_comparisons)``; ``significant`` is ``p_bonferroni < alpha``.
    """

    test: str
    n_healthy: int
    n_diseased: int
    statistic: float
    p_value: float
    p_bonferroni: float
    n_comparisons: int
    significant: bool


def bonferroni(p_values: Sequence[float]) -> tuple[float, ...]:
    """Bonferroni-corrected p-values: ``min(1, p * m)`` with ``m`` the number of tests.

    NaN p-values stay NaN and do not count in ``m``.

    Parameters
    ----------
    p_values : sequence of float
        The family's p-values.

    Returns
    -------
    tuple of float
        The corrected p-values, in order.

    Examples
    --------
    >>> bonferroni([0.01, 0.2, float("nan")])
    (0.02, 0.4, nan)
    """
    m = sum(1 for p in p_values if not math.isnan(p))
    return tuple(p if math.isnan(p) else min(1.0, p * m) for p in p_values)


def mse_test(
    healthy: Sequence[float],
    diseased: Sequence[float],
    *,
    test: TTest = "welch",
) -> tuple[float, float]:
    """T statistic and two-sided p-value of ``diseased`` against ``healthy`` MSEs.

    ``welch``: independent two-sample t-test without equal variances
    (``scipy.stats.ttest_ind(..., equal_var=False)``); ``student``: with equal variances;
    ``paired``: ``scipy.stats.ttest_rel`` (the two sequences pair up, same order). With
    fewer than 2 values in a group (or pairs), or both groups constant, (NaN, NaN).

    Parameters
    ----------
    healthy : sequence of float
        MSEs of the degree-0 cases.
    diseased : sequence of float
        MSEs of the cases of one degree.
    test : {"welch", "student", "paired"}
        The t-test.

    Returns
    -------
    tuple of float
        ``(t, p)``.

    Examples
    --------
    >>> t, p = mse_test([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], test="student")
    >>> round(t, 4), round(p, 4)
    (3.6742, 0.0213)
    """
    check_choice("test", test, TESTS)
    from scipy import stats

    a, b = np.asarray(healthy, dtype=np.float64), np.asarray(diseased, dtype=np.float64)
    if test == "paired" and a.shape != b.shape:
        raise ValueError(
            f"a paired test needs as many healthy as diseased values ({a.size}, {b.size})"
        )
    if a.size < 2 or b.size < 2:
        return math.nan, math.nan
    if test == "paired":
        if np.all(b - a == (b - a)[0]):
            return math.nan, math.nan
        found = stats.ttest_rel(b, a)
    else:
        if np.ptp(a) == 0 and np.ptp(b) == 0:
            return math.nan, math.nan
        found = stats.ttest_ind(b, a, equal_var=test == "student")
    return float(found.statistic), float(found.pvalue)


@dataclass(frozen=True)
class CaseRecon:
    """One reconstructed case: what it is and how close its reconstruction came.

    ``degree`` is None when the case name does not say it (not a simulated case);
    ``anomaly`` is None without an anomaly region; ``scale`` is the residual's robust
    maximum (:func:`residual_scale`).
    """

    case: str
    subject: str
    region: str
    degree: float | None
    brain: ReconMetrics
    anomaly: ReconMetrics | None
    scale: float


@dataclass(frozen=True)
class DegreeRow:
    """One row of the summary: a region, a mask, a degree, means over its cases.

    ``normalised_mse`` is the mean MSE divided by the mean MSE of the healthy inputs
    (degree 0) of the same region and mask (so degree 0 reads 1); ``test`` compares this
    degree's MSEs with the healthy inputs' (None for degree 0).
    """

    region: str
    where: Where
    degree: float
    n_cases: int
    mse: float
    mse_sd: float
    mae: float
    psnr: float
    ssim: float
    normalised_mse: float
    test: MseTest | None


def _metric(case: CaseRecon, where: Where) -> ReconMetrics | None:
    """Return the case's metrics in ``where``; None without them or when its MSE is not finite."""
    found = case.brain if where == "brain" else case.anomaly
    return found if found is not None and math.isfinite(found.mse) else None


def _mean(values: Sequence[float]) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return float(np.mean(kept)) if kept else math.nan


def _sd(values: Sequence[float]) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return float(np.std(kept, ddof=1)) if len(kept) > 1 else math.nan


def _pairs(
    healthy: Sequence[CaseRecon], diseased: Sequence[CaseRecon], where: Where
) -> tuple[list[float], list[float]]:
    """MSEs of the subjects that have both a healthy and a diseased case."""
    by_subject = {c.subject: c for c in healthy}
    a, b = [], []
    for case in diseased:
        other = by_subject.get(case.subject)
        first, second = (
            (None, None) if other is None else (_metric(other, where), _metric(case, where))
        )
        if first is not None and second is not None:
            a.append(first.mse)
            b.append(second.mse)
    return a, b


def _tests(
    groups: dict[float, list[CaseRecon]], where: Where, test: TTest, alpha: float
) -> dict[float, MseTest]:
    healthy = groups.get(0.0, [])
    raw: dict[float, tuple[int, int, float, float]] = {}
    for degree, cases in sorted(groups.items()):
        if degree == 0.0:
            continue
        if test == "paired":
            a, b = _pairs(healthy, cases, where)
        else:
            a = [m.mse for c in healthy if (m := _metric(c, where)) is not None]
            b = [m.mse for c in cases if (m := _metric(c, where)) is not None]
        raw[degree] = (len(a), len(b), *mse_test(a, b, test=test))
    corrected = bonferroni([r[3] for r in raw.values()])
    family = sum(1 for r in raw.values() if not math.isnan(r[3]))
    return {
        degree: MseTest(test, na, nb, t, p, pc, family, bool(pc < alpha))
        for (degree, (na, nb, t, p)), pc in zip(raw.items(), corrected, strict=True)
    }


def _rows(
    region: str, where: Where, groups: dict[float, list[CaseRecon]], tests: dict[float, MseTest]
) -> list[DegreeRow]:
    def values(cases: list[CaseRecon], name: str) -> list[float]:
        return [getattr(m, name) for c in cases if (m := _metric(c, where)) is not None]

    base = _mean(values(groups.get(0.0, []), "mse"))
    rows = []
    for degree, cases in sorted(groups.items()):
        mse = values(cases, "mse")  # never empty: a group holds only cases measured in `where`
        norm = _mean(mse) / base if base > 0 else math.nan
        rows.append(
            DegreeRow(
                region, where, degree, len(mse), _mean(mse), _sd(mse),
                _mean(values(cases, "mae")), _mean(values(cases, "psnr")),
                _mean(values(cases, "ssim")), norm, tests.get(degree),
            )
        )  # fmt: skip
    return rows


def summarise_recon(
    cases: Sequence[CaseRecon], *, test: TTest = "welch", alpha: float = 0.05
) -> tuple[DegreeRow, ...]:
    """Return the per-region, per-mask, per-degree table of simulated cases.

    Cases without a degree are left out, and so is a mask's metrics whose MSE is not
    finite (an empty mask): ``n_cases``, the means and the tests all count the same
    cases. For each region and mask (``brain``, ``anomaly``) every degree > 0 is tested
    against degree 0 (:func:`mse_test`); the Bonferroni family is those tests (one per
    degree of that region and mask). ``paired`` pairs cases by subject. Means skip NaN
    values (PSNR and SSIM of a constant healthy original).

    Parameters
    ----------
    cases : sequence of CaseRecon
        The measured cases.
    test : {"welch", "student", "paired"}
        The t-test of each degree against degree 0.
    alpha : float
        The significance level (on the Bonferroni-corrected p-values), in (0, 1).

    Returns
    -------
    tuple of DegreeRow
        One row per region, mask and degree.

    Raises
    ------
    ValueError
        When ``test`` is unknown or ``alpha`` is outside (0, 1).

    Examples
    --------
    >>> m = lambda mse: ReconMetrics(mse, 0.0, 0.0, 0.0, 1, 1.0)
    >>> cases = [CaseRecon(f"s{i}_r_deg{d:02d}", f"s{i}", "r", d / 100, m(v), None, 1.0)
    ...          for i, (d, v) in enumerate([(0, 1.0), (0, 2.0), (10, 4.0), (10, 5.0)])]
    >>> [(r.degree, r.mse, r.normalised_mse) for r in summarise_recon(cases)]
    [(0.0, 1.5, 1.0), (0.1, 4.5, 3.0)]
    """
    check_choice("test", test, TESTS)
    if not (0 < float(alpha) < 1):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    grouped: dict[tuple[str, Where], dict[float, list[CaseRecon]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for case in cases:
        if case.degree is None:
            continue
        for where in ("brain", "anomaly"):
            if _metric(case, where) is not None:
                grouped[(case.region, where)][case.degree].append(case)
    rows: list[DegreeRow] = []
    for (region, where), groups in sorted(grouped.items()):
        rows += _rows(region, where, groups, _tests(groups, where, test, float(alpha)))
    return tuple(rows)
