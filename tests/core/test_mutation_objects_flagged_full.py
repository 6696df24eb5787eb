"""Objects labelled a slab at a time (core.objects.flagged): rules the mutation run left open.

Pinned against hand-worked label images and runs, and the documented options: the
components' ``labels`` is an empty image of the map's dimensions and label dtype; the
label image is kept as runs when they take at most ``worth`` of its dense bytes; without
``keep_dense`` a label image not worth keeping as runs is not kept (``labels`` None); an
object in a middle plane, labelled a plane per slab, is one run. Without ``keep_dense``:
runs taking exactly ``worth`` of the dense bytes are kept (uint16 values: 2 bytes, uint32
lengths: 4), a uint32 label image's runs are weighed with 4-byte values (hand-counted
runs, object count from scipy.ndimage.label), and a slab's runs are counted once (the
known count is handed to compact).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from napari_mood.core.objects import runs, slabs
from napari_mood.core.objects.flagged import flagged_objects
from napari_mood.core.objects.runs import RunLengths
from napari_mood.core.scores import key_threshold, score_keys


def _found(score: np.ndarray, connectivity: str = "face", **options):
    return flagged_objects(
        score_keys(score), key_threshold(0.5), connectivity, mode="mood", **options
    )


def test_the_components_label_image_is_empty_with_the_maps_dimensions_and_dtype():
    score = np.zeros((5, 6))
    score[1:3, 2:4] = 1.0  # one object: ids fit uint16
    found = _found(score)
    labels = found.components.labels
    assert labels.shape == (0, 0)  # empty, 2-D like the map
    assert labels.dtype == np.uint16 == found.labels.dtype


def test_the_label_image_is_runs_when_they_take_at_most_worth_of_its_bytes():
    # rows 0, 2, 4, 6: two bars (cols 0..6 and 9..15), 8 objects (face); crop 7 x 16.
    # runs: per bar row 7, 2, 7, and 16 zeros between bar rows: 4 * 3 + 3 = 15 runs,
    # 15 * (2 + 4) = 90 bytes <= 0.5 * (7 * 16 * 2) = 112 bytes: kept as runs
    score = np.zeros((8, 16))
    score[0:7:2, 0:7] = 1.0
    score[0:7:2, 9:16] = 1.0
    found = _found(score, worth=0.5)
    assert isinstance(found.labels, RunLengths)
    assert found.labels.values.dtype == np.uint16
    assert found.labels.values.tolist() == [1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]
    assert found.labels.lengths.tolist() == [7, 2, 7, 16] * 3 + [7, 2, 7]


def test_without_keep_dense_labels_not_worth_keeping_as_runs_are_dropped():
    # a 4 x 4 checkerboard at rows/cols 8..11 of a 16 x 16 map: 8 one-voxel objects (face),
    # at least 8 runs in the 16-voxel crop: >= 8 * 6 = 48 bytes > 0.5 * 16 * 2 = 16 bytes
    score = np.zeros((16, 16))
    score[8:12, 8:12] = np.indices((4, 4)).sum(0) % 2 == 0
    found = _found(score, worth=0.5, keep_dense=False)
    assert found.components.n == 8
    assert found.labels is None


def test_an_object_in_a_middle_plane_labelled_a_plane_per_slab_is_one_run(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(slabs, "SLAB_VOXELS", 1)  # one plane per slab
    score = np.zeros((5, 6, 6))
    score[2] = 1.0  # plane 2 flagged whole: the crop is that plane, one object, one run
    found = _found(score, "full")
    assert found.components.crop == (slice(2, 3), slice(0, 6), slice(0, 6))
    assert isinstance(found.labels, RunLengths)
    assert found.labels.shape == (1, 6, 6)
    assert (found.labels.values.tolist(), found.labels.lengths.tolist()) == ([1], [36])


def test_without_keep_dense_runs_taking_exactly_worth_are_kept():
    # a 1 x 6 map flagged whole: one object, one run of 6; uint16 runs take 1 * (2 + 4) = 6
    # bytes = 0.5 * (6 voxels * 2 bytes): worth it, so kept as that run
    found = _found(np.ones((1, 6)), worth=0.5, keep_dense=False)
    assert isinstance(found.labels, RunLengths)
    assert found.labels.shape == (1, 6)
    assert (found.labels.values.tolist(), found.labels.lengths.tolist()) == ([1], [6])


def test_without_keep_dense_uint32_labels_are_weighed_with_4_byte_values():
    # a 256 x 512 checkerboard over rows 0..255 of a 512 x 512 map: 65,536 single voxels
    # (face), so the labels are uint32. Every voxel starts a run except at the 128
    # even-to-odd row ends (0 then 0), plus one run for rows 256..511: R = 131072 - 128 + 1
    # = 130945 runs. Slab check (uint16, whole map): 6 R = 785,670 <= 1.75 * 262144 * 2.
    # Final (uint32, crop of 131,072 voxels): 8 R = 1,047,560 > 1.75 * 131072 * 4 = 917,504:
    # not worth it, so dropped (with 2-byte values, 6 R would have fitted)
    score = np.zeros((512, 512))
    score[0:256:2, 0::2] = score[1:256:2, 1::2] = 1.0
    assert ndimage.label(score)[1] == 65_536  # face connectivity
    found = _found(score, worth=1.75, keep_dense=False)
    assert found.components.n == 65_536
    assert found.labels is None


def test_a_slabs_runs_are_counted_once(monkeypatch: pytest.MonkeyPatch):
    def no_count(labels: np.ndarray) -> int:
        raise AssertionError("counted again")

    # the checkerboard of test_without_keep_dense_labels_not_worth_keeping_as_runs_are_dropped:
    # kept as runs in its slab (its count handed to compact), then dropped: nothing recounts
    monkeypatch.setattr(runs, "count_runs", no_count)
    score = np.zeros((16, 16))
    score[8:12, 8:12] = np.indices((4, 4)).sum(0) % 2 == 0
    found = _found(score, worth=0.5, keep_dense=False)
    assert found.components.n == 8
    assert found.labels is None
