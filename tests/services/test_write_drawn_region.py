"""services.writers.write_drawn_region: a region drawn in napari saved on the scan's grid."""

from __future__ import annotations

import gzip
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.core.orientation import display_transform
from napari_mood.io.errors import MoodInputError
from napari_mood.services.output import Inputs
from napari_mood.services.writers import write_drawn_region

LPS = np.diag([-2.0, -2.0, 3.0, 1.0])  # flipped x and y, anisotropic


def test_a_drawn_voxel_lands_on_its_file_voxel_and_affine(tmp_path: Path):
    transform = display_transform((6, 7, 5), LPS)
    drawn = np.zeros(transform.display_shape, np.uint8)
    file_voxel = np.array([1, 2, 3])
    marker = np.zeros((6, 7, 5), np.uint8)
    marker[tuple(file_voxel)] = 7
    drawn = transform.to_display(marker)  # where the viewer shows that file voxel
    out = write_drawn_region(tmp_path / "region.nii.gz", drawn, transform)
    image = nib.Nifti1Image.from_bytes(gzip.decompress(out.read_bytes()))
    data = np.asarray(image.dataobj)
    assert data.shape == (6, 7, 5) and data.dtype == np.uint8
    assert list(zip(*np.nonzero(data), strict=True)) == [tuple(file_voxel)]
    assert data[tuple(file_voxel)] == 7
    np.testing.assert_array_equal(image.affine, LPS)


def test_large_labels_use_uint16_and_bad_ones_are_refused(tmp_path: Path):
    transform = display_transform((4, 4, 4), np.eye(4))
    drawn = np.zeros(transform.display_shape, np.int32)
    drawn[0, 0, 0] = 300
    out = write_drawn_region(tmp_path / "atlas.nii.gz", drawn, transform)
    assert np.asarray(nib.load(out).dataobj).dtype == np.uint16
    with pytest.raises(ValueError, match="0..65535"):
        write_drawn_region(tmp_path / "neg.nii.gz", drawn - 400, transform)
    with pytest.raises(ValueError, match="scan's grid"):
        write_drawn_region(tmp_path / "shape.nii.gz", np.zeros((3, 4, 4)), transform)


def test_never_replaces_a_file_or_writes_onto_an_input(tmp_path: Path):
    transform = display_transform((4, 4, 4), np.eye(4))
    drawn = np.zeros(transform.display_shape, np.uint8)
    target = tmp_path / "region.nii.gz"
    write_drawn_region(target, drawn, transform)
    with pytest.raises(MoodInputError):
        write_drawn_region(target, drawn, transform)  # exists, no force
    write_drawn_region(target, drawn, transform, force=True)
    scan = tmp_path / "data" / "scan.nii.gz"
    scan.parent.mkdir()
    scan.write_bytes(b"x")
    with pytest.raises(MoodInputError):
        write_drawn_region(scan, drawn, transform, inputs=Inputs(files=(scan,)), force=True)
