"""Tests of napari_mood.core.objects: the MOOD object-level rule and its options.

Expectations are derived by hand in the comments, or checked against an independent
implementation (scipy.ndimage.label, the shared float16 helper, convex hulls of *all*
voxel corners, linear programming for point-in-hull).
"""

from __future__ import annotations

import itertools
import math
import pickle
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage
from scipy.optimize import linprog
from scipy.spatial import ConvexHull

from napari_mood.core.objects import (
    KINDS,
    CaseObjects,
    ObjectMatch,
    best_object_threshold,
    binarize_scores,
    count_objects,
    dataset_size_window,
    default_threshold_grid,
    describe_case,
    distinct_value_thresholds,
    kind_table,
    label_objects,
    labelled_match,
    match_objects,
    object_labels,
    slabs,
)
from napari_mood.core.objects.components import cc3d_labels
from napari_mood.core.objects.hull import build_hull as _build_hull
from napari_mood.core.objects.hull import corner_points as _corner_points
from napari_mood.core.objects.hull import in_hull as _in_hull
from napari_mood.core.scores import flag
from tests.reference_scorer import clip_float16

FAST = settings(max_examples=40, deadline=None)


def counts(m: ObjectMatch) -> tuple[int, int, int, int, int]:
    return (m.counts.tp, m.counts.fp, m.counts.fn, m.counts.discarded, m.counts.matched_extra)


def as_score(pred: np.ndarray) -> np.ndarray:
    return np.where(pred, 0.9, 0.05)


def records(m: ObjectMatch, source: str) -> list:
    return [r for r in m.objects if r.source == source]


# --------------------------------------------------------------------------- reference


def reference_counts(
    score: np.ndarray,
    gt: np.ndarray,
    *,
    threshold: float,
    connectivity: str = "full",
    window: tuple[float, float] | None = None,
) -> tuple[int, int, int, int, int]:
    """Independent MOOD rule: ndimage labels, hull of all corners, plain loops."""
    pred = flag(clip_float16(score), threshold)
    rank = score.ndim if connectivity == "full" else 1
    structure = ndimage.generate_binary_structure(score.ndim, rank)
    pred_lab, n_pred = ndimage.label(pred, structure)
    gt_lab, n_gt = ndimage.label(gt > 0.5, structure)
    gts = [np.argwhere(gt_lab == g) for g in range(1, n_gt + 1)]
    if window is None:
        sizes = [len(g) for g in gts]
        window = (0.5 * min(sizes), 2.0 * max(sizes)) if sizes else (0.0, math.inf)
    corner_offsets = np.array(list(itertools.product((-0.5, 0.5), repeat=score.ndim)))
    hulls = [ConvexHull((g[:, None, :] + corner_offsets).reshape(-1, score.ndim)) for g in gts]
    detected: set[int] = set()
    fp = discarded = extra = 0
    for p in range(1, n_pred + 1):  # ndimage ids: raster order, as documented for ours
        voxels = np.argwhere(pred_lab == p)
        size = len(voxels)
        if not window[0] <= size <= window[1]:
            discarded += 1
            continue
        com = voxels.mean(axis=0)
        matched = {
            g
            for g, (vox, hull) in enumerate(zip(gts, hulls, strict=True))
            if 0.5 * len(vox) < size < 2 * len(vox)
            and np.all(hull.equations[:, :-1] @ com + hull.equations[:, -1] <= 1e-9)
        }
        if not matched:
            fp += 1
        elif matched <= detected:
            extra += 1
        detected |= matched
    return len(detected), fp, n_gt - len(detected), discarded, extra


def in_hull_lp(points: np.ndarray, x: np.ndarray) -> bool:
    """x in conv(points) iff some weights >= 0 summing to 1 reproduce x (an LP)."""
    a_eq = np.vstack([points.T, np.ones(len(points))])
    b_eq = np.append(x, 1.0)
    result = linprog(np.zeros(len(points)), A_eq=a_eq, b_eq=b_eq, bounds=(0, None))
    return result.status == 0


def random_case(seed: int, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """GT = a few random boxes; score = GT with jitter, shifted boxes and speckle."""
    rng = np.random.default_rng(seed)
    gt = np.zeros(shape, dtype=bool)
    score = rng.uniform(0.0, 0.35, shape)
    for _ in range(rng.integers(0, 4)):
        lo = rng.integers(0, np.array(shape) - 1)
        hi = lo + rng.integers(1, 4, len(shape))
        box = tuple(slice(a, b) for a, b in zip(lo, hi, strict=True))
        gt[box] = True
        shift = tuple(
            slice(max(a + d, 0), max(b + d, 0))
            for a, b, d in zip(lo, hi, rng.integers(-1, 2, len(shape)), strict=True)
        )
        score[shift] = rng.uniform(0.3, 1.0)
    speckle = rng.random(shape) < 0.04
    score[speckle] = rng.uniform(0.3, 1.0, int(speckle.sum()))
    return score, gt


# --------------------------------------------------------------------------- labelling


@pytest.mark.parametrize("connectivity", ["full", "face"])
@pytest.mark.parametrize("shape", [(9, 10, 11), (23, 29)])
@pytest.mark.parametrize("density", [0.2, 0.45])
def test_labels_equal_scipy_ndimage(connectivity, shape, density):
    rng = np.random.default_rng([len(shape), int(density * 100), connectivity == "full"])
    mask = rng.random(shape) < density
    rank = mask.ndim if connectivity == "full" else 1
    expected, n_expected = ndimage.label(mask, ndimage.generate_binary_structure(mask.ndim, rank))
    labels, n = label_objects(mask, connectivity=connectivity)
    assert labels.dtype == np.uint32
    assert n == n_expected
    np.testing.assert_array_equal(labels, expected)  # same partition and same raster ids


@pytest.mark.parametrize(("step", "n_objects"), [(2, 41**3), (4, 21**3)])
def test_kept_labels_are_uint16_below_65536_objects(step, n_objects):
    """cc3d picks uint32 for almost any volume; the labels kept are uint16 when they fit."""
    mask = np.zeros((82, 82, 82), dtype=bool)
    mask[::step, ::step, ::step] = True  # isolated voxels, even 26-connected
    labels, n = cc3d_labels(mask, "full")
    assert n == n_objects
    assert labels.dtype == (np.uint16 if n < 65536 else np.uint32)
    expected, _ = ndimage.label(mask, ndimage.generate_binary_structure(3, 3))
    np.testing.assert_array_equal(labels, expected)
    assert label_objects(mask)[0].dtype == np.uint32  # the public labelling stays uint32


@pytest.mark.parametrize(
    ("connectivity", "ndim", "expected"),
    [("full", 3, 1), ("face", 3, 2), ("full", 2, 1), ("face", 2, 2)],
)
def test_blobs_touching_at_a_corner(connectivity, ndim, expected):
    mask = np.zeros((5,) * ndim, dtype=bool)
    mask[(1,) * ndim] = mask[(2,) * ndim] = True
    assert label_objects(mask, connectivity=connectivity)[1] == expected
    m = match_objects(mask.astype(np.float32), mask, connectivity=connectivity)
    assert (m.counts.tp, m.counts.fp, m.counts.fn) == (expected, 0, 0)


@pytest.mark.parametrize("shape", [(1, 1, 7), (1, 9, 1), (6, 1, 1)])
@pytest.mark.parametrize("connectivity", ["full", "face"])
def test_line_shaped_volumes(shape, connectivity):
    # cc3d 4.1 fails on 26-connected lines; labels must still be right
    mask = (np.arange(int(np.prod(shape))) % 3 != 1).reshape(shape)
    labels, n = label_objects(mask, connectivity=connectivity)
    expected, n_expected = ndimage.label(mask)
    assert n == n_expected
    np.testing.assert_array_equal(labels, expected)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.lists(st.integers(1, 9), min_size=2, max_size=3),
    density=st.sampled_from([0.1, 0.3, 0.6]),
    connectivity=st.sampled_from(["full", "face"]),
)
def test_labels_equal_scipy_ndimage_on_any_shape(seed, shape, density, connectivity):
    # guards against cc3d bugs (4.1.1: wrong 2-D 8-connected labels, crash on 3-D lines)
    mask = np.random.default_rng(seed).random(shape) < density
    rank = mask.ndim if connectivity == "full" else 1
    expected, _ = ndimage.label(mask, ndimage.generate_binary_structure(mask.ndim, rank))
    np.testing.assert_array_equal(label_objects(mask, connectivity=connectivity)[0], expected)


def test_label_ids_do_not_depend_on_memory_order():
    rng = np.random.default_rng(3)
    mask = rng.random((8, 9, 10)) < 0.3
    c_order, _ = label_objects(mask)
    f_order, _ = label_objects(np.asfortranarray(mask))
    np.testing.assert_array_equal(c_order, f_order)


# --------------------------------------------------------------------------- binarising


def test_threshold_equal_to_score_is_flagged():
    score = np.array([[0.25, 0.2499, 1.0]], dtype=np.float32)
    assert binarize_scores(score, threshold=0.25).tolist() == [[True, False, True]]


def test_float16_score_below_threshold_is_not_flagged():
    # float16(0.2998) = 0.29980469 < 0.3; float16(0.3) = 0.30004883 >= 0.3
    score = np.array([[0.2998, 0.3]])
    assert binarize_scores(score, threshold=0.3).tolist() == [[False, True]]
    # the threshold is never rounded: float16(0.2999) would be 0.29980469 and flag 0.2998
    assert not binarize_scores(score, threshold=0.2999)[0, 0]


def test_exact_mode_compares_float32_values_with_unrounded_threshold():
    value = np.float32(0.3)  # 0.30000001192...
    score = np.full((2, 2), value, dtype=np.float32)
    assert binarize_scores(score, threshold=float(value), mode="exact").all()
    # float32(threshold) would round down to value and wrongly flag it
    assert not binarize_scores(score, threshold=float(value) + 1e-12, mode="exact").any()
    # mood mode rounds the score to float16 (0.30004883) first
    assert binarize_scores(score, threshold=0.30004, mode="mood").all()
    assert not binarize_scores(score, threshold=0.30004, mode="exact").any()


@pytest.mark.parametrize("mode", ["mood", "exact"])
def test_out_of_range_scores_are_clipped_like_the_official_scorer(mode):
    score = np.array([[-np.inf, -1e300, -0.0, 1.5, 1e300, np.inf]], dtype=np.float64)
    flagged = binarize_scores(score, threshold=1.0, mode=mode)
    assert flagged.tolist() == [[False] * 3 + [True] * 3]
    assert binarize_scores(score, threshold=0.0, mode=mode).all()  # clipped to 0 >= 0
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):  # thresholds are in [0, 1]
        binarize_scores(score, threshold=1.0001, mode=mode)


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    t1=st.floats(0.0, 1.0),
    t2=st.floats(0.0, 1.0),
    mode=st.sampled_from(["mood", "exact"]),
)
def test_raising_the_threshold_never_adds_voxels(seed, dtype, t1, t2, mode):
    score = np.random.default_rng(seed).uniform(-0.2, 1.2, (4, 5, 6)).astype(dtype)
    low, high = sorted((t1, t2))
    above_high = binarize_scores(score, threshold=high, mode=mode)
    above_low = binarize_scores(score, threshold=low, mode=mode)
    assert not np.any(above_high & ~above_low)


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    threshold=st.floats(0.0, 1.0),
)
def test_mood_binarising_equals_shared_float16_helper(seed, dtype, threshold):
    score = np.random.default_rng(seed).uniform(-2.0, 2.0, (5, 7)).astype(dtype)
    score[0, :3] = (-0.0, 1.0, 0.0)
    expected = flag(clip_float16(score), threshold)
    np.testing.assert_array_equal(binarize_scores(score, threshold=threshold), expected)


def test_binary_maps_default_to_threshold_half_and_others_need_one():
    mask = np.zeros((4, 4), dtype=np.uint8)
    mask[1, 1] = 1
    assert match_objects(mask, mask).threshold == 0.5
    with pytest.raises(ValueError, match="threshold is required"):
        match_objects(mask * 0.7, mask)


def test_nan_scores_are_refused():
    score = np.zeros((3, 3))
    score[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        match_objects(score, score > 0, threshold=0.5)
    with pytest.raises(ValueError, match="NaN"):
        describe_case(score, score > 0, thresholds=[0.5], mode="exact")


def test_gt_is_read_like_the_official_scorer():
    # rint(value) >= 1: 0.5 -> 0 (background), 0.51 -> 1, 3 -> 1 (clipped)
    gt = np.array([[0.5, 0, 0.51, 0, 3.0]])
    m = match_objects(np.zeros(gt.shape), gt, threshold=0.5)
    assert m.counts.fn == 2


# --------------------------------------------------------------------------- hulls


@FAST
@given(seed=st.integers(0, 2**32 - 1), ndim=st.sampled_from([2, 3]))
def test_corner_reduction_keeps_the_hull(seed, ndim):
    rng = np.random.default_rng(seed)
    obj = rng.random((4,) * ndim) < 0.5
    obj[(0,) * ndim] = True
    all_corners = (
        np.argwhere(obj)[:, None, :] + np.array(list(itertools.product((-0.5, 0.5), repeat=ndim)))
    ).reshape(-1, ndim)
    full = ConvexHull(all_corners)
    reduced = _corner_points(obj) / 2.0
    assert ConvexHull(reduced).volume == pytest.approx(full.volume, rel=1e-12)
    vertices = {tuple(v) for v in all_corners[full.vertices]}
    assert vertices <= {tuple(v) for v in reduced}


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ndim=st.sampled_from([2, 3]))
def test_point_in_hull_agrees_with_linear_programming(seed, ndim):
    rng = np.random.default_rng(seed)
    obj = rng.random((4,) * ndim) < 0.4
    obj[(1,) * ndim] = True
    origin = np.full(ndim, 2.0)
    hull = _build_hull(obj, origin)
    corners = _corner_points(obj) / 2.0 + origin
    # points on a quarter grid: either on the hull boundary or >= ~0.03 away from it
    points = origin - 1.0 + rng.integers(0, 25, (12, ndim)) * 0.25
    expected = [in_hull_lp(corners, p) for p in points]
    assert _in_hull(hull, points).tolist() == expected


def test_torus_with_centre_of_mass_in_its_hole_is_detected():
    grid = np.indices((25, 25, 25)) - 12
    ring = (np.hypot(grid[1], grid[2]) - 7.0) ** 2 + grid[0] ** 2 <= 2.5**2
    assert not ring[12, 12, 12]  # the centre is empty ...
    m = match_objects(as_score(ring), ring, threshold=0.5)
    (pred,) = records(m, "pred")
    assert pred.centroid_voxel == (12.0, 12.0, 12.0)  # ... and is the centre of mass
    assert counts(m) == (1, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("x_start", "expected"),
    [
        (4, (1, 0, 0)),  # same cube
        (6, (1, 0, 0)),  # COM x = 7.5 = hull face x: boundary included
        (7, (0, 1, 1)),  # COM x = 8.5 > 7.5
        (12, (0, 1, 1)),  # far away
    ],
)
def test_prediction_shifted_out_of_the_hull(x_start, expected):
    gt = np.zeros((12, 12, 18), dtype=bool)
    gt[4:8, 4:8, 4:8] = True  # hull x in [3.5, 7.5]
    pred = np.zeros_like(gt)
    pred[4:8, 4:8, x_start : x_start + 4] = True
    m = match_objects(as_score(pred), gt, threshold=0.5)
    assert (m.counts.tp, m.counts.fp, m.counts.fn) == expected


# --------------------------------------------------------------------------- size rule


def _size_case(n_pred: int) -> np.ndarray:
    """Predictions of 10, 11, 40, 39 voxels centred on the 2x2x5 GT below."""
    pred = np.zeros((8, 8, 9), dtype=bool)
    if n_pred in (10, 11):
        pred[3:5, 3:4, 2:7] = True  # half the GT: 10 voxels, COM y = 3 inside [2.5, 4.5]
        if n_pred == 11:
            pred[3, 4, 4] = True
    else:
        pred[3:5, 2:6, 2:7] = True  # GT grown by one row each side: 40 voxels, same COM
        if n_pred == 39:
            pred[3, 2, 2] = False
    assert pred.sum() == n_pred
    return pred


@pytest.mark.parametrize(
    ("n_pred", "expected"),
    [
        (10, (0, 1, 1, 0)),  # |P| = 0.5 |G|: no match, but the window keeps it (lo = 10)
        (11, (1, 0, 0, 0)),
        (40, (0, 1, 1, 0)),  # |P| = 2 |G|: no match, kept (hi = 40)
        (39, (1, 0, 0, 0)),
    ],
)
def test_size_ratio_bounds_are_strict_and_window_inclusive(n_pred, expected):
    gt = np.zeros((8, 8, 9), dtype=bool)
    gt[3:5, 3:5, 2:7] = True  # 20 voxels -> window (10, 40)
    m = match_objects(as_score(_size_case(n_pred)), gt, threshold=0.5)
    assert m.counts.size_window == (10.0, 40.0)
    assert (m.counts.tp, m.counts.fp, m.counts.fn, m.counts.discarded) == expected


@pytest.mark.parametrize(
    ("pred_voxels", "expected"),
    [
        ([(4, 4, 4)], (1, 0, 0, 0)),
        ([(4, 4, 5)], (0, 1, 1, 0)),  # COM 1 voxel off the unit cube
        ([(4, 4, 4), (4, 4, 5)], (0, 1, 1, 0)),  # |P| = 2|G|: no match, hi = 2 keeps it
        ([(4, 4, 4), (4, 4, 5), (4, 4, 6)], (0, 0, 1, 1)),  # 3 > hi: discarded
    ],
)
def test_single_voxel_gt(pred_voxels, expected):
    gt = np.zeros((9, 9, 9), dtype=bool)
    gt[4, 4, 4] = True
    pred = np.zeros_like(gt)
    pred[tuple(np.array(pred_voxels).T)] = True
    m = match_objects(as_score(pred), gt, threshold=0.5)
    assert (m.counts.tp, m.counts.fp, m.counts.fn, m.counts.discarded) == expected


@pytest.mark.parametrize(
    ("box", "expected"),
    [
        ((5, slice(2, 6), slice(2, 6)), (1, 0, 0)),
        ((6, slice(2, 6), slice(2, 6)), (0, 1, 1)),  # next slice: COM z = 6 > 5.5
        ((slice(5, 7), slice(2, 6), slice(2, 4)), (1, 0, 0)),  # 16 voxels, COM z = 5.5
    ],
)
def test_one_slice_gt(box, expected):
    gt = np.zeros((10, 8, 8), dtype=bool)
    gt[5, 2:6, 2:6] = True  # 16 voxels in one slice: hull z in [4.5, 5.5]
    pred = np.zeros_like(gt)
    pred[box] = True
    m = match_objects(as_score(pred), gt, threshold=0.5)
    assert (m.counts.tp, m.counts.fp, m.counts.fn) == expected


def test_two_predictions_on_one_gt_give_one_matched_extra():
    gt = np.zeros((9, 8, 8), dtype=bool)
    gt[2:6, 2:6, 2:6] = True  # 64 voxels, hull z in [1.5, 5.5], window (32, 128)
    pred = np.zeros_like(gt)
    pred[2:4, 1:7, 1:7] = True  # 72 voxels, COM z = 2.5
    pred[5:7, 1:7, 1:7] = True  # 72 voxels, COM z = 5.5 (on the hull face)
    m = match_objects(as_score(pred), gt, threshold=0.5)
    assert counts(m) == (1, 0, 0, 0, 1)
    first, second = records(m, "pred")
    assert (first.kind, second.kind) == ("TP", "matched-extra")
    assert (first.matched_ids, second.matched_ids) == ((1,), (1,))
    assert records(m, "gt")[0].matched_ids == (1, 2)
    one = match_objects(as_score(pred), gt, threshold=0.5, one_to_one=True)
    # IoU 32/104 beats 16/120: the first is assigned, the second is a plain FP
    assert counts(one) == (1, 1, 0, 0, 0)
    assert [r.kind for r in records(one, "pred")] == ["TP", "FP"]


def _nested_hulls_case() -> tuple[np.ndarray, np.ndarray]:
    """A hollow square G1 (44 px) around a block G2 (20 px); window (10, 88).

    P_a (24 px, rows 1-2) has its COM (1.5, 6.5) in G1's hull only; P_b (30 px) has its
    COM (6, 6.5) in both hulls and a size ratio fitting both.
    """
    gt = np.zeros((16, 16), dtype=bool)
    gt[1:13, 1:13] = True
    gt[2:12, 2:12] = False
    gt[5:9, 5:10] = True
    pred = np.zeros_like(gt)
    pred[1:3, 1:13] = True  # P_a
    pred[4:9, 4:10] = True  # P_b
    return pred, gt


@pytest.mark.parametrize(
    ("flip", "expected", "kinds"),
    [
        # P_a first: it claims G1, then P_b claims G2 -> both TP
        (False, (2, 0, 0, 0, 0), ["TP", "TP"]),
        # flipped, P_b first claims G1 and G2; P_a only re-detects G1
        (True, (2, 0, 0, 0, 1), ["TP", "matched-extra"]),
    ],
)
def test_claims_follow_raster_order_everywhere(flip, expected, kinds):
    pred, gt = _nested_hulls_case()
    if flip:
        pred, gt = pred[::-1], gt[::-1]
    m = match_objects(as_score(pred), gt, threshold=0.5)
    assert counts(m) == expected
    assert [r.kind for r in records(m, "pred")] == kinds
    case = describe_case(as_score(pred), gt, thresholds=[0.5])
    c = count_objects([case], threshold=0.5)
    assert (c.tp, c.fp, c.fn, c.discarded, c.matched_extra) == expected


def test_noise_below_the_window_is_discarded_not_false_positive():
    gt = np.zeros((12, 12, 12), dtype=bool)
    gt[4:7, 4:7, 4:7] = True  # 27 voxels: window (13.5, 54)
    pred = gt.copy()
    pred[0, 0, 0] = pred[0, 11, 0] = pred[11, 11, 11] = True
    m = match_objects(as_score(pred), gt, threshold=0.5)
    assert counts(m) == (1, 0, 0, 3, 0)
    assert m.counts.f1 == 1.0
    assert [r.kind for r in records(m, "pred")].count("discarded") == 3


def test_explicit_window_overrides_the_gt_window():
    gt = np.zeros((12, 12, 12), dtype=bool)
    gt[4:7, 4:7, 4:7] = True
    pred = gt.copy()
    pred[0, 0, 0] = True
    m = match_objects(as_score(pred), gt, threshold=0.5, size_window=(0, math.inf))
    assert counts(m) == (1, 1, 0, 0, 0)
    assert m.counts.size_window == (0.0, math.inf)


# --------------------------------------------------------------------------- empty cases


def test_empty_gt_keeps_every_prediction_as_false_positive():
    pred = np.zeros((6, 6, 6), dtype=bool)
    pred[0, 0, 0] = True
    pred[3:5, 3:5, 3:5] = True
    m = match_objects(as_score(pred), np.zeros_like(pred), threshold=0.5)
    assert counts(m) == (0, 2, 0, 0, 0)
    assert m.counts.size_window == (0.0, math.inf)
    assert m.counts.f1 == 0.0 and m.counts.precision == 0.0 and math.isnan(m.counts.recall)


def test_empty_gt_and_empty_prediction_give_nan_ratios():
    empty = np.zeros((5, 5), dtype=bool)
    m = match_objects(empty.astype(float), empty, threshold=0.5)
    assert counts(m) == (0, 0, 0, 0, 0)
    assert (
        math.isnan(m.counts.f1) and math.isnan(m.counts.precision) and math.isnan(m.counts.recall)
    )
    assert m.objects == ()


def test_empty_prediction_misses_every_gt_object():
    gt = np.zeros((6, 6, 6), dtype=bool)
    gt[1, 1, 1] = gt[4, 4, 4] = True
    m = match_objects(np.zeros(gt.shape), gt, threshold=0.5)
    assert counts(m) == (0, 0, 2, 0, 0)
    assert m.counts.f1 == 0.0 and m.counts.recall == 0.0 and math.isnan(m.counts.precision)
    assert [r.kind for r in m.objects] == ["FN", "FN"]


def test_two_dimensional_case():
    gt = np.zeros((12, 12), dtype=bool)
    gt[1:4, 1:4] = True  # 9 px
    gt[7:10, 7:10] = True  # 9 px, missed -> window (4.5, 18)
    pred = np.zeros_like(gt)
    pred[1:4, 2:5] = True  # 9 px, COM (2, 3) inside [0.5, 3.5]^2: TP
    pred[8:11, 1:3] = True  # 6 px far from GT: FP
    pred[5, 10] = True  # 1 px: discarded
    m = match_objects(as_score(pred), gt, threshold=0.5)
    assert counts(m) == (1, 1, 1, 1, 0)
    assert (m.counts.f1, m.counts.precision, m.counts.recall) == (
        0.5,
        0.5,
        0.5,
    )  # 2/(2+1+1), 1/2, 1/2


# --------------------------------------------------------------------------- records


def test_records_geometry_and_scores():
    score = np.zeros((6, 7, 8), dtype=np.float32)
    score[1, 2, 3:5] = (0.5, 1.0)  # one predicted object of 2 voxels
    gt = score > 0
    m = match_objects(score, gt, threshold=0.5, spacing=(1.0, 2.0, 3.0))
    pred, truth = m.objects
    assert (pred.source, pred.kind, pred.id, truth.source, truth.kind) == (
        "pred",
        "TP",
        1,
        "gt",
        "TP",
    )
    assert pred.size_voxels == 2 and pred.size_mm3 == 12.0
    assert pred.centroid_voxel == (1.0, 2.0, 3.5)
    assert pred.centroid_world == (1.0, 4.0, 10.5)
    assert pred.bbox == ((1, 2), (2, 3), (3, 5))
    assert (pred.max_score, pred.mean_score) == (1.0, 0.75)
    assert (truth.max_score, truth.mean_score) == (1.0, 0.75)
    assert pred.matched_ids == (1,) and truth.matched_ids == (1,)


def test_records_with_affine_use_its_determinant_and_mapping():
    gt = np.zeros((4, 4, 4), dtype=bool)
    gt[1, 1, 1] = True
    affine = np.array(
        [[0.0, -2.0, 0.0, 10.0], [1.5, 0.0, 0.0, 0.0], [0.0, 0.0, 3.0, -1.0], [0, 0, 0, 1]]
    )
    m = match_objects(gt, gt, affine=affine, spacing=(9.0, 9.0, 9.0))  # the affine wins
    record = m.objects[0]
    assert record.size_mm3 == pytest.approx(9.0)  # |det| = 2 * 1.5 * 3
    assert record.centroid_world == (8.0, 1.5, 2.0)


def test_no_spacing_means_no_world_geometry():
    gt = np.zeros((4, 4), dtype=bool)
    gt[1, 1] = True
    record = match_objects(gt, gt).objects[0]
    assert record.size_mm3 is None and record.centroid_world is None


def test_label_images_and_kind_table_match_record_ids():
    gt = np.zeros((12, 12), dtype=bool)
    gt[1:4, 1:4] = gt[7:10, 7:10] = True
    pred = np.zeros_like(gt)
    pred[1:4, 2:5] = True
    pred[8:11, 1:3] = True
    pred[5, 10] = True
    score = as_score(pred)
    m = match_objects(score, gt, threshold=0.5)
    pred_labels, gt_labels = object_labels(score, gt, threshold=0.5)
    pred_kinds = kind_table(m, source="pred")[pred_labels]
    assert pred_kinds[2, 3] == KINDS.index("TP") + 1
    assert pred_kinds[9, 1] == KINDS.index("FP") + 1
    assert pred_kinds[5, 10] == KINDS.index("discarded") + 1
    assert pred_kinds[0, 0] == 0
    gt_kinds = kind_table(m, source="gt")[gt_labels]
    assert gt_kinds[8, 8] == KINDS.index("FN") + 1
    for record in records(m, "pred"):
        assert np.count_nonzero(pred_labels == record.id) == record.size_voxels


# --------------------------------------------------------------------------- IoU options


def _hungarian_case() -> tuple[np.ndarray, np.ndarray]:
    gt = np.zeros((5, 24), dtype=bool)
    gt[1, 0:10] = True  # G1: 10 px
    gt[1:4, 12:22] = True  # G2: 30 px
    pred = np.zeros_like(gt)
    pred[1, 9:21] = True  # P1: 12 px; with G1 1 px (IoU 1/21), with G2 9 px (IoU 9/33)
    pred[3, 20:22] = True  # P2: 2 px; with G2 2 px (IoU 2/30)
    return pred, gt


def test_iou_criterion_many_to_many():
    pred, gt = _hungarian_case()
    m = match_objects(
        as_score(pred), gt, threshold=0.5, criterion="iou", min_iou=0.04, size_window=(0, 99)
    )
    # P1 detects G1 and G2; P2 only re-detects G2
    assert counts(m) == (2, 0, 0, 0, 1)
    assert records(m, "pred")[0].matched_ids == (1, 2)


def test_iou_criterion_threshold_is_inclusive():
    pred, gt = _hungarian_case()
    kwargs = {"threshold": 0.5, "criterion": "iou", "size_window": (0, 99)}
    at = match_objects(as_score(pred), gt, min_iou=2 / 30, **kwargs)
    above = match_objects(as_score(pred), gt, min_iou=0.067, **kwargs)
    # 2/30: P1-G2 (9/33) and P2-G2 (2/30) admissible; 0.067: only P1-G2
    assert counts(at) == (1, 0, 1, 0, 1)
    assert counts(above) == (1, 1, 1, 0, 0)


def test_hungarian_prefers_more_pairs_then_iou():
    pred, gt = _hungarian_case()
    m = match_objects(
        as_score(pred),
        gt,
        threshold=0.5,
        criterion="iou",
        min_iou=0.04,
        one_to_one=True,
        size_window=(0, 99),
    )
    # maximum IoU alone would take P1-G2 (0.27 > 1/21 + 2/30); two pairs win
    assert counts(m) == (2, 0, 0, 0, 0)
    first, second = records(m, "pred")
    assert (first.matched_ids, second.matched_ids) == ((1,), (2,))


def test_hungarian_picks_highest_iou_among_equal_cardinality():
    gt = np.zeros((3, 20), dtype=bool)
    gt[1, 2:12] = True  # 10 px
    pred = np.zeros_like(gt)
    pred[1, 0:5] = True  # 5 px, overlap 3: IoU 3/12
    pred[1, 7:12] = True  # 5 px, overlap 5: IoU 5/10
    m = match_objects(
        as_score(pred), gt, threshold=0.5, criterion="iou", one_to_one=True, size_window=(0, 99)
    )
    assert [r.kind for r in records(m, "pred")] == ["FP", "TP"]


# --------------------------------------------------------------------------- invariants


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    threshold=st.sampled_from([0.3, 0.45, 0.6, 0.8]),
    connectivity=st.sampled_from(["full", "face"]),
    shape=st.sampled_from([(7, 8, 9), (14, 15)]),
)
def test_match_objects_equals_independent_reference(seed, threshold, connectivity, shape):
    score, gt = random_case(seed, shape)
    m = match_objects(score, gt, threshold=threshold, connectivity=connectivity)
    expected = reference_counts(score, gt, threshold=threshold, connectivity=connectivity)
    assert counts(m) == expected
    n_gt = ndimage.label(gt, ndimage.generate_binary_structure(gt.ndim, gt.ndim))[1]
    if connectivity == "full":
        assert m.counts.tp + m.counts.fn == n_gt
    assert m.counts.tp + m.counts.fn == len(records(m, "gt"))


@FAST
@given(
    seeds=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=3),
    connectivity=st.sampled_from(["full", "face"]),
    mode=st.sampled_from(["mood", "exact"]),
    shape=st.sampled_from([(7, 8, 9), (14, 15)]),
    explicit=st.booleans(),
)
def test_describe_and_count_equal_match_objects(seeds, connectivity, mode, shape, explicit):
    data = [random_case(seed, shape) for seed in seeds]
    thresholds = [0.2, 0.3, 0.45, 0.6, 0.8, 0.95, 1.0]
    options = {"connectivity": connectivity, "mode": mode}
    cases = [
        describe_case(s, g, thresholds=thresholds, name=str(i), **options)
        for i, (s, g) in enumerate(data)
    ]
    window = (3.0, 40.0) if explicit else dataset_size_window(cases)
    for threshold in thresholds:
        total = count_objects(cases, threshold=threshold, size_window=window)
        per_case, extra = [], 0
        for i, (score, gt) in enumerate(data):
            m = match_objects(score, gt, threshold=threshold, size_window=window, **options)
            extra += m.counts.matched_extra
            per_case.append((str(i), m.counts.tp, m.counts.fp, m.counts.fn, m.counts.discarded))
            assert m.counts.tp + m.counts.fn == len(cases[i].gt_sizes)
        assert total.per_case == tuple(per_case)
        assert total.tp == sum(c[1] for c in per_case)
        assert total.matched_extra == extra


@FAST
@given(seed=st.integers(0, 2**32 - 1), criterion=st.sampled_from(["mood", "iou"]))
def test_one_to_one_never_matches_an_object_twice(seed, criterion):
    score, gt = random_case(seed, (7, 8, 9))
    m = match_objects(score, gt, threshold=0.4, criterion=criterion, one_to_one=True)
    many = match_objects(score, gt, threshold=0.4, criterion=criterion)
    assert m.counts.matched_extra == 0
    assert all(len(r.matched_ids) <= 1 for r in m.objects)
    assert m.counts.tp <= many.counts.tp
    assert m.counts.tp + m.counts.fn == many.counts.tp + many.counts.fn
    assert m.counts.discarded == many.counts.discarded
    kept = sum(r.kind != "discarded" for r in records(m, "pred"))
    assert m.counts.tp + m.counts.fp == kept  # every kept object is TP or FP now


# --------------------------------------------------------------------------- dataset level


def _cube_case(size: int, extra: tuple[int, ...] | None = None, score: float = 0.9):
    gt = np.zeros((10, 10, 10), dtype=bool)
    gt[2 : 2 + size, 2 : 2 + size, 2 : 2 + size] = True
    pred = gt.copy()
    if extra is not None:
        pred[extra] = True
    return np.where(pred, score, 0.05), gt


def test_dataset_window_uses_all_gt_objects():
    small = describe_case(*_cube_case(2), thresholds=[0.5], name="small")  # 8 voxels
    big_score, big_gt = _cube_case(4, extra=(9, slice(0, 6), 9))  # 64 voxels + 6-voxel line
    big = describe_case(big_score, big_gt, thresholds=[0.5], name="big")
    assert dataset_size_window([small, big]) == (4.0, 128.0)
    both = count_objects([small, big], threshold=0.5)
    assert both.per_case == (("small", 1, 0, 0, 0), ("big", 1, 1, 0, 0))  # line kept: FP
    alone = count_objects([big], threshold=0.5)
    assert alone.size_window == (32.0, 128.0)
    assert alone.per_case == (("big", 1, 0, 0, 1),)  # line below 32: discarded
    m = match_objects(big_score, big_gt, threshold=0.5, size_window=(4.0, 128.0))
    assert (m.counts.tp, m.counts.fp, m.counts.fn, m.counts.discarded) == (1, 1, 0, 0)


def test_dataset_without_gt_has_no_window():
    score = np.zeros((6, 6, 6))
    score[1, 1, 1] = 0.8
    case = describe_case(score, np.zeros(score.shape), thresholds=[0.5])
    assert dataset_size_window([case]) == (0.0, math.inf)
    c = count_objects([case], threshold=0.5)
    assert (c.tp, c.fp, c.fn, c.f1, c.precision) == (0, 1, 0, 0.0, 0.0)
    assert math.isnan(c.recall)


def test_best_threshold_ties_go_to_the_highest():
    # background 0.05 reads as float16 0.049988: thresholds <= 0.04 flag the whole volume
    # (one object, discarded: F1 0); 0.05 .. 0.6 flag the cube only (F1 1)
    score, gt = _cube_case(3, score=0.6)
    case = describe_case(score, gt, thresholds=default_threshold_grid())
    best = best_object_threshold([case])
    assert (best.threshold, best.f1) == (0.6, 1.0)
    assert count_objects([case], threshold=0.04).f1 == 0.0
    assert count_objects([case], threshold=0.05).f1 == 1.0


def test_best_threshold_nan_never_wins_unless_all_are_nan():
    score = np.zeros((6, 6, 6))
    score[1, 1, 1] = 0.5
    no_gt = np.zeros(score.shape)
    case = describe_case(score, no_gt, thresholds=default_threshold_grid())
    best = best_object_threshold([case])  # F1 0 up to 0.5 (one FP), NaN above
    assert (best.threshold, best.f1) == (0.5, 0.0)
    blank = describe_case(np.zeros(score.shape), no_gt, thresholds=[0.1, 0.7, 0.2])
    assert blank.thresholds == (0.1, 0.2, 0.7)
    best = best_object_threshold([blank])
    assert best.threshold == 0.7 and math.isnan(best.f1)


def test_count_objects_refuses_inconsistent_requests():
    score, gt = _cube_case(2)
    a = describe_case(score, gt, thresholds=[0.3, 0.5])
    b = describe_case(score, gt, thresholds=[0.5])
    c = describe_case(score, gt, thresholds=[0.5], connectivity="face")
    with pytest.raises(ValueError, match="not described"):
        count_objects([a], threshold=0.4)
    with pytest.raises(ValueError, match="different thresholds"):
        best_object_threshold([a, b])
    with pytest.raises(ValueError, match="different connectivity"):
        count_objects([b, c], threshold=0.5)
    with pytest.raises(ValueError, match="empty"):
        count_objects([], threshold=0.5)
    with pytest.raises(ValueError, match="empty"):
        describe_case(score, gt, thresholds=[])


def test_equal_masks_share_one_level_and_cases_pickle_small():
    score, gt = _cube_case(3)  # values 0.05 and 0.9 only
    case = describe_case(score, gt, thresholds=default_threshold_grid())
    levels = {id(level) for level in case.levels}
    # float16: 0.05 -> 0.049988, 0.9 -> 0.8999: <= 0.04 all, 0.05 .. 0.89 cube, >= 0.9 none
    assert len(levels) == 3
    blob = pickle.dumps(case)
    assert len(blob) < 20_000
    restored = pickle.loads(blob)
    assert isinstance(restored, CaseObjects)
    assert count_objects([restored], threshold=0.5) == count_objects([case], threshold=0.5)


def test_distinct_values_are_read_like_the_scores():
    score = np.array([[0.0, 0.25, 0.3, 1.0]], dtype=np.float32)
    exact = distinct_value_thresholds([score], mode="exact").tolist()
    mood = distinct_value_thresholds([score], mode="mood").tolist()
    assert exact == [0.25, float(np.float32(0.3)), 1.0]  # 0.30000001192...
    assert mood == [0.25, float(np.float16(0.3)), 1.0]  # 0.30004882...


def test_kind_table_refuses_unknown_source():
    mask = np.eye(3, dtype=bool)
    with pytest.raises(ValueError, match="source must be one of 'pred', 'gt'"):
        kind_table(match_objects(mask, mask), source="both")


def test_threshold_grids():
    grid = default_threshold_grid()
    assert grid.dtype == np.float64 and grid.size == 99
    assert grid[29] == 0.3 and grid[0] == 0.01 and grid[-1] == 0.99
    maps = [np.array([[0, 1], [1, 0]], dtype=np.uint8), np.array([[0.0, 0.5], [-1.0, 2.0]])]
    assert distinct_value_thresholds(maps).tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match="max_values"):
        distinct_value_thresholds([np.linspace(0, 1, 100).reshape(10, 10)], max_values=10)


# --------------------------------------------------------------------------- contract


def test_inputs_are_not_modified():
    score, gt = random_case(5, (6, 7, 8))
    score = score.astype(np.float16)
    score[0, 0, 0] = -0.0
    before = (score.copy(), gt.copy())
    match_objects(score, gt, threshold=0.4, criterion="iou", one_to_one=True)
    describe_case(score, gt, thresholds=[0.4, 0.6])
    binarize_scores(score, threshold=0.4)
    np.testing.assert_array_equal(score.view(np.uint16), before[0].view(np.uint16))
    np.testing.assert_array_equal(gt, before[1])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"connectivity": "corner"}, "connectivity must be one of 'full', 'face'"),
        ({"mode": "fast"}, "mode must be one of 'mood', 'exact'"),
        ({"criterion": "dice"}, "criterion must be one of 'mood', 'iou'"),
        ({"min_iou": 0.0}, "min_iou"),
        ({"size_window": (5, 2)}, "size_window"),
        ({"size_window": (math.nan, 2)}, "size_window"),
        ({"spacing": (1.0, 1.0)}, "spacing"),
        ({"spacing": (1.0, 0.0, 1.0)}, "spacing"),
        ({"affine": np.eye(3)}, "affine"),
        ({"affine": np.zeros((4, 4))}, "singular"),
        ({"threshold": math.nan}, "NaN"),
    ],
)
def test_invalid_options_raise(kwargs, message):
    gt = np.zeros((4, 4, 4), dtype=bool)
    options = {"threshold": 0.5} | kwargs
    with pytest.raises(ValueError, match=message):
        match_objects(gt, gt, **options)


@pytest.mark.parametrize(
    ("score", "gt", "message"),
    [
        (np.zeros((4, 4)), np.zeros((4, 5)), "shape"),
        (np.zeros(4), np.zeros(4), "2-D or 3-D"),
        (np.zeros((0, 4)), np.zeros((0, 4)), "empty"),
    ],
)
def test_invalid_arrays_raise(score, gt, message):
    with pytest.raises(ValueError, match=message):
        match_objects(score, gt, threshold=0.5)


def test_non_numeric_scores_are_a_type_error():  # one rule for every scorer (core.scores)
    with pytest.raises(
        TypeError, match="score must be an array of numbers; got an array of shape .* and dtype <U1"
    ):
        match_objects(np.full((2, 2), "a"), np.zeros((2, 2)), threshold=0.5)


# --------------------------------------------------------------------------- labelled match


def _blobby_case(seed: int, shape=(12, 13, 14)) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    score = ndimage.uniform_filter(rng.random(shape), 3).astype(np.float32)
    gt = ndimage.uniform_filter(rng.random(shape), 3) > 0.56
    return score, gt


@FAST
@given(
    seed=st.integers(0, 10_000),
    threshold=st.floats(0.3, 0.7),
    connectivity=st.sampled_from(["full", "face"]),
    with_gt=st.booleans(),
    slab_voxels=st.sampled_from([slabs.SLAB_VOXELS, 1, 200]),
    fortran=st.booleans(),
)
def test_labelled_match_equals_match_objects_and_object_labels(
    seed, threshold, connectivity, with_gt, slab_voxels, fortran
):
    """Also labelled a plane or a few at a time, and from a Fortran-ordered map (NIfTI's)."""
    score, gt = _blobby_case(seed)
    if not with_gt:
        gt = np.zeros_like(gt)
    if fortran:
        score, gt = np.asfortranarray(score), np.asfortranarray(gt)
    with mock.patch.object(slabs, "SLAB_VOXELS", slab_voxels):
        found = labelled_match(
            score, gt, threshold=threshold, connectivity=connectivity, spacing=(1.0, 2.0, 0.5)
        )
    expected = match_objects(
        score, gt, threshold=threshold, connectivity=connectivity, spacing=(1.0, 2.0, 0.5)
    )
    assert found.match == expected
    c = expected.counts
    assert found.counts == c or (c.tp + c.fp + c.fn == 0)  # NaN ratios compare unequal
    assert found.match_at(0.999).threshold == 0.999 and found.threshold == expected.threshold
    pred_labels, gt_labels = object_labels(
        score, gt, threshold=threshold, connectivity=connectivity
    )
    np.testing.assert_array_equal(found.pred_labels(), pred_labels)
    np.testing.assert_array_equal(found.gt_labels(), gt_labels)
    flagged = flag(score, threshold)
    assert found.n_flagged == int(flagged.sum())
    assert found.n_gt == int(gt.sum())
    assert found.n_overlap == int((flagged & gt).sum())
    assert found.nbytes == found.pred_runs.nbytes + found.gt_runs.nbytes
    assert found.nbytes <= found.pred_crop_labels.nbytes + found.gt_crop_labels.nbytes


def test_labelled_match_of_an_empty_prediction():
    gt = np.zeros((5, 6), bool)
    gt[1, 1] = True
    found = labelled_match(np.zeros((5, 6)), gt, threshold=0.5)
    assert (found.counts.tp, found.counts.fn, found.n_flagged, found.n_overlap) == (0, 1, 0, 0)
    assert found.match.counts.fn == 1
    assert found.pred_labels().shape == (5, 6) and not found.pred_labels().any()
    assert found.gt_labels()[1, 1] == 1


def test_pred_labels_in_a_smaller_dtype():
    score = np.zeros((40, 40))
    score[::2, ::2] = 0.9  # 400 single-pixel objects
    found = labelled_match(score, np.zeros((40, 40), bool), threshold=0.5, connectivity="face")
    small = found.pred_labels(np.uint16)
    assert small.dtype == np.uint16
    np.testing.assert_array_equal(small, found.pred_labels())
    with pytest.raises(ValueError, match="uint8 cannot hold label 400"):
        found.pred_labels(np.uint8)
