"""core.objects.components: the rules the full mutation run left open.

label_objects refuses an unknown connectivity and a mask that is not 2-D or 3-D; both
messages are pinned word for word (the check_choice / check_ndim formats, naming the
argument as the signature does), and so is the refusal of a 1-D score map (read_keys names
the score). label_objects takes any non-zero value as foreground (against scikit-image's
labelling of ``mask != 0``). crop_offset is int64 as documented, also for an empty crop.
The Components of an empty mask have zero rows with the mask's number of columns, integer
sizes and boxes like any Components, and an empty prediction's label image is of an
unsigned integer type like every label image.
"""

from __future__ import annotations

import numpy as np
import pytest
from skimage.measure import label

from napari_mood.core.objects.components import crop_offset, find_components, label_objects
from napari_mood.core.objects.match import labelled_match, match_objects


def test_label_objects_refuses_an_unknown_connectivity_by_name():
    with pytest.raises(ValueError) as err:
        label_objects(np.eye(3, dtype=bool), connectivity="corner")
    assert str(err.value) == "connectivity must be one of 'full', 'face'; got 'corner'"


def test_label_objects_refuses_a_1d_mask_naming_the_mask():
    with pytest.raises(ValueError) as err:
        label_objects(np.ones(3, dtype=bool))
    assert str(err.value) == "mask must be 2-D or 3-D, got 1-D with shape (3,)"


def test_label_objects_takes_any_non_zero_value_as_foreground():
    # an int mask holding 1s and 2s: the objects are those of mask != 0, numbered in raster order
    mask = np.array([[2, 2, 0, 0], [0, 0, 0, 1], [0, 3, 0, 1]], dtype=np.uint8)
    labels, n = label_objects(mask, connectivity="face")
    expected = label(mask != 0, connectivity=1)
    assert n == 3
    assert labels.tolist() == expected.tolist()


def test_crop_offset_is_int64_even_for_an_empty_crop():
    # documented "(int64)": a crop with no axis still gives an int64 (not float64) array
    assert crop_offset(()).dtype == np.int64
    assert crop_offset((slice(2, 5), slice(0, 1))).tolist() == [2, 0]


def test_an_empty_mask_has_no_rows_of_sizes_centroids_or_boxes():
    # zero objects in a 3-D mask: 0 sizes, and (0, 3) centroids and boxes
    comp = find_components(np.zeros((2, 3, 4), dtype=bool), "full")
    assert comp.n == 0
    assert comp.sizes.shape == (0,)
    assert comp.centroids.shape == (0, 3)
    assert comp.bbox_lo.shape == (0, 3)
    assert comp.bbox_hi.shape == (0, 3)


def test_an_empty_mask_has_integer_sizes_and_boxes_like_any_mask():
    # sizes are voxel counts and boxes voxel indices: int64 with or without objects
    empty = find_components(np.zeros((3, 3), dtype=bool), "face")
    one = find_components(np.eye(3, dtype=bool), "face")
    assert one.sizes.dtype == np.int64
    assert one.bbox_lo.dtype == np.int64
    assert empty.sizes.dtype == np.int64
    assert empty.bbox_lo.dtype == np.int64
    assert empty.bbox_hi.dtype == np.int64


def test_an_empty_prediction_has_an_unsigned_integer_label_image():
    # nothing flagged and no GT object: the cropped label images are empty ids, not floats
    lm = labelled_match(np.zeros((4, 4)), np.zeros((4, 4), dtype=bool), threshold=0.5)
    assert lm.pred_crop_labels.size == 0
    assert lm.pred_crop_labels.dtype.kind == "u"
    assert lm.gt_crop_labels.dtype.kind == "u"


def test_a_1d_score_map_is_refused_naming_the_score():
    with pytest.raises(ValueError) as err:
        match_objects(np.zeros(3), np.zeros(3, dtype=bool), threshold=0.5)
    assert str(err.value) == "score must be 2-D or 3-D, got 1-D with shape (3,)"
