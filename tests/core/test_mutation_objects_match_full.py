"""core.objects.match: the rules the full mutation run left open, pinned against hand-worked values.

Pinned here, each against a value worked out by hand or by scikit-image's labelling (never by
other napari_mood code): the 0.5 default threshold of binary maps in both score modes
(binarize_scores, object_labels, labelled_match), exact-mode thresholds reaching the
labelling, a single predicted object matched by IoU, a one-voxel GT's overlap count,
labelled_match's affine, keep_dense=False and connectivity message, the largest id a
pred_labels dtype can hold, and kind_table's uint8 dtype. Also: a match reports the options it
was made with; the messages refusing a wrong-shape or singular affine, a min_iou above 1 and a
non-binary map without threshold, word for word; min_iou 1 is allowed; and a float32 affine or
spacing (as NIfTI headers give) is read in float64, so the voxel volume is the float64 product
of its values.
"""

from __future__ import annotations

import numpy as np
import pytest
from skimage.measure import label

from napari_mood.core.objects.match import (
    binarize_scores,
    kind_table,
    labelled_match,
    match_objects,
    object_labels,
)


def _binary_case() -> tuple[np.ndarray, np.ndarray]:
    # a 2x3 block of ones in a 5x6 map of zeros; the GT is the same block
    score = np.zeros((5, 6))
    score[1:3, 2:5] = 1.0
    return score, score > 0


def test_a_binary_map_in_exact_mode_defaults_to_threshold_one_half():
    # exact mode reads 0.0 / 1.0 as float32 0 / 1: binary, so 0.5 applies and flags the ones
    out = binarize_scores(np.array([[0.0, 1.0, 1.0, 0.0]]), mode="exact")
    assert out.tolist() == [[False, True, True, False]]


def test_a_binary_map_in_mood_mode_defaults_to_threshold_one_half():
    # mood mode reads 1.0 as the float16 code of 1.0: still binary, flagged at 0.5
    out = binarize_scores(np.array([[0.0, 1.0], [1.0, 0.0]]))
    assert out.tolist() == [[False, True], [True, False]]


def test_object_labels_of_a_binary_map_need_no_threshold():
    # the block is one object (id 1) in both images, everything else 0
    score, gt = _binary_case()
    pred_labels, gt_labels = object_labels(score, gt)
    expected = gt.astype(np.uint32)
    np.testing.assert_array_equal(pred_labels, expected)
    np.testing.assert_array_equal(gt_labels, expected)


def test_object_labels_read_an_exact_mode_threshold_as_a_score():
    # scores 0.6 >= 0.5 at three isolated corners: skimage labels them 1, 2, 3 in raster order
    score = np.zeros((4, 5), dtype=np.float32)
    score[0, 0] = score[0, 4] = score[3, 2] = 0.6
    score[2, 0] = 0.4  # below the threshold
    pred_labels, _ = object_labels(score, np.zeros((4, 5)), threshold=0.5, mode="exact")
    np.testing.assert_array_equal(pred_labels, label(score >= 0.5, connectivity=2))
    assert int(pred_labels.max()) == 3


def test_labelled_match_of_a_binary_map_defaults_to_threshold_one_half():
    # prediction = GT block: one TP at the default 0.5, 6 voxels flagged, all on the GT
    score, gt = _binary_case()
    lm = labelled_match(score, gt)
    c = lm.counts
    assert (c.threshold, c.tp, c.fp, c.fn) == (0.5, 1, 0, 0)
    assert (lm.n_flagged, lm.n_overlap) == (6, 6)


def test_labelled_match_reads_an_exact_mode_threshold_as_a_score():
    # 0.7 >= 0.5 on the 2x3 GT block, 0.2 elsewhere: one TP of 6 voxels
    _, gt = _binary_case()
    score = np.where(gt, 0.7, 0.2).astype(np.float32)
    lm = labelled_match(score, gt, threshold=0.5, mode="exact")
    assert (lm.counts.tp, lm.counts.fp, lm.counts.fn) == (1, 0, 0)
    assert (lm.n_flagged, lm.n_overlap) == (6, 6)


def test_a_single_predicted_object_is_matched_by_iou():
    # pred = rows 1..2, GT = rows 1..3 of columns 2..4: IoU 6 / 9 >= 0.1 -> one TP
    gt = np.zeros((6, 6), dtype=bool)
    gt[1:4, 2:5] = True
    score = np.zeros((6, 6))
    score[1:3, 2:5] = 0.9
    m = match_objects(score, gt, threshold=0.5, criterion="iou", size_window=(0, np.inf))
    assert (m.counts.tp, m.counts.fp, m.counts.fn) == (1, 0, 0)


def test_a_one_voxel_gt_object_counts_its_flagged_voxel():
    # GT: the single voxel (2, 3), scored 0.9 as are its two right neighbours
    gt = np.zeros((5, 6), dtype=bool)
    gt[2, 3] = True
    score = np.zeros((5, 6))
    score[2, 3:6] = 0.9
    lm = labelled_match(score, gt, threshold=0.5)
    assert (lm.n_gt, lm.n_flagged, lm.n_overlap) == (1, 3, 1)


def test_labelled_match_records_use_the_affine():
    # affine diag(2, 3): a voxel is 6 mm^2, so the 6-voxel block is 36; its centroid
    # (1.5, 3) maps to (2 * 1.5 + 10, 3 * 3 - 5) = (13, 4)
    score, gt = _binary_case()
    affine = np.array([[2.0, 0.0, 10.0], [0.0, 3.0, -5.0], [0.0, 0.0, 1.0]])
    record = labelled_match(score, gt, affine=affine).match.objects[0]
    assert record.size_mm3 == pytest.approx(36.0)
    assert record.centroid_world == pytest.approx((13.0, 4.0))


def test_labelled_match_without_keep_dense_drops_labels_whose_runs_are_bigger():
    # 255 isolated voxels at even columns of a 1x509 map: 509 runs of 1, each 2 bytes of
    # uint16 value + 4 of uint32 length = 3054 bytes > half of 509 * 2 dense bytes
    score = np.zeros((1, 509))
    score[0, ::2] = 0.9
    lm = labelled_match(score, np.zeros((1, 509)), threshold=0.5, keep_dense=False)
    assert lm.counts.fp == 255
    assert lm.has_labels is False
    with pytest.raises(ValueError) as err:
        _ = lm.pred_crop_labels
    assert str(err.value) == "label image not kept: label again with keep_dense=True"


def test_labelled_match_refuses_an_unknown_connectivity_by_name():
    score, gt = _binary_case()
    with pytest.raises(ValueError) as err:
        labelled_match(score, gt, connectivity="corner")
    assert str(err.value) == "connectivity must be one of 'full', 'face'; got 'corner'"


def test_pred_labels_fit_a_dtype_whose_largest_value_is_the_largest_id():
    # 255 isolated voxels: ids 1..255 as skimage numbers them; 255 is uint8's largest value
    score = np.zeros((1, 509))
    score[0, ::2] = 0.9
    lm = labelled_match(score, np.zeros((1, 509)), threshold=0.5)
    image = lm.pred_labels(dtype=np.uint8)
    assert image.dtype == np.uint8
    np.testing.assert_array_equal(image, label(score >= 0.5, connectivity=2))
    assert lm.pred_labels(dtype=None).dtype == np.uint8  # the smallest type holding 255


def test_kind_table_is_uint8():
    # documented: a uint8 table, index 0 the background, then the GT object's TP code 1
    score, gt = _binary_case()
    table = kind_table(match_objects(score, gt), source="gt")
    assert table.dtype == np.uint8
    assert table.tolist() == [0, 1]


def _one_voxel_case() -> tuple[np.ndarray, np.ndarray]:
    # one flagged voxel at (1, 1) of a 4x4 map, the GT the same voxel
    score = np.zeros((4, 4))
    score[1, 1] = 0.7
    return score, score > 0.5


def test_a_match_reports_the_options_it_was_made_with():
    score, gt = _one_voxel_case()
    m = match_objects(
        score,
        gt,
        threshold=0.5,
        connectivity="face",
        criterion="iou",
        one_to_one=True,
        mode="exact",
    )
    assert (m.connectivity, m.criterion, m.one_to_one, m.mode) == ("face", "iou", True, "exact")


def test_a_wrong_shape_affine_is_refused_naming_the_size_it_needs():
    # 2-D data need a 3x3 affine
    score, gt = _one_voxel_case()
    with pytest.raises(ValueError) as err:
        match_objects(score, gt, threshold=0.5, affine=np.eye(4))
    assert str(err.value) == "affine must be a finite 3x3 matrix for 2-D data; got shape (4, 4)"


def test_a_singular_affine_is_refused_with_the_documented_message():
    score, gt = _one_voxel_case()
    with pytest.raises(ValueError) as err:
        match_objects(score, gt, threshold=0.5, affine=np.zeros((3, 3)))
    assert str(err.value) == "affine is singular (its voxel volume is 0)"


def test_a_float32_affine_gives_the_float64_voxel_volume():
    # diag(a, a) with a = float32(0.7) = 0.699999988079071: volume a*a in float64
    # = 0.4899999833106996 (the float32 determinant would be 0.4899999797344208)
    a = np.float32(0.7)
    score, gt = _one_voxel_case()
    m = match_objects(score, gt, threshold=0.5, affine=np.diag([a, a, np.float32(1)]))
    assert m.objects[0].size_mm3 == float(a) * float(a)
    assert m.objects[0].size_mm3 == 0.4899999833106996


def test_a_float32_spacing_gives_the_float64_voxel_volume():
    # float32 0.7 * float32 0.3 in float64 = 0.21000000476837144 (float32 product 0.2100000083...)
    a, b = np.float32(0.7), np.float32(0.3)
    score, gt = _one_voxel_case()
    m = match_objects(score, gt, threshold=0.5, spacing=np.array([a, b]))
    assert m.objects[0].size_mm3 == float(a) * float(b)
    assert m.objects[0].size_mm3 == 0.21000000476837144


def test_min_iou_one_is_allowed_and_a_perfect_prediction_matches():
    # prediction == GT: IoU 1 >= min_iou 1, one TP
    score, gt = _one_voxel_case()
    m = match_objects(score, gt, threshold=0.5, criterion="iou", min_iou=1.0)
    assert (m.counts.tp, m.counts.fp, m.counts.fn) == (1, 0, 0)


def test_min_iou_above_one_is_refused_with_the_documented_message():
    score, gt = _one_voxel_case()
    with pytest.raises(ValueError) as err:
        match_objects(score, gt, threshold=0.5, criterion="iou", min_iou=1.5)
    assert str(err.value) == "min_iou must be in (0, 1]; got 1.5"


def test_a_non_binary_map_without_threshold_is_refused_with_the_documented_message():
    score, gt = _one_voxel_case()
    with pytest.raises(ValueError) as err:
        match_objects(score, gt)
    assert str(err.value) == (
        "threshold is required for non-binary score maps "
        "(it defaults to 0.5 only for maps with values in {0, 1})"
    )
