"""The shared labelling cache (napari_mood.services.labelling) and the jobs that use it.

The jobs' results with a cache are compared with the independent route they replaced
(``match_objects`` + ``object_labels`` + ``kind_table``, ``threshold_readout``,
``flagged_regions``), and the cache's key, bounds and thread behaviour are checked.
"""

from __future__ import annotations

import gc
import threading
import time

import numpy as np
import pytest
from scipy import ndimage

from napari_mood.core.objects import match_objects, object_labels
from napari_mood.core.readout import threshold_readout
from napari_mood.core.regions import flagged_regions
from napari_mood.services import labelling as labelling_module
from napari_mood.services.labelling import LabellingCache
from napari_mood.services.object_views import compute_method_objects, match_methods
from napari_mood.services.readouts import compute_readouts
from napari_mood.services.review_regions import find_regions
from napari_mood.services.snapshots import MapSnapshot


def _case(seed: int = 0, shape=(14, 15, 16)) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    score = ndimage.uniform_filter(rng.random(shape), 3).astype(np.float32)
    gt = ndimage.uniform_filter(rng.random(shape), 3) > 0.56
    return score, gt


def _objects_image(match, pred_labels: np.ndarray, gt_labels: np.ndarray) -> np.ndarray:
    """Independent drawing: TP and FP objects numbered 1..P by id, then FN P+1.. by id,
    missed GT voxels only where no shown prediction is."""
    pred_ids = sorted(r.id for r in match.objects if r.source == "pred" and r.kind in ("TP", "FP"))
    fn_ids = sorted(r.id for r in match.objects if r.source == "gt" and r.kind == "FN")
    image = np.zeros(pred_labels.shape, dtype=np.int64)
    for rank, gt_id in enumerate(fn_ids, start=len(pred_ids) + 1):
        image[gt_labels == gt_id] = rank
    for rank, pred_id in enumerate(pred_ids, start=1):
        image[pred_labels == pred_id] = rank
    return image


@pytest.mark.parametrize("threshold", [0.45, 0.5, 0.55])
@pytest.mark.parametrize("with_gt", [True, False])
def test_jobs_with_a_shared_cache_equal_the_independent_routes(threshold, with_gt):
    score, gt = _case()
    truth = gt if with_gt else None
    full_truth = gt if with_gt else np.zeros_like(gt)
    snapshot = MapSnapshot("m", score, threshold, spacing=(1.0, 1.0, 2.0))
    cache = LabellingCache()

    objects = compute_method_objects(snapshot, truth, cache=cache)
    match = match_objects(score, full_truth, threshold=threshold, spacing=(1.0, 1.0, 2.0))
    assert objects.match == match
    pred_labels, gt_labels = object_labels(score, full_truth, threshold=threshold)
    np.testing.assert_array_equal(objects.image, _objects_image(match, pred_labels, gt_labels))

    readout = compute_readouts([snapshot], truth, cache=cache)["m"]
    assert readout == threshold_readout(score, truth, threshold=threshold, voxel_volume=2.0)

    found = find_regions(snapshot, truth, case="c", scope="all", cache=cache)
    assert found.regions == flagged_regions(
        score, truth, threshold=threshold, scope="all", spacing=(1.0, 1.0, 2.0)
    )
    np.testing.assert_array_equal(found.labels, pred_labels)
    # one labelling, reused by the readout (with a GT) and the regions
    assert cache.stats() == ((2, 1) if with_gt else (1, 1))


def test_jobs_without_a_cache_give_the_same_results():
    score, gt = _case(1)
    snapshot = MapSnapshot("m", score, 0.5)
    cached = compute_method_objects(snapshot, gt, cache=LabellingCache())
    plain = compute_method_objects(snapshot, gt)
    assert cached.match == plain.match
    np.testing.assert_array_equal(cached.image, plain.image)
    assert cached.image.dtype == plain.image.dtype == np.uint8  # compact labels
    assert [r.match for r in match_methods([snapshot], gt)] == [plain.match]


def test_thresholds_flagging_the_same_float16_values_share_an_entry():
    score, gt = _case(2)
    cache = LabellingCache()
    a = cache.get(score, gt, threshold=0.3)
    b = cache.get(score, gt, threshold=0.30004)  # float16 0.30005 is the next stored value
    c = cache.get(score, gt, threshold=0.31)
    assert a is b and a is not c
    assert (a.match_at(0.3).threshold, b.match_at(0.30004).threshold) == (0.3, 0.30004)
    assert cache.stats() == (1, 2)


def test_key_includes_the_gt_the_connectivity_and_the_spacing():
    score, gt = _case(3)
    cache = LabellingCache()
    cache.get(score, gt, threshold=0.5)
    cache.get(score, gt.copy(), threshold=0.5)  # another GT array
    cache.get(score, None, threshold=0.5)
    cache.get(score, gt, threshold=0.5, connectivity="face")
    cache.get(score, gt, threshold=0.5, spacing=(2.0, 2.0, 2.0))
    assert cache.stats() == (0, 5)


def test_entries_are_bounded_in_number_and_bytes():
    score, gt = _case(4)
    cache = LabellingCache(max_entries=2)
    for threshold in (0.4, 0.45, 0.5, 0.55):
        cache.get(score, gt, threshold=threshold)
    assert len(cache) == 2
    cache.get(score, gt, threshold=0.55)  # the newest is kept
    assert cache.stats()[0] == 1
    tiny = LabellingCache(max_bytes=0)  # only the newest entry survives
    for threshold in (0.4, 0.45, 0.5):
        tiny.get(score, gt, threshold=threshold)
    assert len(tiny) == 1
    histograms = tiny.histograms(score, gt)  # no label image: the byte bound keeps it
    for threshold in (0.4, 0.45):
        tiny.get(score, gt, threshold=threshold)
    assert tiny.histograms(score, gt) is histograms and len(tiny) == 2
    with pytest.raises(ValueError, match="max_entries"):
        LabellingCache(max_entries=0)


def test_entries_do_not_keep_arrays_alive_and_never_hit_a_recycled_id():
    score, gt = _case(5)
    cache = LabellingCache()
    cache.get(score, gt, threshold=0.5)
    del score
    gc.collect()
    other = np.zeros((14, 15, 16), dtype=np.float32)
    found = cache.get(other, gt, threshold=0.5)  # even if ``other`` reuses the id
    assert found.n_flagged == 0 and cache.stats() == (0, 2)
    assert len(cache) == 1  # the dead entry was dropped
    cache.clear()
    assert len(cache) == 0


def test_concurrent_requests_label_once(monkeypatch):
    score, gt = _case(6)
    calls = []
    real = labelling_module.labelled

    def slow(*args, **kwargs):
        calls.append(1)
        time.sleep(0.2)
        return real(*args, **kwargs)

    monkeypatch.setattr(labelling_module, "labelled", slow)
    cache = LabellingCache()
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.get(score, gt, threshold=0.5)))
        for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len(results) == 6
    assert all(r is results[0] for r in results)


def test_labellings_of_different_keys_run_one_at_a_time(monkeypatch):
    """cc3d holds the GIL: two labellings at once would only double the temporaries."""
    score, gt = _case(7)
    other = score.copy()
    running, most = [0], [0]
    real = labelling_module.labelled

    def tracked(*args, **kwargs):
        running[0] += 1
        most[0] = max(most[0], running[0])
        time.sleep(0.1)
        try:
            return real(*args, **kwargs)
        finally:
            running[0] -= 1

    monkeypatch.setattr(labelling_module, "labelled", tracked)
    cache = LabellingCache()
    jobs = [(score, 0.3), (score, 0.6), (other, 0.3), (other, 0.6)]
    threads = [
        threading.Thread(target=cache.get, args=(s, gt), kwargs={"threshold": t}) for s, t in jobs
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1 and cache.stats() == (0, 4)
    assert cache.histograms(score, gt) is cache.histograms(score, gt)  # not held by the lock


def test_a_failure_is_raised_to_the_caller_and_not_cached():
    score, gt = _case(7)
    bad = score.copy()
    bad[0, 0, 0] = np.nan
    cache = LabellingCache()
    for _ in range(2):
        with pytest.raises(ValueError, match="NaN"):
            cache.get(bad, gt, threshold=0.5)
    assert cache.stats() == (0, 2) and len(cache) == 0
    with pytest.raises(ValueError, match="cannot match the objects of m"):
        compute_method_objects(MapSnapshot("m", bad, 0.5), gt, cache=cache)


def test_counts_only_entries_are_labelled_again_when_labels_are_asked_for():
    """Readouts ask for counts only: a speckled map's dense label image is neither made
    nor kept; the objects job then labels it again (and the entry is replaced)."""
    rng = np.random.default_rng(7)
    speckled = rng.random((14, 15, 16)).astype(np.float32)
    gt = speckled > 0.9
    snapshot = MapSnapshot("m", speckled, 0.5)
    cache = LabellingCache()
    readout = compute_readouts([snapshot], gt, cache=cache)["m"]
    assert readout == threshold_readout(speckled, gt, threshold=0.5)
    counts_only = cache.get(speckled, gt, threshold=0.5, labels=False)
    assert not counts_only.has_labels and counts_only.nbytes == counts_only.gt_runs.nbytes
    with pytest.raises(ValueError, match="keep_dense=True"):
        counts_only.pred_labels()
    assert cache.stats() == (1, 1)

    objects = compute_method_objects(snapshot, gt, cache=cache)
    assert cache.stats() == (2, 2) and len(cache) == 1  # labelled again, entry replaced
    plain = compute_method_objects(snapshot, gt)
    assert objects.match == plain.match == counts_only.match
    np.testing.assert_array_equal(objects.image, plain.image)
    labelled_entry = cache.get(speckled, gt, threshold=0.5, labels=False)
    assert labelled_entry.has_labels and cache.stats() == (3, 2)


def test_a_smooth_maps_counts_only_entry_keeps_its_runs_and_serves_labels():
    score = np.zeros((14, 15, 16), dtype=np.float32)
    score[2:6, 3:12, 4:14] = 0.9
    score[9:13, 1:5, 1:5] = 0.7
    gt = score > 0.8
    cache = LabellingCache()
    counts_only = cache.get(score, gt, threshold=0.5, labels=False)
    assert counts_only.has_labels  # runs take less than half the dense bytes: kept
    assert cache.get(score, gt, threshold=0.5) is counts_only and cache.stats() == (1, 1)
    pred_labels, _ = object_labels(score, gt, threshold=0.5)
    np.testing.assert_array_equal(counts_only.pred_labels(), pred_labels)


def test_the_after_labelling_hook_runs_once_per_labelling_even_when_it_fails(monkeypatch):
    calls: list[int] = []
    cache = LabellingCache(after_labelling=lambda: calls.append(1))
    score, gt = _case(3)
    cache.get(score, gt, threshold=0.5)
    cache.get(score, gt, threshold=0.5)  # a hit: no labelling
    cache.get(score, gt, threshold=0.6)
    assert len(calls) == 2 and cache.stats() == (1, 2)

    def broken(*args, **kwargs):
        raise MemoryError("no room")

    monkeypatch.setattr(labelling_module, "labelled", broken)
    with pytest.raises(MemoryError):
        cache.get(score, gt, threshold=0.7)
    assert len(calls) == 3
