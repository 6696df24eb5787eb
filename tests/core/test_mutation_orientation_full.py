"""Display transforms and screen planes by hand (survivors of the full run of core.orientation)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.orientation import (
    DisplayTransform,
    display_transform,
    edge_letters,
    oriented_plane,
    plane_view,
    screen_flips,
)

# file axis 0 -> S (2 mm), axis 1 -> R (3 mm), axis 2 -> A (5 mm): display order S, A, R is
# file axes (0, 2, 1), not the reversed order (2, 1, 0) of a plain RAS grid
SRA = np.array(
    [[0.0, 3.0, 0.0, 0.0], [0.0, 0.0, 5.0, 0.0], [2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
)


def test_display_order_and_spacing_of_a_permuted_grid() -> None:
    t = display_transform((2, 3, 4), SRA)
    assert t.perm == (0, 2, 1) and t.display_shape == (2, 4, 3)
    assert t.spacing == (2.0, 5.0, 3.0)  # column lengths of the affine, in display order
    assert t.flip == (False, True, False)  # anterior at display index 0: A reversed


def test_to_display_of_a_permuted_grid() -> None:
    # file[s, r, a] lands at display[s, 3 - a, r] (A reversed over its 4 voxels)
    t = display_transform((2, 3, 4), SRA)
    file = np.arange(24).reshape(2, 3, 4)
    shown = t.to_display(file)
    assert shown.shape == (2, 4, 3)
    for s, r, a in np.ndindex(2, 3, 4):
        assert shown[s, 3 - a, r] == file[s, r, a]
    with pytest.raises(ValueError, match=r"^array shape \(4, 3, 2\) differs from the scan grid"):
        t.to_display(np.zeros((4, 3, 2)))


def test_spacing_below_one_voxel_unit_is_kept() -> None:
    assert display_transform((3, 3), np.diag([0.5, 1.0, 1.0, 1.0])).spacing == (1.0, 0.5)


def test_affines_are_float() -> None:
    t = display_transform((2, 2, 2), np.eye(4, dtype=int))
    assert t.affine.dtype == np.float64
    values = t.to_dict()
    values["affine"] = np.eye(4, dtype=int).tolist()
    assert DisplayTransform.from_dict(values).affine.dtype == np.float64
    plain = DisplayTransform((2, 2, 2), (2, 1, 0), (False,) * 3, (1.0,) * 3, np.eye(4, dtype=int))
    assert all(type(v) is float for row in plain.to_dict()["affine"] for v in row)
    with pytest.raises(ValueError, match=r"^expected a 2-D or 3-D grid, got shape \(2,\)"):
        display_transform((2,), np.eye(4))


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (3, 0)])
def test_screen_axes_must_be_two_different_display_axes(rows: int, cols: int) -> None:
    message = rf"^need two different display axes in 0..2, got {rows}, {cols}$"
    with pytest.raises(ValueError, match=message):
        screen_flips(rows, cols)
    with pytest.raises(ValueError, match=message):
        edge_letters(rows, cols, flip_rows=False, flip_cols=False)


def test_radiological_is_the_default_convention() -> None:
    # axial rows A, columns R: the patient's right (high R) on the screen's left
    assert screen_flips(1, 2) == (False, True)
    view = plane_view("axial")
    assert (view.plane, view.convention, view.letters) == (
        "axial",
        "radiological",
        ("A", "P", "R", "L"),
    )
    other = plane_view("coronal", convention="neurological")
    assert (other.plane, other.convention) == ("coronal", "neurological")


def test_coronal_and_sagittal_planes_on_screen() -> None:
    # v[s, a, r] = 4 s + 2 a + r; superior at the top (S reversed over its 3 voxels)
    v = np.arange(12).reshape(3, 2, 2)
    # coronal a = 1, radiological: right on the left -> plane[row, col] = v[2 - row, 1, 1 - col]
    assert oriented_plane(v, 1, plane="coronal").tolist() == [[11, 10], [7, 6], [3, 2]]
    # sagittal r = 0: anterior (display a = 0) on the left -> plane[row, col] = v[2 - row, col, 0]
    assert oriented_plane(v, 0, plane="sagittal").tolist() == [[8, 10], [4, 6], [0, 2]]


def test_oriented_plane_names_the_shape_it_refuses() -> None:
    from napari_mood.core.orientation import oriented_plane

    with pytest.raises(ValueError, match=r"^expected a 3-D volume, got shape \(4, 5\)$"):
        oriented_plane(np.zeros((4, 5)), 0)
