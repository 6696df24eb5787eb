"""Flagged regions (core.regions) against hand-worked components: ids, sizes, window, order."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.objects import match_objects
from napari_mood.core.regions import (
    FlaggedRegion,
    flagged_regions,
    rank_regions,
    regions_from_match,
)


def _block_and_speck() -> tuple[np.ndarray, np.ndarray]:
    """A 3 x 3 block at 0.5 (object 1 in raster order) and a 1-voxel speck at 0.75 (object 2)."""
    score = np.zeros((8, 8))
    score[1:4, 1:4] = 0.5
    score[6, 6] = 0.75
    gt = np.zeros((8, 8), dtype=bool)
    gt[1:4, 1:4] = True
    return score, gt


def test_window_keeps_the_block_and_drops_the_speck():
    # GT object of 9 voxels: window 4.5 .. 18 voxels, the 1-voxel speck is discarded
    score, gt = _block_and_speck()
    (block,) = flagged_regions(score, gt, threshold=0.5)
    assert block == FlaggedRegion(
        object_id=1,
        size_voxels=9,
        size_mm3=None,  # no spacing given
        centroid_voxel=(2.0, 2.0),
        bbox=((1, 4), (1, 4)),
        max_score=0.5,
        mean_score=0.5,
        in_window=True,
    )


def test_scope_all_keeps_the_speck_first_by_max_score():
    score, gt = _block_and_speck()
    speck, block = flagged_regions(score, gt, threshold=0.5, scope="all")
    assert (speck.object_id, speck.size_voxels, speck.in_window) == (2, 1, False)
    assert speck.bbox == ((6, 7), (6, 7)) and speck.centroid_voxel == (6.0, 6.0)
    assert speck.max_score == 0.75 and speck.mean_score == 0.75
    assert (block.object_id, block.in_window) == (1, True)


def test_without_ground_truth_every_component_is_in_the_window():
    score, _ = _block_and_speck()
    regions = flagged_regions(score, threshold=0.5)
    assert [(r.object_id, r.size_voxels, r.in_window) for r in regions] == [
        (2, 1, True),
        (1, 9, True),
    ]


def test_threshold_is_inclusive_and_spacing_gives_mm3():
    score, _ = _block_and_speck()
    regions = flagged_regions(score, threshold=0.75, spacing=(2.0, 3.0))
    assert [(r.object_id, r.size_voxels, r.size_mm3) for r in regions] == [(1, 1, 6.0)]


def test_face_connectivity_splits_a_diagonal():
    score = np.zeros((4, 4))
    score[0, 0] = score[1, 1] = 1.0
    assert len(flagged_regions(score, threshold=0.5)) == 1
    assert len(flagged_regions(score, threshold=0.5, connectivity="face")) == 2


def test_unknown_scope_is_refused():
    score, _ = _block_and_speck()
    with pytest.raises(ValueError, match="scope must be one of 'window', 'all'; got 'some'"):
        flagged_regions(score, threshold=0.5, scope="some")  # type: ignore[arg-type]


def _region(object_id: int, size: int, max_score: float) -> FlaggedRegion:
    return FlaggedRegion(object_id, size, None, (0.0,), ((0, 1),), max_score, 0.1, True)


def test_rank_by_max_score_then_size_then_id():
    regions = [_region(1, 5, 0.7), _region(2, 9, 0.7), _region(3, 9, 0.7), _region(4, 1, 0.9)]
    assert [r.object_id for r in rank_regions(regions)] == [4, 2, 3, 1]
    assert [r.object_id for r in rank_regions(reversed(regions))] == [4, 2, 3, 1]


def test_regions_from_a_match_default_to_the_window_and_check_the_scope():
    score, gt = _block_and_speck()
    match = match_objects(score, gt, threshold=0.5)
    assert [r.object_id for r in regions_from_match(match)] == [1]
    assert [r.object_id for r in regions_from_match(match, scope="all")] == [2, 1]
    with pytest.raises(ValueError, match="^scope must be one of 'window', 'all'; got 'some'$"):
        regions_from_match(match, scope="some")  # type: ignore[arg-type]
