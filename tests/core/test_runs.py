"""Tests of napari_mood.core.objects.runs: label images kept as runs of equal values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp

from napari_mood.core.objects import labelled_match, runs
from napari_mood.core.objects.runs import RunLengths, compact, dense


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
