"""``napari-mood evaluate-recon``: reconstructions against healthy originals, by degree.

The run is one job, :func:`napari_mood.services.recon_report.write_recon_evaluation`
(outputs checked before any work, then evaluated and written); this module parses,
calls and prints.
"""

from __future__ import annotations

import argparse
import sys

from napari_mood.cli._common import ProgressBar
from napari_mood.io.errors import MoodInputError
from napari_mood.io.recon import ReconFolders
from napari_mood.services.recon import ReconOptions
from napari_mood.services.recon_report import ReconOutputs, ReconRun, write_recon_evaluation

__all__ = ["main", "scale_option"]


def scale_option(text: str) -> str | float:
    """``dataset``, ``case`` or a positive number (the score maps' divisor)."""
    if text in ("dataset", "case"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected dataset, case or a positive number, got {text!r}"
        ) from None
    if not (value > 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"a scale must be a positive number, got {text!r}")
    return value


def main(args: argparse.Namespace) -> int:
    """Measure, test, print; write score maps and the plot when asked. Outputs checked first."""
    if args.region is not None and not args.region.is_dir():
        raise MoodInputError(
            args.region, "no such folder of anomaly regions",
            "give the region/ folder simulate --kind pet wrote, or leave --region out",
        )  # fmt: skip
    folders = ReconFolders.of_dataset(
        args.dataset, args.recon, scans=args.scans or "toy", healthy=args.healthy,
        region=args.region, brain_mask=args.brain_mask,
    )  # fmt: skip
    outputs = ReconOutputs(
        out=args.out, format=args.format, save_maps=args.save_maps, plot=args.plot,
        dpi=args.dpi, force=args.force,
    )  # fmt: skip
    run = write_recon_evaluation(
        folders,
        outputs,
        options=ReconOptions(test=args.test, alpha=args.alpha, scale=args.scale),
        progress=ProgressBar("reconstructions", enabled=not args.quiet),
    )
    if args.out is None:
        sys.stdout.write(run.text)
    _print_written(args, run)
    return 0


def _print_written(args: argparse.Namespace, run: ReconRun) -> None:
    if "save_maps" in run.written:
        scale = run.result.options.scale
        shown = f"{run.result.dataset_scale():.4g} (dataset)" if scale == "dataset" else str(scale)
        maps = len(run.written["save_maps"]) // 2
        print(
            f"{maps} score maps written to {args.save_maps} (residual / {shown})",
            file=sys.stderr,
        )
    if "plot" in run.written:
        print(f"plot written to {args.plot}", file=sys.stderr)
