"""Run-length pieces (core.objects.runs): rules the full mutation run left open.

Pinned against hand-written runs and the documented message: a piece of no runs (an
empty slab) adds nothing when pieces are joined, and joining no piece raises
``ValueError("no runs to concatenate")``; an empty array has 0 runs; run_bytes is the
values' bytes plus uint32 lengths (int64 from 2**32 elements, where a run's length no
longer fits uint32), counted by hand; compact keeps runs that take exactly ``worth`` of
the dense bytes and trusts a ``count`` it is given; a RunWriter emptied by its result
keeps no capacity (its documented "past the capacity" message).
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.objects import runs as runs_module
from napari_mood.core.objects.runs import (
    RunLengths,
    RunWriter,
    compact,
    concatenate_runs,
    count_runs,
    run_bytes,
)


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


def test_an_empty_array_has_no_runs():
    # documented: "0 when it is empty"
    assert count_runs(np.zeros((0, 5), dtype=np.uint16)) == 0
    assert count_runs(np.zeros((3, 0), dtype=np.uint16)) == 0


def test_run_bytes_are_the_value_bytes_plus_uint32_lengths():
    # 3 runs of a uint16 image of 100 elements: 3 * (2 value bytes + 4 uint32 length bytes)
    assert run_bytes(3, 100, np.dtype(np.uint16)) == 18
    # uint32 values: 3 * (4 + 4)
    assert run_bytes(3, 100, np.dtype(np.uint32)) == 24


def test_lengths_are_int64_from_2_to_the_32_elements():
    # one run may span the whole array: 2**32 - 1 fits uint32 (4 bytes), 2**32 does not,
    # so from 2**32 elements the lengths are int64 (8 bytes); values uint16 (2 bytes)
    assert run_bytes(1, 2**32 - 1, np.dtype(np.uint16)) == 2 + 4
    assert run_bytes(1, 2**32, np.dtype(np.uint16)) == 2 + 8
    assert run_bytes(1, 2**33 + 5, np.dtype(np.uint16)) == 2 + 8


def test_runs_taking_exactly_worth_of_the_bytes_are_kept():
    # 12 uint16 elements (24 bytes) in 2 runs: 2 * (2 + 4) = 12 bytes = 0.5 * 24: runs
    image = np.array([[0] * 6, [3] * 6], dtype=np.uint16)
    runs = compact(image, worth=0.5)
    assert isinstance(runs, RunLengths)
    assert (runs.values.tolist(), runs.lengths.tolist()) == ([0, 3], [6, 6])
    # 3 runs: 18 bytes > 12 bytes: kept as it is
    three = np.array([[0] * 6, [3] * 3 + [0] * 3], dtype=np.uint16)
    assert compact(three, worth=0.5) is three


def test_a_count_given_to_compact_is_used_not_counted_again(monkeypatch: pytest.MonkeyPatch):
    def no_count(labels: np.ndarray) -> int:
        raise AssertionError("counted again")

    monkeypatch.setattr(runs_module, "count_runs", no_count)
    image = np.array([[0, 0, 7, 7], [7, 0, 0, 0]], dtype=np.uint16)  # runs 0 x2, 7 x3, 0 x3
    runs = compact(image, worth=np.inf, count=3)
    assert (runs.values.tolist(), runs.lengths.tolist()) == ([0, 7, 0], [2, 3, 3])


def test_a_writer_emptied_by_its_result_has_no_capacity_left():
    # "the writer is empty afterwards": it keeps no part of its arrays, so a next run is
    # past its capacity, 0
    writer = RunWriter(4, np.dtype(np.uint16), 8)
    writer.add(_runs((1, 8), [0, 2], [5, 3]))
    writer.result((1, 8))
    with pytest.raises(ValueError) as raised:
        writer.add(_runs((1, 8), [1], [8]))
    assert str(raised.value) == "1 runs written, more than the capacity 0"
