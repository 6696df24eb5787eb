"""Bad inputs of ``napari-mood evaluate-recon`` (issue 35): each class, several cases.

Two rules are checked here through the command line:

- a case whose files cannot give finite metrics (NaN or infinite voxels in the input,
  healthy original, reconstruction or region; an all-zero or constant healthy original)
  is skipped with one warning naming the file and why, and every count (table, JSON,
  t-tests) is of the cases measured; a bad ``--brain-mask`` is an error naming it,
  before any case is read or any output written;
- ``--plot`` with a type matplotlib is not asked to write is a usage error (exit 2)
  listing the types, before any file is read.

Every test also checks that no input changed (checksums) and that nothing but the
asked-for outputs appeared (no partial file, no temporary file).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from napari_mood.core.simulate.hypometabolism import (
    degree_case_name,
    hypometabolism_profile,
    simulate_hypometabolism,
)
from tests.conftest import write_nifti
from tests.test_bad_inputs import _checksums, _cli, _refused

SHAPE = (10, 11, 12)
SUBJECTS = ("s1", "s2", "s3")
DEGREES = (0.0, 0.2, 0.6)
BAD_CASE = "s1_ad_deg20.nii.gz"


@pytest.fixture
def pet(tmp_path: Path) -> Path:
    """ROOT/sim (toy/, healthy/, region/, toy_label/pixel/) and ROOT/recon: 3 subjects x 3 degrees."""
    root = tmp_path / "in"
    rng = np.random.default_rng(1)
    region = np.zeros(SHAPE, bool)
    region[3:7, 3:8, 4:8] = True
    profile = hypometabolism_profile(region, fwhm_mm=2.0, spacing=(1.0, 1.0, 1.0))
    for s, subject in enumerate(SUBJECTS):
        healthy = np.zeros(SHAPE, np.float32)
        healthy[1:-1, 1:-1, 1:-1] = 0.5 + 0.5 * rng.random((8, 9, 10))
        for degree in DEGREES:
            name = f"{degree_case_name(subject, 'ad', degree)}.nii.gz"
            scan = simulate_hypometabolism(healthy, profile, degree=degree)
            error = 0.02 * (s + 1) + degree * (0.1 + 0.03 * s) * profile.profile
            write_nifti(root / "sim" / "toy" / name, scan)
            write_nifti(root / "sim" / "healthy" / name, healthy)
            write_nifti(root / "sim" / "region" / name, profile.mask.astype(np.uint8))
            label = profile.mask if degree > 0 else np.zeros(SHAPE, bool)
            write_nifti(root / "sim" / "toy_label" / "pixel" / name, label.astype(np.uint8))
            write_nifti(root / "recon" / name, (healthy + error).astype(np.float32))
    return root


def _files(root: Path) -> set[str]:
    """Every file and link under ``root`` (hidden ones too: temporary files)."""
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def _recon(pet: Path, *more: str) -> list[str]:
    return ["evaluate-recon", str(pet / "sim"), "--recon", str(pet / "recon"), *more]


def _poke(path: Path, value: float, *, everywhere: bool = False) -> None:
    """Set one voxel (or every voxel) of a NIfTI file to ``value`` (float32)."""
    import nibabel as nib

    data = np.asarray(nib.load(path).get_fdata(), np.float32)
    if everywhere:
        data[:] = value
    else:
        data[5, 5, 5] = value
    write_nifti(path, data)


# --------------------------------------------------------------------------- skipped cases

FOLDERS = {"recon": "recon", "healthy": "sim/healthy", "input": "sim/toy", "region": "sim/region"}


@pytest.mark.parametrize(
    ("role", "value", "everywhere", "words"),
    [
        ("recon", math.nan, False, "holds 1 NaN voxel"),
        ("recon", math.inf, False, "holds 1 +inf voxel"),
        ("recon", -math.inf, False, "holds 1 -inf voxel"),
        ("recon", math.inf, True, "holds 1320 +inf voxels (every voxel)"),
        ("healthy", math.nan, False, "holds 1 NaN voxel"),
        ("healthy", math.inf, False, "holds 1 +inf voxel"),
        ("healthy", 0.0, True, "is all zero"),
        ("healthy", -1.0, True, "has no voxel above 0"),
        ("input", math.nan, False, "holds 1 NaN voxel"),
        ("input", -math.inf, False, "holds 1 -inf voxel"),
        ("region", math.nan, False, "holds 1 NaN voxel"),
    ],
)
def test_a_case_without_finite_metrics_is_skipped_and_named(
    capsys, pet: Path, tmp_path: Path, role: str, value: float, everywhere: bool, words: str
):
    bad = pet / FOLDERS[role] / BAD_CASE
    _poke(bad, value, everywhere=everywhere)
    before, files = _checksums(pet), _files(tmp_path)
    out = tmp_path / "result.json"
    code, _, err = _cli(capsys, *_recon(pet, "--format", "json", "--out", str(out)))
    assert code == 0 and "Traceback" not in err, err
    warned = [line for line in err.splitlines() if line.startswith("napari-mood: warning:")]
    assert len(warned) == 1 and f"{bad}: {words}" in warned[0], err
    assert _checksums(pet) == before and _files(tmp_path) - files == {"result.json"}
    result = json.loads(out.read_text())
    assert result["n_cases"] == 8 and result["skipped"] == [BAD_CASE]
    assert len(result["cases"]) == 8 and BAD_CASE not in {c["case"] for c in result["cases"]}
    rows = {(r["where"], r["degree"]): r for r in result["summary"]}
    for where in ("brain", "anomaly"):
        assert [rows[(where, d)]["n_cases"] for d in DEGREES] == [3, 2, 3]
        test = rows[(where, 0.2)]["test"]
        assert (test["n_healthy"], test["n_diseased"]) == (3, 2)
        assert all(math.isfinite(rows[(where, d)]["mse"]) for d in DEGREES)
        assert test["p_value"] is not None and test["n_comparisons"] == 2


def test_the_table_shows_the_real_n_and_the_skipped_case(capsys, pet: Path):
    _poke(pet / "recon" / BAD_CASE, math.nan)
    code, out, err = _cli(capsys, *_recon(pet))
    assert code == 0 and "Traceback" not in err
    assert "8 cases (8 simulated), 1 skipped" in out
    n_column = [line.split()[3] for line in out.splitlines() if line.startswith("ad ")]
    assert n_column == ["3", "2", "3", "3", "2", "3"]
    assert f"problem: {BAD_CASE}: skipped: {pet / 'recon' / BAD_CASE}: holds 1 NaN voxel" in out


def test_a_constant_healthy_original_inside_the_brain_mask_is_skipped(
    capsys, pet: Path, tmp_path: Path
):
    flat = np.zeros(SHAPE, np.float32)
    flat[1:-1, 1:-1, 1:-1] = 2.0
    write_nifti(pet / "sim" / "healthy" / BAD_CASE, flat)
    before = _checksums(pet)
    code, out, err = _cli(capsys, *_recon(pet, "--quiet"))
    assert code == 0 and "8 cases" in out and "1 skipped" in out
    assert f"{pet / 'sim' / 'healthy' / BAD_CASE}: is constant (2) inside the brain mask" in out
    assert err == "" and _checksums(pet) == before  # --quiet: the table still says it


def test_maps_are_written_for_the_measured_cases_only(capsys, pet: Path, tmp_path: Path):
    _poke(pet / "sim" / "toy" / BAD_CASE, math.nan)
    maps = tmp_path / "maps"
    code, _, err = _cli(capsys, *_recon(pet, "--save-maps", str(maps), "--quiet"))
    assert code == 0, err
    assert len(list(maps.iterdir())) == 16 and not (maps / BAD_CASE).exists()
    assert not any(p.name.startswith(".") for p in maps.iterdir())


def test_every_case_unusable_is_an_error_naming_one(capsys, pet: Path, tmp_path: Path):
    for path in (pet / "recon").iterdir():
        _poke(path, math.nan)
    files = _files(tmp_path)
    err = _refused(
        capsys, pet, *_recon(pet, "--out", str(tmp_path / "r.txt"), "--quiet"),
        names="no case could be evaluated",
    )  # fmt: skip
    assert "holds 1 NaN voxel" in err and _files(tmp_path) == files


def test_every_case_unusable_names_a_cases_reason_not_the_region_note(
    capsys, pet: Path, tmp_path: Path
):
    shutil.rmtree(pet / "sim" / "region")  # a dataset-wide note comes first among the problems
    for path in (pet / "recon").iterdir():
        _poke(path, math.nan)
    err = _refused(capsys, pet, *_recon(pet, "--quiet"), names="no case could be evaluated")
    (line,) = [x for x in err.splitlines() if "no case could be evaluated" in x]
    hint = line.split("no case could be evaluated", 1)[1]
    assert "holds 1 NaN voxel" in hint and "no such folder of anomaly regions" not in hint
    assert "8 other case(s) skipped too" in hint  # 9 cases, the first one named


# --------------------------------------------------------------------------- --brain-mask


def _mask(values: str) -> np.ndarray:
    mask = np.zeros(SHAPE, np.float32)
    mask[1:-1, 1:-1, 1:-1] = 1
    if values == "nan":
        mask[0, 0, 0] = np.nan
    elif values == "inf":
        mask[2, 2, 2] = np.inf
    elif values == "empty":
        mask[:] = 0
    elif values == "probabilities":
        mask *= np.linspace(0.1, 1.0, SHAPE[2], dtype=np.float32)
    elif values == "grid":
        mask = mask[:-1]
    return mask


@pytest.mark.parametrize(
    ("values", "problem"),
    [
        ("nan", "holds 1 NaN voxel"),
        ("inf", "holds 1 +inf voxel"),
        ("empty", "is empty: no voxel is nonzero"),
        ("probabilities", "is not a binary mask: it holds 10 values besides 0"),
        ("grid", "has shape (9, 11, 12), the inputs have (10, 11, 12)"),
        ("garbage", "is not a readable gzip file"),
        ("missing", "file not found"),
    ],
)
def test_a_bad_brain_mask_is_an_error_before_any_work(
    capsys, pet: Path, tmp_path: Path, values: str, problem: str
):
    mask = tmp_path / "in" / "brain.nii.gz"
    if values == "garbage":
        mask.write_bytes(b"\x1f\x8b not gzip")
    elif values != "missing":
        write_nifti(mask, _mask(values))
    files = _files(tmp_path)
    outputs = ["--out", str(tmp_path / "r.json"), "--save-maps", str(tmp_path / "maps")]
    argv = _recon(pet, "--brain-mask", str(mask), *outputs, "--plot", str(tmp_path / "f.png"))
    err = _refused(capsys, pet, *argv, names=f"{mask}: ")
    assert problem in err and len(err.strip().splitlines()) == 1, err
    assert "warning" not in err  # no case was read
    assert _files(tmp_path) == files


def test_a_0_255_brain_mask_is_a_mask(capsys, pet: Path, tmp_path: Path):
    mask = tmp_path / "in" / "brain.nii.gz"
    write_nifti(mask, (_mask("ok") * 255).astype(np.uint8))
    code, out, err = _cli(capsys, *_recon(pet, "--brain-mask", str(mask), "--format", "json"))
    assert code == 0 and err == "", err
    assert json.loads(out)["cases"][0]["brain"]["n_voxels"] == 8 * 9 * 10


# --------------------------------------------------------------------------- --plot


@pytest.mark.parametrize("name", ["p.jpg", "p.JPEG", "p.tiff", "p.eps", "p", "p.png.txt"])
def test_an_unwritable_plot_type_is_a_usage_error(capsys, pet: Path, tmp_path: Path, name: str):
    files = _files(tmp_path)
    outputs = ["--out", str(tmp_path / "r.json"), "--save-maps", str(tmp_path / "maps")]
    err = _refused(
        capsys, pet, *_recon(pet, *outputs, "--plot", str(tmp_path / name)), code=2,
        names=f"argument --plot: {tmp_path / name}: unsupported figure",
    )  # fmt: skip
    assert "use .png, .svg or .pdf" in err and _files(tmp_path) == files


def test_plot_types_are_any_case(capsys, pet: Path, tmp_path: Path):
    code, _, err = _cli(capsys, *_recon(pet, "--plot", str(tmp_path / "f.PDF"), "--quiet"))
    assert code == 0, err
    assert (tmp_path / "f.PDF").read_bytes().startswith(b"%PDF")


def test_a_plot_of_no_simulated_case_is_refused_before_any_work(capsys, pet: Path, tmp_path: Path):
    for folder in ("sim/toy", "sim/healthy", "sim/region", "sim/toy_label/pixel", "recon"):
        for path in (pet / folder).iterdir():
            path.rename(path.with_name(path.name.replace("_ad_deg", "_scan")))
    files = _files(tmp_path)
    err = _refused(
        capsys, pet,
        *_recon(pet, "--save-maps", str(tmp_path / "maps"), "--plot", str(tmp_path / "f.png")),
        names=f"{pet / 'sim' / 'toy'}: no simulated case to plot",
    )  # fmt: skip
    assert "--plot" in err and _files(tmp_path) == files


def test_a_plot_with_every_simulated_case_skipped_writes_nothing(capsys, pet: Path, tmp_path: Path):
    plain = pet / "sim" / "toy" / "extra.nii.gz"
    for folder in ("sim/toy", "sim/healthy", "recon"):
        source = pet / folder / "s1_ad_deg00.nii.gz"
        (pet / folder / plain.name).write_bytes(source.read_bytes())
    for path in (pet / "recon").iterdir():
        if "_deg" in path.name:
            _poke(path, math.nan)
    files = _files(tmp_path)
    outputs = ["--out", str(tmp_path / "r.json"), "--save-maps", str(tmp_path / "maps")]
    err = _refused(
        capsys, pet, *_recon(pet, *outputs, "--plot", str(tmp_path / "f.png"), "--quiet"),
        names=f"{tmp_path / 'f.png'}: nothing to plot: every simulated case was skipped",
    )  # fmt: skip
    assert "drop --plot" in err and _files(tmp_path) == files
