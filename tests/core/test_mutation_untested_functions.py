"""Rules the mutation run found no core test for (only doctests or services reached them)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.boxes.model import BoxSet
from napari_mood.core.simulate.pet_like import template_problem


def test_above_keeps_boxes_at_or_over_the_score_in_order():
    boxes = BoxSet.build(
        ["a", "b", "a", "c"],
        [[0, 0, 1, 1], [1, 1, 2, 2], [2, 2, 3, 3], [3, 3, 4, 4]],
        scores=[0.2, 0.5, 0.7, 0.49999],
        labels=["x", "y", "z", "w"],
    )
    kept = boxes.above(0.5)
    assert kept.images == ("b", "a")  # 0.5 itself is kept; 0.49999 is not
    assert kept.labels == ("y", "z")
    np.testing.assert_array_equal(kept.xyxy, [[1, 1, 2, 2], [2, 2, 3, 3]])
    np.testing.assert_array_equal(kept.scores, [0.5, 0.7])
    assert len(boxes.above(0.0).images) == 4
    assert boxes.above(0.71).images == ()


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (np.array([0.0, 0.1]), None),
        (np.array([-1.0, 0.0, 0.0]), "is 0 everywhere (no voxel above 0: no brain to scale)"),
        (
            np.array([1.0, np.nan, np.inf, -np.inf]),
            "has 3 NaN or infinite voxels (they would be copied into every reconstruction)",
        ),
        (
            np.concatenate([np.full(1234, np.nan), [1.0]]),
            "has 1,234 NaN or infinite voxels (they would be copied into every reconstruction)",
        ),
        (
            np.full(3, np.nan),
            "has 3 NaN or infinite voxels (they would be copied into every reconstruction)",
        ),
    ],
)
def test_template_problem_names_what_is_wrong(template, expected):
    assert template_problem(template) == expected
