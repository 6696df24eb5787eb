"""Per-object records (core.objects.records): rules the full mutation run left open.

Pinned against the documented dtype: ``ObjectRecords.ids`` returns int64 ids
(hand-worked: which object is which kind in a small map), and ``kind_codes`` returns
uint8 codes for the GT objects too (batch E).
"""

from __future__ import annotations

import numpy as np

from napari_mood.core.objects import match_objects


def test_ids_are_int64():
    gt = np.zeros((10, 10), dtype=bool)
    gt[1:4, 1:4] = True
    score = np.where(gt, 0.9, 0.0)
    score[7:9, 6:9] = 0.9  # 6 voxels far from the GT, inside the window (4.5, 18): an FP
    objects = match_objects(score, gt, threshold=0.5).objects
    # raster order of first voxels: the GT block (row 1) is pred id 1, the other one id 2
    tp, fp = objects.ids("pred", ("TP",)), objects.ids("pred", ("FP",))
    assert tp.tolist() == [1] and fp.tolist() == [2]
    assert tp.dtype == np.int64 and fp.dtype == np.int64


def test_gt_kind_codes_are_uint8():
    gt = np.zeros((10, 10), dtype=bool)
    gt[1:4, 1:4] = gt[6:9, 6:9] = True
    score = np.zeros((10, 10))
    score[1:4, 1:4] = 0.9  # only the first GT block is predicted
    objects = match_objects(score, gt, threshold=0.5).objects
    # GT 1 (row 1) is detected: TP (code 1); GT 2 is missed: FN (code 3)
    codes = objects.kind_codes("gt")
    assert codes.tolist() == [1, 3]
    assert codes.dtype == np.uint8
