"""Parser of ``napari-mood review-report``: reader studies from review journals."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from napari_mood.cli._args import (
    _output,
    add_dpi,
    add_force,
    add_out,
    add_plot,
    add_quiet,
)
from napari_mood.cli._common import Need
from napari_mood.cli.parser import Lazy

__all__ = ["add_review_report"]

MAX_GAP_MINUTES = 24 * 60.0


def _minutes(text: str) -> float:
    """Return a positive number of minutes, at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_GAP_MINUTES):
        raise argparse.ArgumentTypeError(
            f"must be a positive number of minutes, at most {MAX_GAP_MINUTES:g}, got {text!r}"
        )
    return value


def _needs(args: argparse.Namespace) -> list[Need]:
    return [("matplotlib", None, "review-report --plot")] if args.plot is not None else []


def add_review_report(p: argparse.ArgumentParser) -> None:
    """Options of ``review-report``."""
    from napari_mood.cli import review_report

    p.description = (
        "Compare the readers of review journals (the review panel's CSV files): per "
        "reader and method the verdicts and the confirmed share (true / (true + false), "
        "95% Wilson interval), Cohen's kappa per pair and Fleiss' kappa over shared "
        "regions, time per region, and the disagreements as a list to adjudicate."
    )
    p.add_argument(
        "journals",
        type=Path,
        nargs="+",
        metavar="JOURNAL",
        help="review files (CSV journals of the review panel; only read)",
    )
    add_out(
        p,
        f"folder of the tables: {', '.join(review_report.REPORT_FILES)} (not the journals' "
        "own folder: the next study of it would read them as journals)",
        required=True,
        type=_output,
    )  # fmt: skip
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="what is printed: a report (default), the verdict table as CSV, or everything as JSON",
    )
    add_plot(p, "precision per method and reader")
    add_dpi(p, "plot")
    p.add_argument(
        "--max-gap",
        type=_minutes,
        default=review_report.MAX_GAP_MINUTES_DEFAULT,
        metavar="MIN",
        help="a longer pause between two verdicts is a break, not reading time (default 10)",
    )
    add_force(p, "--out and --plot files")
    add_quiet(p)
    p.set_defaults(
        func=Lazy("napari_mood.cli.review_report:main"), check=review_report.check_args,
        needs=_needs,
    )  # fmt: skip
