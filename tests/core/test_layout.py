"""C-ordered copies of Fortran-ordered volumes (core._layout) and the object scores built on them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from napari_mood.core import _layout
from napari_mood.core._layout import c_contiguous
from napari_mood.core.objects import components
from napari_mood.core.objects.components import find_components, label_objects, object_scores
from napari_mood.core.scores import key_values, score_keys

# shapes that cross the 128 x 8 x 128 tiles unevenly, and one smaller than a tile
SHAPES = [(130, 17, 131), (257, 9, 3), (5, 6, 7), (1, 300, 2)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint16, np.float32, np.uint32])
def test_equals_ascontiguousarray_for_fortran_volumes(shape, dtype):
    values = np.random.default_rng(0).integers(0, 1000, shape).astype(dtype)
    fortran = np.asfortranarray(values)
    out = c_contiguous(fortran)
    assert out.flags.c_contiguous and out.dtype == dtype
    np.testing.assert_array_equal(out, values)


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[3:140, 2:15, 1:129],  # a crop of a Fortran volume (what labelling copies)
        lambda a: a[::-1, :, ::2],  # flipped and strided
        lambda a: a.transpose(1, 0, 2),
        lambda a: a[:, 4, :],  # 2-D
    ],
)
def test_equals_ascontiguousarray_for_views(view):
    fortran = np.asfortranarray(np.random.default_rng(1).random((150, 20, 140)))
    expected = np.ascontiguousarray(view(fortran))
    out = c_contiguous(view(fortran))
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(out, expected)


def test_c_contiguous_input_is_returned_as_it_is():
    arr = np.zeros((4, 5, 6))
    assert c_contiguous(arr) is arr


def test_tiles_are_used_for_fortran_volumes(monkeypatch):
    # the tiled path really runs (and is exact) when the first axis is the fastest
    monkeypatch.setattr(_layout, "_TILE", (3, 2, 5))
    fortran = np.asfortranarray(np.arange(7 * 5 * 11).reshape(7, 5, 11))
    np.testing.assert_array_equal(c_contiguous(fortran), np.arange(7 * 5 * 11).reshape(7, 5, 11))


def test_labels_of_a_fortran_volume_across_tiles_equal_scipy():
    mask = np.random.default_rng(2).random((140, 19, 133)) < 0.3
    expected, _ = ndimage.label(mask, np.ones((3, 3, 3)))
    np.testing.assert_array_equal(label_objects(np.asfortranarray(mask))[0], expected)


def _naive_scores(mask: np.ndarray, keys: np.ndarray, mode: str):
    labels, n = ndimage.label(mask, np.ones((3,) * mask.ndim))
    values = key_values(keys, mode=mode)  # type: ignore[arg-type]
    index = np.arange(1, n + 1)
    peak = ndimage.maximum(values, labels, index)
    mean = ndimage.mean(values, labels, index)
    return np.asarray(peak, dtype=float), np.asarray(mean, dtype=float)


@pytest.mark.parametrize("mode", ["mood", "exact"])
@pytest.mark.parametrize("slab", [1, 37, 1 << 23])
def test_object_scores_equal_a_naive_reduction_for_any_slab(monkeypatch, mode, slab):
    # slabs of one voxel (one plane each), uneven slabs, one slab; Fortran-ordered keys
    monkeypatch.setattr(components, "_SLAB_VOXELS", slab * 19 * 23)
    rng = np.random.default_rng(5)
    scores = np.asfortranarray(rng.random((31, 19, 23)).astype(np.float32))
    keys = score_keys(scores, mode=mode)  # type: ignore[arg-type]
    mask = scores >= 0.6
    comp = find_components(mask, "full")
    peak, mean = object_scores(comp, keys, mode)  # type: ignore[arg-type]
    ref_peak, ref_mean = _naive_scores(mask, keys, mode)
    np.testing.assert_array_equal(peak, ref_peak)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-12)


def test_object_scores_of_no_object():
    comp = find_components(np.zeros((3, 4, 5), dtype=bool), "full")
    peak, mean = object_scores(comp, np.zeros((3, 4, 5), dtype=np.uint16), "mood")
    assert peak.size == mean.size == 0
