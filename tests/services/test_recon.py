"""Evaluating reconstructions on a tiny simulated set: values restated from the core rules."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.core.simulate.hypometabolism import (
    degree_case_name,
    hypometabolism_profile,
    simulate_hypometabolism,
)
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.recon import ReconFolders
from napari_mood.services.output import OutputRefused
from napari_mood.services.recon import (
    ReconOptions,
    body_ranges,
    evaluate_recon,
    write_score_maps,
)
from napari_mood.services.recon_report import format_recon, plot_normalised_mse
from tests.conftest import write_nifti

SHAPE = (10, 11, 12)


def _dataset(root: Path, *, with_region: bool = True) -> dict[str, dict[str, np.ndarray]]:
    """Two subjects x degrees 0, 0.2, 0.6; recon = healthy + subject-dependent error."""
    rng = np.random.default_rng(0)
    region = np.zeros(SHAPE, bool)
    region[3:7, 3:8, 4:8] = True
    profile = hypometabolism_profile(region, fwhm_mm=2.0, spacing=(1.0, 1.0, 1.0))
    truth: dict[str, dict[str, np.ndarray]] = {}
    for s, subject in enumerate(("s1", "s2")):
        healthy = np.zeros(SHAPE, np.float32)
        healthy[1:-1, 1:-1, 1:-1] = 0.5 + 0.5 * rng.random((8, 9, 10))
        for degree in (0.0, 0.2, 0.6):
            name = degree_case_name(subject, "ad", degree)
            scan = simulate_hypometabolism(healthy, profile, degree=degree)
            recon = (healthy + 0.05 * (s + 1) * degree * profile.profile + 0.01).astype(np.float32)
            write_nifti(root / "sim" / "toy" / f"{name}.nii.gz", scan)
            write_nifti(root / "sim" / "healthy" / f"{name}.nii.gz", healthy)
            write_nifti(root / "recon" / f"{name}.nii.gz", recon)
            label = profile.mask if degree > 0 else np.zeros(SHAPE, bool)
            write_nifti(
                root / "sim" / "toy_label" / "pixel" / f"{name}.nii.gz", label.astype(np.uint8)
            )
            if with_region:
                write_nifti(
                    root / "sim" / "region" / f"{name}.nii.gz", profile.mask.astype(np.uint8)
                )
            truth[name] = {"scan": scan, "healthy": healthy, "recon": recon, "region": profile.mask}
    return truth


def test_case_metrics_equal_numpy_and_scikit_image(tmp_path):
    from skimage.metrics import peak_signal_noise_ratio, structural_similarity

    truth = _dataset(tmp_path)
    folders = ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon")
    result = evaluate_recon(folders)
    assert len(result.cases) == 6 and result.problems == ()
    interior = np.zeros(SHAPE, bool)
    interior[3:-3, 3:-3, 3:-3] = True  # skimage's SSIM mean leaves out a 7-voxel window's half
    for case in result.cases:
        t = truth[case.case.removesuffix(".nii.gz")]
        healthy, recon = t["healthy"].astype(np.float64), t["recon"].astype(np.float64)
        brain = healthy > 0
        dr = float(np.ptp(healthy[brain]))
        diff = recon - healthy
        assert case.brain.mse == pytest.approx(np.mean(diff[brain] ** 2), rel=1e-12)
        assert case.brain.mae == pytest.approx(np.mean(np.abs(diff[brain])), rel=1e-12)
        psnr = peak_signal_noise_ratio(healthy[brain], recon[brain], data_range=dr)
        assert case.brain.psnr == pytest.approx(psnr, rel=1e-12)
        _, ssim = structural_similarity(healthy, recon, data_range=dr, full=True)
        assert case.brain.ssim == pytest.approx(ssim[brain & interior].mean(), rel=1e-12)
        assert case.brain.data_range == pytest.approx(dr)
        inside = t["region"] & brain
        assert case.anomaly is not None
        assert case.anomaly.mae == pytest.approx(np.mean(np.abs(diff[inside])), rel=1e-12)
        residual = np.abs(t["scan"].astype(np.float64) - recon)
        assert case.scale == pytest.approx(np.quantile(residual[brain], 0.999), rel=1e-6)
    assert {(r.where, r.degree) for r in result.rows} == {
        (w, d) for w in ("brain", "anomaly") for d in (0.0, 0.2, 0.6)
    }


def test_region_falls_back_to_labels_and_healthy_inputs_then_have_none(tmp_path):
    _dataset(tmp_path, with_region=False)
    with pytest.warns(MoodInputWarning, match=r"sim/region: no such folder.*0% baseline"):
        result = evaluate_recon(ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon"))
    assert any("no such folder of anomaly regions" in p for p in result.problems)
    by_degree = {c.degree: c for c in result.cases if c.subject == "s1"}
    assert by_degree[0.0].anomaly is None  # its label is empty
    assert by_degree[0.2].anomaly is not None


def test_a_missing_reconstruction_costs_its_case_only(tmp_path):
    _dataset(tmp_path)
    (tmp_path / "recon" / "s1_ad_deg20.nii.gz").unlink()
    (tmp_path / "recon" / "s2_ad_deg20.nii.gz").write_bytes(b"not a nifti")
    with pytest.warns(MoodInputWarning) as record:
        result = evaluate_recon(ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon"))
    assert len(result.cases) == 4 and len(result.problems) == 2
    messages = " ".join(str(w.message) for w in record)
    assert (
        "s1_ad_deg20" in messages and "no reconstruction" in messages and "s2_ad_deg20" in messages
    )


def test_brain_mask_file_and_grid_checks(tmp_path):
    truth = _dataset(tmp_path)
    mask = np.zeros(SHAPE, np.uint8)
    mask[2:8, 2:9, 2:10] = 1
    write_nifti(tmp_path / "brain.nii.gz", mask)
    folders = ReconFolders.of_dataset(
        tmp_path / "sim", tmp_path / "recon", brain_mask=tmp_path / "brain.nii.gz"
    )
    case = evaluate_recon(folders).cases[0]
    t = truth[case.case.removesuffix(".nii.gz")]
    assert case.brain.n_voxels == int(mask.sum())
    assert case.brain.data_range == pytest.approx(np.ptp(t["healthy"][mask > 0]))
    write_nifti(tmp_path / "small.nii.gz", np.ones((3, 3, 3), np.uint8))
    small = ReconFolders.of_dataset(
        tmp_path / "sim", tmp_path / "recon", brain_mask=tmp_path / "small.nii.gz"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any case: no case warning
        with pytest.raises(MoodInputError, match=r"small\.nii\.gz: has shape \(3, 3, 3\)"):
            evaluate_recon(small)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("nan", "holds 1 NaN voxel"),
        ("empty", "is empty"),
        ("levels", "is not a binary mask: it holds 2 values"),
    ],
)
def test_a_bad_brain_mask_is_an_error_before_any_case(tmp_path, values, message):
    _dataset(tmp_path)
    mask = np.zeros(SHAPE, np.float32)
    mask[2:8, 2:9, 2:10] = 1
    if values == "nan":
        mask[0, 0, 0] = np.nan
    elif values == "empty":
        mask[:] = 0
    else:
        mask[2:5] = 0.5
    write_nifti(tmp_path / "brain.nii.gz", mask)
    folders = ReconFolders.of_dataset(
        tmp_path / "sim", tmp_path / "recon", brain_mask=tmp_path / "brain.nii.gz"
    )
    seen: list[str] = []
    with pytest.raises(MoodInputError, match=message) as exc:
        evaluate_recon(folders, progress=lambda i, n, name: seen.append(name))
    assert exc.value.path == tmp_path / "brain.nii.gz" and seen == []


def _poke(path: Path, value: float) -> None:
    data = nib.load(path).get_fdata().astype(np.float32)
    data[5, 5, 5] = value
    write_nifti(path, data)


@pytest.mark.parametrize(
    ("folder", "value", "message"),
    [
        ("recon", math.nan, "holds 1 NaN voxel"),
        ("recon", math.inf, "holds 1 +inf voxel"),
        ("sim/healthy", -math.inf, "holds 1 -inf voxel"),
        ("sim/toy", math.nan, "holds 1 NaN voxel"),
        ("sim/region", math.nan, "holds 1 NaN voxel"),
    ],
)
def test_a_case_without_finite_metrics_is_skipped_and_not_counted(tmp_path, folder, value, message):
    _dataset(tmp_path)
    bad = tmp_path / folder / "s1_ad_deg20.nii.gz"
    _poke(bad, value)
    with pytest.warns(MoodInputWarning, match=re.escape(message)) as record:
        result = evaluate_recon(ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon"))
    assert str(bad) in str(record[0].message)
    assert result.skipped == ("s1_ad_deg20.nii.gz",) and len(result.cases) == 5
    rows = {(r.where, r.degree): r for r in result.rows}
    assert rows[("brain", 0.2)].n_cases == 1 and rows[("brain", 0.6)].n_cases == 2
    test = rows[("brain", 0.6)].test
    assert test is not None and (test.n_healthy, test.n_diseased) == (2, 2)
    assert all(math.isfinite(r.mse) for r in result.rows)
    assert "1 skipped" in format_recon(result, "table")


def test_an_all_zero_healthy_original_is_skipped(tmp_path):
    _dataset(tmp_path)
    bad = tmp_path / "sim" / "healthy" / "s2_ad_deg00.nii.gz"
    write_nifti(bad, np.zeros(SHAPE, np.float32))
    with pytest.warns(MoodInputWarning, match="is all zero"):
        result = evaluate_recon(ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon"))
    assert result.skipped == ("s2_ad_deg00.nii.gz",)
    assert {r.n_cases for r in result.rows if r.degree == 0.0} == {1}


def test_a_region_outside_the_brain_mask_gives_brain_metrics_only(tmp_path):
    _dataset(tmp_path)
    mask = np.zeros(SHAPE, np.uint8)
    mask[:3] = 1  # beside the region (3:7, 3:8, 4:8)
    write_nifti(tmp_path / "brain.nii.gz", mask)
    folders = ReconFolders.of_dataset(
        tmp_path / "sim", tmp_path / "recon", brain_mask=tmp_path / "brain.nii.gz"
    )
    with pytest.warns(MoodInputWarning, match="no voxel of the anomaly region"):
        result = evaluate_recon(folders)
    assert all(c.anomaly is None for c in result.cases) and result.skipped == ()
    assert {r.where for r in result.rows} == {"brain"}


def test_a_region_folder_of_scans_is_refused_case_by_case_naming_each_file(tmp_path):
    _dataset(tmp_path)
    folders = ReconFolders.of_dataset(
        tmp_path / "sim", tmp_path / "recon", region=tmp_path / "sim" / "toy"
    )
    with (
        pytest.warns(MoodInputWarning) as record,
        pytest.raises(MoodInputError, match="no case could be evaluated"),
    ):
        evaluate_recon(folders)
    messages = "\n".join(str(w.message) for w in record)
    assert len(record) == 6
    assert re.search(r"sim/toy/s1_ad_deg20.nii.gz: is not a binary mask: it holds", messages)


def test_a_0_255_region_is_the_same_region_as_0_1(tmp_path):
    _dataset(tmp_path)
    for path in (tmp_path / "sim" / "region").iterdir():
        write_nifti(path, (nib.load(path).get_fdata() * 255).astype(np.uint8))
    result = evaluate_recon(ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon"))
    assert result.skipped == () and all(c.anomaly is not None for c in result.cases)


def test_score_maps_are_the_scaled_residual(tmp_path):
    truth = _dataset(tmp_path)
    folders = ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon")
    result = evaluate_recon(folders, options=ReconOptions(scale=0.05))
    written = write_score_maps(result, folders, tmp_path / "maps")
    assert len(written) == 12
    name = "s2_ad_deg60"
    t = truth[name]
    scores = nib.load(tmp_path / "maps" / f"{name}.nii.gz").get_fdata()
    brain = t["healthy"] > 0
    expected = np.clip(np.abs(t["scan"].astype(float) - t["recon"]) / 0.05, 0, 1) * brain
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    sample = float((tmp_path / "maps" / f"{name}.nii.gz.txt").read_text())
    assert sample == pytest.approx(expected[brain].mean(), abs=1e-6)
    with pytest.raises(OutputRefused, match="exists already"):
        write_score_maps(result, folders, tmp_path / "maps")
    with pytest.raises(OutputRefused, match="input folder"):
        write_score_maps(result, folders, tmp_path / "recon" / "maps")
    dataset = evaluate_recon(folders)
    assert dataset.scale_of(dataset.cases[0]) == max(c.scale for c in dataset.cases)
    per_case = evaluate_recon(folders, options=ReconOptions(scale="case"))
    assert per_case.scale_of(per_case.cases[1]) == per_case.cases[1].scale


def test_formats_and_plot(tmp_path):
    _dataset(tmp_path)
    result = evaluate_recon(ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon"))
    table = format_recon(result, "table")
    assert "welch t-test" in table and "ad      anomaly" in table and "60%" in table
    csv_text = format_recon(result, "csv")
    assert csv_text.splitlines()[0].startswith("case,subject,region,degree,brain_mse")
    assert len(csv_text.splitlines()) == 7
    import json

    data = json.loads(format_recon(result, "json"))
    assert data["options"]["test"] == "welch" and len(data["summary"]) == 6
    healthy_row = data["summary"][0]
    assert healthy_row["test"] is None and healthy_row["normalised_mse"] == pytest.approx(1.0)
    out = plot_normalised_mse(result, tmp_path / "fig.pdf")
    pdf = out.read_bytes()
    assert b"/FontFile2" in pdf and b"/Type3" not in pdf  # TrueType embedded, no Type 3
    assert not math.isnan(result.rows[-1].normalised_mse)


def test_the_view_fits_the_body_of_the_healthy_original_not_its_empty_border():
    volume = np.zeros((40, 50, 60), np.float32)
    volume[10:30, 12:38, 20:41] = 1.0 + np.random.default_rng(0).random((20, 26, 21))
    assert body_ranges(volume) == ((6, 33), (8, 41), (16, 44))  # the body, 4 voxels around
    assert body_ranges(np.zeros((5, 6, 7))) == ((0, 4), (0, 5), (0, 6))  # no body: everything
