"""Run-length pieces (core.objects.runs): rules the full mutation run left open.

Pinned against hand-written runs and the documented message: a piece of no runs (an
empty slab) adds nothing when pieces are joined, and joining no piece raises
``ValueError("no runs to concatenate")``.
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.objects.runs import RunLengths, concatenate_runs


def _runs(shape, values, lengths) -> RunLengths:
    return RunLengths(shape, np.array(values, np.uint16), np.array(lengths, np.uint32))


def test_an_empty_piece_between_two_adds_no_run():
    first = _runs((1, 4), [0, 5], [2, 2])  # [[0, 0, 5, 5]]
    empty = _runs((0, 4), [], [])  # no rows
    last = _runs((1, 4), [5, 0], [1, 3])  # [[5, 0, 0, 0]]
    joined = concatenate_runs([first, empty, last], (2, 4))
    # the 5s of both rows join: runs 0 x2, 5 x3, 0 x3
    assert joined.values.tolist() == [0, 5, 0]
    assert joined.lengths.tolist() == [2, 3, 3]


def test_joining_no_piece_raises_the_documented_message():
    with pytest.raises(ValueError) as raised:
        concatenate_runs([], (2, 4))
    assert str(raised.value) == "no runs to concatenate"
