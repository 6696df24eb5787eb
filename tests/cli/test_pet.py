"""The reconstruction framework from the command line, end to end on the simulated PET-like sample."""

from __future__ import annotations

import json
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.cli import main
from napari_mood.core.simulate.hypometabolism import hypometabolism_profile, region_from_atlas
from tests.reference_scorer import official_ap


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory) -> Path:
    """pet-sample (3 subjects, 6 mm voxels) -> simulate -> reconstruct -> evaluate-recon."""
    root = tmp_path_factory.mktemp("pet")
    sample, sim = root / "pet", root / "sim"
    assert main(["pet-sample", "--out", str(sample), "--subjects", "3", "--step", "3"]) == 0
    scans = sorted(str(p) for p in (sample / "scans").iterdir())
    argv = ["simulate", *scans, "--kind", "pet", "--mask", str(sample / "atlas.nii.gz")]
    argv += [
        "--atlas-labels",
        "3,4,5,6",
        "--degree",
        "0.1,0.5",
        "--smooth",
        "12",
        "--region-name",
        "ad",
    ]
    assert main([*argv, "--out", str(sim)]) == 0
    assert (
        main(
            [
                "reconstruct",
                str(sim),
                "--template",
                str(sample / "template.nii.gz"),
                "--out",
                str(root / "recon"),
            ]
        )
        == 0
    )
    argv = ["evaluate-recon", str(sim), "--recon", str(root / "recon"), "--format", "json"]
    argv += [
        "--out",
        str(root / "result.json"),
        "--save-maps",
        str(root / "maps"),
        "--plot",
        str(root / "fig.png"),
    ]
    assert main([*argv, "--quiet"]) == 0
    return root


def test_simulate_writes_the_documented_layout(pipeline):
    sim = pipeline / "sim"
    names = sorted(p.name for p in (sim / "toy").iterdir())
    assert names == [f"pet_{s:03d}_ad_deg{d}.nii.gz" for s in range(3) for d in ("00", "10", "50")]
    for folder in ("toy_label/pixel", "healthy", "region"):
        assert sorted(p.name for p in (sim / folder).iterdir()) == names
    samples = [(sim / "toy_label" / "sample" / f"{n}.txt").read_text() for n in names[:3]]
    assert samples == ["0\n", "1\n", "1\n"]
    manifest = json.loads((sim / "pet_ad.json").read_text())
    assert manifest["labels"] == [3, 4, 5, 6] and manifest["fwhm_mm"] == 12.0
    assert manifest["sigma_voxels"] == pytest.approx([12 / 2.3548200450309493 / 6] * 3)


def test_simulated_values_follow_the_rule(pipeline):
    sim, sample = pipeline / "sim", pipeline / "pet"
    atlas = nib.load(sample / "atlas.nii.gz")
    region = region_from_atlas(np.asarray(atlas.dataobj), [3, 4, 5, 6])
    profile = hypometabolism_profile(region, fwhm_mm=12.0, spacing=atlas.header.get_zooms())
    healthy = nib.load(sample / "scans" / "pet_001.nii.gz").get_fdata()
    diseased = nib.load(sim / "toy" / "pet_001_ad_deg50.nii.gz").get_fdata()
    np.testing.assert_allclose(diseased, healthy * (1 - 0.5 * profile.profile), atol=1e-6)
    gt = nib.load(sim / "toy_label" / "pixel" / "pet_001_ad_deg50.nii.gz").get_fdata() > 0
    assert np.array_equal(gt, profile.profile >= 0.5)
    assert not (nib.load(sim / "toy_label" / "pixel" / "pet_001_ad_deg00.nii.gz").get_fdata()).any()
    assert np.array_equal(
        nib.load(sim / "healthy" / "pet_001_ad_deg50.nii.gz").get_fdata(), healthy
    )


def test_evaluate_recon_result_and_maps_score_with_evaluate(pipeline, capsys):
    result = json.loads((pipeline / "result.json").read_text())
    assert len(result["cases"]) == 9 and result["problems"] == []
    rows = {(r["where"], r["degree"]): r for r in result["summary"]}
    assert set(rows) == {(w, d) for w in ("brain", "anomaly") for d in (0.0, 0.1, 0.5)}
    assert rows[("brain", 0.0)]["normalised_mse"] == pytest.approx(1.0)
    assert rows[("brain", 0.5)]["test"]["n_comparisons"] == 2
    assert (pipeline / "fig.png").stat().st_size > 1000
    maps = sorted(p.name for p in (pipeline / "maps").iterdir())
    assert len(maps) == 18
    code, out, _ = _run(
        capsys,
        "evaluate",
        str(pipeline / "sim"),
        "--pred",
        f"recon={pipeline / 'maps'}",
        "--format",
        "json",
        "--quiet",
    )
    assert code == 0
    ap = json.loads(out)["methods"]["recon"]["pixel"]["ap"]
    assert ap == pytest.approx(
        official_ap(pipeline / "maps", pipeline / "sim" / "toy_label" / "pixel"), abs=1e-4
    )


def test_refusals_and_usage_errors(pipeline, capsys, tmp_path):
    sample = pipeline / "pet"
    scan, atlas = str(sample / "scans" / "pet_000.nii.gz"), str(sample / "atlas.nii.gz")
    pet = ["simulate", scan, "--kind", "pet", "--mask", atlas, "--degree", "0.1"]
    code, _, err = _run(capsys, *pet, "--out", str(pipeline / "sim"), "--region-name", "ad")
    assert code == 1 and "--force" in err
    code, _, err = _run(capsys, *pet, "--out", str(sample / "x"))
    assert code == 1 and "input folder" in err
    code, _, err = _run(capsys, *pet, "--atlas-labels", "42", "--out", str(tmp_path / "a"))
    assert code == 1 and "not in the atlas" in err and not (tmp_path / "a" / "toy").exists()
    for argv, message in [
        (["simulate", scan, "--mask", atlas, "--out", "o"], "give --kind pet"),
        (["simulate", scan, "--atlas-labels", "3", "--out", "o"], "need(s) --mask"),
        (["simulate", scan, scan, "--out", "o"], "one scan only"),
        ([*pet, "--degree", "0.055", "--out", "o"], "whole per cent"),
        ([*pet, "--smooth", "-1", "--out", "o"], "must lie in"),
        (["evaluate-recon", "d", "--recon", "r", "--scale", "0"], "positive"),
        (["evaluate-recon", "d", "--recon", "r", "--test", "mann"], "invalid choice"),
        (["evaluate-recon", "d", "--recon", "r", "--plot", "p.jpg"], "use .png, .svg or .pdf"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2, argv
        assert message in capsys.readouterr().err, argv
    recon = ["evaluate-recon", str(pipeline / "sim"), "--recon", str(pipeline / "recon")]
    code, _, err = _run(capsys, *recon, "--save-maps", str(pipeline / "recon" / "m"))
    assert code == 1 and "input folder" in err
    code, _, err = _run(capsys, *recon, "--save-maps", str(pipeline / "maps"))
    assert code == 1 and "--force" in err
    code, out, _ = _run(capsys, *recon, "--save-maps", str(pipeline / "maps"), "--force", "--quiet")
    assert code == 0 and "anomaly" in out


def test_a_broken_scan_costs_its_subject_only(pipeline, capsys, tmp_path):
    sample = pipeline / "pet"
    broken = tmp_path / "in" / "bad.nii.gz"
    broken.parent.mkdir()
    broken.write_bytes(b"\x1f\x8b broken")
    scan = str(sample / "scans" / "pet_000.nii.gz")
    argv = ["simulate", scan, str(broken), "--kind", "pet", "--mask", str(sample / "atlas.nii.gz")]
    code, out, err = _run(capsys, *argv, "--degree", "0.2", "--out", str(tmp_path / "o"))
    assert code == 0 and "bad.nii.gz" in err and "pet_000_atlas_deg00" in out
    assert sorted(p.name for p in (tmp_path / "o" / "toy").iterdir()) == [
        "pet_000_atlas_deg00.nii.gz",
        "pet_000_atlas_deg20.nii.gz",
    ]
