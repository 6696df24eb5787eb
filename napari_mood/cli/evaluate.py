"""``napari-mood evaluate``: score methods on a MOOD dataset like the official scorer.

The run is one job, :func:`napari_mood.services.evaluation_job.write_mood_evaluation`
(outputs checked before any work, then evaluated and written); this module parses,
warns about options that do nothing together, calls the job and prints.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from napari_mood.cli._common import ProgressBar, methods_from_args
from napari_mood.io.errors import MoodInputWarning
from napari_mood.io.mood import MoodDataset, discover_dataset
from napari_mood.services.evaluation import EvaluationOptions, MoodEvaluation, default_tasks
from napari_mood.services.evaluation_job import MoodOutputs, write_mood_evaluation

__all__ = ["main", "options_from_args"]


def options_from_args(
    args: argparse.Namespace, dataset: MoodDataset | None = None
) -> EvaluationOptions:
    """Build :class:`EvaluationOptions` from parsed arguments.

    Without ``--task``: pixel and sample, those whose labels the dataset has.
    """
    threshold = args.threshold if args.threshold is not None else 0.5
    return EvaluationOptions(
        tasks=tuple(args.task) if args.task is not None else default_tasks(dataset),
        mode=args.mode,
        strict=args.strict,
        nan_policy=args.nan_policy,
        sample_from_pixel=args.sample_from_pixel,
        object_threshold=threshold,
        size_window=args.size_window,
        connectivity=args.connectivity,
    )


def _print_stats(found: MoodEvaluation) -> None:
    stats = found.stats
    print(
        f"{stats.computed} case x method results computed, {stats.cached} from cache, "
        f"{stats.cases_read} cases read by {stats.workers or 'cluster'} worker(s) "
        f"({stats.scheduler}), peak worker memory {stats.peak_memory_mb:.0f} MiB",
        file=sys.stderr,
    )


def _warn_unused(args: argparse.Namespace, options: EvaluationOptions) -> None:
    """One warning per option given that does nothing with the others."""
    auto = "object" in options.tasks and args.threshold == "auto"
    unused = {
        "--threshold applies to the object task only (add --task object)": (
            args.threshold is not None and "object" not in options.tasks
        ),
        "--size-window applies to the object task only (add --task object)": (
            args.size_window is not None and "object" not in options.tasks
        ),
        "--toy chooses the object threshold: it needs --task object --threshold auto": (
            args.toy is not None and not auto
        ),
        "--toy-preds goes with --toy (--task object --threshold auto)": (
            args.toy_preds is not None and (args.toy is None or not auto)
        ),
        "--categories is read by --report only": (
            args.categories is not None and args.report is None
        ),
    }
    for message, applies in unused.items():
        if applies:
            warnings.warn(f"ignored: {message}", MoodInputWarning, stacklevel=2)


def main(args: argparse.Namespace) -> int:
    """Run ``evaluate`` with parsed arguments; returns the exit code."""
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    methods = methods_from_args(args, dataset)
    options = options_from_args(args, dataset)
    _warn_unused(args, options)
    outputs = MoodOutputs(
        out=args.out, format=args.format, report=args.report, categories=args.categories,
        dpi=args.dpi, force=args.force,
    )  # fmt: skip
    run = write_mood_evaluation(
        dataset, methods, options, outputs, splits=args.splits, toy=args.toy,
        toy_preds=args.toy_preds, batches=args.batches, batch_size=args.batch_size,
        bootstrap=args.bootstrap, seed=args.seed, workers=args.workers,
        scheduler=args.scheduler, cache=args.cache,
        progress=ProgressBar("evaluate", enabled=not args.quiet),
        toy_progress=ProgressBar("toy", enabled=not args.quiet),
    )  # fmt: skip
    if args.verbose:
        _print_stats(run.evaluation)
    if run.report is not None:
        print(f"report written to {run.report.html}", file=sys.stderr)
    if args.out is None:
        sys.stdout.write(run.text)
    return 0
