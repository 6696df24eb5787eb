"""Tests for napari_mood.core.curves: exact curves from histograms, mergeable accumulators."""

from __future__ import annotations

import pickle

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import precision_recall_curve, roc_curve

from napari_mood.core.curves import (
    Curve,
    CurveAccumulator,
    check_labels,
    curve_from_arrays,
    curve_from_histogram,
    memory_order_axes,
    merge_accumulators,
)
from napari_mood.core.scores import N_CODES, code_values, to_exact_values, to_mood_codes

FAST = settings(max_examples=60, deadline=None)


def _brute_curve(values: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, ...]:
    """Thresholds (descending distinct values) and counts of flagged positives/negatives."""
    thresholds = np.unique(values)[::-1]
    tp = np.array([np.sum(labels & (values >= t)) for t in thresholds])
    fp = np.array([np.sum(~labels & (values >= t)) for t in thresholds])
    return thresholds, tp, fp


@st.composite
def scored_voxels(draw: st.DrawFn, dtype: type = np.float16) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 120))
    tied = draw(st.booleans())
    elements = (
        st.sampled_from([0.0, 0.25, 0.3, 0.5, 1.0])
        if tied
        else st.floats(-0.5, 1.5, allow_nan=False, width=16 if dtype == np.float16 else 32)
    )
    scores = draw(hnp.arrays(dtype, n, elements=elements))
    labels = draw(hnp.arrays(np.bool_, n))
    return scores, labels


# ----------------------------------------------------------------------------- input checks


def test_to_mood_codes_is_a_view_for_clipped_float16() -> None:
    scores = np.array([0.0, 0.5, 1.0], dtype=np.float16)
    codes = to_mood_codes(scores)
    assert np.shares_memory(codes, scores)
    assert codes.tolist() == [0, 14336, 15360]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_to_mood_codes_clips_and_maps_negative_zero(dtype: type) -> None:
    scores: np.ndarray = np.array([-0.0, -2.0, 0.0, 3.0, np.inf, -np.inf], dtype=dtype)
    before = scores.copy()
    assert to_mood_codes(scores).tolist() == [0, 0, 0, 15360, 15360, 0]
    np.testing.assert_array_equal(scores, before)  # input untouched
    assert np.signbit(scores[0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_scores_raise_with_count(dtype: type) -> None:
    scores: np.ndarray = np.array([0.1, np.nan, 0.2, np.nan], dtype=dtype)
    with pytest.raises(ValueError, match="2 NaN"):
        to_mood_codes(scores)
    with pytest.raises(ValueError, match="2 NaN"):
        CurveAccumulator(mode="exact").add(scores, np.zeros(4, bool))


def test_to_exact_values_is_float32_clipped_copy() -> None:
    scores = np.array([-0.0, -1.0, 0.3, 2.0])
    out = to_exact_values(scores)
    assert out.dtype == np.float32
    assert out.tolist() == [0.0, 0.0, np.float32(0.3), 1.0]
    assert not np.signbit(out[0])


def test_non_numeric_scores_raise() -> None:
    with pytest.raises(TypeError, match="numeric"):
        to_mood_codes(np.array(["a", "b"]))


def test_check_labels_accepts_bool_and_binary_numbers() -> None:
    assert check_labels(np.array([0, 1, 1]), (3,)).tolist() == [False, True, True]
    assert check_labels(np.array([0.0, 1.0]), (2,)).dtype == np.bool_
    with pytest.raises(ValueError, match="only 0 and 1"):
        check_labels(np.array([0, 2]), (2,))
    with pytest.raises(ValueError, match="shape"):
        check_labels(np.zeros(3, bool), (4,))


def test_invalid_mode_lists_valid_modes() -> None:
    with pytest.raises(ValueError, match="mode must be one of 'mood', 'exact'"):
        CurveAccumulator(mode="float16")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- curves


@FAST
@given(scored_voxels())
def test_mood_curve_matches_brute_force_counts(data: tuple[np.ndarray, np.ndarray]) -> None:
    scores, labels = data
    curve = curve_from_arrays(scores, labels)
    values = np.clip(scores.astype(np.float64), 0.0, 1.0) + 0.0  # independent clip
    thresholds, tp, fp = _brute_curve(values, labels)
    np.testing.assert_array_equal(curve.thresholds, thresholds)
    np.testing.assert_array_equal(curve.tp, tp)
    np.testing.assert_array_equal(curve.fp, fp)
    assert (curve.n_pos, curve.n_neg) == (labels.sum(), (~labels).sum())


def test_curve_matches_sklearn_pr_and_roc_curves() -> None:
    rng = np.random.default_rng(3)
    scores = rng.random(500).astype(np.float16)
    scores[:100] = np.float16(0.5)  # heavy tie
    labels = rng.random(500) < 0.3
    curve = curve_from_arrays(scores, labels)
    precision, recall, thresholds = precision_recall_curve(labels, scores.astype(np.float64))
    np.testing.assert_array_equal(curve.thresholds, thresholds[::-1])
    np.testing.assert_allclose(curve.precision, precision[:-1][::-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(curve.recall, recall[:-1][::-1], rtol=0, atol=1e-12)
    fpr, tpr, _ = roc_curve(labels, scores.astype(np.float64), drop_intermediate=False)
    assert (fpr[0], tpr[0]) == (0.0, 0.0)  # sklearn's extra first point: nothing flagged
    np.testing.assert_allclose(curve.fpr, fpr[1:], atol=1e-12)
    np.testing.assert_allclose(curve.tpr, tpr[1:], atol=1e-12)


def test_pr_arrays_start_at_zero_recall_full_precision() -> None:
    curve = curve_from_arrays(np.array([0.9, 0.2, 0.2]), np.array([1, 0, 1]))
    recall, precision = curve.pr_arrays()
    assert recall.tolist() == [0.0, 0.5, 1.0]
    assert precision.tolist() == [1.0, 1.0, 2 / 3]


def test_rates_are_nan_for_a_missing_class() -> None:
    curve = curve_from_arrays(np.array([0.2, 0.4]), np.array([0, 0]))
    assert np.isnan(curve.recall).all() and np.isnan(curve.tpr).all()
    assert curve.fpr.tolist() == [0.5, 1.0]
    only_pos = curve_from_arrays(np.array([0.2, 0.4]), np.array([1, 1]))
    assert np.isnan(only_pos.fpr).all()


def test_curve_is_read_only() -> None:
    curve = curve_from_arrays(np.array([0.2, 0.4]), np.array([0, 1]))
    with pytest.raises(ValueError, match="read-only"):
        curve.tp[0] = 5


def test_curve_from_histogram_skips_empty_bins() -> None:
    curve = curve_from_histogram(
        np.array([0.0, 0.5, 0.7, 1.0]), np.array([0, 1, 0, 0]), np.array([2, 1, 0, 1])
    )
    assert isinstance(curve, Curve)
    assert curve.thresholds.tolist() == [1.0, 0.5, 0.0]
    assert curve.tp.tolist() == [0, 1, 1]
    assert curve.fp.tolist() == [1, 1, 3]


def test_curve_counts_are_int64_whatever_the_table_dtype() -> None:
    """Small histograms may come as uint8: counts must not stay unsigned (fp - x wraps)."""
    values = np.array([0.1, 0.5, 0.9])
    pos, total = np.array([0, 1, 1], np.uint8), np.array([2, 2, 1], np.uint8)
    curve = curve_from_histogram(values, pos, total)
    assert curve.tp.dtype == curve.fp.dtype == np.int64
    assert curve.tp.tolist() == [1, 2, 2] and curve.fp.tolist() == [0, 1, 3]


def test_code_histograms_of_rows_longer_than_a_chunk_equal_bincount(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import napari_mood.core.curves as curves

    rng = np.random.default_rng(8)
    codes = to_mood_codes(rng.random((3, 12)))
    labels = rng.random((3, 12)) > 0.5
    monkeypatch.setattr(curves, "_CHUNK", 5)  # each 12-code row is walked in 3 chunks
    pos, total = curves.code_histograms(codes, labels)
    np.testing.assert_array_equal(total, np.bincount(codes.ravel(), minlength=N_CODES))
    np.testing.assert_array_equal(pos, np.bincount(codes[labels], minlength=N_CODES))


def test_empty_input_gives_empty_curve() -> None:
    curve = curve_from_arrays(np.array([]), np.array([], dtype=bool))
    assert curve.thresholds.size == 0
    assert (curve.n_pos, curve.n_neg, curve.n_total) == (0, 0, 0)


def test_negative_zero_and_zero_share_one_operating_point() -> None:
    curve = curve_from_arrays(np.array([-0.0, 0.0, -3.0], dtype=np.float16), np.ones(3, bool))
    assert curve.thresholds.tolist() == [0.0]
    assert curve.tp.tolist() == [3]


def test_exact_mode_keeps_values_that_float16_merges() -> None:
    scores = np.array([0.30001, 0.30002, 0.30003], dtype=np.float32)
    labels = np.array([True, False, True])
    assert curve_from_arrays(scores, labels).thresholds.size == 1
    exact = curve_from_arrays(scores, labels, mode="exact")
    np.testing.assert_array_equal(exact.thresholds, scores[::-1].astype(np.float64))
    assert exact.tp.tolist() == [1, 1, 2]


@FAST
@given(scored_voxels(np.float32))
def test_exact_curve_matches_brute_force_counts(data: tuple[np.ndarray, np.ndarray]) -> None:
    scores, labels = data
    curve = curve_from_arrays(scores, labels, mode="exact")
    values = np.clip(scores, np.float32(0), np.float32(1)).astype(np.float64) + 0.0
    thresholds, tp, fp = _brute_curve(values, labels)
    np.testing.assert_array_equal(curve.thresholds, thresholds)
    np.testing.assert_array_equal(curve.tp, tp)
    np.testing.assert_array_equal(curve.fp, fp)


# ----------------------------------------------------------------------------- accumulator


def _assert_same_counts(a: CurveAccumulator, b: CurveAccumulator) -> None:
    assert a.mode == b.mode
    for left, right in zip(a.histogram(), b.histogram(), strict=True):
        np.testing.assert_array_equal(left, right)


@FAST
@given(scored_voxels(np.float32), st.data(), st.sampled_from(["mood", "exact"]))
def test_merging_a_random_split_equals_one_accumulator(
    data: tuple[np.ndarray, np.ndarray], split: st.DataObject, mode: str
) -> None:
    scores, labels = data
    groups = split.draw(hnp.arrays(np.int8, scores.size, elements=st.integers(0, 2)))
    whole = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
    whole.add(scores, labels)
    parts = []
    for group in range(3):
        part = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
        part.add(scores[groups == group], labels[groups == group])
        parts.append(part)
    _assert_same_counts(parts[0].merge(parts[1]).merge(parts[2]), whole)
    _assert_same_counts(merge_accumulators(parts), whole)
    sequential = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
    for group in range(3):
        sequential.add(scores[groups == group], labels[groups == group])
    _assert_same_counts(sequential, whole)


def test_merge_returns_new_accumulator_and_keeps_inputs() -> None:
    a, b = CurveAccumulator(), CurveAccumulator()
    a.add(np.array([0.2, 0.9]), np.array([0, 1]))
    b.add(np.array([0.4]), np.array([1]))
    merged = a.merge(b)
    assert merged is not a and merged is not b
    assert (a.n_total, b.n_total, merged.n_total, merged.n_pos) == (2, 1, 3, 2)


def test_merge_rejects_different_modes_and_empty_lists() -> None:
    with pytest.raises(ValueError, match="different modes"):
        CurveAccumulator().merge(CurveAccumulator(mode="exact"))
    with pytest.raises(ValueError, match="at least one"):
        merge_accumulators([])


def test_mood_histogram_has_fixed_size() -> None:
    acc = CurveAccumulator()
    acc.add(np.random.default_rng(0).random((20, 20, 20)), np.zeros((20, 20, 20), bool))
    values, pos, total = acc.histogram()
    assert values.shape == pos.shape == total.shape == (N_CODES,)
    np.testing.assert_array_equal(values, code_values())
    assert total.sum() == 8000 and pos.sum() == 0


def test_exact_histogram_holds_only_distinct_values() -> None:
    acc = CurveAccumulator(mode="exact")
    acc.add(np.array([0.5, 0.25, 0.5, 0.75]), np.array([1, 0, 0, 1]))
    acc.add(np.array([0.25, 0.1]), np.array([1, 0]))
    values, pos, total = acc.histogram()
    assert values.tolist() == [np.float32(0.1), 0.25, 0.5, 0.75]
    assert pos.tolist() == [0, 1, 1, 1]
    assert total.tolist() == [1, 2, 2, 1]


@pytest.mark.parametrize("mode", ["mood", "exact"])
def test_histogram_round_trip_and_pickle(mode: str) -> None:
    acc = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
    acc.add(np.array([0.1, 0.7, 0.7, 1.2]), np.array([0, 1, 0, 1]))
    restored = CurveAccumulator.from_histogram(*acc.histogram(), mode=mode)  # type: ignore[arg-type]
    _assert_same_counts(restored, acc)
    _assert_same_counts(pickle.loads(pickle.dumps(acc)), acc)
    copy = acc.copy()
    copy.add(np.array([0.5]), np.array([1]))
    assert (acc.n_total, copy.n_total) == (4, 5)
    assert "n_pos=2" in repr(acc)


def test_mood_accumulators_share_the_code_values_also_when_pickled() -> None:
    """An evaluation keeps one accumulator per case and method: no copy of the values."""
    acc = CurveAccumulator()
    acc.add(np.array([0.1, 0.7]), np.array([0, 1]))
    small = len(pickle.dumps(acc))
    for other in (
        CurveAccumulator(),
        acc.copy(),
        CurveAccumulator.from_histogram(*acc.histogram()),
        pickle.loads(pickle.dumps(acc)),
    ):
        assert other._values is code_values()
        with pytest.raises(ValueError):
            other._values[0] = 1.0  # read-only
    assert small < 2 * acc.histogram()[1].nbytes + 4096  # the values are not pickled
    exact = CurveAccumulator(mode="exact")
    exact.add(np.array([0.1, 0.7]), np.array([0, 1]))
    _assert_same_counts(pickle.loads(pickle.dumps(exact)), exact)


def test_histogram_returns_copies() -> None:
    acc = CurveAccumulator()
    acc.add(np.array([0.5]), np.array([1]))
    _, pos, _ = acc.histogram()
    pos[:] = 0
    assert acc.n_pos == 1


def test_from_histogram_validates() -> None:
    values = code_values()
    zeros = np.zeros(N_CODES, dtype=np.int64)
    ones = np.ones(N_CODES, dtype=np.int64)
    with pytest.raises(ValueError, match="0 <= pos <= total"):
        CurveAccumulator.from_histogram(values, ones, zeros)
    with pytest.raises(ValueError, match="same length"):
        CurveAccumulator.from_histogram(values, zeros[:5], zeros)
    with pytest.raises(ValueError, match="code values"):
        CurveAccumulator.from_histogram(values * 0.5, zeros, zeros)
    with pytest.raises(TypeError, match="integer"):
        CurveAccumulator.from_histogram(values, zeros.astype(float), zeros)
    with pytest.raises(ValueError, match="strictly increasing"):
        CurveAccumulator.from_histogram(
            np.array([0.5, 0.2]), np.array([0, 0]), np.array([1, 1]), mode="exact"
        )


def test_add_does_not_modify_inputs() -> None:
    scores = np.array([-0.5, 0.5, 2.0], dtype=np.float16)
    labels = np.array([1, 0, 1])
    before = (scores.copy(), labels.copy())
    for mode in ("mood", "exact"):
        CurveAccumulator(mode=mode).add(scores, labels)  # type: ignore[arg-type]
    np.testing.assert_array_equal(scores, before[0])
    np.testing.assert_array_equal(labels, before[1])


def test_add_handles_non_contiguous_views() -> None:
    scores = np.random.default_rng(1).random((8, 9, 10)).astype(np.float16)
    labels = scores > 0.7
    view_acc, copy_acc = CurveAccumulator(), CurveAccumulator()
    view_acc.add(scores.transpose(2, 0, 1)[::2], labels.transpose(2, 0, 1)[::2])
    copy_acc.add(
        np.ascontiguousarray(scores.transpose(2, 0, 1)[::2]),
        np.ascontiguousarray(labels.transpose(2, 0, 1)[::2]),
    )
    _assert_same_counts(view_acc, copy_acc)


def test_add_counts_every_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    import napari_mood.core.curves as curves

    scores = np.random.default_rng(2).random(1000)
    labels = scores > 0.5
    whole = curve_from_arrays(scores, labels)
    monkeypatch.setattr(curves, "_CHUNK", 64)
    chunked = curve_from_arrays(scores, labels)
    np.testing.assert_array_equal(chunked.tp, whole.tp)
    np.testing.assert_array_equal(chunked.fp, whole.fp)


@pytest.mark.parametrize("mode", ["mood", "exact"])
def test_add_is_independent_of_memory_layout(mode: str) -> None:
    rng = np.random.default_rng(6)
    scores = rng.random((7, 8, 9)).astype(np.float16)
    labels = rng.random((7, 8, 9)) > 0.6
    reference = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
    reference.add(scores, labels)
    for other_scores, other_labels in [
        (np.asfortranarray(scores), np.asfortranarray(labels)),
        (np.asfortranarray(scores), labels),  # mixed layouts
        (scores, np.asfortranarray(labels)),
    ]:
        acc = CurveAccumulator(mode=mode)  # type: ignore[arg-type]
        acc.add(other_scores, other_labels)
        _assert_same_counts(acc, reference)


def test_fortran_float16_scores_are_not_copied() -> None:
    scores = np.asfortranarray(np.random.default_rng(0).random((4, 5, 6)).astype(np.float16))
    codes = to_mood_codes(scores)
    assert np.shares_memory(codes, scores)
    assert memory_order_axes(scores) == (2, 1, 0)
    assert codes.transpose(memory_order_axes(codes)).flags.c_contiguous


# ------------------------------------------------------------- views walked in memory order


def _display_like_views(base: np.ndarray) -> list[np.ndarray]:
    """Views as the viewer holds them: transposed, flipped, Fortran-ordered, sliced."""
    fortran = np.asfortranarray(base)
    return [
        base,
        base[::-1, :, ::-1],
        base.transpose(2, 0, 1)[:, ::-1],
        fortran,
        fortran[::-1].transpose(1, 2, 0),
        base[:, 1:-1, ::2],
    ]


@FAST
@given(st.integers(0, 2**32 - 1), st.sampled_from([np.float16, np.float32, np.float64]))
def test_histograms_of_flipped_and_transposed_views_equal_a_plain_count(seed, dtype) -> None:
    from napari_mood.core.curves import code_histograms

    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 9, size=3))
    scores = rng.uniform(-0.2, 1.2, size=shape).astype(dtype)
    labels = rng.random(shape) < 0.3
    label_views = _display_like_views(labels)
    # the same layout, and labels laid out unlike the scores (each walked by the scores')
    pairs = [*zip(_display_like_views(scores), label_views, strict=True)]
    pairs += [
        (np.ascontiguousarray(s), v)
        for s, v in zip(_display_like_views(scores), label_views[::-1], strict=True)
        if s.shape == v.shape
    ]
    pairs += [(scores[::-1].copy(order="F")[::-1], np.ascontiguousarray(labels)[:, ::-1][:, ::-1])]
    for view_scores, view_labels in pairs:
        codes = to_mood_codes(view_scores)
        np.testing.assert_array_equal(
            codes, np.clip(np.asarray(view_scores, np.float16), 0, 1).view(np.uint16) & 0x7FFF
        )
        pos, total = code_histograms(codes, view_labels)
        flat = np.ascontiguousarray(codes).reshape(-1)
        np.testing.assert_array_equal(total, np.bincount(flat, minlength=N_CODES))
        on = np.ascontiguousarray(view_labels).reshape(-1)
        np.testing.assert_array_equal(pos, np.bincount(flat[on], minlength=N_CODES))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_flipped_display_view_is_scored_without_a_full_size_copy(dtype) -> None:
    """The viewer's maps are flipped views (radiological display): their histograms and
    codes take chunk-sized temporaries, not a copy of the volume."""
    import tracemalloc

    shape = (160, 160, 160)
    scores = np.asfortranarray(np.random.default_rng(0).random(shape, dtype=np.float32))
    view = scores.astype(dtype, order="F")[::-1, :, ::-1].transpose(2, 1, 0)
    labels = np.asfortranarray(np.zeros(shape, dtype=bool))[::-1, :, ::-1].transpose(2, 1, 0)
    acc = CurveAccumulator()
    tracemalloc.start()
    try:
        acc.add(view, labels)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    codes_bytes = 2 * view.size if dtype == np.float32 else 0  # float32 needs its codes
    chunk_work = 6_000_000  # the chunk-sized work arrays (2^18 voxels), any volume size
    assert peak < codes_bytes + chunk_work, peak  # a float16 copy alone is 8.2 MB
    assert acc.n_total == view.size


def test_walking_keeps_0_d_arrays_and_skips_size_1_axes() -> None:
    from napari_mood.core.curves import code_histograms

    codes = to_mood_codes(np.array(0.5, dtype=np.float32))
    assert isinstance(codes, np.ndarray) and codes.shape == () and int(codes) == 14336
    pos, total = code_histograms(codes, np.array(True))
    assert total.sum() == pos.sum() == 1 and total[14336] == 1
    scores = np.random.default_rng(1).random((1, 6, 1, 5)).astype(np.float16)
    labels = np.asfortranarray(scores > 0.5)[:, ::-1]
    pos, total = code_histograms(to_mood_codes(scores), labels)
    flat = scores.view(np.uint16).reshape(-1)
    np.testing.assert_array_equal(total, np.bincount(flat, minlength=N_CODES))
    np.testing.assert_array_equal(
        pos, np.bincount(flat[(scores > 0.5)[:, ::-1].reshape(-1)], minlength=N_CODES)
    )
