"""``napari-mood simulate``: read a normal scan, add toy anomalies, write a MOOD-layout dataset."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from napari_mood.core.case import find_case_folder_layout
from napari_mood.core.nifti import read_volume
from napari_mood.core.simulate import simulate_cases
from napari_mood.core.writers import mood_case_files
from napari_mood.services.output import Inputs, check_output_folder
from napari_mood.services.writers import write_files

__all__ = ["KINDS", "main"]

KINDS = ("sphere", "cube", "shuffle", "slab", "pet", "mixed")


def _unit_range(data: np.ndarray) -> np.ndarray:
    lo, hi = float(np.nanmin(data)), float(np.nanmax(data))
    if 0.0 <= lo and hi <= 1.0:
        return data
    print(f"rescaling intensities from [{lo:.4g}, {hi:.4g}] to [0, 1]", file=sys.stderr)
    return (np.nan_to_num(data, nan=lo) - lo) / (hi - lo if hi > lo else 1.0)


def _inputs(scan: Path) -> Inputs:
    """The scan, its folder and, when it lives in a dataset, the whole dataset."""
    layout = find_case_folder_layout(scan.parent)
    dataset = layout.path if layout.kind == "dataset" else None
    return Inputs.of(folders=(scan.parent, dataset), files=(scan,))


def _planned(args: argparse.Namespace) -> list[str]:
    names = [f"{args.prefix}_{i:03d}" for i in range(args.normal + args.count)]
    return [
        part
        for name in names
        for part in (
            f"toy/{name}.nii.gz",
            f"toy_label/pixel/{name}.nii.gz",
            f"toy_label/sample/{name}.nii.gz.txt",
        )
    ]


def main(args: argparse.Namespace) -> int:
    """Write ``--normal`` normal and ``--count`` anomalous cases (``--per-case`` anomalies each).

    The output folder is checked first (not the scan's folder or dataset, no file replaced
    without ``--force``, writable); then the scan is read and the cases are simulated.
    """
    inputs = _inputs(args.scan)
    check_output_folder(
        args.out, inputs=inputs, force=args.force, names=_planned(args), what="--out"
    )
    volume = read_volume(args.scan)
    scan = _unit_range(volume.data.astype(np.float32))
    cases = simulate_cases(
        scan,
        kind=args.kind,
        count=args.per_case,
        n_anomalous=args.count,
        n_normal=args.normal,
        prefix=args.prefix,
        seed=args.seed,
    )
    files = {}
    for case in cases:
        files.update(mood_case_files(args.out, case.name, case.scan, case.mask, volume.affine))
    write_files(files, inputs=inputs, force=args.force)
    for case in cases:
        kinds = ", ".join(a.kind for a in case.anomalies) or "normal"
        print(
            f"{args.out / 'toy' / case.name}.nii.gz: {kinds}, {int(case.mask.sum())} anomalous voxels"
        )
    return 0
