"""Per-object records kept as columns (:class:`ObjectRecords`): same records, built on demand.

Every record is checked against an independent computation (scipy labels, plain numpy per
object); the selections against filtering the full tuple; and the laziness by counting
the records actually built.
"""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from napari_mood.core.objects import KINDS, kind_table, labelled_match, match_objects
from napari_mood.core.objects.records import ObjectRecords, SourceColumns
from tests.core.test_objects import random_case
from tests.reference_scorer import clip_float16

FAST = settings(max_examples=40, deadline=None)


def _reference_records(score: np.ndarray, labels_of: np.ndarray, spacing: tuple[float, ...]):
    """(id, size, mm3, centroid, bbox, max, mean) per object, with scipy and plain numpy."""
    keys = clip_float16(score).astype(np.float64)
    rows = []
    for index, box in enumerate(ndimage.find_objects(labels_of), start=1):
        voxels = np.argwhere(labels_of == index)
        values = keys[labels_of == index]
        bbox = tuple((s.start, s.stop) for s in box)
        rows.append(
            (
                index,
                len(voxels),
                len(voxels) * float(np.prod(spacing)),
                tuple(voxels.mean(axis=0)),
                bbox,
                float(values.max()),
                float(values.mean()),
            )
        )
    return rows


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    threshold=st.sampled_from([0.3, 0.5, 0.7]),
    shape=st.sampled_from([(7, 8, 9), (14, 15)]),
)
def test_records_equal_an_independent_computation(seed, threshold, shape):
    score, gt = random_case(seed, shape)
    spacing = (1.0, 2.0, 0.5)[: len(shape)]
    m = match_objects(score, gt, threshold=threshold, spacing=spacing)
    structure = ndimage.generate_binary_structure(len(shape), len(shape))
    pred_labels = ndimage.label(clip_float16(score) >= threshold, structure)[0]
    gt_labels = ndimage.label(gt, structure)[0]
    for source, labels_of in (("pred", pred_labels), ("gt", gt_labels)):
        got = [
            (
                r.id,
                r.size_voxels,
                r.size_mm3,
                r.centroid_voxel,
                r.bbox,
                r.max_score,
                r.mean_score,
            )
            for r in m.objects
            if r.source == source
        ]
        expected = _reference_records(score, labels_of, spacing)
        assert len(got) == len(expected)
        for mine, theirs in zip(got, expected, strict=True):
            assert mine[:3] == theirs[:3] and mine[4] == theirs[4]
            np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-12)
            assert mine[5] == pytest.approx(theirs[5]) and mine[6] == pytest.approx(theirs[6])


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    threshold=st.sampled_from([0.3, 0.5, 0.7]),
    kinds=st.sets(st.sampled_from(KINDS)),
    source=st.sampled_from(["pred", "gt"]),
)
def test_selections_equal_filtering_every_record(seed, threshold, kinds, source):
    score, gt = random_case(seed, (9, 10, 11))
    objects = match_objects(score, gt, threshold=threshold).objects
    everything = tuple(objects)
    expected = tuple(r for r in everything if r.source == source and r.kind in kinds)
    assert objects.select(source, kinds) == expected
    assert objects.ids(source, kinds).tolist() == [r.id for r in expected]
    codes = [KINDS.index(r.kind) + 1 for r in everything if r.source == source]
    assert objects.kind_codes(source).tolist() == codes
    assert everything == tuple(objects.select("pred", KINDS) + objects.select("gt", KINDS))


def _noisy_case() -> tuple[np.ndarray, np.ndarray]:
    """One found lesion (TP), one missed (FN), a false positive and 1,568 one-voxel specks."""
    rng = np.random.default_rng(3)
    score = rng.random((40, 40, 40)) * 0.4
    score[18::3, ::3, ::3] = 0.7  # isolated specks, below the size window
    gt = np.zeros(score.shape, dtype=bool)
    gt[2:8, 2:8, 2:8] = gt[2:8, 30:36, 2:8] = True
    score[2:8, 2:8, 3:9] = 0.9
    score[2:8, 20:26, 20:26] = 0.8
    return score, gt


def test_a_selection_builds_only_the_records_it_returns(monkeypatch):
    built: list[int] = []
    original = SourceColumns.records

    def counting(self, rows, geometry):
        built.append(len(rows))
        return original(self, rows, geometry)

    monkeypatch.setattr(SourceColumns, "records", counting)
    score, gt = _noisy_case()
    match = labelled_match(score, gt, threshold=0.5).match
    assert (match.counts.tp, match.counts.fp, match.counts.fn, match.counts.discarded) == (
        1,
        1,
        1,
        1568,
    )
    assert built == []  # nothing built by the match itself
    shown = match.objects.select("pred", ("TP", "FP")) + match.objects.select("gt", ("FN",))
    assert sum(built) == len(shown) == 3
    kinds = kind_table(match, source="pred")
    assert sum(built) == len(shown) and kinds.size == 1568 + 2 + 1
    assert len(match.objects) == 1568 + 2 + 2
    assert sum(built) == len(shown)  # len() builds nothing either
    list(match.objects)
    list(match.objects)  # every record, built once
    assert sum(built) == len(shown) + len(match.objects)


def test_records_behave_as_the_tuple_of_every_record():
    score, gt = _noisy_case()
    objects = match_objects(score, gt, threshold=0.5).objects
    everything = tuple(objects)
    assert objects == everything and everything == objects
    assert objects[0] == everything[0] and objects[-1] == everything[-1]
    assert objects[2:5] == everything[2:5]
    assert hash(objects) == hash(everything)
    assert repr(objects) == repr(everything)
    assert objects != everything[:-1] and objects != list(everything)
    assert everything.index(objects[7]) == objects.index(objects[7]) == 7
    with pytest.raises(IndexError):
        objects[len(everything)]


def test_records_pickle_and_compare_equal_after():
    score, gt = _noisy_case()
    match = match_objects(score, gt, threshold=0.5, spacing=(1.0, 1.0, 2.0))
    fresh = pickle.loads(pickle.dumps(match))  # before any record was built
    tuple(match.objects)
    built = pickle.loads(pickle.dumps(match))  # after
    assert fresh == match == built
    assert isinstance(fresh.objects, ObjectRecords)
    assert len(pickle.dumps(match)) == len(pickle.dumps(fresh))  # the columns, not the records


def test_two_threads_share_one_build():
    score, gt = _noisy_case()
    objects = match_objects(score, gt, threshold=0.5).objects
    results: list[tuple] = []
    threads = [threading.Thread(target=lambda: results.append(objects.as_tuple())) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results[0] is results[1]


def test_an_empty_match_has_no_records():
    objects = match_objects(np.zeros((4, 4)), np.zeros((4, 4), bool), threshold=0.5).objects
    assert len(objects) == 0 and tuple(objects) == () and objects == ()
    assert objects.select("pred", KINDS) == () and objects.ids("gt", KINDS).tolist() == []
    assert objects.kind_codes("pred").dtype == np.uint8
