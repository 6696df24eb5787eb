"""``napari-mood categories``: scores per anomaly category and sub-category, with plots.

The job is :func:`napari_mood.services.categories.write_category_report`; this module
finds the categories file, calls it and prints the summary.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from napari_mood.cli._common import ProgressBar, formatted_csv, methods_from_args
from napari_mood.io.errors import MoodInputError
from napari_mood.io.mood import discover_dataset

__all__ = ["main"]


def _categories_path(args: argparse.Namespace) -> Path:
    path = args.categories or args.dataset / "categories.csv"
    if not (path.exists() or path.is_symlink()):
        raise MoodInputError(
            path,
            "categories file not found",
            "give --categories CSV (case,category[,subcategory[,order]])",
        )
    return path


def main(args: argparse.Namespace) -> int:
    """Evaluate, then write per-(sub)category tables and plots into ``--out``."""
    from napari_mood.services.categories import write_category_report

    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    found = write_category_report(
        dataset,
        methods_from_args(args, dataset),
        _categories_path(args),
        args.out,
        formats=args.plot_formats,
        dpi=args.dpi,
        seed=args.seed,
        force=args.force,
        progress=ProgressBar("evaluate", enabled=not args.quiet),
    )
    sys.stdout.write(formatted_csv(found.summary, args.format))
    print(f"written to {found.folder}", file=sys.stderr)
    return 0
