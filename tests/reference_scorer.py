"""The official MOOD scoring procedure, re-stated plainly (slow; test and benchmark anchor).

Mirrors the behaviour of MIC-DKFZ/mood ``scripts/evalresults.py`` (``eval_dir``) with
nibabel and scikit-learn: labels ``clip(rint(x), 0, 1) == 1``; maps read with
``get_fdata(dtype=np.float16)``, clipped; a missing, unreadable or wrongly shaped map is
all zeros; a case whose label cannot be read is skipped; sample scores from the first
line, missing / unparsable -> 0; AP pooled with ``average_precision_score``.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import nibabel as nib
import numpy as np
from sklearn.metrics import average_precision_score


def clip_float16(scores: np.ndarray) -> np.ndarray:
    """Scores as the official scorer reads them: float16 (float arithmetic), clipped to [0, 1].

    Independent of :mod:`napari_mood.core.scores` (which clips on the bit pattern).
    """
    with np.errstate(over="ignore"):
        as16 = np.asarray(scores).astype(np.float16)
    return np.clip(as16, 0.0, 1.0) + np.float16(0.0)


def _pixel_case(pred_path: Path, label_path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        label = np.clip(np.rint(nib.load(label_path).get_fdata()).astype(np.int64), 0, 1) == 1
    except Exception:  # noqa: BLE001 - the official scorer skips any case whose label fails
        return None
    try:
        pred = nib.load(pred_path).get_fdata(dtype=np.float16)
        if pred.shape != label.shape:
            raise ValueError("shape")
        pred = np.clip(pred, 0.0, 1.0)
    except Exception:  # noqa: BLE001 - missing / unreadable / wrong shape -> zeros
        pred = np.zeros(label.shape, dtype=np.float16)
    return pred.ravel(), label.ravel()


def _sample_case(pred_path: Path, label_path: Path) -> tuple[float, int] | None:
    try:
        with open(label_path) as handle:
            label = int(handle.readline())
    except Exception:  # noqa: BLE001
        return None
    try:
        with open(pred_path) as handle:
            pred = float(np.clip(float(handle.readline()), 0.0, 1.0))
    except Exception:  # noqa: BLE001
        pred = 0.0
    return pred, label


def case_names(label_dir: Path) -> list[str]:
    return sorted(os.listdir(label_dir))


def official_ap(
    pred_dir: Path, label_dir: Path, *, mode: str = "pixel", cases: list[str] | None = None
) -> float:
    """AP of one method folder as the official scorer computes it."""
    preds, labels = [], []
    for name in cases if cases is not None else case_names(label_dir):
        reader = _pixel_case if mode == "pixel" else _sample_case
        got = reader(Path(pred_dir) / name, Path(label_dir) / name)
        if got is None:
            continue
        p, lab = got
        preds.append(np.atleast_1d(p))
        labels.append(np.atleast_1d(lab))
    return float(average_precision_score(np.concatenate(labels), np.concatenate(preds)))


def official_batch_ap(
    pred_dir: Path, label_dir: Path, *, n_runs: int, n_files: int, seed: int
) -> float:
    """Mean AP over random case batches, as the official ``bootstrap_dir``."""
    names = case_names(label_dir)
    random.seed(seed)
    splits = [random.sample(list(range(len(names))), k=n_files) for _ in range(n_runs)]
    return float(
        np.mean([official_ap(pred_dir, label_dir, cases=[names[i] for i in s]) for s in splits])
    )
