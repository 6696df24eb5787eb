"""``napari-mood evaluate``: score methods on a MOOD dataset like the official scorer."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from napari_mood.cli._common import ProgressBar, methods_from_args
from napari_mood.core.io import (
    MethodFolder,
    MoodDataset,
    MoodInputError,
    MoodInputWarning,
    check_labels_for,
    discover_dataset,
)
from napari_mood.core.ranking import check_splits
from napari_mood.core.results import DatasetEvaluation, EvaluationOptions, Task
from napari_mood.services.evaluation import (
    FolderEvaluation,
    add_statistics,
    evaluate_folder,
    toy_thresholds,
)
from napari_mood.services.formats import format_csv, format_result
from napari_mood.services.output import (
    Inputs,
    check_output_file,
    check_output_folder,
    write_text_atomic,
)
from napari_mood.services.report import REPORT_FILES

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


def default_tasks(dataset: MoodDataset | None) -> tuple[Task, ...]:
    """Pixel and sample, those whose labels exist (both when none does: the error names both)."""
    if dataset is None:
        return ("pixel", "sample")
    found: tuple[Task, ...] = ("pixel",) if dataset.pixel_labels else ()
    found += ("sample",) if dataset.sample_labels else ()
    return found or ("pixel", "sample")


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


def _print_stats(found: FolderEvaluation) -> None:
    stats = found.stats
    print(
        f"{stats.computed} case x method results computed, {stats.cached} from cache, "
        f"{stats.cases_read} cases read by {stats.workers or 'cluster'} worker(s) "
        f"({stats.scheduler}), peak worker memory {stats.peak_memory_mb:.0f} MiB",
        file=sys.stderr,
    )


def read_splits(path: Path, dataset: MoodDataset, tasks: Sequence[Task]) -> list[list[int]]:
    """An official ``splits.json``: a JSON list of batches of label-folder indices.

    The indices must fit the label folder of each task scored with batches (pixel and
    object tasks use ``pixel/``, the sample task ``sample/``).

    Raises
    ------
    MoodInputError
        When the file cannot be read or its indices do not fit the label folders.
    """
    try:
        splits = json.loads(path.read_text(encoding="utf-8-sig"))
        for task, listing in (("pixel", dataset.pixel_listing), ("sample", dataset.sample_listing)):
            if task in tasks and listing:
                check_splits(splits, len(listing))
    except OSError as exc:
        raise MoodInputError(path, f"cannot be read ({exc.strerror})", "check --splits") from exc
    except (ValueError, TypeError) as exc:
        raise MoodInputError(
            path,
            f"is not an official splits.json for this dataset ({exc})",
            "give a JSON list of batches, each a list of indices into sorted(os.listdir(label folder))",
        ) from exc
    return [list(batch) for batch in splits]


def _check_outputs(args: argparse.Namespace, inputs: Inputs) -> None:
    """Refuse unusable outputs before any work (inputs, existing files, writability)."""
    if args.out is not None:
        check_output_file(args.out, inputs=inputs, force=args.force, what="--out")
    if args.report is not None:
        check_output_folder(
            args.report, inputs=inputs, force=args.force, names=REPORT_FILES, what="--report"
        )
    if args.cache is not None:
        check_output_folder(args.cache, inputs=inputs, force=True, what="--cache")


def _inputs(
    args: argparse.Namespace, dataset: MoodDataset, methods: Mapping[str, MethodFolder]
) -> Inputs:
    extra = [args.toy, args.toy_preds, args.categories]
    return Inputs.of(dataset, methods, folders=extra[:2], files=extra[2:])


def main(args: argparse.Namespace) -> int:
    """Run ``evaluate`` with parsed arguments; returns the exit code."""
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    methods = methods_from_args(args)
    inputs = _inputs(args, dataset, methods)
    _check_outputs(args, inputs)
    options = options_from_args(args, dataset)
    splits = None if args.splits is None else read_splits(args.splits, dataset, options.tasks)
    check_labels_for(dataset, options.tasks)
    options = _object_options(args, methods, options)
    found = evaluate_folder(
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
        _write_report(args, result, inputs)
    text = format_result(result, args.format)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(args.out, text)
    return 0


def _write_report(args: argparse.Namespace, result: DatasetEvaluation, inputs: Inputs) -> None:
    try:
        from napari_mood.services import report
    except ImportError as exc:
        raise MoodInputError(
            None, f"--report needs matplotlib ({exc})", "pip install 'napari-mood[viewer]'"
        ) from exc
    categories_path = args.categories
    if categories_path is None and (args.dataset / "categories.csv").is_file():
        categories_path = args.dataset / "categories.csv"
    categories = report.read_categories(categories_path) if categories_path is not None else None
    files = report.write_report(
        result,
        args.report,
        csv_text=format_csv(result),
        categories=categories,
        n_boot=args.bootstrap or 1000,
        seed=args.seed,
        inputs=inputs,
        force=args.force,
    )
    print(f"report written to {files.html}", file=sys.stderr)
