"""The widgets' jobs, headless: each is a GUI-free function checked against the core."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.compare import case_comparison
from napari_mood.core.metrics import slice_scores
from napari_mood.core.objects import match_objects, object_labels
from napari_mood.core.readout import threshold_readout
from napari_mood.core.regions import flagged_regions
from napari_mood.services.comparison import case_table
from napari_mood.services.labelling import LabellingCache
from napari_mood.services.object_views import (
    compute_method_objects,
    listed,
    listed_records,
    shown_objects,
)
from napari_mood.services.readouts import (
    best_on_case,
    compute_readouts,
    compute_voxel_readouts,
)
from napari_mood.services.review_regions import find_regions
from napari_mood.services.slice_curves import compute_slice_curves, gt_runs
from napari_mood.services.snapshots import MapSnapshot
from tests.reference_scorer import clip_float16


@pytest.fixture
def case() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    gt = np.zeros((6, 12, 12), bool)
    gt[2:4, 3:7, 3:7] = True
    rng = np.random.default_rng(0)
    good = np.where(gt, 0.9, 0.1) + rng.uniform(0, 0.05, gt.shape)
    noisy = np.where(gt, 0.6, 0.2) + rng.uniform(0, 0.5, gt.shape)
    return gt, {"good": good.astype(np.float32), "noisy": noisy.astype(np.float32)}


def test_readouts_equal_the_core(case):
    gt, maps = case
    snaps = [MapSnapshot(n, m, 0.5, spacing=(2.0, 1.0, 1.0)) for n, m in maps.items()]
    readouts = compute_readouts(snaps, gt)
    for name, scores in maps.items():
        expected = threshold_readout(scores, gt, threshold=0.5, voxel_volume=2.0)
        assert readouts[name] == expected
        # and the numbers themselves, counted with numpy on the float16 values
        flagged = clip_float16(scores) >= 0.5
        both = np.count_nonzero(flagged & gt)
        assert readouts[name].flagged == np.count_nonzero(flagged)
        assert readouts[name].flagged_mm3 == 2.0 * np.count_nonzero(flagged)
        assert readouts[name].dice == pytest.approx(2 * both / (flagged.sum() + gt.sum()))
    assert readouts["good"].dice == 1.0 and readouts["noisy"].dice < 0.9
    assert compute_readouts(snaps, np.zeros((2, 2), bool))["good"].dice is None  # other grid


def test_best_on_case(case):
    gt, maps = case
    choice = best_on_case(maps, gt, "dice")
    assert choice.best["good"].value == pytest.approx(1.0)


def test_slice_curves_equal_slice_scores(case):
    gt, maps = case
    curves = compute_slice_curves([MapSnapshot("good", maps["good"], 0.5, "#fff")], gt, axis=1)
    expected = slice_scores(maps["good"], gt, axis=1, threshold=0.5)
    np.testing.assert_array_equal(curves.scores["good"].dice, expected.dice)
    assert curves.has_gt and curves.n_slices == 12 and curves.colors["good"] == "#fff"
    assert gt_runs(curves.gt_voxels) == [(3, 7)]
    no_gt = compute_slice_curves([MapSnapshot("good", maps["good"], 0.5)], None, axis=0)
    assert not no_gt.has_gt


def test_method_objects_equal_match_objects(case):
    gt, maps = case
    result = compute_method_objects(MapSnapshot("noisy", maps["noisy"], 0.6), gt)
    match = match_objects(maps["noisy"], gt, threshold=0.6)
    assert (result.match.counts.tp, result.match.counts.fp, result.match.counts.fn) == (
        match.counts.tp,
        match.counts.fp,
        match.counts.fn,
    )
    pred_labels, _ = object_labels(maps["noisy"], gt, threshold=0.6)
    fp_ids = {r.id for r in match.objects if r.source == "pred" and r.kind == "FP"}
    pred_ids, _ = shown_objects(match)
    fp_labels = [rank for rank, i in enumerate(pred_ids, start=1) if i in fp_ids]
    fp_voxels = np.isin(result.image, fp_labels)
    assert set(pred_labels[fp_voxels].tolist()) == fp_ids  # every FP drawn, nothing else
    assert all(listed(r, False) == (r.kind in ("TP", "FP", "FN")) for r in match.objects)
    for extra in (False, True):  # built from the columns, in the match's order
        expected = tuple(r for r in match.objects if listed(r, extra))
        assert listed_records(match, extra=extra) == expected


def test_jobs_name_the_method_and_file_when_the_core_refuses(case):
    gt, maps = case
    bad = maps["good"].copy()
    bad[0, 0, 0] = np.nan
    snapshot = MapSnapshot("good", bad, 0.5, source="/data/good.nii.gz")
    with pytest.raises(ValueError, match=r"good \(/data/good.nii.gz\).*NaN"):
        compute_method_objects(snapshot, gt)
    with pytest.raises(ValueError, match=r"good \(/data/good.nii.gz\).*NaN"):
        find_regions(snapshot, gt, case="c", scope="all")


def test_regions_equal_flagged_regions_with_their_labels(case):
    gt, maps = case
    found = find_regions(MapSnapshot("noisy", maps["noisy"], 0.6), gt, case="c", scope="all")
    assert found.regions == flagged_regions(maps["noisy"], gt, threshold=0.6, scope="all")
    labels, _ = object_labels(maps["noisy"], gt, threshold=0.6)
    np.testing.assert_array_equal(found.labels, labels)
    assert found.labels.dtype == np.uint8 and (found.case, found.method) == ("c", "noisy")


def test_case_table_equals_case_comparison(case):
    gt, maps = case
    thresholds = {"good": 0.5, "noisy": 0.6}
    snapshots = [MapSnapshot(n, maps[n], t, spacing=(1.0, 2.0, 0.5)) for n, t in thresholds.items()]
    table, problems = case_table(snapshots, gt, "c")
    expected = case_comparison(maps, gt, thresholds=thresholds, name="c")
    assert table == expected and problems == ()
    cache = LabellingCache()
    cached, _ = case_table(snapshots, gt, "c", cache=cache)
    assert cached == expected
    readouts = compute_readouts(snapshots, gt, cache=cache)  # the same labellings
    assert cache.stats()[0] >= len(snapshots) and readouts["good"].objects is not None


def test_voxel_readouts_equal_the_readouts_and_need_one_histogram_per_map(case):
    gt, maps = case
    cache = LabellingCache()
    for threshold in (0.2, 0.5, 0.6, 0.9):
        snapshots = [MapSnapshot(n, m, threshold, spacing=(1.0, 1.0, 2.0)) for n, m in maps.items()]
        fast = compute_voxel_readouts(snapshots, gt, cache=cache)
        full = compute_readouts(snapshots, gt)
        for name, readout in fast.items():
            assert readout.objects is None and full[name].objects is not None
            assert (readout.flagged, readout.dice, readout.flagged_mm3) == (
                full[name].flagged,
                full[name].dice,
                full[name].flagged_mm3,
            )
    assert cache.stats() == (len(maps) * 3, len(maps))  # histograms made once per map
