"""A figure row's images (napari_mood.services.figure_cells): oriented, cropped, annotated."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from napari_mood.core.orientation import oriented_plane
from napari_mood.services.figure_cases import FigureCase, FigureRow
from napari_mood.services.figure_cells import case_annotation, method_cmap, row_images
from napari_mood.services.looks import METHOD_COLORS


def _images(rows, **options):
    defaults = {"convention": "radiological", "annotate": False, "crop": True}
    return row_images(rows, [], {}, **(defaults | options))


def _body_case() -> FigureCase:
    """A body in the middle of a larger field, with a bright superior-anterior-right corner."""
    scan = np.zeros((30, 32, 34), np.float32)  # (S, A, R)
    scan[5:25, 6:26, 7:27] = 0.5
    scan[20:25, 6:10, 22:27] = 1.0
    gt = np.zeros(scan.shape, bool)
    gt[20:25, 6:10, 22:27] = True
    return FigureCase("body", scan, gt, spacing=(3.0, 1.0, 0.5))


@pytest.mark.parametrize("plane", ["axial", "coronal", "sagittal"])
@pytest.mark.parametrize("convention", ["radiological", "neurological"])
def test_images_are_the_oriented_plane_cropped_to_the_body(plane, convention):
    case = _body_case()
    (images,) = _images([FigureRow(case, 22, plane)], convention=convention, crop=False)
    expected = oriented_plane(case.scan, 22, plane=plane, convention=convention)
    assert np.array_equal(images.scan, expected)
    (cropped,) = _images([FigureRow(case, 22, plane)], convention=convention)
    body = expected > 0.4
    rows, cols = np.flatnonzero(body.any(axis=1)), np.flatnonzero(body.any(axis=0))
    assert cropped.shape == (rows[-1] - rows[0] + 1 + 8, cols[-1] - cols[0] + 1 + 8)  # margin 4


@pytest.mark.parametrize(
    ("plane", "spacing"), [("axial", (1.0, 0.5)), ("coronal", (3.0, 0.5)), ("sagittal", (3.0, 1.0))]
)
def test_images_carry_the_voxel_size_of_their_rows_and_columns(plane, spacing):
    (images,) = _images([FigureRow(_body_case(), 22, plane)])
    assert images.spacing == spacing
    assert images.aspect == spacing[0] / spacing[1]
    rows, cols = images.shape
    extent = images.extent
    assert (extent.height_mm, extent.width_mm) == (rows * spacing[0], cols * spacing[1])


@pytest.mark.parametrize(("plane", "axis"), [("axial", 0), ("coronal", 1), ("sagittal", 2)])
def test_auto_slices_take_the_largest_gt_area_of_the_plane(plane, axis):
    (images,) = _images([FigureRow(_body_case(), None, plane)])
    gt = _body_case().gt
    assert images.label == f"body\n{plane} {np.argmax(gt.sum(axis=tuple({0, 1, 2} - {axis})))}"


def test_annotations_go_under_the_last_row_of_a_case():
    case = _body_case()
    case = FigureCase("body", case.scan, case.gt, {"m": case.gt.astype(np.float32)})
    rows = [FigureRow(case, 22, "axial"), FigureRow(case, 8, "coronal")]
    first, last = row_images(
        rows, ["m"], {"m": 0.5}, convention="radiological", annotate=True, crop=True
    )
    assert first.notes == {} and last.notes == {"m": "AP 1.00\nDice@0.5 1.00"}
    assert last.extent.notes == ("AP 1.00\nDice@0.5 1.00",)


def test_method_colours_follow_the_viewer():
    cmap = method_cmap(METHOD_COLORS[1])
    assert cmap(0.0)[3] == 0.0
    assert np.allclose(cmap(1.0)[:3], to_rgb(METHOD_COLORS[1]), atol=0.01)  # full at the top


def test_normal_cases_are_annotated_with_their_peak_score():
    assert case_annotation(None, np.array([[[0.2, 0.7]]]), 0.5) == "max 0.70"
