"""``napari-mood sweep`` and ``sweep-report``: size / contrast sweeps and AP against them."""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from napari_mood.cli._common import ProgressBar, methods_from_args
from napari_mood.cli.simulate import scan_inputs, unit_scan
from napari_mood.core.io import MoodInputError, MoodInputWarning, discover_dataset
from napari_mood.core.nifti import read_volume
from napari_mood.core.results import EvaluationOptions
from napari_mood.core.sweep import PRESETS, SIZE_INTENSITY, default_values
from napari_mood.services.output import Inputs, check_output_folder, write_text_atomic

__all__ = ["main", "report"]


def _center(args: argparse.Namespace, scan: np.ndarray) -> tuple[int, ...] | None:
    """``--center``: None (the body's centre of mass), a random body voxel, or i,j,k."""
    if args.center is None or args.center == "body":
        return None
    if args.center == "random":
        body = np.argwhere(scan > 0) if (scan > 0).any() else np.argwhere(np.ones(scan.shape, bool))
        pick = np.random.default_rng(args.seed).integers(len(body))
        return tuple(int(i) for i in body[pick])
    try:
        point = tuple(int(p) for p in args.center.split(","))
    except ValueError as exc:
        raise MoodInputError(
            None, f"--center {args.center!r} is not i,j,k", "give voxel indices, body or random"
        ) from exc
    return point


def main(args: argparse.Namespace) -> int:
    """Write a size or contrast sweep dataset (output checked first)."""
    from napari_mood.services.sweep import sweep_files, write_sweep

    values = getattr(args, f"{args.kind}_values") or default_values(args.kind, args.preset)
    other = "contrast_values" if args.kind == "size" else "size_values"
    if getattr(args, other) is not None:
        raise MoodInputError(
            None,
            f"--{'intensities' if args.kind == 'size' else 'radii'} does not apply to a {args.kind} sweep",
            "use --intensity / --radius for the fixed parameter",
        )
    if args.kind == "size" and args.radius is not None:
        warnings.warn(
            "ignored: --radius is the contrast sweep's radius", MoodInputWarning, stacklevel=1
        )
    if args.kind == "contrast" and args.intensity != SIZE_INTENSITY:
        warnings.warn(
            "ignored: --intensity is the size sweep's intensity", MoodInputWarning, stacklevel=1
        )
    inputs = scan_inputs(args.scan)
    check_output_folder(
        args.out,
        inputs=inputs,
        force=args.force,
        names=sweep_files(args.out, args.kind, len(values)),
        what="--out",
    )
    volume = read_volume(args.scan)
    scan = unit_scan(args.scan, volume.data)  # non-finite refused, rescaling reported
    radius = args.radius if args.radius is not None else PRESETS[args.preset].contrast_radius
    try:
        info = write_sweep(
            scan,
            volume.affine,
            args.out,
            values,
            kind=args.kind,
            source=str(args.scan),
            center=_center(args, scan),
            radius=radius,
            intensity=args.intensity,
            force=args.force,
        )
    except ValueError as exc:
        if isinstance(exc, MoodInputError):
            raise
        raise MoodInputError(
            args.scan, str(exc), "check --center, --radii / --intensities"
        ) from exc
    for case in info.cases:
        print(
            f"{args.out / 'toy' / case.name}.nii.gz: radius {case.radius:g}, intensity {case.intensity:g}, {case.voxels} anomalous voxels"
        )
    return 0


def report(args: argparse.Namespace) -> int:
    """Evaluate methods on a sweep dataset; write CSV and AP-vs-value figures."""
    from napari_mood.services import sweep
    from napari_mood.services.analysis_plots import save_formats
    from napari_mood.services.evaluation import evaluate_folder

    info = sweep.read_sweep(args.dataset)
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    methods = methods_from_args(args, dataset)
    inputs = Inputs.of(dataset, methods)
    names = ["sweep_ap.csv", *(f"sweep_ap.{f}" for f in args.formats)]
    out = check_output_folder(args.out, inputs=inputs, force=args.force, names=names, what="--out")
    found = evaluate_folder(
        dataset,
        methods=methods,
        options=EvaluationOptions(tasks=("pixel",)),
        progress=ProgressBar("evaluate", enabled=not args.quiet),
        warn=True,
    )
    points = sweep.sweep_points(found.result, info)
    write_text_atomic(out / "sweep_ap.csv", sweep.sweep_csv(points, info.kind), replace=args.force)
    figure = sweep.plot_sweep(points, info.kind, title=args.title)
    saved = save_formats(figure, out / "sweep_ap", args.formats)
    sys.stdout.write(sweep.sweep_csv(points, info.kind))
    print(f"written: {out / 'sweep_ap.csv'}, {', '.join(str(p) for p in saved)}", file=sys.stderr)
    return 0
