"""Planes shown superior/anterior up with the letters on the right edges, any file affine."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from napari_mood.core.orientation import (
    CONVENTIONS,
    PLANES,
    display_transform,
    oriented_plane,
    plane_view,
)

AFFINES = {
    "RAS": np.diag([1.0, 1.0, 1.0, 1.0]),
    "LPS (DICOM-like)": np.diag([-1.0, -1.0, 1.0, 1.0]),
    "LAS (FSL-like)": np.diag([-2.0, 1.0, 1.5, 1.0]),
    "axes swapped (PIR)": np.array(
        [[0, 0, -1.0, 0], [-1.0, 0, 0, 0], [0, -1.0, 0, 0], [0, 0, 0, 1]]
    ),
}
SHAPE = (6, 7, 8)


def _marker_volume(affine: np.ndarray) -> np.ndarray:
    """A file-ordered volume with 1 at the voxel most to the patient's right, front and top."""
    index = np.stack(np.meshgrid(*map(np.arange, SHAPE), indexing="ij"), axis=-1)
    world = index @ affine[:3, :3].T + affine[:3, 3]
    corner = world.sum(axis=-1)  # R + A + S, largest at the right-anterior-superior corner
    return (corner == corner.max()).astype(np.uint8)


@pytest.mark.parametrize(
    ("name", "plane", "convention"), list(itertools.product(AFFINES, PLANES, CONVENTIONS))
)
def test_marker_appears_where_the_letters_say(name, plane, convention):
    affine = AFFINES[name]
    transform = display_transform(SHAPE, affine)
    volume = transform.to_display(_marker_volume(affine))
    view = plane_view(plane, convention=convention)
    index = int(np.argwhere(volume)[0][view.slice_axis])
    flat = oriented_plane(volume, index, plane=plane, convention=convention)
    row, col = np.argwhere(flat)[0]
    top, _, left, right = view.letters
    assert row == 0 and top in ("S", "A")  # superior (or anterior in axial) is up
    wanted = "A" if plane == "sagittal" else "R"
    assert (col == 0) == (left == wanted) and (col == flat.shape[1] - 1) == (right == wanted)


def test_conventions_only_mirror_axial_and_coronal():
    for plane in PLANES:
        radio = plane_view(plane, convention="radiological")
        neuro = plane_view(plane, convention="neurological")
        assert radio.letters[:2] == neuro.letters[:2]
        mirrored = radio.letters[2:] == neuro.letters[2:][::-1]
        assert mirrored == (plane != "sagittal")


def test_bad_plane_or_convention():
    with pytest.raises(ValueError, match="plane must be one of"):
        plane_view("oblique")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="convention must be one of"):
        plane_view("axial", convention="left")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="outside"):
        oriented_plane(np.zeros((2, 2, 2)), 2)
