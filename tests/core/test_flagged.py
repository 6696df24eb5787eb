"""Tests of napari_mood.core.objects.flagged: a score map's objects labelled slab by slab.

Everything is checked against the route that labels a mask in memory
(``find_components`` on ``keys >= key`` plus ``object_scores``), with slabs of one plane
or a few, on C- and Fortran-ordered maps; and the full-size temporaries that route
makes are checked to be gone.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from napari_mood.core.objects import flagged, slabs
from napari_mood.core.objects.components import find_components, object_scores
from napari_mood.core.objects.flagged import flagged_objects
from napari_mood.core.objects.runs import RunLengths, compact, dense
from napari_mood.core.scores import key_threshold, score_keys


def _expected(keys: np.ndarray, key: float, connectivity: str, mode: str):
    comp = find_components(keys >= key, connectivity)  # type: ignore[arg-type]
    return comp, object_scores(comp, keys, mode)  # type: ignore[arg-type]


def _check(keys: np.ndarray, key: float, connectivity: str, mode: str = "mood") -> None:
    found = flagged_objects(keys, key, connectivity, mode=mode)  # type: ignore[arg-type]
    comp, (peak, mean) = _expected(keys, key, connectivity, mode)
    got = found.components
    assert got.crop == comp.crop
    np.testing.assert_array_equal(dense(found.labels), comp.labels)
    assert dense(found.labels).dtype == comp.labels.dtype
    np.testing.assert_array_equal(got.sizes, comp.sizes)
    np.testing.assert_array_equal(got.bbox_lo, comp.bbox_lo)
    np.testing.assert_array_equal(got.bbox_hi, comp.bbox_hi)
    np.testing.assert_array_equal(got.centroids, comp.centroids)  # rounded alike
    np.testing.assert_array_equal(found.peak, peak)
    if mode == "mood":  # float16 values in [0, 1]: every sum is exact, in any order
        np.testing.assert_array_equal(found.mean, mean)
    else:
        np.testing.assert_allclose(found.mean, mean, rtol=1e-12)


def _blobby(seed: int, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return ndimage.uniform_filter(rng.random(shape), 3)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    shape=st.sampled_from([(9, 10, 11), (1, 12, 7), (13, 1, 5), (6, 7), (1, 9), (20, 3, 3)]),
    threshold=st.floats(0.2, 0.8),
    connectivity=st.sampled_from(["full", "face"]),
    slab_voxels=st.sampled_from([1, 30, 200, slabs.SLAB_VOXELS]),
    order=st.sampled_from(["C", "F"]),
    mode=st.sampled_from(["mood", "exact"]),
)
def test_equals_labelling_the_mask(seed, shape, threshold, connectivity, slab_voxels, order, mode):
    keys = np.asarray(score_keys(_blobby(seed, shape), mode=mode), order=order)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(slabs, "SLAB_VOXELS", slab_voxels)
        _check(keys, key_threshold(threshold, mode=mode), connectivity, mode)


@pytest.mark.parametrize("slab_voxels", [50, 400])
def test_speckles_and_blobs_in_one_map(monkeypatch: pytest.MonkeyPatch, slab_voxels: int) -> None:
    """Blobs in the first planes, noise in the last: runs at first, then the dense image."""
    monkeypatch.setattr(slabs, "SLAB_VOXELS", slab_voxels)
    rng = np.random.default_rng(3)
    score = np.zeros((16, 20, 20))
    score[1:5, 3:12, 3:12] = 0.9
    score[10:, :, :] = rng.random((6, 20, 20))
    keys = score_keys(score)
    _check(keys, key_threshold(0.5), "full")
    found = flagged_objects(keys, key_threshold(0.5), "full", mode="mood")
    assert isinstance(found.labels, np.ndarray)  # the noise takes more as runs


@pytest.mark.parametrize("worth", [0.0, 0.5, np.inf])
def test_the_label_image_is_runs_only_while_they_are_worth_it(worth: float) -> None:
    keys = score_keys(_blobby(5, (12, 30, 30)))
    found = flagged_objects(keys, key_threshold(0.55), "full", mode="mood", worth=worth)
    image = dense(found.labels)
    runs = compact(image, worth=np.inf)
    assert isinstance(runs, RunLengths)
    if worth == 0.0:
        assert isinstance(found.labels, np.ndarray)
    elif worth == np.inf or runs.nbytes <= worth * image.nbytes:
        assert isinstance(found.labels, RunLengths)
        np.testing.assert_array_equal(found.labels.values, runs.values)  # maximal runs
        np.testing.assert_array_equal(found.labels.lengths, runs.lengths)


def test_nothing_flagged() -> None:
    found = flagged_objects(
        score_keys(np.zeros((4, 5, 6))), key_threshold(0.5), "full", mode="mood"
    )
    assert found.components.n == 0 and found.labels.size == 0 and found.peak.size == 0
    assert found.components.crop == (slice(0, 0),) * 3


def test_uint32_labels_past_65535_objects() -> None:
    score = np.zeros((2, 520, 520))
    score[0, ::2, ::2] = 1.0  # 67,600 isolated voxels
    found = flagged_objects(score_keys(score), key_threshold(0.5), "face", mode="mood")
    assert found.components.n == 260 * 260 and dense(found.labels).dtype == np.uint32
    assert int(dense(found.labels)[0, -1, -1]) == 260 * 260


def _traced_peak(job) -> int:
    tracemalloc.start()
    try:
        job()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_no_full_size_temporary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labelling the mask makes the mask, its C-ordered copy and the label image, each
    at least ``keys.size`` bytes; slab by slab, a sparse map's labelling stays under one."""
    monkeypatch.setattr(slabs, "SLAB_VOXELS", 32 * 32 * 8)
    score = np.zeros((512, 32, 32), dtype=np.float32)
    score[10:20, 10:30, 10:30] = 0.9
    score[400:450, 3:20, 5:25] = 0.8
    keys = np.asfortranarray(score_keys(score))
    key = key_threshold(0.5)
    streamed = _traced_peak(lambda: flagged_objects(keys, key, "full", mode="mood"))
    in_memory = _traced_peak(lambda: _expected(keys, key, "full", "mood"))
    assert streamed < keys.size and 4 * streamed < in_memory, (streamed, in_memory)


def test_without_keep_dense_a_speckled_maps_labels_are_dropped_early() -> None:
    """Runs not worth keeping: no label image, and the slabs' labels are let go as soon
    as the runs pass the budget (the peak stays far below keeping them)."""
    rng = np.random.default_rng(11)
    keys = score_keys(rng.random((64, 64, 64)).astype(np.float32))
    key = key_threshold(0.5)
    kept = flagged_objects(keys, key, "full", mode="mood")
    dropped = flagged_objects(keys, key, "full", mode="mood", keep_dense=False)
    assert isinstance(kept.labels, np.ndarray) and dropped.labels is None
    np.testing.assert_array_equal(dropped.components.sizes, kept.components.sizes)
    np.testing.assert_array_equal(dropped.peak, kept.peak)
    np.testing.assert_array_equal(dropped.mean, kept.mean)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(slabs, "SLAB_VOXELS", 64 * 64 * 4)
        peak_kept = _traced_peak(lambda: flagged_objects(keys, key, "full", mode="mood"))
        peak_dropped = _traced_peak(
            lambda: flagged_objects(keys, key, "full", mode="mood", keep_dense=False)
        )
    assert 2 * peak_dropped < peak_kept, (peak_dropped, peak_kept)


def test_without_keep_dense_small_runs_are_still_kept() -> None:
    score = np.zeros((12, 30, 30))
    score[2:6, 4:20, 5:25] = 0.9
    score[8:11, 20:28, 1:9] = 0.7
    keys = score_keys(score)
    found = flagged_objects(keys, key_threshold(0.55), "full", mode="mood", keep_dense=False)
    assert isinstance(found.labels, RunLengths)
    comp, _ = _expected(keys, key_threshold(0.55), "full", "mood")
    np.testing.assert_array_equal(dense(found.labels), comp.labels)


def test_without_keep_dense_slabs_are_kept_as_runs_within_the_budget() -> None:
    """Slabs whose runs take between half and all of their dense bytes were kept dense
    (twice the runs' bytes); without ``keep_dense`` they are kept as runs, and never
    past the budget plus one slab."""
    slab = np.tile(np.repeat(np.arange(256, dtype=np.uint16) % 2 * 7, 3), (4, 1))  # 1/3 runs
    parts = flagged._Parts(40 * slab.size, 0.5, keep_dense=False)
    dense_parts = flagged._Parts(40 * slab.size, 0.5, keep_dense=True)
    kept = []
    for _ in range(40):
        parts.add(slab)
        dense_parts.add(slab)
        if parts._parts is not None:
            assert all(isinstance(part, RunLengths) for part in parts._parts)
            kept.append(sum(part.nbytes for part in parts._parts))  # type: ignore[union-attr]
    budget = 0.5 * 40 * slab.nbytes
    assert parts._parts is None and max(kept) <= budget + 6 * slab.size  # dropped in time
    assert dense_parts._parts is not None and all(p is slab for p in dense_parts._parts)


def test_labels_whose_runs_fit_are_runs_whatever_lies_outside_the_crop():
    # a 4 x 4 square in a 6 x 16 map: its crop is 16 uint16 voxels, 32 bytes; as runs it is
    # one run (value 1, length 16): 2 + 4 bytes, within worth 0.5 x 32 = 16 bytes. The map's
    # rows around the square hold 9 runs, which the crop leaves out.
    score = np.zeros((6, 16))
    score[1:5, 5:9] = 1
    found = flagged_objects(score_keys(score), key_threshold(0.5), "face", mode="mood", worth=0.5)
    assert isinstance(found.labels, RunLengths)
    assert dense(found.labels).tolist() == [[1] * 4] * 4


def test_labels_whose_runs_do_not_fit_are_an_array_equal_to_scipys():
    # eight single voxels in a 4 x 4 crop (a checkerboard): 16 runs, 96 bytes > 16
    score = np.zeros((6, 16))
    score[1:5, 5:9] = np.indices((4, 4)).sum(0) % 2 == 0
    found = flagged_objects(score_keys(score), key_threshold(0.5), "face", mode="mood", worth=0.5)
    assert isinstance(found.labels, np.ndarray)
    expected, n = ndimage.label(score[1:5, 5:9] > 0.5)
    assert n == 8
    np.testing.assert_array_equal(found.labels, expected)
