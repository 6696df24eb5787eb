"""Shared fixtures: tiny NIfTI files and MOOD-layout folders written to tmp_path."""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# CI machines are small and shared: no per-example deadline, no "too slow" health check
settings.register_profile(
    "napari-mood", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("napari-mood")

# Started in the background (`nohup ... &`), Ctrl-C arrives ignored and every child would
# inherit that: the tests that send SIGINT to a command must see it as a user's terminal does
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

WriteNifti = Callable[..., Path]


def write_nifti(path: Path, data: np.ndarray, affine: np.ndarray | None = None) -> Path:
    """Write ``data`` as NIfTI at ``path`` (parents created) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(np.asarray(data), np.eye(4) if affine is None else affine), str(path))
    return path


@pytest.fixture
def nifti(tmp_path: Path) -> WriteNifti:
    """Write a NIfTI file under tmp_path: ``nifti("a/b.nii.gz", data, affine=None)``."""

    def _write(name: str, data: np.ndarray, affine: np.ndarray | None = None) -> Path:
        return write_nifti(tmp_path / name, data, affine)

    return _write


def make_mood_folder(
    root: Path,
    labels: Mapping[str, np.ndarray],
    methods: Mapping[str, Mapping[str, np.ndarray]],
    *,
    sample_labels: Mapping[str, str] | None = None,
    sample_scores: Mapping[str, Mapping[str, str]] | None = None,
    affine: np.ndarray | None = None,
) -> tuple[Path, Path]:
    """Write a MOOD dataset (toy/, toy_label/) and methods under ``root/preds``.

    ``labels`` and ``methods[m]`` are keyed by case stem (``case`` -> ``case.nii.gz``);
    sample files hold the given text verbatim. Returns ``(dataset_dir, preds_dir)``.
    """
    dataset, preds = root / "data", root / "preds"
    for case, mask in labels.items():
        write_nifti(dataset / "toy" / f"{case}.nii.gz", mask.astype(np.float32), affine)
        write_nifti(
            dataset / "toy_label" / "pixel" / f"{case}.nii.gz", mask.astype(np.uint8), affine
        )
    for case, text in (sample_labels or {}).items():
        _write_text(dataset / "toy_label" / "sample" / f"{case}.nii.gz.txt", text)
    for method, maps in methods.items():
        (preds / method).mkdir(parents=True, exist_ok=True)
        for case, data in maps.items():
            write_nifti(preds / method / f"{case}.nii.gz", data, affine)
    for method, scores in (sample_scores or {}).items():
        for case, text in scores.items():
            _write_text(preds / method / f"{case}.nii.gz.txt", text)
    return dataset, preds


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
