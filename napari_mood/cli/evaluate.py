"""``napari-mood evaluate``: score methods on a MOOD dataset like the official scorer."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from napari_mood.cli._common import ProgressBar, methods_from_args
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.mood import (
    MethodFolder,
    MoodDataset,
    check_labels_for,
    discover_dataset,
    read_splits,
)
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.cache import check_cache_folder
from napari_mood.services.evaluation import (
    DatasetEvaluation,
    EvaluationOptions,
    MoodEvaluation,
    add_statistics,
    check_toy,
    default_tasks,
    evaluate,
    toy_thresholds,
)
from napari_mood.services.formats import format_csv, format_result
from napari_mood.services.output import Inputs, Planned, check_outputs
from napari_mood.services.report import REPORT_FILES, write_report

if TYPE_CHECKING:  # the categories job (matplotlib) is imported only when asked for
    from napari_mood.services.categories import CaseCategory

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


def _toy_thresholds(
    args: argparse.Namespace, methods: Mapping[str, MethodFolder], options: EvaluationOptions
) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MoodInputWarning)
        choice = toy_thresholds(
            args.toy,
            list(methods),
            preds=args.toy_preds,
            options=options,
            workers=args.workers,
            progress=ProgressBar("toy", enabled=not args.quiet),
        )
    if choice.missing:
        raise MoodInputError(
            args.toy_preds or args.toy / "methods",
            f"holds no outputs of {', '.join(choice.missing)} (it has "
            f"{', '.join(choice.available)}), so no threshold can be chosen on it",
            "give the methods' toy outputs with --toy-preds PARENT",
        )
    return choice.thresholds()


def _object_options(
    args: argparse.Namespace, methods: Mapping[str, MethodFolder], options: EvaluationOptions
) -> EvaluationOptions:
    if "object" not in options.tasks or args.threshold != "auto":
        return options
    if args.toy is not None:
        return replace(options, object_threshold=_toy_thresholds(args, methods, options))
    warnings.warn(
        "object threshold chosen on the evaluated cases themselves: the object F1 is "
        "optimistic (give --toy DATASET to choose it on a separate toy set)",
        MoodInputWarning,
        stacklevel=1,
    )
    return options


def _print_stats(found: MoodEvaluation) -> None:
    stats = found.stats
    print(
        f"{stats.computed} case x method results computed, {stats.cached} from cache, "
        f"{stats.cases_read} cases read by {stats.workers or 'cluster'} worker(s) "
        f"({stats.scheduler}), peak worker memory {stats.peak_memory_mb:.0f} MiB",
        file=sys.stderr,
    )


def _check_outputs(args: argparse.Namespace, inputs: Inputs) -> None:
    """Refuse unusable outputs before any work (inputs, existing files, writability, overlap)."""
    if args.cache is not None:  # a cache that cannot be written: a warning, and no cache
        args.cache = check_cache_folder(args.cache, inputs=inputs, what="--cache")
    planned = []
    if args.out is not None:
        planned.append(Planned(args.out, "--out"))
    if args.report is not None:
        planned.append(Planned(args.report, "--report", folder=True, names=REPORT_FILES))
    if args.cache is not None:
        planned.append(Planned(args.cache, "--cache", folder=True, replace=True))
    check_outputs(planned, inputs=inputs, force=args.force)


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


def _read_categories(
    args: argparse.Namespace, dataset: MoodDataset
) -> dict[str, CaseCategory] | None:
    """Return the report's categories (``--categories`` or the dataset's own), read first."""
    if args.report is None:
        return None
    path = args.categories
    default = args.dataset / "categories.csv"
    if path is None and (default.exists() or default.is_symlink()):
        path = default
    if path is None:
        return None
    from napari_mood.services.report import read_case_categories

    return read_case_categories(path, cases=dataset.cases)


def _check_toy(args: argparse.Namespace, options: EvaluationOptions) -> None:
    """Refuse a toy set without pixel labels, before any work."""
    if args.toy is not None and "object" in options.tasks and args.threshold == "auto":
        check_toy(args.toy)


def _inputs(
    args: argparse.Namespace, dataset: MoodDataset, methods: Mapping[str, MethodFolder]
) -> Inputs:
    folders = [args.toy, args.toy_preds]
    return Inputs.of(dataset, methods, folders=folders, files=[args.categories, args.splits])


def main(args: argparse.Namespace) -> int:
    """Run ``evaluate`` with parsed arguments; returns the exit code."""
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    methods = methods_from_args(args, dataset)
    inputs = _inputs(args, dataset, methods)
    _check_outputs(args, inputs)
    options = options_from_args(args, dataset)
    _warn_unused(args, options)
    categories = _read_categories(args, dataset)
    splits = None if args.splits is None else read_splits(args.splits, dataset, options.tasks)
    check_labels_for(dataset, options.tasks)
    _check_toy(args, options)
    options = _object_options(args, methods, options)
    found = evaluate(
        dataset,
        methods=methods,
        options=options,
        workers=args.workers,
        scheduler=args.scheduler,
        cache=args.cache,
        progress=ProgressBar("evaluate", enabled=not args.quiet),
        warn=True,
    )
    if args.verbose:
        _print_stats(found)
    result = add_statistics(
        found.result,
        batches=args.batches,
        batch_size=args.batch_size,
        bootstrap=args.bootstrap,
        seed=args.seed,
        dataset=dataset,
        splits=splits,
    )
    if args.report is not None:
        _write_report(args, result, inputs, categories)
    text = format_result(result, args.format)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(args.out, text, replace=args.force)
    return 0


def _write_report(
    args: argparse.Namespace,
    result: DatasetEvaluation,
    inputs: Inputs,
    categories: Mapping[str, CaseCategory] | None,
) -> None:
    files = write_report(  # matplotlib: checked before the work (parser_mood._evaluate_needs)
        result,
        args.report,
        csv_text=format_csv(result),
        categories=categories,
        n_boot=args.bootstrap or 1000,
        seed=args.seed,
        dpi=args.dpi,
        inputs=inputs,
        force=args.force,
    )
    print(f"report written to {files.html}", file=sys.stderr)
