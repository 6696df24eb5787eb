"""Boxes from a score map equal skimage's regionprops boxes and maximum intensities."""

from __future__ import annotations

import numpy as np
import pytest
from skimage.measure import label, regionprops

from napari_mood.core.boxes.from_scores import boxes_from_score_map


@pytest.mark.parametrize("connectivity", ["full", "face"])
@pytest.mark.parametrize("seed", range(5))
def test_boxes_equal_regionprops(seed, connectivity):
    rng = np.random.default_rng(seed)
    score = rng.random((40, 50)) ** 3
    threshold = 0.5
    boxes = boxes_from_score_map(score, threshold=threshold, image="s", connectivity=connectivity)
    regions = regionprops(
        label(score >= threshold, connectivity=2 if connectivity == "full" else 1),
        intensity_image=score,
    )
    expected = sorted(
        ((r.bbox[1], r.bbox[0], r.bbox[3], r.bbox[2]), r.intensity_max) for r in regions
    )
    got = sorted((tuple(b), s) for b, s in zip(boxes.xyxy.tolist(), boxes.scores, strict=True))
    assert [g[0] for g in got] == [e[0] for e in expected]
    assert np.allclose([g[1] for g in got], [e[1] for e in expected], rtol=0, atol=0)
    assert set(boxes.images) <= {"s"}


def test_threshold_is_inclusive_and_empty_map_gives_no_box():
    score = np.zeros((4, 4))
    score[1, 1] = 0.5
    assert len(boxes_from_score_map(score, threshold=0.5)) == 1
    assert len(boxes_from_score_map(score, threshold=0.51)) == 0


def test_min_pixels_below_one_is_refused():
    with pytest.raises(ValueError, match="^min_pixels must be 1 or more; got 0"):
        boxes_from_score_map(np.zeros((4, 4)), threshold=0.5, min_pixels=0)


def test_min_pixels_drops_small_components():
    score = np.zeros((5, 5))
    score[0, 0] = 1.0
    score[2:5, 2:5] = 0.8
    boxes = boxes_from_score_map(score, threshold=0.5, min_pixels=2)
    assert boxes.xyxy.tolist() == [[2, 2, 5, 5]]


@pytest.mark.parametrize(
    ("score", "message"),
    [(np.zeros((2, 2, 2)), "2-D"), (np.full((2, 2), np.nan), "NaN")],
)
def test_bad_maps_are_refused(score, message):
    with pytest.raises(ValueError, match=message):
        boxes_from_score_map(score, threshold=0.5)
