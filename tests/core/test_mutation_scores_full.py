"""Score reading (core.scores.to_mood_codes): the rules the full mutation run left open.

Pins the documented "the codes keep the memory order of scores" for float64 maps seen
through a flipped view (a viewer's display view flips axes), against numpy's own strides,
and their values against the restated official scorer (tests/reference_scorer.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.scores import to_mood_codes
from tests.reference_scorer import clip_float16


@pytest.mark.parametrize(
    "view",
    [
        lambda a: a[::-1],  # C-ordered, first axis flipped
        lambda a: np.asfortranarray(a)[:, ::-1],  # Fortran-ordered (NIfTI), second axis flipped
    ],
)
def test_float64_codes_keep_the_memory_order_of_a_flipped_map(view):
    # uint16 codes of float64 scores: every stride is the score's stride / 4, sign included
    scores = view(np.random.default_rng(0).uniform(-0.5, 1.5, (3, 4, 5)))
    codes = to_mood_codes(scores)
    assert codes.strides == tuple(s // 4 for s in scores.strides)
    np.testing.assert_array_equal(codes, clip_float16(scores).view(np.uint16))
