"""``napari-mood rank``: per-dataset rankings, their consensus, stability and toy-vs-test tau.

The job is :func:`napari_mood.services.rankings.rank_results`; this module calls it and
prints the ranks as a table, CSV or JSON.
"""

from __future__ import annotations

import argparse
import json
import sys

from napari_mood.cli._common import aligned_csv

__all__ = ["main"]


def main(args: argparse.Namespace) -> int:
    """Run ``rank`` with parsed arguments; returns the exit code."""
    from napari_mood.services.rankings import rank_results, rankings_csv

    analysis = rank_results(
        args.results,
        toys=args.toy,
        tasks=args.task,
        n_boot=args.bootstrap,
        seed=args.seed,
        out=args.out,
        formats=args.plot_formats,
        dpi=args.dpi,
        force=args.force,
    )
    text = rankings_csv(analysis)
    if args.format == "json":
        sys.stdout.write(json.dumps(analysis.to_dict(), indent=2) + "\n")
    else:  # the tau line goes where it cannot break the CSV
        sys.stdout.write(text if args.format == "csv" else aligned_csv(text))
        if analysis.tau_b is not None:
            stream = sys.stderr if args.format == "csv" else sys.stdout
            tau = f"Kendall tau-b (toy consensus vs test consensus): {analysis.tau_b:.4f}"
            print(tau, file=stream)
    if args.out is not None:
        print(f"written to {args.out}", file=sys.stderr)
    return 0
