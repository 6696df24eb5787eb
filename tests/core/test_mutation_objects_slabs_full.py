"""Rules of napari_mood.core.objects.slabs that the full mutation run left open.

Pinned against hand-worked values and the module's own documentation: the exact
messages of label_slabs, SlabLabeller and SlabLabeller.add; how many planes a cc3d call
gets (SLAB_VOXELS voxels of whole planes); the documented dtypes (labels uint16 when the
ids fit, 65,535 included; sizes and boxes int64, also when empty); statistics being empty
without ``stats``; Joined.slab_ids of the class's example; and an empty slab between two
slabs joining nothing and breaking nothing.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from napari_mood.core.objects.slabs import SlabLabeller, label_slabs

ADD_MESSAGE = "a slab must be a C-contiguous 3-D bool array"


def _exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


def _isolated_voxels(count: int) -> np.ndarray:
    """One plane of 256 x 512 voxels, ``count`` of them alone at face connectivity."""
    plane = np.zeros((256, 512), dtype=bool)
    plane[0::2, 0::2] = plane[1::2, 1::2] = True  # a checkerboard: 65,536 single voxels
    plane.ravel()[np.flatnonzero(plane)[count:]] = False
    return plane[None]


def test_label_slabs_refuses_a_non_bool_volume_with_its_message() -> None:
    volume = np.zeros((2, 3, 3), dtype=np.uint8)  # C-contiguous and 3-D, but not bool
    with pytest.raises(
        ValueError, match=_exactly("label_slabs needs a C-contiguous 3-D bool volume")
    ):
        label_slabs(volume, 6, stats=False)


def test_the_labeller_refuses_a_2d_shape_naming_it() -> None:
    with pytest.raises(ValueError, match=_exactly("SlabLabeller needs a 3-D shape, got (4, 4)")):
        SlabLabeller((4, 4), 6, stats=False)


@pytest.mark.parametrize(
    "part",
    [
        np.zeros((1, 3, 3), dtype=np.uint8),  # not bool
        np.zeros((2, 3, 3), dtype=bool, order="F"),  # not C-contiguous
        np.zeros((3, 3), dtype=bool),  # not 3-D
    ],
    ids=["uint8", "fortran", "2d"],
)
def test_add_refuses_what_is_not_a_c_contiguous_3d_bool_slab(part: np.ndarray) -> None:
    labeller = SlabLabeller((4, 3, 3), 6, stats=False)
    with pytest.raises(ValueError, match=_exactly(ADD_MESSAGE)):
        labeller.add(part)


@pytest.mark.parametrize(
    ("planes", "shape"),
    [((1, 3, 4), (1, 3, 4)), ((5, 3, 3), (5, 3, 3)), ((3, 3, 3), (2, 3, 3))],
    ids=["wrong-plane", "too-deep", "past-the-end"],
)
def test_add_refuses_a_slab_that_does_not_fit(
    planes: tuple[int, ...], shape: tuple[int, ...]
) -> None:
    # past-the-end: 3 planes of 4 are in, so a slab of 2 more overruns the volume
    labeller = SlabLabeller((4, 3, 3), 6, stats=False)
    if planes != shape:
        labeller.add(np.zeros(planes, dtype=bool))
    message = f"slab of shape {shape} does not fit a volume of (4, 3, 3)"
    with pytest.raises(ValueError, match=_exactly(message)):
        labeller.add(np.zeros(shape, dtype=bool))


def test_an_empty_slab_between_two_slabs_joins_nothing() -> None:
    # a column through planes 0 and 1, given as plane 0, no plane, plane 1: one object
    volume = np.zeros((2, 3, 3), dtype=bool)
    volume[:, 1, 1] = True
    labeller = SlabLabeller(volume.shape, 6, stats=True)
    labeller.add(volume[0:1])
    labeller.add(volume[1:1])
    labeller.add(volume[1:2])
    joined = labeller.join()
    assert joined.n == 1
    assert joined.counts == (1, 0, 1)
    assert [joined.slab_ids(i).tolist() for i in range(3)] == [[1], [], [1]]
    assert joined.sizes.tolist() == [2]


def test_slab_ids_are_one_final_id_per_provisional_id() -> None:
    # the class's example: a column in 4 planes, one plane a slab: each slab's one id is 1
    volume = np.zeros((4, 3, 3), dtype=bool)
    volume[:, 1, 1] = True
    labeller = SlabLabeller(volume.shape, 6, stats=True)
    labeller.planes = 1
    for i in range(4):
        labeller.add(volume[i : i + 1])
    joined = labeller.join()
    assert [joined.slab_ids(i).tolist() for i in range(4)] == [[1], [1], [1], [1]]


def test_slab_ids_of_two_objects_per_slab() -> None:
    # plane 0: a (0, 0) and b (0, 2); plane 1: c (1, 0) over a, d (2, 2) alone.
    # Slab 0's ids 1, 2 -> 1, 2; slab 1's c -> 1 (a's), d -> 3 (after b)
    volume = np.zeros((2, 3, 3), dtype=bool)
    volume[0, 0, 0] = volume[0, 0, 2] = volume[1, 0, 0] = volume[1, 2, 2] = True
    labeller = SlabLabeller(volume.shape, 6, stats=False)
    labeller.planes = 1
    labeller.add(volume[0:1])
    labeller.add(volume[1:2])
    joined = labeller.join()
    assert [joined.slab_ids(i).tolist() for i in range(2)] == [[1, 2], [1, 3]]


def test_a_slab_of_65535_objects_gets_uint16_provisional_labels() -> None:
    # 65,535 = the largest uint16: the ids fit (cc3d itself gives uint32 here)
    volume = _isolated_voxels(65535)
    labeller = SlabLabeller(volume.shape, 6, stats=False)
    labels = labeller.add(volume)
    assert labeller.counts == (65535,)
    assert labels.dtype == np.uint16
    assert int(labels.max()) == 65535


def test_65535_objects_are_labelled_uint16() -> None:
    found = label_slabs(_isolated_voxels(65535), 6, stats=False)
    assert found.n == 65535
    assert found.labels.dtype == np.uint16


def test_without_statistics_sizes_and_boxes_are_empty() -> None:
    volume = np.zeros((3, 3, 3), dtype=bool)
    volume[0, 0, 0] = volume[2, 2, 2] = True  # two objects
    found = label_slabs(volume, 6, stats=False)
    assert found.n == 2
    assert found.sizes.shape == (0,)
    assert found.bbox_lo.shape == found.bbox_hi.shape == found.centroids.shape == (0, 3)


def test_statistics_of_no_object_are_empty_int64_arrays() -> None:
    found = label_slabs(np.zeros((2, 3, 3), dtype=bool), 26, stats=True)
    assert found.n == 0
    assert (found.sizes.shape, found.sizes.dtype) == ((0,), np.int64)
    assert (found.bbox_lo.shape, found.bbox_lo.dtype) == ((0, 3), np.int64)
    assert (found.bbox_hi.shape, found.bbox_hi.dtype) == ((0, 3), np.int64)
    assert (found.centroids.shape, found.centroids.dtype) == ((0, 3), np.float64)


def test_sizes_are_int64_voxel_counts() -> None:
    # a 2 x 2 x 1 block (4 voxels) and a lone voxel, in C raster order of their first voxel
    volume = np.zeros((3, 3, 3), dtype=bool)
    volume[0:2, 0:2, 0] = True
    volume[2, 2, 2] = True
    found = label_slabs(volume, 6, stats=True)
    assert found.sizes.dtype == np.int64
    assert found.sizes.tolist() == [4, 1]


def test_a_join_past_two_million_provisional_objects_is_exact() -> None:
    # planes 1, 3, ..., 2**22 - 1 hold one voxel each: 2**21 objects in the first slab
    # (2**22 one-voxel planes); plane 2**22, the next slab, touches the last of them, so
    # there are 2**21 objects and its id is 2**21. Its face pair is node 2**21 with node
    # 2**21 + 1, a key 2**53 + 2**21 + 1 that float64 cannot hold
    planes = 1 << 22
    volume = np.zeros((planes + 1, 1, 1), dtype=bool)
    volume[1::2] = True
    volume[planes] = True
    labeller = SlabLabeller(volume.shape, 6, stats=False)
    assert labeller.planes == planes
    labeller.add(volume[:planes])
    labeller.add(volume[planes:])
    joined = labeller.join()
    assert joined.counts == (1 << 21, 1)
    assert joined.n == 1 << 21
    assert joined.slab_ids(1).tolist() == [1 << 21]
