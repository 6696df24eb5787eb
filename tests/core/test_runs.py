"""Tests of napari_mood.core.objects.runs: label images kept as runs of equal values."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from napari_mood.core.objects import labelled_match, runs
from napari_mood.core.objects.runs import RunLengths, RunWriter, compact, concatenate_runs, dense


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs looked for 7 elements at a time: every array crosses chunk boundaries."""
    monkeypatch.setattr(runs, "RUN_CHUNK", 7)


@pytest.mark.usefixtures("small_chunks")
@settings(max_examples=80, deadline=None)
@given(
    hnp.arrays(
        np.uint16,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=12),
        elements={"min_value": 0, "max_value": 3},
    )
)
def test_round_trip_is_exact(labels: np.ndarray) -> None:
    kept = compact(labels, worth=10.0)  # always as runs
    assert isinstance(kept, RunLengths)
    back = dense(kept)
    assert back.dtype == labels.dtype and back.shape == labels.shape
    np.testing.assert_array_equal(back, labels)
    assert int(kept.lengths.sum()) == labels.size
    assert (kept.values[1:] != kept.values[:-1]).all()  # runs are maximal


@pytest.mark.usefixtures("small_chunks")
def test_runs_are_kept_only_when_they_are_small() -> None:
    blobs = np.zeros((8, 40, 40), dtype=np.uint32)
    blobs[2:6, 5:35, 5:35] = 3
    kept = compact(blobs)
    assert isinstance(kept, RunLengths) and kept.nbytes <= 0.5 * blobs.nbytes
    specks = (np.random.default_rng(0).random((8, 40, 40)) < 0.5).astype(np.uint32)
    assert compact(specks) is specks


def test_what_is_not_a_c_ordered_image_stays_as_it_is() -> None:
    fortran = np.zeros((4, 5, 6), dtype=np.uint16, order="F")
    empty = np.zeros((0, 3), dtype=np.uint16)
    assert compact(fortran) is fortran and compact(empty) is empty
    assert dense(fortran) is fortran


def test_a_labelled_match_keeps_blobs_as_runs() -> None:
    gt = np.zeros((20, 30, 30), dtype=bool)
    gt[5:10, 5:15, 5:15] = True
    score = np.where(gt, 0.9, 0.1)
    score[12:18, 18:28, 18:28] = 0.8
    found = labelled_match(score, gt, threshold=0.5)
    assert isinstance(found.pred_runs, RunLengths) and isinstance(found.gt_runs, RunLengths)
    assert found.nbytes < found.pred_crop_labels.nbytes
    assert int(found.pred_labels(None).max()) == 2 and found.pred_labels(None).dtype == np.uint8
    assert found.pred_labels()[15, 20, 20] == 2 and found.gt_labels()[7, 7, 7] == 1


@settings(max_examples=80, deadline=None)
@given(
    hnp.arrays(
        np.uint16,
        hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=9),
        elements={"min_value": 0, "max_value": 2},
    ),
    st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=12),
)
def test_concatenated_pieces_equal_the_whole(labels: np.ndarray, sizes: list[int]) -> None:
    """Pieces along the first axis, joined: the whole array's own maximal runs."""
    cuts = np.cumsum([0, *sizes])
    cuts = np.unique(np.append(cuts[cuts < len(labels)], len(labels)))
    pieces = [compact(labels[a:b], worth=np.inf) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    whole = compact(labels, worth=np.inf)
    assert isinstance(whole, RunLengths)
    joined = concatenate_runs(pieces, labels.shape)  # type: ignore[arg-type]
    np.testing.assert_array_equal(joined.values, whole.values)
    np.testing.assert_array_equal(joined.lengths, whole.lengths)
    assert joined.lengths.dtype == whole.lengths.dtype and joined.shape == labels.shape
    assert joined.values.base is None and joined.lengths.base is None  # cut in place, not views


def test_a_run_through_many_pieces_is_one_run() -> None:
    labels = np.zeros((6, 3), dtype=np.uint16)
    labels[0, 2] = labels[5, 0] = 4  # planes 1 to 4 are background throughout
    pieces = [compact(labels[i : i + 1], worth=np.inf) for i in range(6)]
    joined = concatenate_runs(pieces, labels.shape)  # type: ignore[arg-type]
    assert joined.values.tolist() == [0, 4, 0, 4, 0] and joined.lengths.tolist() == [2, 1, 12, 1, 2]
    with pytest.raises(ValueError, match="no runs"):
        concatenate_runs([], (0, 3))


def test_a_run_writer_holds_only_its_result() -> None:
    """Pieces written one at a time and let go, into arrays of a generous capacity: the
    peak is the result, not a multiple of it (int64 lengths, change masks and start
    indices made 4-6 copies before), and the spare capacity is given back."""
    rng = np.random.default_rng(3)
    image = np.repeat(rng.integers(0, 3, size=(40, 5000)).astype(np.uint16), 3, axis=1)
    pieces = [compact(image[i : i + 1], worth=np.inf) for i in range(40)]
    total = sum(p.values.size for p in pieces)  # type: ignore[union-attr]
    tracemalloc.start()
    try:
        writer = RunWriter(2 * total, np.dtype(np.uint16), image.size)
        while pieces:
            writer.add(pieces.pop(0))  # type: ignore[arg-type]
        joined = writer.result(image.shape)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(joined.dense(), image)
    assert joined.values.size < total  # runs joined across pieces
    result = total * (joined.values.itemsize + joined.lengths.itemsize)
    assert peak < 2.2 * result, (peak, result)  # the capacity (2x) is allocated, not written
    with pytest.raises(ValueError, match="capacity"):
        small = RunWriter(3, np.dtype(np.uint16), 100)
        small.add(RunLengths((1, 8), np.array([1, 2, 1, 2], np.uint16), np.full(4, 2, np.uint32)))


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        np.uint16,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=12),
        elements={"min_value": 0, "max_value": 2},
    ),
    st.integers(min_value=1, max_value=5),
    st.integers(min_value=1, max_value=40),
)
def test_decoding_into_an_array_equals_decoding(
    labels: np.ndarray, runs_per_step: int, most: int
) -> None:
    """Into a given array, a few runs at a time; steps of many elements run by run."""
    kept = compact(labels, worth=np.inf)
    assert isinstance(kept, RunLengths)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(runs, "_DECODE_RUNS", runs_per_step)
        patch.setattr(runs, "RUN_CHUNK", most)
        out = np.full(labels.shape, 9, dtype=labels.dtype)
        assert kept.dense(out=out) is out
    np.testing.assert_array_equal(out, labels)


@pytest.mark.usefixtures("small_chunks")
def test_lengths_are_right_across_chunks() -> None:
    """Run ends turn into lengths a chunk at a time (7 elements here), last chunk first."""
    image = np.repeat(np.arange(30, dtype=np.uint16) % 3, np.arange(1, 31))
    kept = compact(image, worth=np.inf)
    assert isinstance(kept, RunLengths)
    assert (
        kept.lengths.tolist() == list(range(1, 31))
        and kept.values.tolist() == (np.arange(30) % 3).tolist()
    )


def test_a_writer_is_empty_after_its_result():
    writer = RunWriter(8, np.dtype(np.uint16), 100)
    writer.add(compact(np.array([[0, 0, 1, 1, 2, 0]], dtype=np.uint16), worth=np.inf))
    first = writer.result((1, 6))
    assert first.values.tolist() == [0, 1, 2, 0] and first.lengths.tolist() == [2, 2, 1, 1]
    assert writer.nbytes == 0
    again = writer.result((0, 6))
    assert again.values.size == 0 and again.lengths.size == 0
