"""``napari-mood sweep`` and ``sweep-report``: size / contrast sweeps and AP against them."""

from __future__ import annotations

import argparse
import sys

from napari_mood.cli._common import ProgressBar, formatted_csv, methods_from_args
from napari_mood.io.mood import discover_dataset
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.evaluation import EvaluationOptions
from napari_mood.services.output import Inputs, check_output_folder
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
