"""Tests for napari_mood.core.metrics against scikit-learn and hand-derived values."""

from __future__ import annotations

import math
import warnings

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

from napari_mood.core.curves import CurveAccumulator, curve_from_arrays
from napari_mood.core.metrics import (
    Confusion,
    UndefinedMetricWarning,
    auroc,
    auroc_from_curve,
    average_precision,
    average_precision_from_curve,
    average_precision_from_histograms,
    best_threshold,
    confusion_at,
    fpr_at_tpr,
    sample_score_from_pixel,
    slice_scores,
)

FAST = settings(max_examples=80, deadline=None)
F16_0_3 = float(np.float16(0.3))  # 0.300048828125: float16 rounds 0.3 UP
F16_BELOW_0_3 = 0.2998046875  # the float16 just below 0.3 (= float16(0.2999))


def _sklearn_quietly(func, labels: np.ndarray, values: np.ndarray) -> tuple[float, bool]:  # type: ignore[no-untyped-def]
    """sklearn metric and whether it warned (it warns for one-class input)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = func(labels, values)
    return float(value), bool(caught)


def _ours_quietly(func, *args, **kwargs) -> tuple[float, bool]:  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = func(*args, **kwargs)
    assert all(issubclass(w.category, UndefinedMetricWarning) for w in caught)
    return float(value), bool(caught)


@st.composite
def float16_voxels(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 150))
    kind = draw(st.sampled_from(["random", "ties", "all_tied"]))
    if kind == "random":
        elements = st.floats(-0.25, 1.25, allow_nan=False, width=16)
    elif kind == "ties":
        elements = st.sampled_from([0.0, 0.1, 0.3, 0.7, 1.0])
    else:
        elements = st.just(draw(st.floats(0, 1, width=16)))
    scores = draw(hnp.arrays(np.float16, n, elements=elements))
    label_kind = draw(st.sampled_from(["random", "none", "all"]))
    if label_kind == "random":
        labels = draw(hnp.arrays(np.bool_, n))
    else:
        labels = np.full(n, label_kind == "all")
    return scores, labels


def _as_scored(scores16: np.ndarray) -> np.ndarray:
    """The float64 values the MOOD scorer feeds sklearn (independent of our helpers)."""
    return np.clip(scores16.astype(np.float64), 0.0, 1.0)


# ----------------------------------------------------------------------------- AP / AUROC


@FAST
@given(float16_voxels())
def test_average_precision_equals_sklearn(data: tuple[np.ndarray, np.ndarray]) -> None:
    scores, labels = data
    expected, sk_warned = _sklearn_quietly(average_precision_score, labels, _as_scored(scores))
    ours, warned = _ours_quietly(average_precision, scores, labels)
    assert ours == pytest.approx(expected, abs=1e-9)
    assert warned == (not labels.any())
    assert sk_warned == warned


@FAST
@given(float16_voxels())
def test_auroc_equals_sklearn(data: tuple[np.ndarray, np.ndarray]) -> None:
    scores, labels = data
    expected, _ = _sklearn_quietly(roc_auc_score, labels, _as_scored(scores))
    ours, warned = _ours_quietly(auroc, scores, labels)
    one_class = labels.all() or not labels.any()
    assert warned == one_class
    if one_class:
        assert math.isnan(ours) and math.isnan(expected)
    else:
        assert ours == pytest.approx(expected, abs=1e-9)


@FAST
@given(
    hnp.arrays(np.float32, st.integers(2, 150), elements=st.floats(0, 1, width=32)),
    st.data(),
)
def test_exact_mode_equals_sklearn_on_float32(scores: np.ndarray, data: st.DataObject) -> None:
    labels = data.draw(hnp.arrays(np.bool_, scores.size))
    labels[0], labels[1] = True, False  # both classes present
    values = scores.astype(np.float64)
    ap = average_precision(scores, labels, mode="exact")
    assert ap == pytest.approx(average_precision_score(labels, values), abs=1e-9)
    assert auroc(scores, labels, mode="exact") == pytest.approx(
        roc_auc_score(labels, values), abs=1e-9
    )


def test_mood_and_exact_differ_where_float16_creates_ties() -> None:
    scores = np.array([0.30001, 0.30002, 0.30003, 0.1], dtype=np.float32)
    labels = np.array([False, False, True, False])
    assert average_precision(scores, labels, mode="exact") == 1.0
    assert average_precision(scores, labels) == pytest.approx(1 / 3)  # three-way tie
    assert average_precision(scores, labels) == pytest.approx(
        average_precision_score(labels, scores.astype(np.float16).astype(np.float64))
    )


@pytest.mark.parametrize(
    ("scores", "labels", "ap", "area"),
    [
        ([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0], 0.5, 0.5),  # all tied
        ([0.5], [1], 1.0, math.nan),  # single positive sample
        ([0.1, 0.2, 0.3], [1, 1, 1], 1.0, math.nan),  # all positive
        ([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], (1 + 2 / 3) / 2, 0.75),  # hand-derived
        ([0.9, 0.1], [1, 0], 1.0, 1.0),
        ([0.1, 0.9], [1, 0], 0.5, 0.0),
    ],
)
def test_hand_derived_values(scores: list, labels: list, ap: float, area: float) -> None:
    scores_arr, labels_arr = np.array(scores), np.array(labels)
    curve = curve_from_arrays(scores_arr, labels_arr)
    assert average_precision_from_curve(curve) == pytest.approx(ap, abs=1e-12)
    if math.isnan(area):
        with pytest.warns(UndefinedMetricWarning, match="one class"):
            assert math.isnan(auroc_from_curve(curve))
    else:
        assert auroc_from_curve(curve) == pytest.approx(area, abs=1e-12)


def test_no_positive_gives_zero_ap_with_warning() -> None:
    with pytest.warns(UserWarning, match="no positive voxel"):
        assert average_precision(np.array([0.2, 0.9]), np.array([0, 0])) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="no positive"):
        assert average_precision(np.array([]), np.array([], dtype=bool)) == 0.0


@pytest.mark.parametrize("mode", ["mood", "exact"])
def test_pooled_accumulator_equals_sklearn_on_concatenation(mode: str) -> None:
    rng = np.random.default_rng(7)
    cases = [(rng.random((6, 7, 5)), rng.random((6, 7, 5)) > 0.8) for _ in range(4)]
    acc = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
    for scores, labels in cases:
        acc.add(scores, labels)
    dtype = np.float16 if mode == "mood" else np.float32
    values = np.concatenate([s.astype(dtype).ravel() for s, _ in cases]).astype(np.float64)
    labels_all = np.concatenate([lab.ravel() for _, lab in cases])
    curve = acc.curve()
    assert average_precision_from_curve(curve) == pytest.approx(
        average_precision_score(labels_all, values), abs=1e-9
    )
    assert auroc_from_curve(curve) == pytest.approx(roc_auc_score(labels_all, values), abs=1e-9)


def test_average_precision_from_histograms_rows() -> None:
    rng = np.random.default_rng(11)
    pos = rng.integers(0, 4, size=(5, 12))
    total = pos + rng.integers(0, 4, size=(5, 12))
    pos[3] = 0  # a row without positives
    aps = average_precision_from_histograms(pos, total)
    for row in range(5):
        values = np.repeat(np.arange(12), total[row])
        labels = np.concatenate(
            [np.arange(t) < p for p, t in zip(pos[row], total[row], strict=True)]
        )
        if row == 3:
            assert math.isnan(aps[row])
        else:
            assert aps[row] == pytest.approx(average_precision_score(labels, values), abs=1e-12)
    with pytest.raises(ValueError, match="^pos and total must be 2-D arrays of the same shape$"):
        average_precision_from_histograms(pos[0], total[0])


# ----------------------------------------------------------------------------- FPR at TPR


def test_fpr_at_tpr_hand_derived() -> None:
    # descending: 0.9(+) 0.8(-) 0.7(+) 0.6(-) 0.5(-) 0.4(+)
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    labels = np.array([1, 0, 1, 0, 0, 1], dtype=bool)
    curve = curve_from_arrays(scores, labels, mode="exact")
    assert fpr_at_tpr(curve, tpr=0.3) == 0.0  # first point: TPR 1/3
    assert fpr_at_tpr(curve, tpr=0.5) == pytest.approx(1 / 3)  # needs 2 positives
    assert fpr_at_tpr(curve, tpr=2 / 3) == pytest.approx(1 / 3)  # exact TPR reached
    assert fpr_at_tpr(curve) == 1.0  # 0.95 needs all positives


def test_fpr_at_tpr_matches_sklearn_roc_curve() -> None:
    rng = np.random.default_rng(5)
    scores = rng.random(2000).astype(np.float16)
    labels = rng.random(2000) < scores.astype(np.float64) * 0.5
    fpr, tpr, _ = roc_curve(labels, scores.astype(np.float64), drop_intermediate=False)
    curve = curve_from_arrays(scores, labels)
    for target in (0.5, 0.8, 0.95, 1.0):
        assert fpr_at_tpr(curve, tpr=target) == pytest.approx(fpr[tpr >= target].min())


def test_fpr_at_tpr_edge_cases() -> None:
    no_pos = curve_from_arrays(np.array([0.1, 0.2]), np.array([0, 0]))
    assert math.isnan(fpr_at_tpr(no_pos))
    no_neg = curve_from_arrays(np.array([0.1, 0.2]), np.array([1, 1]))
    assert math.isnan(fpr_at_tpr(no_neg))
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=r"\(0, 1\]"):
            fpr_at_tpr(no_pos, tpr=bad)


# ----------------------------------------------------------------------------- confusion


def test_confusion_at_hand_derived_and_inclusive() -> None:
    scores = np.array([0.25, 0.5, 0.5, 0.75, 1.0])
    labels = np.array([0, 1, 0, 1, 1], dtype=bool)
    curve = curve_from_arrays(scores, labels)
    at_half = confusion_at(curve, 0.5)  # 0.5 is a score value: inclusive
    assert at_half == Confusion(
        threshold=0.5, tp=3, fp=1, fn=0, tn=1, precision=0.75, recall=1.0, f1=6 / 7, dice=6 / 7
    )
    just_above = confusion_at(curve, float(np.nextafter(0.5, 1.0)))
    assert (just_above.tp, just_above.fp) == (2, 0)


def test_confusion_uses_float16_value_not_rounded_threshold() -> None:
    scores = np.array([F16_BELOW_0_3, 0.3, 0.1])  # 0.3 is stored as float16 0.30005
    labels = np.array([1, 1, 0], dtype=bool)
    curve = curve_from_arrays(scores, labels)
    assert confusion_at(curve, 0.3).tp == 1  # the 0.2998 voxel is NOT flagged at 0.3
    # NumPy 2 would round 0.2999 to float16 0.2998 and flag it; the threshold is exact
    assert bool(np.array([F16_BELOW_0_3], np.float16)[0] >= 0.2999)  # the pitfall
    assert confusion_at(curve, 0.2999).tp == 1
    assert confusion_at(curve, F16_BELOW_0_3).tp == 2  # equal value: inclusive
    exact = curve_from_arrays(np.array([0.3, 0.31, 0.1]), labels, mode="exact")
    assert confusion_at(exact, 0.3).tp == 2  # float32(0.3) = 0.30000001 >= 0.3
    assert confusion_at(exact, float(np.nextafter(np.float32(0.3), np.float32(1)))).tp == 1


@pytest.mark.parametrize(
    "threshold", [0.0, 0.1, F16_BELOW_0_3, 0.2999, F16_0_3, 0.3, 0.5, 0.95, 1.0]
)
def test_confusion_matches_brute_force_flags(threshold: float) -> None:
    rng = np.random.default_rng(9)
    scores = rng.random(500).astype(np.float16)
    labels = rng.random(500) < 0.2
    flags = scores.astype(np.float64) >= threshold
    result = confusion_at(curve_from_arrays(scores, labels), threshold)
    assert result.tp == np.sum(flags & labels)
    assert result.fp == np.sum(flags & ~labels)
    assert result.fn == np.sum(~flags & labels)
    assert result.tn == np.sum(~flags & ~labels)


@pytest.mark.parametrize("threshold", [-0.1, 1.5, math.inf])
def test_confusion_refuses_thresholds_outside_unit_interval(threshold: float) -> None:
    curve = curve_from_arrays(np.array([0.2, 0.9]), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        confusion_at(curve, threshold)


def test_confusion_nan_policy() -> None:
    nothing_flagged = confusion_at(curve_from_arrays(np.array([0.2]), np.array([1])), 0.9)
    assert math.isnan(nothing_flagged.precision)
    assert nothing_flagged.dice == 0.0 and nothing_flagged.recall == 0.0
    empty = confusion_at(curve_from_arrays(np.array([0.2]), np.array([0])), 0.9)
    assert math.isnan(empty.dice) and math.isnan(empty.f1) and math.isnan(empty.recall)
    assert empty.tn == 1
    with pytest.raises(ValueError, match="NaN"):
        confusion_at(curve_from_arrays(np.array([0.2]), np.array([0])), math.nan)


# ----------------------------------------------------------------------------- best threshold


def test_best_threshold_brute_force() -> None:
    rng = np.random.default_rng(12)
    scores = rng.random(300).astype(np.float16)
    labels = rng.random(300) < scores.astype(np.float64) ** 3
    curve = curve_from_arrays(scores, labels)
    dices = {t: confusion_at(curve, t).dice for t in np.unique(scores).astype(np.float64)}
    best = max(dices.values())
    expected = max(t for t, d in dices.items() if d == best)
    assert best_threshold(curve) == (expected, best)
    assert best_threshold(curve, by="f1") == (expected, best)


def test_best_threshold_ties_go_to_highest_threshold() -> None:
    # at 0.75: TP1 FP0 FN1 -> 2/3; at 0.5: TP2 FP2 FN0 -> 4/6 = 2/3 (tie)
    curve = curve_from_arrays(np.array([0.75, 0.5, 0.5, 0.5, 0.25]), np.array([1, 1, 0, 0, 0]))
    assert best_threshold(curve) == (0.75, pytest.approx(2 / 3))


def test_best_threshold_edge_cases() -> None:
    no_pos = curve_from_arrays(np.array([0.2, 0.6]), np.array([0, 0]))
    assert best_threshold(no_pos) == (float(np.float16(0.6)), 0.0)
    with pytest.raises(ValueError, match="no operating point"):
        best_threshold(curve_from_arrays(np.array([]), np.array([], dtype=bool)))
    with pytest.raises(ValueError, match="by must be one of 'dice', 'f1'"):
        best_threshold(no_pos, by="iou")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- per slice


def _slow_slice_scores(
    scores: np.ndarray, labels: np.ndarray, axis: int, threshold: float, dtype: type
) -> dict[str, np.ndarray]:
    values = np.clip(scores.astype(dtype).astype(np.float64), 0.0, 1.0)
    out: dict[str, list[float]] = {k: [] for k in ("gt", "flagged", "dice", "ap", "max", "mean")}
    for index in range(scores.shape[axis]):
        v = np.take(values, index, axis=axis).ravel()
        lab = np.take(labels, index, axis=axis).ravel()
        flags = v >= threshold
        out["gt"].append(lab.sum())
        out["flagged"].append(flags.sum())
        den = lab.sum() + flags.sum()
        out["dice"].append(2 * np.sum(flags & lab) / den if den else math.nan)
        out["ap"].append(average_precision_score(lab, v) if lab.any() else math.nan)
        out["max"].append(v.max())
        out["mean"].append(v.mean())
    return {k: np.array(v) for k, v in out.items()}


@pytest.fixture(scope="module")
def small_volume() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(21)
    scores = rng.random((6, 7, 8))
    scores[:, :3] = np.round(scores[:, :3], 1)  # ties
    scores[0, 0, 0] = F16_BELOW_0_3
    scores[0, 0, 1] = 0.2999  # float16 0.2998 too
    scores[0, 0, 2] = 0.3  # float16 0.30005
    scores[1, 1, 1] = -0.2  # clipped
    labels = scores > 0.6
    labels[2] = False  # a slice without GT
    labels[:, :, 4] = rng.random((6, 7)) > 0.5
    return scores, labels


@pytest.mark.parametrize("mode", ["mood", "exact"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
@pytest.mark.parametrize("threshold", [0.2999, 0.3, F16_BELOW_0_3, 0.5, 0.0])
def test_slice_scores_match_slow_loop(
    small_volume: tuple[np.ndarray, np.ndarray], mode: str, axis: int, threshold: float
) -> None:
    scores, labels = small_volume
    dtype = np.float16 if mode == "mood" else np.float32
    fast = slice_scores(scores, labels, axis=axis, threshold=threshold, mode=mode)  # type: ignore[arg-type]
    slow = _slow_slice_scores(scores, labels, axis, threshold, dtype)
    assert fast.axis == axis % 3 and fast.threshold == threshold
    np.testing.assert_array_equal(fast.gt_voxels, slow["gt"])
    np.testing.assert_array_equal(fast.flagged_voxels, slow["flagged"])
    np.testing.assert_allclose(fast.dice, slow["dice"], atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(fast.ap, slow["ap"], atol=1e-9, equal_nan=True)
    np.testing.assert_array_equal(fast.max_score, slow["max"])
    np.testing.assert_allclose(fast.mean_score, slow["mean"], rtol=1e-12)


def test_slice_threshold_0_2999_does_not_flag_float16_0_2998() -> None:
    scores = np.zeros((2, 2, 2))
    scores[0, 0, 0] = 0.2999  # stored as float16 0.2998046875
    labels = np.zeros((2, 2, 2), dtype=bool)
    labels[0, 0, 0] = True
    for threshold in (0.2999, 0.3):
        result = slice_scores(scores, labels, axis=0, threshold=threshold)
        assert result.flagged_voxels.tolist() == [0, 0]
    assert slice_scores(scores, labels, axis=0, threshold=F16_BELOW_0_3).dice[0] == 1.0


def test_slice_nan_policy() -> None:
    scores = np.array([[0.9, 0.1], [0.2, 0.3]])
    result = slice_scores(scores, np.array([[1, 0], [0, 0]]), axis=0, threshold=0.5)
    assert result.dice[0] == 1.0 and math.isnan(result.dice[1])  # no GT, nothing flagged
    assert result.ap[0] == 1.0 and math.isnan(result.ap[1])  # no positive
    flagged_only = slice_scores(scores, np.zeros((2, 2), bool), axis=0, threshold=0.5)
    assert flagged_only.dice[0] == 0.0


@pytest.mark.parametrize("mode", ["mood", "exact"])
@pytest.mark.parametrize("axis", [0, 2])
@pytest.mark.parametrize(
    "limits",
    [
        {"_MAX_ROWS": 2},
        {"_SLICE_CHUNK": 50, "_EXACT_CHUNK": 50},  # one slice / one outer row per chunk
        {"_SLICE_CHUNK": 100, "_MAX_ROWS": 3},
    ],
)
def test_slice_scores_chunking_is_invisible(
    monkeypatch: pytest.MonkeyPatch,
    small_volume: tuple[np.ndarray, np.ndarray],
    mode: str,
    axis: int,
    limits: dict[str, int],
) -> None:
    import napari_mood.core.metrics as metrics

    scores, labels = small_volume
    whole = slice_scores(scores, labels, axis=axis, threshold=0.5, mode=mode)  # type: ignore[arg-type]
    for name, value in limits.items():
        monkeypatch.setattr(metrics, name, value)
    chunked = slice_scores(scores, labels, axis=axis, threshold=0.5, mode=mode)  # type: ignore[arg-type]
    for name in ("gt_voxels", "flagged_voxels", "dice", "ap", "max_score", "mean_score"):
        np.testing.assert_allclose(getattr(chunked, name), getattr(whole, name), rtol=1e-12)


def test_slice_scores_take_negative_axes_down_to_minus_ndim(
    small_volume: tuple[np.ndarray, np.ndarray],
) -> None:
    scores, labels = small_volume
    for negative in (-1, -2, -3):
        found = slice_scores(scores, labels, axis=negative, threshold=0.5)
        plain = slice_scores(scores, labels, axis=negative + 3, threshold=0.5)
        assert found.axis == negative + 3
        np.testing.assert_array_equal(found.flagged_voxels, plain.flagged_voxels)
    with pytest.raises(ValueError):
        slice_scores(scores, labels, axis=-4, threshold=0.5)


@pytest.mark.parametrize("axis", [0, 2])
def test_slice_scores_of_a_tall_volume_in_one_row_chunks_equal_the_slow_loop(
    monkeypatch: pytest.MonkeyPatch, axis: int
) -> None:
    """More outer rows than the next axis holds: every chunk of axis 0 is walked."""
    import napari_mood.core.metrics as metrics

    rng = np.random.default_rng(5)
    scores = rng.random((10, 3, 4))
    labels = scores > 0.6
    monkeypatch.setattr(metrics, "_SLICE_CHUNK", 12)  # one outer row (3 x 4) per chunk
    fast = slice_scores(scores, labels, axis=axis, threshold=0.5)
    slow = _slow_slice_scores(scores, labels, axis, 0.5, np.float16)
    np.testing.assert_array_equal(fast.gt_voxels, slow["gt"])
    np.testing.assert_array_equal(fast.flagged_voxels, slow["flagged"])
    np.testing.assert_allclose(fast.ap, slow["ap"], atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("mode", ["mood", "exact"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_slice_scores_memory_layout_is_invisible(
    small_volume: tuple[np.ndarray, np.ndarray], mode: str, axis: int
) -> None:
    scores, labels = small_volume
    layouts = [
        (np.asfortranarray(scores.astype(np.float16)), np.asfortranarray(labels)),
        (np.asfortranarray(scores), labels),  # mixed layouts
        (scores.transpose(2, 0, 1).copy().transpose(1, 2, 0), labels),
    ]
    for other_scores, other_labels in layouts:
        other = slice_scores(other_scores, other_labels, axis=axis, threshold=0.5, mode=mode)  # type: ignore[arg-type]
        reference = slice_scores(
            np.ascontiguousarray(other_scores),
            np.ascontiguousarray(other_labels),
            axis=axis,
            threshold=0.5,
            mode=mode,  # type: ignore[arg-type]
        )
        for name in ("gt_voxels", "flagged_voxels", "dice", "ap", "max_score"):
            np.testing.assert_allclose(getattr(other, name), getattr(reference, name))
        np.testing.assert_allclose(other.mean_score, reference.mean_score, rtol=1e-12)


def test_slice_scores_on_strided_views_match_copies() -> None:
    rng = np.random.default_rng(4)
    scores = rng.random((10, 12, 14)).astype(np.float16)
    labels = rng.random((10, 12, 14)) > 0.7
    view = (scores[::2, 1:, ::-3], labels[::2, 1:, ::-3])
    for axis in range(3):
        got = slice_scores(*view, axis=axis, threshold=0.4)
        want = slice_scores(*(np.ascontiguousarray(v) for v in view), axis=axis, threshold=0.4)
        np.testing.assert_array_equal(got.ap, want.ap)
        np.testing.assert_array_equal(got.flagged_voxels, want.flagged_voxels)


def test_slice_scores_validation() -> None:
    scores, labels = np.zeros((2, 3)), np.zeros((2, 3), bool)
    with pytest.raises(ValueError, match="out of range"):
        slice_scores(scores, labels, axis=2, threshold=0.5)
    with pytest.raises(ValueError, match="shape"):
        slice_scores(scores, labels[:1], axis=0, threshold=0.5)
    with pytest.raises(ValueError, match="mode"):
        slice_scores(scores, labels, axis=0, threshold=0.5, mode="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NaN"):
        slice_scores(scores, labels, axis=0, threshold=math.nan)
    with pytest.raises(ValueError, match="non-empty"):
        slice_scores(np.zeros((0, 3)), np.zeros((0, 3), bool), axis=0, threshold=0.5)


def test_slice_scores_do_not_modify_inputs(small_volume: tuple[np.ndarray, np.ndarray]) -> None:
    scores, labels = small_volume
    before = scores.copy(), labels.copy()
    slice_scores(scores, labels, axis=0, threshold=0.5, mode="exact")
    np.testing.assert_array_equal(scores, before[0])
    np.testing.assert_array_equal(labels, before[1])


# ----------------------------------------------------------------------------- sample level


def test_sample_score_from_pixel() -> None:
    scores = np.arange(1000.0).reshape(10, 10, 10)
    assert sample_score_from_pixel(scores, how="max") == 999.0
    assert sample_score_from_pixel(scores, how="mean") == 499.5
    assert sample_score_from_pixel(scores, how="top1") == np.mean(np.arange(990.0, 1000.0))
    assert sample_score_from_pixel(np.array([0.2, 0.7, 0.1]), how="top1") == 0.7  # k = 1
    assert sample_score_from_pixel(np.arange(101.0), how="top1") == 99.5  # ceil(1.01) = 2


def test_sample_score_from_pixel_is_computed_in_float64() -> None:
    """float16 values averaged in float64, not rounded back to float16 (numpy's own mean)."""
    scores = np.array([0.1, 0.2, 0.3], dtype=np.float16)
    exact = (0.0999755859375 + 0.199951171875 + 0.300048828125) / 3  # the float16 values
    assert sample_score_from_pixel(scores, how="mean") == pytest.approx(exact, abs=1e-15)
    assert float(scores.mean()) != pytest.approx(exact, abs=1e-9)  # what float16 would give
    assert sample_score_from_pixel(scores, how="top1") == 0.300048828125


def test_sample_score_from_pixel_validation() -> None:
    with pytest.raises(ValueError, match="^how must be one of 'max', 'mean', 'top1'"):
        sample_score_from_pixel(np.ones(3), how="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="1 NaN"):
        sample_score_from_pixel(np.array([0.1, np.nan]))
    with pytest.raises(ValueError, match="^scores is empty$"):
        sample_score_from_pixel(np.array([]))
