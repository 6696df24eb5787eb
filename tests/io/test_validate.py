"""One test per class of bad input: the message names the file and says what to do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood.core.problems import Problem
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.io.validate import affine_deviation, validate_dataset
from tests.conftest import make_mood_folder, write_nifti

MASK = np.zeros((4, 5, 6), bool)
MASK[1:3, 1:3, 1:3] = True


def _problems(tmp_path: Path, maps: dict, **kwargs) -> list[Problem]:
    data, preds = make_mood_folder(tmp_path, {"c0": MASK, "c1": MASK}, {"m": maps}, **kwargs)
    return validate_dataset(discover_dataset(data), discover_methods(preds))


def _only(problems: list[Problem], kind: str) -> Problem:
    found = [p for p in problems if p.kind == kind]
    assert len(found) == 1, problems
    return found[0]


def test_clean_dataset_has_no_problem(tmp_path):
    assert _problems(tmp_path, {"c0": MASK * 0.9, "c1": MASK * 0.2}) == []


def test_shape_mismatch(tmp_path):
    p = _only(_problems(tmp_path, {"c0": np.zeros((4, 5, 7)), "c1": MASK * 1.0}), "shape")
    assert (
        p.severity == "error"
        and p.path.name == "c0.nii.gz"
        and p.method == "m"
        and p.case == "c0.nii.gz"
    )
    assert "(4, 5, 7)" in p.message and "(4, 5, 6)" in p.message and "same voxel grid" in p.hint


def test_affine_mismatch_warns_with_largest_deviation(tmp_path):
    data, preds = make_mood_folder(tmp_path, {"c0": MASK}, {"m": {}})
    write_nifti(preds / "m" / "c0.nii.gz", MASK * 1.0, np.diag([1.0, 1.0, 2.5, 1.0]))
    p = _only(validate_dataset(discover_dataset(data), discover_methods(preds)), "affine")
    assert p.severity == "warning" and "1.5" in p.message


def test_nan_and_inf_counts(tmp_path):
    bad = MASK * 0.5
    bad[0, 0, 0] = np.nan
    bad[0, 0, 1] = np.nan
    bad[0, 0, 2] = np.inf
    problems = _problems(tmp_path, {"c0": bad, "c1": MASK * 1.0})
    assert "2 NaN voxels" in _only(problems, "nan").message
    assert "1 infinite" in _only(problems, "inf").message


def test_out_of_range_count(tmp_path):
    bad = MASK * 1.0
    bad[0, 0, :3] = [-0.5, 1.5, 2.0]
    p = _only(_problems(tmp_path, {"c0": bad, "c1": MASK * 1.0}), "range")
    assert "3 voxels outside [0, 1]" in p.message and "1 below, 2 above" in p.message


def test_nonbinary_labels(tmp_path):
    data, preds = make_mood_folder(tmp_path, {"c0": MASK}, {"m": {"c0": MASK * 1.0}})
    label = MASK.astype(np.float32) * 2
    write_nifti(data / "toy_label" / "pixel" / "c0.nii.gz", label)
    p = _only(validate_dataset(discover_dataset(data), discover_methods(preds)), "nonbinary")
    assert p.path.name == "c0.nii.gz" and f"{MASK.sum()} voxels" in p.message


def test_corrupt_gzip(tmp_path):
    data, preds = make_mood_folder(tmp_path, {"c0": MASK}, {"m": {"c0": MASK * 1.0}})
    target = preds / "m" / "c0.nii.gz"
    target.write_bytes(target.read_bytes()[:30])
    p = _only(validate_dataset(discover_dataset(data), discover_methods(preds)), "unreadable")
    assert p.path == target and "re-export" in p.hint


def test_missing_and_extra_cases(tmp_path):
    problems = _problems(tmp_path, {"c0": MASK * 1.0, "stray": MASK * 1.0})
    missing = _only(problems, "missing")
    assert missing.case == "c1.nii.gz" and "no pixel map" in missing.message
    assert _only(problems, "extra").path.name == "stray.nii.gz"


def test_missing_sample_score_and_bad_sample_text(tmp_path):
    problems = _problems(
        tmp_path,
        {"c0": MASK * 1.0, "c1": MASK * 1.0},
        sample_labels={"c0": "1", "c1": "0"},
        sample_scores={"m": {"c0": "very high"}},
    )
    assert _only(problems, "missing").case == "c1.nii.gz"
    assert "not a number" in _only(problems, "unreadable").message


def test_empty_label_folders(tmp_path):
    data = tmp_path / "d"
    (data / "toy_label" / "pixel").mkdir(parents=True)
    write_nifti(data / "toy" / "c.nii.gz", MASK * 1.0)
    (tmp_path / "m").mkdir()
    write_nifti(tmp_path / "m" / "c.nii.gz", MASK * 1.0)
    problems = validate_dataset(discover_dataset(data), {})
    assert _only(problems, "empty").path == data


def test_affine_deviation():
    assert affine_deviation(np.eye(4), np.eye(4)) == 0.0
    assert affine_deviation(np.eye(4), np.diag([-1.0, 1, 1, 1])) == pytest.approx(2.0)
