"""``napari-mood validate``: check a dataset and its methods without scoring."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Sequence

from napari_mood.cli._common import methods_from_args
from napari_mood.io.errors import with_flags
from napari_mood.io.mood import discover_dataset
from napari_mood.io.validate import Problem, validate_dataset
from napari_mood.services.case_scoring import as_evaluated

__all__ = ["main"]


def main(args: argparse.Namespace) -> int:
    """Print every problem found; exit 1 when any is an error (one ``evaluate`` stops on)."""
    dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    found = validate_dataset(dataset, methods_from_args(args, dataset))
    problems = as_evaluated(found, strict=args.strict, nan_policy=args.nan_policy)
    n_err = sum(p.severity == "error" for p in problems)
    sys.stdout.write(_formatted(problems, len(dataset.cases), args.format))
    return 1 if n_err else 0


def _line(problem: Problem) -> str:
    """Return a problem as the command line says it: options as their flags."""
    return with_flags(problem.marked())


def _formatted(problems: Sequence[Problem], n_cases: int, kind: str) -> str:
    """Return the problems as ``--format`` says: lines and a summary, CSV, or JSON."""
    if kind == "json":
        n_err = sum(p.severity == "error" for p in problems)
        data = {
            "cases": n_cases, "errors": n_err, "warnings": len(problems) - n_err,
            "problems": [{"severity": p.severity, "message": _line(p)} for p in problems],
        }  # fmt: skip
        return json.dumps(data, indent=2) + "\n"
    if kind == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["severity", "message"])
        writer.writerows([p.severity, _line(p)] for p in problems)
        return buffer.getvalue()
    n_err = sum(p.severity == "error" for p in problems)
    lines = [f"{p.severity}: {_line(p)}" for p in problems]
    lines.append(f"{n_cases} cases, {n_err} errors, {len(problems) - n_err} warnings")
    return "\n".join(lines) + "\n"
