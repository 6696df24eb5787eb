"""The official MOOD scoring procedure, re-stated plainly (slow; test and benchmark anchor).

Mirrors the behaviour of MIC-DKFZ/mood ``scripts/evalresults.py`` (``eval_dir``) with
nibabel and scikit-learn: labels ``clip(rint(x), 0, 1) == 1``; maps read with
``get_fdata(dtype=np.float16)``, clipped; a missing, unreadable or wrongly shaped map is
all zeros; a case whose label cannot be read is skipped; sample scores from the first
line, missing / unparsable -> 0; AP pooled with ``average_precision_score``; batches as
``bootstrap_dir`` over the full ``sorted(os.listdir(label_dir))`` listing.
"""

from __future__ import annotations

import json
import os
import random
import warnings
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
    """``process_file_pixelwise``; None where the official raises CouldNotProcessException."""
    try:
        label = np.clip(np.rint(nib.load(label_path).get_fdata()).astype(np.int64), 0, 1) == 1
    except Exception:  # noqa: BLE001 - the official scorer skips any case whose label fails
        return None
    try:
        if not os.path.exists(pred_path):
            raise FileNotFoundError(pred_path)
        pred = nib.load(pred_path).get_fdata(dtype=np.float16)
        if pred.shape != label.shape:
            raise ValueError("shape")
        pred = np.clip(pred, 0.0, 1.0)
    except Exception:  # noqa: BLE001 - missing / unreadable / wrong shape -> zeros
        pred = np.zeros(label.shape, dtype=np.float16)
    return pred.ravel(), label.ravel()


def _sample_case(pred_path: Path, label_path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """``process_file_samplewise``: the label is ``int`` of the first line, NOT clipped."""
    try:
        with open(label_path) as handle:
            label = int(handle.readline())
    except Exception:  # noqa: BLE001 - unreadable / stray entry: skipped
        return None
    try:
        with open(pred_path) as handle:
            pred = float(np.clip(float(handle.readline()), 0.0, 1.0))
    except Exception:  # noqa: BLE001 - missing / unparsable prediction -> 0
        pred = 0.0
    return np.array([pred]), np.array([label])


def case_names(label_dir: Path) -> list[str]:
    """The official listing: every entry, hidden and stray ones included."""
    return sorted(os.listdir(label_dir))


def eval_list(pred_paths: list[Path], label_paths: list[Path], *, mode: str = "pixel") -> float:
    """``eval_list``: pool the readable cases; ValueError when none is (np.concatenate)."""
    reader = _pixel_case if mode == "pixel" else _sample_case
    preds, labels = [], []
    for pred_path, label_path in zip(pred_paths, label_paths, strict=True):
        got = reader(Path(pred_path), Path(label_path))
        if got is None:
            continue
        preds.append(got[0])
        labels.append(got[1])
    label_vals = np.concatenate(labels, axis=0)
    pred_vals = np.concatenate(preds, axis=0)
    with warnings.catch_warnings():  # the official prints "No positive class found" and goes on
        warnings.simplefilter("ignore", UserWarning)
        return float(average_precision_score(label_vals, pred_vals))


def official_ap(
    pred_dir: Path, label_dir: Path, *, mode: str = "pixel", cases: list[str] | None = None
) -> float:
    """AP of one method folder as the official scorer computes it (``eval_dir``)."""
    names = cases if cases is not None else case_names(label_dir)
    return eval_list(
        [Path(pred_dir) / n for n in names], [Path(label_dir) / n for n in names], mode=mode
    )


def official_bootstrap_dir(
    pred_dir: Path,
    label_dir: Path,
    *,
    splits_file: Path | None = None,
    n_runs: int = 10,
    n_files: int = 2,
    seed: int = 123,
    mode: str = "pixel",
    empty_batch: str = "raise",
) -> tuple[float, list[float], list[list[int]]]:
    """``bootstrap_dir``: (mean, per-batch APs, the splits it used).

    Seeds the GLOBAL ``random`` module as the official does; batches index the full
    listing (numpy fancy indexing, so negative indices wrap); a batch whose entries are all
    unreadable raises ValueError as in the official (``empty_batch="raise"``), or, with
    ``empty_batch="nan"``, scores NaN and is left out of the mean (napari-mood's documented
    choice where the official crashes).
    """
    random.seed(seed)
    names = case_names(label_dir)
    preds = np.array([os.path.join(pred_dir, n) for n in names])
    labels = np.array([os.path.join(label_dir, n) for n in names])
    if splits_file is not None:
        with open(splits_file) as handle:
            split_list = json.load(handle)
    else:
        idx_list = list(range(len(labels)))
        split_list = [random.sample(idx_list, k=n_files) for _ in range(n_runs)]
    scores = [_batch(list(preds[s]), list(labels[s]), mode, empty_batch) for s in split_list]
    return float(np.nanmean(scores)), scores, split_list


def _batch(preds: list[Path], labels: list[Path], mode: str, empty_batch: str) -> float:
    try:
        return eval_list(preds, labels, mode=mode)
    except ValueError as exc:
        if empty_batch == "nan" and "at least one array" in str(exc):
            return float("nan")
        raise


def official_batch_ap(
    pred_dir: Path, label_dir: Path, *, n_runs: int, n_files: int, seed: int, mode: str = "pixel"
) -> float:
    """Mean AP over random case batches, as the official ``bootstrap_dir``."""
    return official_bootstrap_dir(
        pred_dir, label_dir, n_runs=n_runs, n_files=n_files, seed=seed, mode=mode
    )[0]
