"""The folder evaluation against numbers worked out by hand and by independent code.

The dataset is built so that every metric can be counted on paper (see ``hand_worked``);
each expectation is also checked against the restated official scorer, scikit-learn or
scipy, never against another napari-mood entry point (which would share the code's path).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import ndimage
from sklearn.metrics import average_precision_score, roc_auc_score

from napari_mood.services.evaluation import evaluate
from tests.conftest import make_mood_folder
from tests.reference_scorer import clip_float16, official_ap

SHAPE = (8, 9, 10)  # 720 voxels a case
BOX = (slice(1, 4), slice(1, 4), slice(1, 4))  # the GT object of c0..c2: 27 voxels
FAR = (slice(5, 8), slice(5, 8), slice(6, 9))  # 27 voxels, 1 voxel away from BOX
SPOT = (7, 0, 9)  # one voxel, far from both


def _case(inside: float, *, gt: bool = True, far: bool = False, spot: bool = False):
    """(label, map): background 0.1, ``inside`` on the GT box, 0.9 on FAR / SPOT if asked."""
    label = np.zeros(SHAPE, bool)
    scores = np.full(SHAPE, 0.1, np.float32)
    if gt:
        label[BOX] = True
        scores[BOX] = inside
    if far:
        scores[FAR] = 0.9
    if spot:
        scores[SPOT] = 0.9
    return label, scores


@pytest.fixture
def hand_worked(tmp_path: Path) -> tuple[Path, Path]:
    """Four cases of method ``a`` at the default object threshold 0.5:

    - c0: the GT box found (0.9) and a same-sized false object FAR (0.9): 1 TP, 1 FP;
    - c1: the GT box scored 0.3, under the threshold: 1 FN;
    - c2: the GT box found and a 1-voxel SPOT (0.9), outside the size window
      (0.5 x 27, 2 x 27) voxels: 1 TP, the spot discarded;
    - c3: no GT object, nothing above 0.1.

    Sample task: labels 1, 1, 1, 0 with scores 0.8, 0.4, 0.6, 0.5.
    """
    cases = {
        "c0": _case(0.9, far=True),
        "c1": _case(0.3),
        "c2": _case(0.9, spot=True),
        "c3": _case(0.1, gt=False),
    }
    return make_mood_folder(
        tmp_path,
        {name: label for name, (label, _) in cases.items()},
        {"a": {name: scores for name, (_, scores) in cases.items()}},
        sample_labels={"c0": "1", "c1": "1", "c2": "1", "c3": "0"},
        sample_scores={"a": {"c0": "0.8", "c1": "0.4", "c2": "0.6", "c3": "0.5"}},
    )


def _method(data: Path, preds: Path, *tasks: str) -> dict:
    """The JSON-able summary of method ``a`` (the result's public, documented shape)."""
    found = evaluate(data, preds, tasks=tasks, warn=False)
    return found.to_dict()["methods"]["a"]


def _pooled(data: Path, preds: Path) -> tuple[np.ndarray, np.ndarray]:
    """Every voxel's label and float16-clipped score, read with nibabel (not napari-mood)."""
    import nibabel as nib

    names = sorted(p.name for p in (data / "toy_label" / "pixel").iterdir())
    labels = [nib.load(data / "toy_label" / "pixel" / n).get_fdata() > 0.5 for n in names]
    maps = [clip_float16(nib.load(preds / "a" / n).get_fdata()) for n in names]
    return np.concatenate([x.ravel() for x in labels]), np.concatenate([m.ravel() for m in maps])


def test_pixel_metrics_equal_hand_worked_values(hand_worked):
    data, preds = hand_worked
    pixel = _method(data, preds, "pixel")["pixel"]
    # 81 GT voxels: 54 at 0.9 (with 28 false voxels: FAR + SPOT), 27 at 0.3; 2799 negatives
    # at 0.1. AP = recall step x precision: 54/81 * 54/82 + 27/81 * 81/109.
    ap = 54 / 81 * 54 / 82 + 27 / 81 * 81 / 109
    assert pixel["ap"] == pytest.approx(ap, abs=1e-12)
    assert pixel["ap"] == pytest.approx(official_ap(preds / "a", data / "toy_label" / "pixel"))
    # AUROC = P(positive > negative) + P(tie) / 2 over the 81 x 2799 pairs
    auroc = (54 * (2771 + 28 / 2) + 27 * 2771) / (81 * 2799)
    assert pixel["auroc"] == pytest.approx(auroc, abs=1e-12)
    labels, scores = _pooled(data, preds)
    assert labels.sum() == 81 and labels.size - labels.sum() == 2799
    assert pixel["ap"] == pytest.approx(average_precision_score(labels, scores), abs=1e-12)
    assert pixel["auroc"] == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)


def test_pixel_dice_and_fpr95_equal_hand_worked_values(hand_worked):
    data, preds = hand_worked
    pixel = _method(data, preds, "pixel")["pixel"]
    # thresholds 0.9: TP 54, FP 28, FN 27 -> 108/163; 0.3: TP 81, FP 28 -> 162/190 (best)
    assert pixel["best_dice"] == pytest.approx(2 * 81 / (2 * 81 + 28), abs=1e-9)
    assert 0.1 < pixel["best_dice_threshold"] <= 0.3 + 1e-3
    # a TPR of 95 % needs every GT voxel (54/81 < 0.95): the threshold 0.3 lets 28 negatives in
    assert pixel["fpr95"] == pytest.approx(28 / 2799, abs=1e-12)


def test_sample_metrics_equal_hand_worked_values(hand_worked):
    data, preds = hand_worked
    sample = _method(data, preds, "sample")["sample"]
    # ranked 0.8(+) 0.6(+) 0.5(-) 0.4(+): AP = 1/3 * (1 + 1 + 3/4); AUROC: 2 of 3 pairs
    assert sample["ap"] == pytest.approx(11 / 12, abs=1e-12)
    assert sample["auroc"] == pytest.approx(2 / 3, abs=1e-12)
    expected = official_ap(preds / "a", data / "toy_label" / "sample", mode="sample")
    assert sample["ap"] == pytest.approx(expected, abs=1e-12)


def test_object_counts_equal_hand_worked_values(hand_worked):
    data, preds = hand_worked
    found = _method(data, preds, "object")["object"]
    assert (found["tp"], found["fp"], found["fn"]) == (2, 1, 1)
    assert found["threshold"] == 0.5
    assert found["size_window"] == [13.5, 54.0]
    assert found["f1"] == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    assert found["precision"] == pytest.approx(2 / 3)
    assert found["recall"] == pytest.approx(2 / 3)


def test_object_components_agree_with_scipy(hand_worked):
    """The hand count above rests on the components scipy finds at 0.5 (26-connectivity)."""
    data, preds = hand_worked
    _, scores = _pooled(data, preds)
    sizes = []
    for case in np.split(scores, 4):
        labelled, n = ndimage.label(case.reshape(SHAPE) > 0.5, structure=np.ones((3, 3, 3)))
        sizes.append(sorted(np.bincount(labelled.ravel())[1:].tolist()) if n else [])
    assert sizes == [[27, 27], [], [1, 27], []]
