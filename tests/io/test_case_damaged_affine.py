"""A damaged affine (NaN, infinite, a zero column) costs its orientation, never the case."""

from __future__ import annotations

from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.core.orientation import display_transform, orientable
from napari_mood.io.case import case_transform, load_case, methods_from_files
from tests.conftest import write_nifti

SHAPE = (6, 7, 5)
CASE = "c1.nii.gz"


def _nan_affine() -> np.ndarray:
    affine = np.eye(4)
    affine[0, 0] = np.nan
    return affine


def _zero_column() -> np.ndarray:
    return np.diag([1.0, 0.0, 1.0, 1.0])


def _write_damaged(path: Path, data: np.ndarray, affine: np.ndarray) -> Path:
    """Write ``data`` with ``affine`` as its sform and no qform, as a broken header says it."""
    header = nib.Nifti1Header()
    header.set_data_shape(data.shape)
    header.set_data_dtype(data.dtype)
    header.set_sform(affine, code=2)
    header.set_qform(None, code=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(data, None, header=header), path)
    assert not orientable(nib.load(path).affine)  # the file really holds the damage
    return path


def _voxel_for_voxel(volume: np.ndarray) -> np.ndarray:
    # the identity's display: file axes (R, A, S) shown as (S, A, R), anterior at the top
    return np.flip(np.transpose(volume, (2, 1, 0)), axis=1)


def _volume() -> np.ndarray:
    values = np.arange(np.prod(SHAPE)).reshape(SHAPE) / np.prod(SHAPE)
    return values.astype(np.float32)


@pytest.mark.parametrize("affine", [_nan_affine(), _zero_column()], ids=["nan", "zero-column"])
def test_a_damaged_scan_is_shown_voxel_for_voxel_with_a_warning(tmp_path: Path, affine):
    scan = _write_damaged(tmp_path / "toy" / CASE, _volume(), affine)
    case = load_case(None, CASE, scan_path=scan)
    (problem,) = case.problems
    assert (problem.kind, problem.severity, problem.path) == ("affine", "warning", scan)
    assert "the header is damaged; shown voxel for voxel" in problem.message
    assert "save the scan again with a valid affine" in problem.hint
    assert case.scan is not None
    shown = case.transform.to_display(np.asarray(case.scan.data))
    np.testing.assert_array_equal(shown, _voxel_for_voxel(_volume()))
    assert case.transform.spacing == (1.0, 1.0, 1.0)


def test_a_damaged_label_alone_is_the_grid_and_is_reported(tmp_path: Path):
    mask = np.zeros(SHAPE, np.uint8)
    mask[1, 2, 3] = 1
    label = _write_damaged(tmp_path / "toy_label" / "pixel" / CASE, mask, _zero_column())
    case = load_case(None, CASE, label_path=label)
    (problem,) = case.problems
    assert problem.path == label and "save the label again" in problem.hint
    assert case.gt is not None
    assert case.transform.to_display(case.gt)[3, 7 - 1 - 2, 1]


def test_a_damaged_first_map_names_its_method(tmp_path: Path):
    path = _write_damaged(tmp_path / "m" / CASE, _volume(), _nan_affine())
    case = load_case(None, CASE, methods=methods_from_files(CASE, {"m": path}))
    (problem,) = case.problems
    assert (problem.path, problem.method, problem.case) == (path, "m", CASE)
    assert "save the first map again" in problem.hint


def test_a_damaged_map_beside_a_sound_scan_keeps_the_scans_orientation(tmp_path: Path):
    spacing = np.diag([2.0, 3.0, 4.0, 1.0])
    scan = write_nifti(tmp_path / "toy" / CASE, _volume(), spacing)
    path = _write_damaged(tmp_path / "m" / CASE, _volume(), _nan_affine())
    case = load_case(None, CASE, scan_path=scan, methods=methods_from_files(CASE, {"m": path}))
    assert case.transform.spacing == (4.0, 3.0, 2.0)
    (problem,) = case.problems
    assert problem.path == path and "holds NaN or infinite values" in problem.message


def test_orientable_asks_only_for_the_grids_axes():
    flat = np.diag([1.0, 1.0, 0.0, 1.0])  # a 2-D grid's third column may be zero
    assert orientable(flat, 2) and not orientable(flat, 3)
    assert orientable(np.eye(4)) and not orientable(np.eye(3))
    inf = np.eye(4)
    inf[2, 3] = np.inf
    assert not orientable(inf)


def test_display_transform_refuses_a_damaged_affine_in_words():
    with pytest.raises(ValueError, match="no direction to every grid axis .* header is damaged"):
        display_transform(SHAPE, _zero_column())
    assert display_transform((3, 4), np.diag([1.0, 1.0, 0.0, 1.0])).display_shape == (4, 3)


def test_case_transform_keeps_a_sound_affine():
    affine = np.diag([-2.0, 1.0, 3.0, 1.0])
    assert case_transform(SHAPE, affine) == display_transform(SHAPE, affine)
    np.testing.assert_array_equal(case_transform(SHAPE, _nan_affine()).affine, np.eye(4))
