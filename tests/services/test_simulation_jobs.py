"""The simulation jobs called as a notebook calls them (no command line)."""

from __future__ import annotations

import json
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.io.errors import MoodInputError
from napari_mood.services.hypometabolism import write_hypometabolism_dataset
from napari_mood.services.simulation import unit_scan, write_toy_dataset


def _save(path: Path, data: np.ndarray) -> Path:
    path.parent.mkdir(exist_ok=True)
    nib.save(nib.Nifti1Image(data, np.eye(4)), path)
    return path


@pytest.fixture
def scan(tmp_path: Path) -> Path:
    data = np.zeros((24, 24, 24), np.float32)
    data[4:20, 4:20, 4:20] = 0.5
    return _save(tmp_path / "in" / "brain.nii.gz", data)


def test_write_toy_dataset_writes_each_case_with_its_mask(scan: Path, tmp_path: Path):
    out = tmp_path / "toy_set"
    cases = write_toy_dataset(scan, out, kind="cube", count=2, normal=1, seed=1)
    assert sorted(c.kinds for c in cases) == [(), ("cube",), ("cube",)]
    for case in cases:
        mask = np.asarray(nib.load(out / "toy_label" / "pixel" / f"{case.name}.nii.gz").dataobj)
        label = (out / "toy_label" / "sample" / f"{case.name}.nii.gz.txt").read_text().strip()
        assert int((mask > 0).sum()) == case.voxels
        assert label == ("1" if case.kinds else "0")
    assert sorted(p.name for p in (out / "toy").iterdir()) == sorted(
        f"{c.name}.nii.gz" for c in cases
    )


def test_write_toy_dataset_refuses_an_unknown_kind_before_any_file(scan: Path, tmp_path: Path):
    with pytest.raises(ValueError, match="kind must be one of"):
        write_toy_dataset(scan, tmp_path / "out", kind="blob")  # type: ignore[arg-type]
    assert not (tmp_path / "out").exists()


def test_write_toy_dataset_names_the_scan_without_room(tmp_path: Path):
    tiny = _save(
        tmp_path / "in" / "tiny.nii.gz", np.linspace(0, 1, 27, dtype=np.float32).reshape(3, 3, 3)
    )
    with pytest.raises(MoodInputError, match="no room") as caught:
        write_toy_dataset(tiny, tmp_path / "out", kind="sphere", per_case=50)
    assert caught.value.path == tiny
    assert not (tmp_path / "out").exists()


def test_write_hypometabolism_dataset_scales_the_region_by_each_degree(scan: Path, tmp_path: Path):
    region = np.zeros((24, 24, 24), np.uint8)
    region[8:16, 8:16, 8:16] = 1
    mask = _save(tmp_path / "in" / "region.nii.gz", region)
    out = tmp_path / "pet_set"
    found = write_hypometabolism_dataset([scan], mask, out, degrees=(0.5,), fwhm_mm=0.0001)
    assert found.subjects == ("brain",) and found.degrees == (0.0, 0.5)
    healthy = np.asarray(nib.load(scan).dataobj)
    names = found.case_names("brain")
    diseased = np.asarray(nib.load(out / "toy" / f"{names[1]}.nii.gz").dataobj)
    # hand-derived: inside the region healthy * (1 - 0.5), outside unchanged
    assert np.allclose(diseased[12, 12, 12], healthy[12, 12, 12] * 0.5, atol=1e-3)
    assert np.allclose(diseased[5, 5, 5], healthy[5, 5, 5])
    manifest = json.loads((out / f"pet_{found.region}.json").read_text())
    assert manifest["degrees"] == [0.0, 0.5] and manifest["gt_voxels"] == found.gt_voxels


def test_a_scan_without_voxels_is_refused_naming_its_file():
    with pytest.raises(MoodInputError) as raised:
        unit_scan(Path("x.nii.gz"), np.zeros((0, 3)))
    assert str(raised.value).startswith("x.nii.gz: holds no voxel (shape (0, 3))")
