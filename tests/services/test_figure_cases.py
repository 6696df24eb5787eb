"""What a figure shows (napari_mood.services.figure_cases): cases, planes, slices per row."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.io.mood import discover_dataset
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.figure_cases import (
    FigureCase,
    FigureRow,
    anomalous_cases,
    figure_rows,
)

SAMPLE = sample_data_dir()


def _case(name: str = "c", shape: tuple[int, int, int] = (10, 12, 14)) -> FigureCase:
    return FigureCase(name, np.zeros(shape, np.float32), None)


def test_one_case_gives_a_row_per_slice_and_several_cases_a_row_each():
    assert [r.index for r in figure_rows([_case()], [1, None, 5])] == [1, None, 5]
    two = figure_rows([_case("a"), _case("b")], [2, 3])
    assert [(r.case.name, r.index) for r in two] == [("a", 2), ("b", 3)]
    assert [r.index for r in figure_rows([_case("a"), _case("b")])] == [None, None]


@pytest.mark.parametrize(
    ("slices", "message"), [([1, 2, 3], "one slice per case"), ([0, 500], "outside")]
)
def test_figure_rows_rejects_bad_slices(slices, message):
    with pytest.raises(ValueError, match=message):
        figure_rows([_case("a"), _case("b")], slices)


def test_slices_can_be_given_per_plane():
    rows = figure_rows([_case()], {"axial": [1, 2], "sagittal": [3]}, planes=("axial", "sagittal"))
    assert [(r.plane, r.index) for r in rows] == [("axial", 1), ("axial", 2), ("sagittal", 3)]


def test_planes_follow_each_case_in_the_order_asked():
    rows = figure_rows([_case("a"), _case("b")], planes=("sagittal", "axial"))
    assert [(r.case.name, r.plane) for r in rows] == [
        ("a", "sagittal"), ("a", "axial"), ("b", "sagittal"), ("b", "axial"),
    ]  # fmt: skip


@pytest.mark.parametrize(("plane", "depth"), [("axial", 10), ("coronal", 12), ("sagittal", 14)])
def test_a_row_counts_slices_along_its_plane(plane, depth):
    assert FigureRow(_case(), None, plane).depth == depth
    figure_rows([_case()], {plane: [depth - 1]}, planes=(plane,))
    with pytest.raises(ValueError, match=rf"{plane} slice {depth} is outside 0..{depth - 1}"):
        figure_rows([_case()], {plane: [depth]}, planes=(plane,))


@pytest.mark.parametrize(
    ("slices", "planes", "message"),
    [
        ({"coronal": [3]}, ("axial",), "not among the planes"),
        ([3], ("coronal",), "not among the planes"),
        ({"axial": []}, ("axial",), "no axial slice"),
        (None, ("axial", "axial"), "distinct"),
        (None, ("oblique",), "distinct names among"),
        (None, (), "distinct names among"),
    ],
)
def test_figure_rows_rejects_bad_planes(slices, planes, message):
    with pytest.raises(ValueError, match=message):
        figure_rows([_case()], slices, planes=planes)


def test_rows_need_a_case_and_a_known_plane():
    with pytest.raises(ValueError, match="at least one case"):
        figure_rows([])
    with pytest.raises(ValueError, match="plane must be one of"):
        FigureRow(_case(), None, "oblique")  # type: ignore[arg-type]


def test_default_cases_are_the_anomalous_ones():
    assert anomalous_cases(discover_dataset(SAMPLE), limit=3) == [
        "brain_001.nii.gz",
        "brain_002.nii.gz",
        "brain_003.nii.gz",
    ]


def test_cases_must_be_arrays_of_one_shape_and_three_voxel_sizes():
    with pytest.raises(ValueError, match="one shape"):
        FigureCase("c", np.zeros((2, 3, 4)), np.zeros((2, 3, 5), bool))
    with pytest.raises(ValueError, match="three positive voxel sizes"):
        FigureCase("c", np.zeros((2, 3, 4)), None, spacing=(1.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="three positive voxel sizes"):
        FigureCase("c", np.zeros((2, 3, 4)), None, spacing=(1.0, 1.0))
