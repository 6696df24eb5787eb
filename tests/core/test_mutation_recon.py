"""Reconstruction metrics (core.recon) by hand (survivors of scripts/mutation.py)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.recon import recon_metrics, residual_scale


def test_recon_metrics_read_a_0_1_integer_mask_as_a_mask():
    healthy = np.zeros((8, 8))
    recon = np.zeros((8, 8))
    recon[2, 2] = 1.0  # one voxel of 16 differs by 1
    mask = np.zeros((8, 8), dtype=np.int64)
    mask[:4, :4] = 1
    metrics = recon_metrics(healthy, recon, mask, data_range=1.0)
    assert metrics.mse == pytest.approx(1 / 16) and metrics.mae == pytest.approx(1 / 16)


def test_residual_scale_is_computed_in_float64():
    # 0.999-quantile of (0, 1) is 0.999 (float16 would round it to 0.99902)
    scale = residual_scale(np.array([0.0, 1.0], dtype=np.float16), np.ones(2, bool))
    assert scale == pytest.approx(0.999, abs=1e-12)
