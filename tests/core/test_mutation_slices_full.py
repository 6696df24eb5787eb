"""Slice choice by hand (survivors of the full mutation run of core.slices)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.slices import choose_slice, highest_score_slice, largest_area_slice


def test_choose_slice_takes_the_scores_along_the_given_axis() -> None:
    # the peak sits at (0, 1, 3): slice 3 along axis 2, slice 0 along axis 0
    scores = np.zeros((4, 4, 5))
    scores[0, 1, 3] = 0.9
    assert choose_slice(None, scores, 5, axis=2) == 3
    assert choose_slice(np.zeros((4, 4, 5), bool), scores, 5, axis=1) == 1


@pytest.mark.parametrize(
    ("find", "name"), [(highest_score_slice, "scores"), (largest_area_slice, "mask")]
)
def test_a_flat_volume_is_named_in_the_error(find, name) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be a 3-D \(display-ordered\) volume"):
        find(np.zeros((3, 3)))
