"""The thresholds panel's texts (pure functions of the napari wing, no viewer)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood._napari.widgets.threshold_texts import best_text, readout_text
from napari_mood.services.evaluation import ThresholdChoice
from napari_mood.services.readouts import best_on_case, compute_readouts, compute_voxel_readouts
from napari_mood.services.snapshots import MapSnapshot


@pytest.fixture
def case() -> tuple[np.ndarray, dict[str, np.ndarray]]:
    gt = np.zeros((6, 12, 12), bool)
    gt[2:4, 3:7, 3:7] = True  # 32 voxels
    half = np.where(gt, 0.9, 0.0)
    half[2] = 0.0  # 16 of the 32 GT voxels flagged: Dice = 2 * 16 / (16 + 32)
    return gt, {"good": np.where(gt, 0.9, 0.0), "half": half}


def test_readout_text_says_voxels_dice_and_objects(case):
    gt, maps = case
    readouts = compute_readouts([MapSnapshot(n, m, 0.5) for n, m in maps.items()], gt)
    assert readout_text(readouts["good"]).splitlines() == [
        "32 voxels · 3.70 %",  # 32 of 864
        "Dice 1.000 · objects TP 1 · FP 0 · FN 0",
    ]
    assert readout_text(readouts["half"]).splitlines()[1].startswith("Dice 0.667")
    no_gt = compute_readouts([MapSnapshot("good", maps["good"], 0.5)], None)["good"]
    assert readout_text(no_gt).endswith("no ground truth: counts only")
    voxels = compute_voxel_readouts([MapSnapshot("good", maps["good"], 0.5)], gt)["good"]
    assert readout_text(voxels).endswith("objects: counting…")


def test_best_text_lists_found_and_missing_methods(case):
    gt, maps = case
    choice = best_on_case(maps, gt, "dice")
    text = best_text(ThresholdChoice(choice.best, "this case", ("x",), ("good",)))
    lines = text.splitlines()
    assert lines[0] == "On this case:"
    assert lines[1].startswith("good: ") and lines[1].endswith("(Dice 1.000)")
    assert lines[-1] == "No folder for x under methods/ (has good): left unchanged."
