"""``napari-mood sweep`` and ``sweep-report``: size / contrast sweeps and AP against them."""

from __future__ import annotations

import argparse
import sys

from napari_mood.cli._common import ProgressBar, formatted_csv, methods_from_args
from napari_mood.io.mood import discover_dataset
from napari_mood.services.simulation import PRESETS, SIZE_INTENSITY, default_values

__all__ = ["check_args", "main", "report"]


_OTHER_KIND = {
    "size": (("contrast_values", "--intensities"), ("radius", "--radius")),
    "contrast": (("size_values", "--radii"), ("intensity", "--intensity")),
}


def check_args(args: argparse.Namespace) -> str | None:
    """Return a usage problem: an option of the other sweep kind (checked before any work)."""
    given = [flag for dest, flag in _OTHER_KIND[args.kind] if getattr(args, dest) is not None]
    if not given:
        return None
    other = "contrast" if args.kind == "size" else "size"
    fixed = "--intensity" if args.kind == "size" else "--radius"
    swept = "--radii" if args.kind == "size" else "--intensities"
    verb = "is" if len(given) == 1 else "are"
    return (
        f"{' and '.join(given)} {verb} for the {other} sweep: a {args.kind} sweep varies "
        f"{swept} at one {fixed}"
    )


def main(args: argparse.Namespace) -> int:
    """Write a size or contrast sweep dataset, whole or not at all (output checked first)."""
    from napari_mood.services.sweep import write_sweep_dataset

    info = write_sweep_dataset(
        args.scan,
        args.out,
        getattr(args, f"{args.kind}_values") or default_values(args.kind, args.preset),
        kind=args.kind,
        center=args.center,
        radius=args.radius if args.radius is not None else PRESETS[args.preset].contrast_radius,
        intensity=SIZE_INTENSITY if args.intensity is None else args.intensity,
        seed=args.seed,
        force=args.force,
    )
    for case in info.cases:
        print(
            f"{args.out / 'toy' / case.name}.nii.gz: radius {case.radius:g}, intensity {case.intensity:g}, {case.voxels} anomalous voxels"
        )
    return 0


def report(args: argparse.Namespace) -> int:
    """Evaluate methods on a sweep dataset; write CSV and AP-vs-value figures."""
    from napari_mood.services.sweep_report import write_sweep_report

    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    found = write_sweep_report(
        args.dataset,
        dataset,
        methods_from_args(args, dataset),
        args.out,
        formats=args.plot_formats,
        dpi=args.dpi,
        title=args.title,
        force=args.force,
        progress=ProgressBar("evaluate", enabled=not args.quiet),
    )
    sys.stdout.write(formatted_csv(found.csv, args.format))
    print(f"written: {', '.join(str(p) for p in found.files)}", file=sys.stderr)
    return 0
