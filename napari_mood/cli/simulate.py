"""``napari-mood simulate``: read a normal scan, add toy anomalies, write a MOOD-layout dataset."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from napari_mood.core.io import MoodInputError, read_volume
from napari_mood.core.simulate import simulate_cases
from napari_mood.core.writers import write_mood_case

__all__ = ["main"]

KINDS = ("sphere", "cube", "shuffle", "slab", "pet", "mixed")


def _unit_range(data: np.ndarray) -> np.ndarray:
    lo, hi = float(np.nanmin(data)), float(np.nanmax(data))
    if 0.0 <= lo and hi <= 1.0:
        return data
    print(f"rescaling intensities from [{lo:.4g}, {hi:.4g}] to [0, 1]", file=sys.stderr)
    return (np.nan_to_num(data, nan=lo) - lo) / (hi - lo if hi > lo else 1.0)


def main(args: argparse.Namespace) -> int:
    """Write ``--normal`` normal and ``--count`` anomalous cases (``--per-case`` anomalies each)."""
    if args.kind not in KINDS:
        raise MoodInputError(
            None, f"unknown --kind {args.kind!r}", f"choose one of {', '.join(KINDS)}"
        )
    if args.out.resolve() == args.scan.parent.resolve():
        raise MoodInputError(
            args.out, "is the scan's own folder", "write the dataset to a new folder"
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
    paths = [
        write_mood_case(args.out, c.name, c.scan, c.mask, volume.affine, overwrite=args.overwrite)
        for c in cases
    ]
    for case, (scan_path, _, _) in zip(cases, paths, strict=True):
        kinds = ", ".join(a.kind for a in case.anomalies) or "normal"
        print(f"{scan_path}: {kinds}, {int(case.mask.sum())} anomalous voxels")
    return 0
