"""``napari-mood sweep`` and ``sweep-report``: size / contrast sweeps and AP against them."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from napari_mood.cli._common import ProgressBar, formatted_csv, methods_from_args
from napari_mood.cli.simulate import scan_inputs, unit_scan
from napari_mood.io.errors import MoodInputError
from napari_mood.io.mood import discover_dataset
from napari_mood.io.nifti import read_volume
from napari_mood.services.evaluation import EvaluationOptions
from napari_mood.services.output import (
    Inputs,
    check_output_folder,
    staged_folder,
    write_text_atomic,
)
from napari_mood.services.simulation import PRESETS, SIZE_INTENSITY, default_values

__all__ = ["check_args", "main", "report"]


def _center(args: argparse.Namespace, scan: np.ndarray) -> tuple[int, ...] | None:
    """``--center``: None (the body's centre of mass), a random body voxel, or i,j,k."""
    if args.center is None or args.center == "body":
        return None
    if args.center == "random":
        body = np.argwhere(scan > 0) if (scan > 0).any() else np.argwhere(np.ones(scan.shape, bool))
        pick = np.random.default_rng(args.seed).integers(len(body))
        return tuple(int(i) for i in body[pick])
    return tuple(args.center)  # voxel indices, parsed by the parser


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
    from napari_mood.services.sweep import write_sweep

    values = getattr(args, f"{args.kind}_values") or default_values(args.kind, args.preset)
    inputs = scan_inputs(args.scan)
    check_output_folder(args.out, inputs=inputs, force=args.force, what="--out")
    radius = args.radius if args.radius is not None else PRESETS[args.preset].contrast_radius
    intensity = SIZE_INTENSITY if args.intensity is None else args.intensity
    with staged_folder(args.out, force=args.force, what="--out", inputs=inputs) as folder:
        volume = read_volume(args.scan)
        scan = unit_scan(args.scan, volume.data)  # non-finite refused, rescaling reported
        try:
            info = write_sweep(
                scan,
                volume.affine,
                folder,
                values,
                kind=args.kind,
                source=str(args.scan),
                center=_center(args, scan),
                radius=radius,
                intensity=intensity,
            )
        except ValueError as exc:
            if isinstance(exc, MoodInputError):
                raise
            raise MoodInputError(args.scan, str(exc), "check --center") from exc
    for case in info.cases:
        print(
            f"{args.out / 'toy' / case.name}.nii.gz: radius {case.radius:g}, intensity {case.intensity:g}, {case.voxels} anomalous voxels"
        )
    return 0


def report(args: argparse.Namespace) -> int:
    """Evaluate methods on a sweep dataset; write CSV and AP-vs-value figures."""
    from napari_mood.services import sweep
    from napari_mood.services.analysis_plots import save_formats
    from napari_mood.services.evaluation import evaluate

    info = sweep.read_sweep(args.dataset)
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    info = sweep.labelled_cases(info, dataset, args.dataset)  # none: an error; some: a warning
    methods = methods_from_args(args, dataset)
    inputs = Inputs.of(dataset, methods)
    names = ["sweep_ap.csv", *(f"sweep_ap.{f}" for f in args.plot_formats)]
    out = check_output_folder(args.out, inputs=inputs, force=args.force, names=names, what="--out")
    found = evaluate(
        dataset,
        methods=methods,
        options=EvaluationOptions(tasks=("pixel",)),
        workers=1,
        progress=ProgressBar("evaluate", enabled=not args.quiet),
        warn=True,
    )
    points = sweep.sweep_points(found.result, info)
    write_text_atomic(out / "sweep_ap.csv", sweep.sweep_csv(points, info.kind), replace=args.force)
    figure = sweep.plot_sweep(points, info.kind, title=args.title)
    saved = save_formats(figure, out / "sweep_ap", args.plot_formats, dpi=args.dpi)
    sys.stdout.write(formatted_csv(sweep.sweep_csv(points, info.kind), args.format))
    print(f"written: {out / 'sweep_ap.csv'}, {', '.join(str(p) for p in saved)}", file=sys.stderr)
    return 0
