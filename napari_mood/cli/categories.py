"""``napari-mood categories``: scores per anomaly category and sub-category, with plots."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from napari_mood.cli._common import ProgressBar, formatted_csv, methods_from_args
from napari_mood.io.errors import MoodInputError
from napari_mood.io.mood import check_labels_for, discover_dataset
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.categories import CategoryScore, Level, Metric
from napari_mood.services.evaluation import EvaluationOptions
from napari_mood.services.output import Inputs, check_output_folder

__all__ = ["main"]

PLOTTED: tuple[Metric, ...] = ("sample_ap", "pixel_ap", "sample_fpr95")
SUMMARISED: tuple[Metric, ...] = ("pixel_ap", "sample_ap", "pixel_fpr95", "sample_fpr95")


def _categories_path(args: argparse.Namespace) -> Path:
    path = args.categories or args.dataset / "categories.csv"
    if not (path.exists() or path.is_symlink()):
        raise MoodInputError(
            path,
            "categories file not found",
            "give --categories CSV (case,category[,subcategory[,order]])",
        )
    return path


def _names(levels: tuple[Level, ...], formats: tuple[str, ...]) -> list[str]:
    plots = [f"{level}_{metric}.{f}" for level in levels for metric in PLOTTED for f in formats]
    return ["category_scores.csv", "category_summary.csv", *plots]


def main(args: argparse.Namespace) -> int:
    """Evaluate, then write per-(sub)category tables and plots into ``--out``."""
    from napari_mood.services.analysis_plots import save_formats
    from napari_mood.services.categories import (
        category_rows,
        plot_categories,
        scores_csv,
        summary_csv,
    )
    from napari_mood.services.evaluation import default_tasks, evaluate
    from napari_mood.services.report import read_case_categories

    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    methods = methods_from_args(args, dataset)
    path = _categories_path(args)
    inputs = Inputs.of(dataset, methods, files=(path,))
    categories = read_case_categories(path, cases=dataset.cases)
    levels: tuple[Level, ...] = ("category",)
    if any(c.subcategory for c in categories.values()):
        levels = ("category", "subcategory")
    out = check_output_folder(
        args.out,
        inputs=inputs,
        force=args.force,
        names=_names(levels, args.plot_formats),
        what="--out",
    )
    tasks = default_tasks(dataset)
    check_labels_for(dataset, tasks)
    found = evaluate(
        dataset,
        methods=methods,
        options=EvaluationOptions(tasks=tasks),
        workers=1,
        progress=ProgressBar("evaluate", enabled=not args.quiet),
        warn=True,
    )
    unknown = sorted(set(categories) - set(found.result.cases))
    if unknown:
        print(
            f"napari-mood: warning: {path}: {len(unknown)} case(s) not in the dataset: {', '.join(unknown[:5])}",
            file=sys.stderr,
        )
    rows: list[CategoryScore] = []
    for level in levels:
        mine = category_rows(found.result, categories, level=level, seed=args.seed)
        rows += mine
        for metric in PLOTTED:
            figure = plot_categories(mine, metric)
            save_formats(figure, out / f"{level}_{metric}", args.plot_formats, dpi=args.dpi)
    write_text_atomic(out / "category_scores.csv", scores_csv(rows), replace=args.force)
    summary = summary_csv(rows, SUMMARISED)
    write_text_atomic(out / "category_summary.csv", summary, replace=args.force)
    sys.stdout.write(formatted_csv(summary, args.format))
    print(f"written to {out}", file=sys.stderr)
    return 0
