"""Writing MOOD-layout cases and method outputs through the output guard."""

from __future__ import annotations

from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.core import simulate as sim
from napari_mood.services.output import Inputs, OutputRefused
from napari_mood.services.writers import write_method_case, write_mood_case

SHAPE = (32, 34, 30)
CENTER = (16, 17, 15)


@pytest.fixture
def scan() -> np.ndarray:
    """A head-like scan: values in (0, 1) inside a ball, 0 outside."""
    head = sim.make_region_mask(SHAPE, CENTER, 14, region="sphere")
    ramp = np.linspace(0.2, 0.9, head.size).reshape(SHAPE)
    return np.where(head, ramp, 0.0).astype(np.float32)


def _load(path: Path) -> nib.Nifti1Image:
    image = nib.load(path)
    assert isinstance(image, nib.Nifti1Image)
    return image


def test_write_mood_case_round_trips(tmp_path: Path, scan: np.ndarray) -> None:
    anomaly = sim.add_sphere(scan, center=CENTER, size=3, intensity=1.0)
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    paths = write_mood_case(tmp_path, "toy_0.nii.gz", anomaly.scan, anomaly.mask, affine)
    rel = [p.relative_to(tmp_path).as_posix() for p in paths]
    assert rel == [
        "toy/toy_0.nii.gz",
        "toy_label/pixel/toy_0.nii.gz",
        "toy_label/sample/toy_0.nii.gz.txt",
    ]
    image, label = _load(paths[0]), _load(paths[1])
    np.testing.assert_array_equal(image.get_fdata(), anomaly.scan)
    np.testing.assert_array_equal(image.affine, affine)
    assert label.get_data_dtype() == np.uint8
    np.testing.assert_array_equal(np.asarray(label.dataobj), anomaly.mask.astype(np.uint8))
    assert paths[2].read_text() == "1\n"


def test_write_mood_case_quantised_scan_reads_in_unit_range(
    tmp_path: Path, scan: np.ndarray
) -> None:
    ramp = np.linspace(0.0, 1.0, scan.size).reshape(scan.shape)
    paths = write_mood_case(
        tmp_path,
        "a",
        ramp,
        np.zeros(scan.shape, bool),
        np.eye(4),
        scan_levels=255,
        scans_folder="val",
    )
    assert paths[2] == tmp_path / "val_label" / "sample" / "a.nii.gz.txt"
    assert paths[2].read_text() == "0\n"
    image = _load(paths[0])
    values = image.get_fdata()
    assert image.get_data_dtype() == np.uint8
    assert values.min() == 0.0 and values.max() <= 1.0
    np.testing.assert_allclose(values, ramp, atol=0.5 / 255 + 1e-6)
    assert image.get_fdata(dtype=np.float16).max() == 1.0


def test_writers_refuse_to_overwrite(tmp_path: Path) -> None:
    volume, mask = np.zeros((4, 4, 4)), np.zeros((4, 4, 4), bool)
    write_mood_case(tmp_path, "c", volume, mask, np.eye(4))
    label = tmp_path / "toy_label" / "pixel" / "c.nii.gz"
    label.unlink()
    with pytest.raises(OutputRefused, match="exists already.*allow replacing it"):
        write_mood_case(tmp_path, "c", volume, mask, np.eye(4))
    assert not label.exists()  # nothing written when one file is in the way
    write_mood_case(tmp_path, "c", volume + 0.5, mask, np.eye(4), force=True)
    assert _load(tmp_path / "toy" / "c.nii.gz").get_fdata().max() == 0.5
    write_method_case(tmp_path / "m", "c", sample_score=0.5)
    with pytest.raises(OutputRefused):
        write_method_case(tmp_path / "m", "c", sample_score=0.7)


def test_writers_refuse_inputs(tmp_path: Path) -> None:
    volume, mask = np.zeros((4, 4, 4)), np.zeros((4, 4, 4), bool)
    inputs = Inputs(folders=(tmp_path / "data",))
    with pytest.raises(OutputRefused, match="inside the input folder"):
        write_mood_case(tmp_path / "data", "c", volume, mask, np.eye(4), inputs=inputs)
    assert not (tmp_path / "data").exists()


def test_write_method_case_map_and_score(tmp_path: Path) -> None:
    score_map = np.linspace(0.0, 1.0, 64).reshape(4, 4, 4)
    affine = np.diag([1.0, 1.0, 3.0, 1.0])
    paths = write_method_case(tmp_path / "m", "toy_1", score_map, 0.75, affine, map_levels=1024)
    assert [p.name for p in paths] == ["toy_1.nii.gz", "toy_1.nii.gz.txt"]
    image = _load(paths[0])
    assert image.get_data_dtype() == np.uint16
    np.testing.assert_allclose(image.get_fdata(), np.rint(score_map * 1024) / 1024)
    np.testing.assert_array_equal(image.affine, affine)
    assert float(paths[1].read_text()) == 0.75 and paths[1].read_text().endswith("\n")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "nothing to write"),
        ({"score_map": np.zeros((2, 2, 2))}, "affine"),
        ({"sample_score": float("nan")}, "finite"),
        (
            {"score_map": np.full((2, 2, 2), 2.0), "affine": np.eye(4), "map_levels": 255},
            r"\[0, 1\]",
        ),
        ({"score_map": np.zeros((2, 2, 2)), "affine": np.eye(4), "map_levels": 0}, "levels"),
    ],
)
def test_write_method_case_errors(tmp_path: Path, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        write_method_case(tmp_path, "x", **kwargs)


def test_write_mood_case_checks_mask_and_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="0 and 1"):
        write_mood_case(tmp_path, "x", np.zeros((2, 2)), np.full((2, 2), 2), np.eye(4))
    with pytest.raises(ValueError, match="shape"):
        write_mood_case(tmp_path, "x", np.zeros((2, 2)), np.zeros((3, 3)), np.eye(4))
    with pytest.raises(ValueError, match="plain file name"):
        write_mood_case(tmp_path, "../x", np.zeros((2, 2)), np.zeros((2, 2)), np.eye(4))
