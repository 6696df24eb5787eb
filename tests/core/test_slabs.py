"""Tests of napari_mood.core.objects.slabs: cc3d a slab at a time, joined.

Labels are checked against scipy.ndimage.label (an independent labelling that numbers
objects in C raster order of their first voxel) and against cc3d on the whole volume;
sizes, boxes and centroids against numpy on the label image and against cc3d's
statistics of the whole volume, bit for bit.
"""

from __future__ import annotations

import cc3d
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import ndimage

from napari_mood.core.objects import label_objects, slabs
from napari_mood.core.objects.components import find_components
from napari_mood.core.objects.slabs import label_slabs

STRUCTURE = {6: ndimage.generate_binary_structure(3, 1), 26: np.ones((3, 3, 3), dtype=bool)}


@pytest.fixture
def tiny_slabs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Slabs of one or two planes for the small volumes of these tests."""
    monkeypatch.setattr(slabs, "SLAB_VOXELS", 30)


def _independent(volume: np.ndarray, neighbours: int) -> dict[str, np.ndarray]:
    """Labels from scipy; sizes, boxes and centroids from numpy over them."""
    labels, n = ndimage.label(volume, structure=STRUCTURE[neighbours])
    index = np.arange(1, n + 1)
    coords = np.indices(volume.shape)
    sizes = np.bincount(labels.ravel(), minlength=n + 1)[1:]
    sums = np.stack([np.bincount(labels.ravel(), c.ravel(), n + 1)[1:] for c in coords], 1)
    objects = ndimage.find_objects(labels)
    lo = np.array([[s.start for s in o] for o in objects], dtype=np.int64).reshape(-1, 3)
    hi = np.array([[s.stop for s in o] for o in objects], dtype=np.int64).reshape(-1, 3)
    assert index.size == n
    return {
        "labels": labels,
        "sizes": sizes,
        "centroids": sums / sizes[:, None],
        "lo": lo,
        "hi": hi,
    }


def _check(volume: np.ndarray, neighbours: int) -> None:
    found = label_slabs(np.ascontiguousarray(volume), neighbours, stats=True)  # type: ignore[arg-type]
    want = _independent(volume, neighbours)
    np.testing.assert_array_equal(found.labels, want["labels"])
    assert found.n == want["sizes"].size
    np.testing.assert_array_equal(found.sizes, want["sizes"])
    np.testing.assert_array_equal(found.bbox_lo, want["lo"])
    np.testing.assert_array_equal(found.bbox_hi, want["hi"])
    np.testing.assert_allclose(found.centroids, want["centroids"], rtol=0, atol=1e-12)


@pytest.mark.usefixtures("tiny_slabs")
@pytest.mark.parametrize("neighbours", [6, 26])
@pytest.mark.parametrize("density", [0.05, 0.3, 0.6])
@pytest.mark.parametrize("seed", range(6))
def test_random_volumes_match_scipy(neighbours: int, density: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 12, 3))
    _check(rng.random(shape) < density, neighbours)


@pytest.mark.usefixtures("tiny_slabs")
@settings(max_examples=60, deadline=None)
@given(
    volume=hnp.arrays(bool, hnp.array_shapes(min_dims=3, max_dims=3, max_side=9)),
    neighbours=st.sampled_from([6, 26]),
)
def test_any_volume_matches_whole_volume_cc3d(volume: np.ndarray, neighbours: int) -> None:
    """Labels and statistics equal cc3d's on the whole volume bit for bit (centroids too)."""
    volume = np.ascontiguousarray(volume)
    line = sorted(volume.shape)[1] == 1
    whole, n = cc3d.connected_components(
        volume, connectivity=6 if line else neighbours, return_N=True, binary_image=True
    )
    found = label_slabs(volume, neighbours, stats=True)  # type: ignore[arg-type]
    np.testing.assert_array_equal(found.labels, whole)
    assert found.n == n
    if n:
        stats = cc3d.statistics(whole, no_slice_conversion=True)
        boxes = np.asarray(stats["bounding_boxes"], dtype=np.int64)[1:]
        np.testing.assert_array_equal(found.sizes, stats["voxel_counts"][1:])
        np.testing.assert_array_equal(found.centroids, np.asarray(stats["centroids"])[1:])
        np.testing.assert_array_equal(found.bbox_lo, boxes[:, 0::2])
        np.testing.assert_array_equal(found.bbox_hi, boxes[:, 1::2] + 1)


@pytest.mark.usefixtures("tiny_slabs")
def test_an_object_joined_in_a_later_slab_keeps_its_first_number() -> None:
    """A U: two pillars from plane 0 (provisionally two objects in every slab) meet at
    the last plane; a speck between them in plane 1 comes after the U's first voxel and
    before the right pillar's, so the U is 1 and the speck 2."""
    v = np.zeros((8, 3, 7), dtype=bool)
    v[:, 1, 0] = v[:, 1, 6] = True
    v[-1, 1, :] = True
    v[1, 1, 3] = True
    found = label_slabs(v, 26, stats=True)
    assert found.n == 2
    assert found.labels[0, 1, 0] == found.labels[0, 1, 6] == 1
    assert found.labels[1, 1, 3] == 2
    assert found.sizes.tolist() == [8 + 8 + 5, 1]
    _check(v, 26)


@pytest.mark.usefixtures("tiny_slabs")
@pytest.mark.parametrize(("neighbours", "objects"), [(26, 1), (6, 10)])
def test_diagonal_crossing_every_face(neighbours: int, objects: int) -> None:
    """A diagonal touches across each face only through a corner: one object at 26, ten at 6."""
    v = np.zeros((10, 10, 10), dtype=bool)
    v[np.arange(10), np.arange(10), np.arange(10)] = True
    found = label_slabs(v, neighbours, stats=True)  # type: ignore[arg-type]
    assert found.n == objects
    _check(v, neighbours)


@pytest.fixture
def cc3d_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The shape of what each cc3d labelling call is given (slabs of 50 voxels)."""
    monkeypatch.setattr(slabs, "SLAB_VOXELS", 50)
    seen: list[tuple[int, ...]] = []
    label = cc3d.connected_components

    def spy(part: np.ndarray, **kwargs: object) -> object:
        seen.append(part.shape)
        return label(part, **kwargs)

    monkeypatch.setattr(slabs.cc3d, "connected_components", spy)
    return seen


def test_each_cc3d_call_gets_one_slab(cc3d_calls: list[tuple[int, ...]]) -> None:
    """No cc3d call sees more than a slab (the GIL is held per call), whole planes each."""
    v = np.random.default_rng(0).random((9, 5, 7)) < 0.4
    _check(v, 26)
    assert cc3d_calls == [(1, 5, 7)] * 9


def test_planes_of_one_voxel_make_slabs_of_slab_voxels_planes(
    monkeypatch: pytest.MonkeyPatch, cc3d_calls: list[tuple[int, ...]]
) -> None:
    # 30 voxels a call, 1 voxel a plane: 30 planes a call, so 100 planes are 30+30+30+10
    monkeypatch.setattr(slabs, "SLAB_VOXELS", 30)
    found = label_slabs(np.ones((100, 1, 1), dtype=bool), 6, stats=False)
    assert cc3d_calls == [(30, 1, 1)] * 3 + [(10, 1, 1)]
    assert found.n == 1


def test_a_slab_holds_as_many_whole_planes_as_fit(
    monkeypatch: pytest.MonkeyPatch, cc3d_calls: list[tuple[int, ...]]
) -> None:
    # 70 voxels a call, 5 * 7 = 35 a plane: 2 planes a call, so 9 planes are 4 * 2 + 1
    monkeypatch.setattr(slabs, "SLAB_VOXELS", 70)
    found = label_slabs(np.ones((9, 5, 7), dtype=bool), 26, stats=False)
    assert cc3d_calls == [(2, 5, 7)] * 4 + [(1, 5, 7)]
    assert found.n == 1


def test_a_batch_job_labels_the_whole_volume_in_one_call(
    cc3d_calls: list[tuple[int, ...]],
) -> None:
    """``whole=True`` (the dataset evaluation: no event loop to keep alive): one cc3d
    call, and the same labels as the slabs."""
    v = np.random.default_rng(1).random((9, 5, 7)) < 0.4
    whole = label_slabs(v, 26, stats=False, whole=True)
    assert cc3d_calls == [(9, 5, 7)]
    sliced = label_slabs(v, 26, stats=False)
    assert len(cc3d_calls) == 10
    np.testing.assert_array_equal(whole.labels, sliced.labels)
    assert whole.labels.dtype == sliced.labels.dtype == np.uint16


def test_labels_narrow_to_uint16_only_when_they_fit() -> None:
    v = np.zeros((150, 60, 60), dtype=bool)
    v[::2, ::2, ::2] = True  # 75 * 30 * 30 = 67,500 single voxels
    assert label_slabs(v, 6, stats=False).labels.dtype == np.uint32
    assert label_slabs(v[:100], 6, stats=False).labels.dtype == np.uint16  # 45,000


def test_refuses_what_it_cannot_label() -> None:
    with pytest.raises(ValueError, match="C-contiguous 3-D bool"):
        label_slabs(np.zeros((4, 4), dtype=bool), 26, stats=False)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="C-contiguous 3-D bool"):
        label_slabs(np.zeros((4, 4, 4), dtype=bool, order="F")[:, :, :3], 26, stats=False)


@pytest.mark.usefixtures("tiny_slabs")
@pytest.mark.parametrize("connectivity", ["full", "face"])
def test_components_of_a_fortran_crop_match_scipy(connectivity: str) -> None:
    """The route the MOOD rule takes: a crop of a Fortran (NIfTI) volume, 2-D and 3-D."""
    rng = np.random.default_rng(3)
    mask = np.asfortranarray(rng.random((12, 9, 11)) < 0.3)
    mask[:2] = False
    neighbours = 26 if connectivity == "full" else 6
    comp = find_components(mask, connectivity)  # type: ignore[arg-type]
    want = _independent(np.ascontiguousarray(mask[comp.crop]), neighbours)
    offset = np.array([s.start for s in comp.crop])
    np.testing.assert_array_equal(comp.labels, want["labels"])
    np.testing.assert_array_equal(comp.bbox_lo, want["lo"] + offset)
    np.testing.assert_allclose(comp.centroids, want["centroids"] + offset, atol=1e-12)
    flat = mask[5]
    labels, n = label_objects(flat, connectivity=connectivity)  # type: ignore[arg-type]
    ref, m = ndimage.label(flat, structure=STRUCTURE[neighbours][1])
    assert n == m
    np.testing.assert_array_equal(labels, ref)


@pytest.mark.parametrize("shape", [(1, 3, 3), (1, 9, 9), (9, 1, 9), (9, 9, 1)])
def test_a_one_plane_lattice_of_single_voxels_is_labelled_26_connected(shape):
    # isolated voxels on every other row and column of one plane: 4 (3 x 3) or 25 (9 x 9)
    # objects, as scipy's full 3 x 3 x 3 structure finds (cc3d 4.1.1 raised for this)
    volume = np.zeros(shape, dtype=bool)
    volume[::2, ::2, ::2] = True
    found = label_slabs(volume, 26, stats=True)
    expected, n = ndimage.label(volume, structure=np.ones((3, 3, 3)))
    assert found.n == n == volume.sum()
    np.testing.assert_array_equal(found.labels, expected)


def test_a_2d_lattice_of_single_voxels_is_as_many_objects():
    # a 2-D map is labelled as one plane: four isolated flagged voxels are four objects
    score = np.zeros((3, 3))
    score[::2, ::2] = 0.9
    labels, n = label_objects(score > 0.5, connectivity="full")
    assert n == 4
    assert labels.tolist() == [[1, 0, 2], [0, 0, 0], [3, 0, 4]]


def test_a_lattice_in_a_last_slab_one_plane_deep_is_labelled(monkeypatch: pytest.MonkeyPatch):
    # slabs of 2 planes of 81 voxels over 3 planes: the last slab is one plane deep; a
    # lattice of single voxels there is 25 objects, as scipy's full structure finds
    monkeypatch.setattr(slabs, "SLAB_VOXELS", 2 * 81)
    volume = np.zeros((3, 9, 9), dtype=bool)
    volume[2, ::2, ::2] = True
    volume[0, 4, :] = True
    found = label_slabs(volume, 26, stats=True)
    expected, n = ndimage.label(volume, structure=np.ones((3, 3, 3)))
    assert found.n == n == 26
    np.testing.assert_array_equal(found.labels, expected)
