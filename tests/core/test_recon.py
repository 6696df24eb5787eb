"""Reconstruction metrics and statistics against hand-derived values, scikit-image and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from skimage.metrics import mean_squared_error, peak_signal_noise_ratio, structural_similarity

from napari_mood.core.recon import (
    ReconMetrics,
    brain_mask_problem,
    case_brain,
    check_recon_case,
    healthy_data_range,
    non_finite_voxels,
    recon_metrics,
    residual_map,
    residual_scale,
    residual_scores,
    ssim_map,
)
from napari_mood.core.recon_study import CaseRecon, bonferroni, mse_test, summarise_recon


def test_mse_mae_psnr_by_hand():
    healthy = np.array([[1.0, 2.0], [3.0, 4.0]])
    recon = np.array([[1.5, 2.0], [2.0, 4.0]])
    mask = np.array([[True, True], [True, False]])
    # inside: differences 0.5, 0, -1 -> MSE (0.25 + 0 + 1) / 3, MAE 1.5 / 3
    data_range = healthy_data_range(healthy, mask)
    assert data_range == 2.0  # max 3 - min 1 inside the mask
    found = recon_metrics(healthy, recon, mask, data_range=data_range, ssim=np.ones((2, 2)))
    assert found.mse == pytest.approx(1.25 / 3)
    assert found.mae == pytest.approx(0.5)
    assert found.psnr == pytest.approx(10 * math.log10(4.0 / (1.25 / 3)))
    assert found.n_voxels == 3 and found.data_range == 2.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_metrics_equal_scikit_image(dtype):
    rng = np.random.default_rng(3)
    healthy = rng.random((12, 13, 14)).astype(dtype)
    recon = (healthy + rng.normal(0, 0.05, healthy.shape)).astype(dtype)
    mask = np.ones(healthy.shape, bool)
    found = recon_metrics(healthy, recon, mask, data_range=1.0)
    h, r = healthy.astype(np.float64), recon.astype(np.float64)
    assert found.mse == pytest.approx(mean_squared_error(h, r), rel=1e-12)
    assert found.psnr == pytest.approx(peak_signal_noise_ratio(h, r, data_range=1.0), rel=1e-12)
    # every voxel: scikit-image's own mean SSIM (it leaves out the 3-voxel border)
    assert found.ssim == pytest.approx(structural_similarity(h, r, data_range=1.0), rel=1e-12)


def test_masked_metrics_equal_scikit_image_on_the_masked_voxels():
    rng = np.random.default_rng(4)
    healthy = rng.random((10, 10, 10))
    recon = healthy + rng.normal(0, 0.1, healthy.shape)
    mask = rng.random(healthy.shape) > 0.6
    found = recon_metrics(healthy, recon, mask, data_range=1.5)
    assert found.mse == pytest.approx(mean_squared_error(healthy[mask], recon[mask]))
    assert found.psnr == pytest.approx(
        peak_signal_noise_ratio(healthy[mask], recon[mask], data_range=1.5)
    )
    _, full = structural_similarity(healthy, recon, data_range=1.5, full=True)
    inner = np.zeros(mask.shape, bool)
    inner[3:-3, 3:-3, 3:-3] = True
    assert found.ssim == pytest.approx(full[mask & inner].mean())
    np.testing.assert_allclose(ssim_map(healthy, recon, data_range=1.5), full)


def test_edge_cases_are_policies():
    a = np.random.default_rng(0).random((8, 8))
    empty = recon_metrics(a, a, np.zeros((8, 8), bool), data_range=1.0)
    assert math.isnan(empty.mse) and empty.n_voxels == 0
    exact = recon_metrics(a, a, np.ones((8, 8), bool), data_range=1.0)
    assert exact.mse == 0.0 and exact.psnr == math.inf and exact.ssim == pytest.approx(1.0)
    flat = recon_metrics(np.ones((8, 8)), a, np.ones((8, 8), bool), data_range=0.0)
    assert math.isnan(flat.psnr) and math.isnan(flat.ssim) and flat.mse > 0
    with pytest.raises(ValueError, match="at least 7"):
        ssim_map(np.ones((6, 8)), np.ones((6, 8)), data_range=1.0)
    with pytest.raises(ValueError, match="shapes"):
        recon_metrics(a, a[:7], np.ones((8, 8), bool), data_range=1.0)
    with pytest.raises(ValueError, match="empty"):
        healthy_data_range(a, np.zeros((8, 8), bool))


def test_residual_and_scores_by_hand():
    scan, recon = np.array([1.0, 2.0, 5.0, 0.0]), np.array([1.5, 1.0, 1.0, 3.0])
    residual = residual_map(scan, recon)
    assert residual.tolist() == [0.5, 1.0, 4.0, 3.0]
    brain = np.array([True, True, True, False])
    assert residual_scores(residual, brain, scale=2.0).tolist() == [0.25, 0.5, 1.0, 0.0]
    assert residual_scores(residual, brain, scale=0.0).tolist() == [0.0] * 4
    with pytest.raises(ValueError):
        residual_scores(residual, brain, scale=-1.0)
    # 99.9th percentile, linear interpolation: of 0 .. 1000 it is 999
    assert residual_scale(np.arange(1001.0), np.ones(1001, bool)) == pytest.approx(999.0)
    assert residual_scale(residual, np.zeros(4, bool)) == 0.0


def test_bonferroni_by_hand():
    assert bonferroni([0.01, 0.02, 0.5]) == pytest.approx((0.03, 0.06, 1.0))
    corrected = bonferroni([0.04, math.nan])
    assert corrected[0] == pytest.approx(0.04) and math.isnan(corrected[1])  # NaN is not a test
    assert bonferroni([]) == ()


def test_student_t_by_hand():
    # means 2 and 5, both sample variances 1: t = 3 / sqrt(1/3 + 1/3), 4 degrees of freedom
    t, p = mse_test([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], test="student")
    assert t == pytest.approx(3 / math.sqrt(2 / 3))
    assert p == pytest.approx(2 * stats.t.sf(3 / math.sqrt(2 / 3), 4))


def test_student_t_of_unequal_groups_equals_scipy():
    """With unequal sizes and spreads Student and Welch differ: the pooled variance is used."""
    a, b = np.array([1.0, 2.0, 4.0, 3.5, 2.5]), np.array([2.0, 6.0, 9.0])
    t, p = mse_test(a, b, test="student")
    expected = stats.ttest_ind(b, a, equal_var=True)
    assert (t, p) == (pytest.approx(expected.statistic), pytest.approx(expected.pvalue))
    assert p != pytest.approx(stats.ttest_ind(b, a, equal_var=False).pvalue)


def test_welch_t_by_hand_and_scipy():
    a, b = np.array([1.0, 2.0, 4.0, 3.5]), np.array([2.0, 6.0, 9.0])
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t_hand = (b.mean() - a.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))  # Welch-Satterthwaite
    t, p = mse_test(a, b, test="welch")
    assert t == pytest.approx(t_hand)
    assert p == pytest.approx(2 * stats.t.sf(abs(t_hand), df))
    assert (t, p) == pytest.approx(tuple(stats.ttest_ind(b, a, equal_var=False)))


def test_paired_t_by_hand():
    healthy, diseased = [1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 4.0, 4.5]
    d = np.subtract(diseased, healthy)
    t_hand = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    t, p = mse_test(healthy, diseased, test="paired")
    assert t == pytest.approx(t_hand)
    assert p == pytest.approx(2 * stats.t.sf(abs(t_hand), d.size - 1))


def test_t_test_edge_cases():
    assert all(math.isnan(v) for v in mse_test([1.0], [2.0, 3.0]))
    assert all(math.isnan(v) for v in mse_test([1.0, 1.0], [1.0, 1.0]))
    assert all(
        math.isnan(v) for v in mse_test([1.0, 2.0], [2.0, 3.0], test="paired")
    )  # constant differences
    with pytest.raises(ValueError, match="test must be one of"):
        mse_test([1.0, 2.0], [1.0, 2.0], test="mann")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="paired"):
        mse_test([1.0, 2.0], [1.0, 2.0, 3.0], test="paired")


def _m(mse: float, ssim: float = 0.9) -> ReconMetrics:
    return ReconMetrics(mse, math.sqrt(mse), 10.0, ssim, 10, 1.0)


def _case(
    subject: str, degree: float | None, brain: float, anomaly: float | None = None
) -> CaseRecon:
    region = None if anomaly is None else _m(anomaly)
    return CaseRecon(f"{subject}_r_deg", subject, "r", degree, _m(brain), region, 1.0)


def test_summary_groups_normalises_and_corrects():
    cases = [
        _case("a", 0.0, 1.0, 2.0), _case("b", 0.0, 2.0, 3.0), _case("c", 0.0, 3.0, 4.0),
        _case("a", 0.1, 2.0, 3.0), _case("b", 0.1, 2.5, 3.5), _case("c", 0.1, 4.5, 6.0),
        _case("a", 0.5, 5.0, 9.0), _case("b", 0.5, 7.0, 9.5), _case("c", 0.5, 8.0, 12.0),
        _case("x", None, 100.0),  # not simulated: left out
    ]  # fmt: skip
    rows = summarise_recon(cases, test="paired")
    assert [(r.where, r.degree, r.n_cases) for r in rows] == [
        ("anomaly", 0.0, 3), ("anomaly", 0.1, 3), ("anomaly", 0.5, 3),
        ("brain", 0.0, 3), ("brain", 0.1, 3), ("brain", 0.5, 3),
    ]  # fmt: skip
    brain = {r.degree: r for r in rows if r.where == "brain"}
    assert brain[0.0].mse == pytest.approx(2.0) and brain[0.0].normalised_mse == pytest.approx(1.0)
    assert brain[0.5].mse == pytest.approx(20 / 3) and brain[0.5].normalised_mse == pytest.approx(
        10 / 3
    )
    assert brain[0.5].mse_sd == pytest.approx(np.std([5.0, 7.0, 8.0], ddof=1))
    # _m: MAE = sqrt(MSE), PSNR 10, SSIM 0.9 in every case
    assert brain[0.5].mae == pytest.approx((math.sqrt(5) + math.sqrt(7) + math.sqrt(8)) / 3)
    assert (brain[0.5].psnr, brain[0.5].ssim) == (pytest.approx(10.0), pytest.approx(0.9))
    assert brain[0.0].test is None
    test = brain[0.1].test
    assert test is not None and test.n_comparisons == 2
    t, p = stats.ttest_rel([2.0, 2.5, 4.5], [1.0, 2.0, 3.0])
    assert test.statistic == pytest.approx(t) and test.p_value == pytest.approx(p)
    assert test.p_bonferroni == pytest.approx(min(1.0, 2 * p))
    assert test.significant == (min(1.0, 2 * p) < 0.05)


def test_summary_welch_uses_all_cases_and_paired_only_pairs():
    cases = [_case("a", 0.0, 1.0), _case("b", 0.0, 2.0), _case("a", 0.2, 3.0), _case("c", 0.2, 5.0)]
    welch = summarise_recon(cases)
    t, p = stats.ttest_ind([3.0, 5.0], [1.0, 2.0], equal_var=False)
    assert welch[1].test is not None and welch[1].test.statistic == pytest.approx(t)
    paired = summarise_recon(cases, test="paired")  # only subject a has both: one pair, no test
    assert paired[1].test is not None and math.isnan(paired[1].test.p_value)
    with pytest.raises(ValueError, match="alpha"):
        summarise_recon(cases, alpha=1.0)
    with pytest.raises(ValueError, match="^test must be one of"):
        summarise_recon(cases, test="mann")  # type: ignore[arg-type]


def _volume() -> np.ndarray:
    data = np.zeros((9, 9, 9))
    data[1:-1, 1:-1, 1:-1] = np.random.default_rng(5).random((7, 7, 7)) + 0.5
    return data


@pytest.mark.parametrize("role", ["input", "healthy", "recon", "region"])
@pytest.mark.parametrize(
    ("value", "words"), [(math.nan, "1 NaN voxel"), (math.inf, "1 +inf"), (-math.inf, "1 -inf")]
)
def test_a_non_finite_voxel_anywhere_names_its_array(role, value, words):
    arrays = {"input": _volume(), "healthy": _volume(), "recon": _volume(), "region": None}
    arrays["region"] = (arrays["healthy"] > 1.0).astype(float)
    assert check_recon_case(arrays["input"], arrays["healthy"], arrays["recon"]) is None
    arrays[role][0, 0, 0] = value  # outside the brain: still spreads through SSIM's window
    found = check_recon_case(
        arrays["input"], arrays["healthy"], arrays["recon"], region=arrays["region"]
    )
    assert found is not None and found.role == role and words in found.problem


def test_brain_rules_name_the_healthy_original_or_the_mask():
    ok = _volume()
    found = check_recon_case(ok, np.zeros_like(ok), ok)
    assert found is not None and (found.role, found.problem[:11]) == ("healthy", "is all zero")
    found = check_recon_case(ok, -ok, ok)
    assert found is not None and found.role == "healthy" and "no voxel above 0" in found.problem
    found = check_recon_case(ok, ok, ok, brain=np.zeros(ok.shape))
    assert found is not None and found.role == "brain" and "empty" in found.problem
    flat = np.where(ok > 0, 2.0, 0.0)
    found = check_recon_case(ok, flat, ok)
    assert found is not None and found.role == "healthy" and "constant (2)" in found.problem
    assert check_recon_case(ok, ok, ok, brain=(ok > 0).astype(np.uint8) * 255) is None
    assert case_brain(ok).sum() == 343 and case_brain(ok, np.ones(ok.shape)).all()


@pytest.mark.parametrize(
    ("mask", "problem"),
    [
        ([0.0, 1.0, 1.0], ""),
        ([0, 255, 255], ""),
        ([0.0, 0.3, 0.3], ""),  # 0 and one other value
        ([0.0, 1.0, 0.0], ""),  # a single brain voxel
        ([0.0, 1.0, math.nan], "holds 1 NaN voxel"),
        ([0.0, 1.0, -math.inf], "holds 1 -inf voxel"),
        ([0.0, 0.0, 0.0], "is empty"),
        ([0.0, 1.0, 2.0], "is not a binary mask: it holds 2 values besides 0 (1, 2)"),
        (list(range(7)), "6 values besides 0 (1, 2, 3, 4, ...)"),
    ],
)
def test_brain_mask_policy(mask, problem):
    found = brain_mask_problem(np.array(mask))
    assert (found == "") if not problem else (problem in found)


def test_non_finite_words():
    assert non_finite_voxels(np.arange(3)) == ""  # integers are always finite
    assert non_finite_voxels(np.array([np.nan, 1.0])) == "holds 1 NaN voxel"
    assert non_finite_voxels(np.array([np.nan, np.nan])) == "holds 2 NaN voxels (every voxel)"
    assert non_finite_voxels(np.array([np.inf, 0.0, -np.inf])) == "holds 1 +inf and 1 -inf voxels"


def test_summary_counts_only_finite_mse():
    # a mask without voxels (NaN metrics) is no metric: n, means and tests agree
    empty = ReconMetrics(math.nan, math.nan, math.nan, math.nan, 0, 1.0)
    cases = [_case("a", 0.0, 1.0), _case("b", 0.0, 2.0), _case("c", 0.0, 3.0)]
    cases += [_case("a", 0.2, 3.0), _case("b", 0.2, 5.0), _case("c", 0.2, 4.0)]
    cases.append(CaseRecon("d_r_deg", "d", "r", 0.2, empty, None, 1.0))
    rows = {r.degree: r for r in summarise_recon(cases)}
    assert rows[0.2].n_cases == 3 and rows[0.2].mse == pytest.approx(4.0)
    test = rows[0.2].test
    assert test is not None and (test.n_healthy, test.n_diseased) == (3, 3)
    t, _ = stats.ttest_ind([3.0, 5.0, 4.0], [1.0, 2.0, 3.0], equal_var=False)
    assert test.statistic == pytest.approx(t)


def test_infinite_mse_gives_nan_psnr_not_an_error():
    a = np.zeros((8, 8))
    found = recon_metrics(a, np.full((8, 8), np.inf), np.ones((8, 8), bool), data_range=1.0)
    assert found.mse == math.inf and math.isnan(found.psnr) and math.isnan(found.ssim)
