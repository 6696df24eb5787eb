"""core.recon_study against hand-worked values and scipy (survivors of the full mutation run).

The summary's rows name their region and test, read the anomaly mask's own metrics, pair
subjects only when both cases are measured, and decide the edges (no degree 0, a degree 0
of MSE 0, one case in a degree, a p-value equal to alpha) without a numpy warning.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from napari_mood.core.recon import ReconMetrics
from napari_mood.core.recon_study import CaseRecon, mse_test, summarise_recon


def _m(mse: float, mae: float = 0.0) -> ReconMetrics:
    return ReconMetrics(mse, mae, 30.0, 0.9, 10, 1.0)


def _case(subject: str, degree: float | None, brain: float, anomaly: float | None = None):
    found = None if anomaly is None else _m(anomaly)
    return CaseRecon(f"{subject}_{degree}", subject, "putamen", degree, _m(brain), found, 1.0)


def _summary(cases, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty mean or a one-value sd would warn
        return summarise_recon(cases, **options)


def test_rows_name_their_region_and_test_and_the_anomaly_mask_reads_its_own_metrics():
    cases = [
        _case("s1", 0.0, 1.0, 10.0),
        _case("s2", 0.0, 3.0, 30.0),
        _case("s1", 0.2, 5.0, 50.0),
        _case("s2", 0.2, 7.0, 70.0),
    ]
    rows = _summary(cases)
    assert [(r.region, r.where, r.degree) for r in rows] == [
        ("putamen", "anomaly", 0.0),
        ("putamen", "anomaly", 0.2),
        ("putamen", "brain", 0.0),
        ("putamen", "brain", 0.2),
    ]
    # anomaly: mean MSE 20 then 60 (normalised 3); brain: 2 then 6 (normalised 3)
    assert [r.mse for r in rows] == [20.0, 60.0, 2.0, 6.0]
    assert rows[1].test is not None and rows[1].test.test == "welch"


def test_a_case_without_a_degree_drops_only_itself():
    cases = [_case("x", None, 9.0), _case("s1", 0.0, 1.0), _case("s2", 0.1, 4.0)]
    assert [(r.degree, r.mse) for r in _summary(cases)] == [(0.0, 1.0), (0.1, 4.0)]


@pytest.mark.parametrize("test", ["welch", "paired"])
def test_a_region_without_degree_0_has_nan_normalised_mse_and_nan_tests(test):
    cases = [_case("s1", 0.1, 4.0), _case("s2", 0.1, 6.0)]
    (row,) = _summary(cases, test=test)
    assert (row.mse, row.n_cases) == (5.0, 2)
    assert math.isnan(row.normalised_mse)
    # welch counts the diseased cases, paired the pairs (none without healthy cases)
    pairs = (0, 0) if test == "paired" else (0, 2)
    assert row.test is not None and (row.test.n_healthy, row.test.n_diseased) == pairs
    assert math.isnan(row.test.p_value) and not row.test.significant


@pytest.mark.parametrize(("base", "expected"), [(0.0, math.nan), (0.5, 4.0)])
def test_normalised_mse_divides_by_a_positive_degree_0_mean_only(base, expected):
    # degree 0 mean MSE `base`; degree 0.1 mean 2: 2 / 0.5 = 4, and nothing for 2 / 0
    cases = [_case("s1", 0.0, base), _case("s2", 0.0, base), _case("s1", 0.1, 2.0)]
    row = _summary(cases)[-1]
    assert row.normalised_mse == pytest.approx(expected, nan_ok=True)


def test_the_sd_of_one_case_is_nan_and_of_two_cases_uses_n_minus_1():
    cases = [_case("s1", 0.0, 1.0), _case("s1", 0.1, 4.0), _case("s2", 0.1, 5.0)]
    one, two = _summary(cases)
    assert math.isnan(one.mse_sd)
    assert two.mse_sd == pytest.approx(math.sqrt(0.5))  # ((0.5^2 + 0.5^2) / 1) ** 0.5


def test_paired_skips_a_subject_whose_healthy_case_is_not_measured_in_the_mask():
    # s1's healthy anomaly MSE is NaN (an empty region): s1 is not a pair in 'anomaly'
    nan_case = CaseRecon("s1_0", "s1", "putamen", 0.0, _m(1.0), _m(math.nan), 1.0)
    cases = [nan_case, _case("s2", 0.0, 1.0, 2.0), _case("s3", 0.0, 1.0, 3.0)]
    cases += [_case("s1", 0.1, 1.0, 9.0), _case("s2", 0.1, 1.0, 5.0), _case("s3", 0.1, 1.0, 8.0)]
    rows = _summary(cases, test="paired")
    anomaly = next(r for r in rows if r.where == "anomaly" and r.degree == 0.1)
    assert anomaly.test is not None
    assert (anomaly.test.n_healthy, anomaly.test.n_diseased) == (2, 2)
    expected = stats.ttest_rel([5.0, 8.0], [2.0, 3.0])
    assert anomaly.test.p_value == pytest.approx(float(expected.pvalue), rel=1e-12)


def test_significant_is_a_strict_comparison_with_alpha():
    healthy, diseased = [1.0, 2.0, 3.0, 2.5], [4.0, 5.0, 6.0, 5.5]
    p = float(stats.ttest_ind(diseased, healthy, equal_var=False).pvalue)  # one degree: m = 1
    cases = [_case(f"h{i}", 0.0, v) for i, v in enumerate(healthy)]
    cases += [_case(f"d{i}", 0.1, v) for i, v in enumerate(diseased)]
    below = _summary(cases, alpha=min(0.99, 2 * p))[-1].test
    at = _summary(cases, alpha=p)[-1].test
    assert below is not None and below.significant
    # at alpha == p (the same scipy call, times m = 1) the test is not significant
    assert at is not None and at.p_bonferroni == p and not at.significant


def test_alpha_zero_is_refused_word_for_word():
    with pytest.raises(ValueError, match=r"^alpha must lie in \(0, 1\), got 0$"):
        summarise_recon([], alpha=0)


@pytest.mark.parametrize("test", ["welch", "student", "paired"])
def test_mse_test_is_computed_in_float64(test):
    a = np.array([1.1, 2.3, 3.7], dtype=np.float32)
    b = np.array([4.1, 5.3, 6.9], dtype=np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if test == "paired":
        expected = stats.ttest_rel(b64, a64)
    else:
        expected = stats.ttest_ind(b64, a64, equal_var=test == "student")
    t, p = mse_test(a, b, test=test)
    assert t == pytest.approx(float(expected.statistic), rel=1e-12)
    assert p == pytest.approx(float(expected.pvalue), rel=1e-12)


def test_one_group_of_one_value_gives_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert all(math.isnan(v) for v in mse_test([1.0], [2.0, 3.0, 4.0]))


# scipy warns of "catastrophic cancellation" on a constant group's variance (it is exactly 0)
@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")
def test_one_constant_group_is_still_tested():
    expected = stats.ttest_ind([2.0, 3.0, 4.0], [1.0, 1.0, 1.0], equal_var=False)
    t, p = mse_test([1.0, 1.0, 1.0], [2.0, 3.0, 4.0])
    assert (t, p) == pytest.approx((float(expected.statistic), float(expected.pvalue)))
