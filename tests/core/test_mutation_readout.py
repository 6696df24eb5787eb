"""Threshold readouts (core.readout): objects follow the connectivity (mutation survivors)."""

from __future__ import annotations

import numpy as np

from napari_mood.core.readout import threshold_readout


def test_readout_counts_objects_with_the_given_connectivity():
    # two diagonal voxels: one object with 26/8-neighbours, two with face neighbours
    gt = np.zeros((4, 4), bool)
    gt[1, 1] = gt[2, 2] = True
    scores = np.where(gt, 0.875, 0.0)
    full = threshold_readout(scores, gt, threshold=0.5)
    face = threshold_readout(scores, gt, threshold=0.5, connectivity="face")
    assert full.objects is not None and face.objects is not None
    assert (full.objects.tp, full.objects.fn) == (1, 0)
    assert (face.objects.tp, face.objects.fn) == (2, 0)
