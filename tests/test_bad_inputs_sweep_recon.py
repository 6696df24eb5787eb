"""Bad inputs of the PET-like reconstruction commands found by the hostile sweep (issue 35).

- ``reconstruct``: an input with a NaN or infinite voxel in the brain, or one that cannot
  be read or is on another grid, is skipped with a warning naming it (the other inputs
  are reconstructed); a bad template is an error naming the template; no input usable is
  an error naming the inputs folder;
- ``evaluate-recon``: a missing ``region/`` folder is a warning naming it (an explicit
  ``--region`` that is missing is an error); ``--out`` / ``--plot`` anywhere inside the
  ``--maps`` folder are refused before any work as overlapping outputs;
- ``pet-sample --step`` larger than what keeps 8 voxels per axis is a usage error;
- ``simulate --kind pet --mask SCAN``: a mask of several values that are not whole
  numbers (a scan) is an error naming it; an atlas without ``--labels`` is a warning.

Every test checks the exit code, the message naming the file, that no input changed and
that no partial or temporary output remains.
"""

from __future__ import annotations

import math
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.services.pet_sample import MAX_STEP, MIN_VOXELS, SAMPLE_GRID, SAMPLE_SOURCES
from tests import test_bad_inputs_recon as recon_cases
from tests.conftest import write_nifti
from tests.test_bad_inputs import _checksums, _cli, _refused
from tests.test_bad_inputs_recon import SHAPE, _files, _poke, _recon

pet = recon_cases.pet  # the fixture: ROOT/sim (toy/, healthy/, region/, ...) and ROOT/recon

WARNING = "napari-mood: warning:"


# --------------------------------------------------------------------------- reconstruct


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    """ROOT/ds/toy/a, b, c (inputs) and ROOT/template.nii.gz, all on one grid."""
    root = tmp_path / "in"
    template = np.zeros(SHAPE, np.float32)
    template[2:-2, 2:-2, 2:-2] = 1.0
    write_nifti(root / "template.nii.gz", template)
    for i, name in enumerate("abc"):
        write_nifti(root / "ds" / "toy" / f"{name}.nii.gz", template * (1 + i / 10))
    return root


def _reconstruct(toy: Path, out: Path) -> list[str]:
    return ["reconstruct", str(toy / "ds"), "--template", str(toy / "template.nii.gz"),
            "--out", str(out)]  # fmt: skip


def _voxels(path: Path) -> np.ndarray:
    return np.asarray(nib.nifti1.load(path).dataobj, np.float32)


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _other_grid(path: Path) -> None:
    write_nifti(path, np.ones((4, 4, 4), np.float32))


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda p: _poke(p, math.nan), "has 1 NaN or infinite voxel(s) in the brain"),
        (lambda p: _poke(p, math.inf), "has 1 NaN or infinite voxel(s) in the brain"),
        (
            lambda p: _poke(p, math.nan, everywhere=True),
            "has 336 NaN or infinite voxel(s) in the brain",
        ),
        (_truncate, "is not a readable gzip file"),
        (_other_grid, "shape (4, 4, 4) differs from the template's (10, 11, 12)"),
    ],
)
def test_reconstruct_skips_a_bad_input_and_names_it(
    capsys, toy: Path, tmp_path: Path, spoil, words
):
    bad = toy / "ds" / "toy" / "b.nii.gz"
    spoil(bad)
    before, out = _checksums(toy), tmp_path / "out"
    code, stdout, err = _cli(capsys, *_reconstruct(toy, out))
    assert code == 0 and "Traceback" not in err, err
    warned = [line for line in err.splitlines() if line.startswith(WARNING)]
    assert len(warned) == 1 and f"{bad}: {words}" in warned[0] and "skipped" in warned[0], err
    assert "template" not in warned[0].split(":")[1]  # the input is blamed, not the template
    assert sorted(p.name for p in out.iterdir()) == ["a.nii.gz", "c.nii.gz"]
    assert "2 reconstructions" in stdout and _checksums(toy) == before
    for name in ("a", "c"):
        assert np.isfinite(np.asarray(_voxels(out / f"{name}.nii.gz"))).all()


def test_reconstruct_a_nan_outside_the_brain_is_harmless(capsys, toy: Path, tmp_path: Path):
    data = _voxels(toy / "ds" / "toy" / "b.nii.gz")
    data[0, 0, 0] = np.nan  # the template is 0 there: not in the mean
    write_nifti(toy / "ds" / "toy" / "b.nii.gz", data)
    code, _, err = _cli(capsys, *_reconstruct(toy, tmp_path / "out"))
    assert code == 0 and WARNING not in err and len(list((tmp_path / "out").iterdir())) == 3


def test_reconstruct_no_usable_input_is_an_error_naming_the_folder(capsys, toy: Path, tmp_path):
    for path in (toy / "ds" / "toy").iterdir():
        _poke(path, math.nan)
    files = _files(tmp_path)
    err = _refused(capsys, toy, *_reconstruct(toy, tmp_path / "out"), names=str(toy / "ds" / "toy"))
    assert "no input could be reconstructed" in err and err.count(WARNING) == 3
    assert _files(tmp_path) == files and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda p: _poke(p, math.nan), "has 1 NaN or infinite voxels"),
        (lambda p: _poke(p, 0.0, everywhere=True), "is 0 everywhere"),
        (_truncate, "is not a readable gzip file"),
    ],
)
def test_reconstruct_a_bad_template_is_an_error_naming_it(capsys, toy, tmp_path, spoil, words):
    template = toy / "template.nii.gz"
    spoil(template)
    files = _files(tmp_path)
    err = _refused(capsys, toy, *_reconstruct(toy, tmp_path / "out"), names=f"{template}: {words}")
    assert f"{template}: {template}" not in err and WARNING not in err  # named once, no skips
    assert _files(tmp_path) == files


# --------------------------------------------------------------------------- evaluate-recon


def test_evaluate_recon_names_a_missing_region_folder(capsys, pet: Path):
    (pet / "sim" / "region").rename(pet / "region_elsewhere")
    before = _checksums(pet)
    code, out, err = _cli(capsys, *_recon(pet))
    assert code == 0 and "Traceback" not in err
    warned = [line for line in err.splitlines() if line.startswith(WARNING)]
    assert len(warned) == 1 and f"{pet / 'sim' / 'region'}: no such folder" in warned[0]
    assert "0% baseline" in warned[0] and "--region" in warned[0]
    assert _checksums(pet) == before
    code, out, err = _cli(capsys, *_recon(pet, "--region", str(pet / "region_elsewhere")))
    assert code == 0 and WARNING not in err  # the regions given where they are


def test_evaluate_recon_without_regions_or_labels_says_brain_only(capsys, pet: Path):
    (pet / "sim" / "region").rename(pet / "r")
    (pet / "sim" / "toy_label").rename(pet / "l")
    code, _, err = _cli(capsys, *_recon(pet))
    assert code == 0 and "no such folder of anomaly regions; no anomaly region" in err
    assert "brain metrics only" in err


def test_evaluate_recon_a_missing_region_option_is_an_error(capsys, pet: Path, tmp_path: Path):
    files = _files(tmp_path)
    nowhere = tmp_path / "nowhere"
    _refused(
        capsys, pet, *_recon(pet, "--region", str(nowhere)), names=f"{nowhere}: no such folder"
    )
    assert _files(tmp_path) == files


@pytest.mark.parametrize(
    ("option", "inside"),
    [
        ("--out", "r.csv"),
        ("--out", "sub/r.csv"),
        ("--plot", "p.png"),
        ("--out", "s1_ad_deg20.nii.gz"),  # a name the maps write
    ],
)
def test_evaluate_recon_outputs_inside_maps_are_refused(capsys, pet, tmp_path, option, inside):
    maps = tmp_path / "maps"
    files = _files(tmp_path)
    argv = _recon(pet, "--save-maps", str(maps), option, str(maps / inside))
    err = _refused(capsys, pet, *argv, names=f"{maps / inside}: {option} and --save-maps overlap")
    assert "give each its own place" in err and _files(tmp_path) == files
    assert not maps.exists()


def test_evaluate_recon_maps_under_the_out_file_is_refused(capsys, pet: Path, tmp_path: Path):
    files = _files(tmp_path)
    argv = _recon(pet, "--save-maps", str(tmp_path / "o" / "m"), "--out", str(tmp_path / "o"))
    _refused(capsys, pet, *argv, names="--out and --save-maps overlap")
    assert _files(tmp_path) == files and not (tmp_path / "o").exists()


def test_evaluate_recon_outputs_beside_the_maps_are_fine(capsys, pet: Path, tmp_path: Path):
    maps, out = tmp_path / "maps", tmp_path / "maps.csv"
    code, _, err = _cli(
        capsys, *_recon(pet, "--save-maps", str(maps), "--out", str(out), "--quiet")
    )
    assert code == 0 and out.is_file() and len(list(maps.iterdir())) == 18, err


# --------------------------------------------------------------------------- pet-sample --step


def test_the_documented_sample_grid_is_the_bundled_one():
    from napari_mood.services.datasets import sample_data_dir

    for name in SAMPLE_SOURCES:
        assert _voxels(sample_data_dir() / "toy" / f"{name}.nii.gz").shape == SAMPLE_GRID
    assert min(math.ceil(n / MAX_STEP) for n in SAMPLE_GRID) >= MIN_VOXELS
    assert min(math.ceil(n / (MAX_STEP + 1)) for n in SAMPLE_GRID) < MIN_VOXELS


@pytest.mark.parametrize("step", [str(MAX_STEP + 1), "200", "1000", "0", "-1", "1.5"])
def test_pet_sample_step_out_of_range_is_a_usage_error(capsys, tmp_path: Path, step: str):
    code, _, err = _cli(capsys, "pet-sample", "--out", str(tmp_path / "o"), "--step", step)
    assert code == 2 and "argument --step" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
    if int(float(step)) > MAX_STEP:
        assert f"must be at most {MAX_STEP}" in err and f"{MIN_VOXELS} voxels" in err


def test_pet_sample_largest_step_keeps_the_documented_voxels(capsys, tmp_path: Path):
    out = tmp_path / "o"
    code, _, err = _cli(capsys, "pet-sample", "--out", str(out), "--step", str(MAX_STEP))
    assert code == 0, err
    assert min(_voxels(out / "template.nii.gz").shape) >= MIN_VOXELS


# --------------------------------------------------------------------------- simulate --mask


@pytest.fixture
def scans(tmp_path: Path) -> Path:
    """ROOT/scan.nii.gz (a PET-like scan), ROOT/t1.nii.gz (a T1 in [0, 1]), masks, atlas."""
    root = tmp_path / "in"
    rng = np.random.default_rng(0)
    head = np.zeros((16, 16, 16), np.float32)
    head[2:-2, 2:-2, 2:-2] = 0.5 + 0.5 * rng.random((12, 12, 12))
    write_nifti(root / "scan.nii.gz", head)
    write_nifti(root / "t1.nii.gz", np.round(head * 255) / 255)
    write_nifti(root / "probabilities.nii.gz", head / 2)
    atlas = np.zeros(head.shape, np.uint8)
    atlas[4:8, 4:8, 4:8], atlas[8:12, 8:12, 8:12] = 1, 2
    write_nifti(root / "atlas.nii.gz", atlas)
    write_nifti(root / "mask.nii.gz", (atlas == 1).astype(np.float32) * 0.5)
    return root


def _simulate(scans: Path, mask: str, out: Path, *more: str) -> list[str]:
    return ["simulate", str(scans / "scan.nii.gz"), "--kind", "pet", "--mask",
            str(scans / mask), "--degree", "0.2", "--out", str(out), *more]  # fmt: skip


@pytest.mark.parametrize("mask", ["t1.nii.gz", "probabilities.nii.gz", "scan.nii.gz"])
@pytest.mark.parametrize("labels", [(), ("--atlas-labels", "1")])
def test_simulate_a_scan_as_the_mask_is_an_error_naming_it(capsys, scans, tmp_path, mask, labels):
    files = _files(tmp_path)
    out = tmp_path / "sim"
    err = _refused(
        capsys, scans, *_simulate(scans, mask, out, *labels), names=f"{scans / mask}: holds values"
    )
    assert "a scan, not a mask or a label atlas" in err and "--atlas-labels" in err
    assert _files(tmp_path) == files and not out.exists()


def test_simulate_an_atlas_without_labels_is_named_in_a_warning(capsys, scans, tmp_path):
    before = _checksums(scans)
    code, _, err = _cli(capsys, *_simulate(scans, "atlas.nii.gz", tmp_path / "sim"))
    assert code == 0 and "Traceback" not in err
    assert f"{scans / 'atlas.nii.gz'}: holds 2 labels (1, 2)" in err
    assert "give --atlas-labels V,V to pick atlas regions" in err and _checksums(scans) == before


@pytest.mark.parametrize(
    ("mask", "labels"), [("mask.nii.gz", ()), ("atlas.nii.gz", ("--atlas-labels", "2"))]
)
def test_simulate_a_mask_or_picked_labels_say_nothing(capsys, scans, tmp_path, mask, labels):
    code, _, err = _cli(capsys, *_simulate(scans, mask, tmp_path / "sim", *labels))
    assert code == 0 and WARNING not in err, err
