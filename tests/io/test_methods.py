"""Methods' output folders (napari_mood.io.methods): what a method folder holds, where methods are found."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood.io.errors import MoodInputError
from napari_mood.io.methods import (
    check_methods_apart,
    discover_methods,
    find_methods,
    method_folder,
    methods_beside,
)
from napari_mood.io.mood import discover_dataset
from tests.conftest import make_mood_folder, write_nifti


def _dataset(tmp_path: Path) -> tuple[Path, Path]:
    mask = np.zeros((4, 4, 4), bool)
    mask[1, 1, 1] = True
    return make_mood_folder(
        tmp_path,
        {"c0": mask, "c1": mask},
        {"m1": {"c0": mask.astype(np.float32)}, "m2": {"c1": mask.astype(np.float32)}},
        sample_labels={"c0": "1", "c1": "0"},
        sample_scores={"m1": {"c0": "0.9"}},
    )


def test_discover_methods_indexes_each_subfolder(tmp_path: Path):
    _, preds = _dataset(tmp_path)
    (preds / "m1" / "notes.md").write_text("x")
    methods = discover_methods(preds)
    assert sorted(methods) == ["m1", "m2"]
    assert set(methods["m1"].pixel) == {"c0.nii.gz"} and set(methods["m1"].sample) == {"c0.nii.gz"}
    assert set(methods["m2"].pixel) == {"c1.nii.gz"} and not methods["m2"].sample
    assert [p.name for p in methods["m1"].ignored] == ["notes.md"]


def test_method_folder_with_pixel_and_sample_subfolders(tmp_path: Path):
    write_nifti(tmp_path / "m" / "pixel" / "c.nii.gz", np.zeros((2, 2, 2), np.float32))
    (tmp_path / "m" / "sample").mkdir()
    (tmp_path / "m" / "sample" / "c.nii.gz.txt").write_text("0.5")
    (tmp_path / "m" / "d.nii.gz.txt").write_text("0.1")  # hidden by sample/
    folder = method_folder(tmp_path / "m", name="mine")
    assert folder.name == "mine"
    assert set(folder.pixel) == {"c.nii.gz"} and set(folder.sample) == {"c.nii.gz"}
    assert folder.pixel_folder == tmp_path / "m" / "pixel"
    assert [p.name for p in folder.shadowed] == ["d.nii.gz.txt"]


def test_empty_method_folders_are_clear_errors(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(MoodInputError, match="empty.*no method subfolders"):
        discover_methods(tmp_path / "empty")
    with pytest.raises(MoodInputError, match="empty.*no score maps"):
        method_folder(tmp_path / "empty")
    with pytest.raises(MoodInputError, match="is not a folder"):
        method_folder(tmp_path / "missing")


def test_a_datasets_own_methods_are_in_its_methods_folder(tmp_path: Path):
    data, preds = _dataset(tmp_path)
    assert methods_beside(data) == {}
    with pytest.raises(MoodInputError, match="no methods"):
        find_methods(data)
    preds.rename(data / "methods")
    assert sorted(methods_beside(data)) == ["m1", "m2"]
    assert sorted(find_methods(data)) == ["m1", "m2"]
    assert sorted(find_methods(data, pred={"x": data / "methods" / "m2"})) == ["x"]


def test_the_datasets_own_folders_are_not_methods(tmp_path: Path):
    data, preds = _dataset(tmp_path)
    dataset = discover_dataset(data)
    check_methods_apart(dataset, [preds, preds / "m1"])
    for folder, what in (
        (data / "toy_label" / "pixel", "a label folder"),
        (data / "toy_label", "the dataset's label folder"),
        (data, "the dataset folder itself"),
    ):
        with pytest.raises(MoodInputError, match=what):
            check_methods_apart(dataset, [folder])
