"""``napari-mood review-report``: a reader study from review journals (tables, figure)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from napari_mood.services.reader_study import MAX_GAP_S, reader_study
from napari_mood.services.reader_study_report import (
    REPORT_FILES,
    check_study_outputs,
    format_study,
    write_study,
)

__all__ = ["MAX_GAP_MINUTES_DEFAULT", "REPORT_FILES", "check_args", "main"]

MAX_GAP_MINUTES_DEFAULT = MAX_GAP_S / 60


def check_args(args: argparse.Namespace) -> str | None:
    """Return a usage problem (exit 2, before any file is read), or None."""
    seen: dict[str, Path] = {}
    for journal in args.journals:
        key = os.path.realpath(Path(journal).expanduser())  # the path only: nothing is read
        if key in seen:
            return f"journal {journal} given twice"
        seen[key] = journal
    return None


def main(args: argparse.Namespace) -> int:
    """Check the outputs, read the journals, write the tables (and the figure), print."""
    check_study_outputs(args.out, args.journals, plot=args.plot, force=args.force)
    study = reader_study(args.journals, max_gap_s=args.max_gap * 60, warn=not args.quiet)
    write_study(study, args.out, force=args.force)
    if args.plot is not None:
        from napari_mood.services.figures import save_figure
        from napari_mood.services.reader_study_report import plot_study

        save_figure(plot_study(study), args.plot, dpi=args.dpi)
    sys.stdout.write(format_study(study, args.format))
    where = f"{args.out}" + ("" if args.plot is None else f" and {args.plot}")
    print(f"written to {where}", file=sys.stderr)
    return 0
