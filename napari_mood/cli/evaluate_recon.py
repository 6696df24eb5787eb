"""``napari-mood evaluate-recon``: reconstructions against healthy originals, by degree."""

from __future__ import annotations

import argparse
import sys

from napari_mood.cli._common import ProgressBar
from napari_mood.io.errors import MoodInputError
from napari_mood.io.recon import ReconFolders, degree_cases, find_recon_cases
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.output import Planned, check_apart, check_output_file, check_outputs
from napari_mood.services.recon import (
    ReconEvaluation,
    ReconOptions,
    evaluate_recon,
    planned_map_names,
    recon_inputs,
    write_score_maps,
)
from napari_mood.services.recon_report import format_recon

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


def _check_outputs(args: argparse.Namespace, folders: ReconFolders, names: list[str]) -> None:
    """Every output checked before any work: apart, outside the inputs, usable.

    ``--save-maps`` is a method folder that ``evaluate`` reads whole, so no other output may
    lie anywhere in it (checked with the whole tree as its own), then its files are
    checked one by one (existing ones need ``--force``).
    """
    files = (("--out", args.out), ("--plot", args.plot))
    planned = [Planned(path, what) for what, path in files if path is not None]
    if args.save_maps is not None:
        check_apart([*planned, Planned(args.save_maps, "--save-maps", folder=True, names=None)])
        map_names = tuple(planned_map_names(names))
        planned.append(Planned(args.save_maps, "--save-maps", folder=True, names=map_names))
    check_outputs(planned, inputs=recon_inputs(folders), force=args.force)


_NOTHING_TO_PLOT = "simulate with napari-mood simulate --kind pet --mask, or drop --plot"


def _check_plot(folders: ReconFolders, names: list[str]) -> None:
    """``--plot`` needs simulated cases (names SUBJECT_REGION_degNN)."""
    if not degree_cases(names):
        raise MoodInputError(
            folders.inputs, "no simulated case to plot (names SUBJECT_REGION_degNN)",
            _NOTHING_TO_PLOT,
        )  # fmt: skip


def _check_plotted(args: argparse.Namespace, result: ReconEvaluation) -> None:
    if args.plot is not None and not result.rows:
        raise MoodInputError(
            args.plot, "nothing to plot: every simulated case was skipped", _NOTHING_TO_PLOT
        )


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
    names = find_recon_cases(folders)
    _check_outputs(args, folders, names)
    if args.plot is not None:
        _check_plot(folders, names)
    options = ReconOptions(test=args.test, alpha=args.alpha, scale=args.scale)
    bar = ProgressBar("reconstructions", enabled=not args.quiet)
    result = evaluate_recon(folders, options=options, progress=bar)
    _check_plotted(args, result)  # before anything is written
    text = format_recon(result, args.format)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(
            check_output_file(args.out, inputs=recon_inputs(folders), force=args.force), text
        )
    if args.save_maps is not None:
        written = write_score_maps(result, folders, args.save_maps, force=args.force)
        scale = result.options.scale
        shown = f"{result.dataset_scale():.4g} (dataset)" if scale == "dataset" else str(scale)
        print(
            f"{len(written) // 2} score maps written to {args.save_maps} (residual / {shown})",
            file=sys.stderr,
        )
    if args.plot is not None:
        from napari_mood.services.recon_report import plot_normalised_mse

        plot_normalised_mse(result, args.plot, dpi=args.dpi)
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0
