"""Which folders a file given alone protects: the dataset it lies in, not its plain folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import napari_mood
from napari_mood.cli import main
from napari_mood.io.layout import dataset_root
from napari_mood.services.output import Inputs, OutputRefused, check_output_folder
from tests.conftest import write_nifti

SCAN = napari_mood.sample_data_dir() / "toy" / "brain_000.nii.gz"


def _scan(path: Path) -> Path:
    write_nifti(path, np.zeros((3, 3, 3), np.float32))
    return path


def test_the_plain_folder_of_a_scan_given_alone_takes_outputs_beside_it(tmp_path):
    scan = _scan(tmp_path / "normal.nii.gz")
    inputs = Inputs.around([scan])
    check_output_folder(tmp_path / "toy", inputs=inputs)
    with pytest.raises(OutputRefused, match="onto the input file"):
        check_output_folder(scan, inputs=inputs)


@pytest.mark.parametrize(
    "scan_at, out_at",
    [
        ("data/toy/c0.nii.gz", "data/out"),  # a MOOD dataset's scan: the whole dataset
        ("data/toy/c0.nii.gz", "data/toy/out"),
        ("data/methods/a/c0.nii.gz", "data/methods/a/out"),  # a map in a dataset's methods
        ("runs/a/c0.nii.gz", "runs/a/out"),  # a method's folder: maps with their scores
        ("case/scan.nii.gz", "case/out"),  # a case folder
        ("pet/scans/pet_000.nii.gz", "pet/out"),  # a scan set (pet-sample's layout)
        ("pet/scans/pet_000.nii.gz", "pet/scans/out"),
        ("pet/atlas.nii.gz", "pet/out"),  # beside a scan set's scans/
    ],
)
def test_a_file_given_alone_protects_the_dataset_it_lies_in(tmp_path, scan_at, out_at):
    _scan(tmp_path / "data" / "toy" / "c0.nii.gz")
    _scan(tmp_path / "case" / "scan.nii.gz")
    _scan(tmp_path / "data" / "methods" / "a" / "c0.nii.gz")
    _scan(tmp_path / "runs" / "a" / "c0.nii.gz")
    (tmp_path / "runs" / "a" / "c0.nii.gz.txt").write_text("0.5")
    _scan(tmp_path / "pet" / "scans" / "pet_000.nii.gz")
    _scan(tmp_path / "pet" / "atlas.nii.gz")
    with pytest.raises(OutputRefused, match="inside the input folder"):
        check_output_folder(tmp_path / out_at, inputs=Inputs.around([tmp_path / scan_at]))


def test_a_plain_scans_folder_is_no_scan_set(tmp_path):
    scan = _scan(tmp_path / "scans" / "normal.nii.gz")  # no template nor atlas beside it
    assert dataset_root(tmp_path / "scans") is None
    check_output_folder(tmp_path / "sweeps", inputs=Inputs.around([scan]))


def test_a_folder_holding_a_simulated_dataset_is_no_dataset(tmp_path):
    _scan(tmp_path / "toy" / "toy" / "case_000.nii.gz")  # what simulate --out toy/ wrote
    assert dataset_root(tmp_path) is None
    assert dataset_root(tmp_path / "toy") == tmp_path / "toy"
    assert dataset_root(tmp_path / "toy" / "toy") == tmp_path / "toy"


@pytest.mark.slow
def test_simulate_and_sweep_write_beside_a_scan_in_the_working_folder(
    tmp_path, monkeypatch, capsys
):
    shutil.copy(SCAN, tmp_path / "normal.nii.gz")
    monkeypatch.chdir(tmp_path)
    toy = ["simulate", "normal.nii.gz", "--out", "toy/", "--count", "1", "--normal", "0"]
    assert main(toy) == 0, capsys.readouterr().err
    assert main(["sweep", "size", "normal.nii.gz", "--out", "sweep/", "--radii", "4:8:4"]) == 0
    assert (tmp_path / "toy" / "toy").is_dir() and (tmp_path / "sweep" / "toy").is_dir()
    assert main(["simulate", "normal.nii.gz", "--out", "normal.nii.gz"]) == 1
    assert "onto the input file" in capsys.readouterr().err
