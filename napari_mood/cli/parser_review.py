"""Parser of ``napari-mood review-report``: reader studies from review journals."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from napari_mood.cli import review_report
from napari_mood.cli._args import MAX_DPI, _add_force, _dpi, _output
from napari_mood.services.figure_files import FIGURE_FORMATS, check_figure_path

__all__ = ["add_parser"]

EPILOG = """\
example:
  napari-mood review-report reviews/ana.csv reviews/ben.csv --out study --plot study/precision.png
"""
MAX_GAP_MINUTES = 24 * 60.0


def _plot_file(text: str) -> Path:
    """A figure file whose extension napari-mood writes (refused before any work)."""
    try:
        return check_figure_path(_output(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _minutes(text: str) -> float:
    """A positive number of minutes, at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of minutes, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_GAP_MINUTES):
        raise argparse.ArgumentTypeError(
            f"must be a positive number of minutes, at most {MAX_GAP_MINUTES:g}, got {text!r}"
        )
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``review-report`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "review-report",
        help="reader study: verdicts, precision, agreement (kappa), time, disagreements",
        description=(
            "Compare the readers of review journals (the review panel's CSV files): per "
            "reader and method the verdicts and the confirmed share (true / (true + false), "
            "95% Wilson interval), Cohen's kappa per pair and Fleiss' kappa over shared "
            "regions, time per region, and the disagreements as a list to adjudicate."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "journals",
        type=Path,
        nargs="+",
        metavar="JOURNAL",
        help="review files (CSV journals of the review panel; only read)",
    )
    p.add_argument(
        "--out",
        type=_output,
        required=True,
        metavar="DIR",
        help=f"folder of the tables: {', '.join(review_report.REPORT_FILES)}",
    )
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="what is printed: a report (default), the verdict table as CSV, or everything as JSON",
    )
    p.add_argument(
        "--plot",
        type=_plot_file,
        metavar="FILE",
        help=f"precision per method and reader ({'/'.join(f'.{k}' for k in FIGURE_FORMATS)})",
    )
    p.add_argument(
        "--dpi", type=_dpi, default=300, help=f"plot resolution (default 300, at most {MAX_DPI:g})"
    )
    p.add_argument(
        "--max-gap",
        type=_minutes,
        default=review_report.MAX_GAP_MINUTES_DEFAULT,
        metavar="MIN",
        help="a longer pause between two verdicts is a break, not reading time (default 10)",
    )
    _add_force(p, "--out and --plot files")
    p.add_argument("--quiet", action="store_true", help="no warnings on stderr")
    p.set_defaults(func=review_report.main, check=review_report.check_args)
