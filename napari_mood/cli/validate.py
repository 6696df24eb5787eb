"""``napari-mood validate``: check a dataset and its methods without scoring."""

from __future__ import annotations

import argparse

from napari_mood.cli._common import methods_from_args
from napari_mood.core.io import discover_dataset
from napari_mood.core.validate import validate_dataset

__all__ = ["main"]


def main(args: argparse.Namespace) -> int:
    """Print every problem found; exit 1 when any is an error."""
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    problems = validate_dataset(dataset, methods_from_args(args, dataset))
    for problem in problems:
        print(f"{problem.severity}: {problem}")
    n_err = sum(p.severity == "error" for p in problems)
    print(f"{len(dataset.cases)} cases, {n_err} errors, {len(problems) - n_err} warnings")
    return 1 if n_err else 0
