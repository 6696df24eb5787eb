"""``napari-mood rank``: per-dataset rankings, their consensus, stability and toy-vs-test tau."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from napari_mood.cli._common import aligned_csv
from napari_mood.io.errors import MoodInputError
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.output import Inputs, check_output_folder

__all__ = ["main"]


def _inputs(pairs: list[tuple[str, Path]], tasks: tuple[str, ...]) -> list:
    from napari_mood.services.rankings import read_rankings

    found = []
    for label, path in pairs:
        found += read_rankings(path, label=label or None, tasks=tasks)
    return found


def main(args: argparse.Namespace) -> int:
    """Run ``rank`` with parsed arguments; returns the exit code."""
    from napari_mood.services import rankings

    formats = args.plot_formats
    names = ["ranks.csv", "ranks.json"] + (
        [f"rank_stability.{f}" for f in formats] if args.bootstrap else []
    )
    files = [p for _, p in args.results + args.toy]
    if args.out is not None:
        inputs = Inputs(files=tuple(files))
        check_output_folder(args.out, inputs=inputs, force=args.force, names=names, what="--out")
    tests = _inputs(args.results, args.task)
    toys = _inputs(args.toy, args.task)
    if not tests:
        raise MoodInputError(files[0], f"holds no {' or '.join(args.task)} results", "check --task")
    try:
        analysis = rankings.analyse_rankings(
            tests, toys=toys, n_boot=args.bootstrap, seed=args.seed
        )
    except ValueError as exc:
        raise MoodInputError(None, str(exc), "give each results file its own LABEL=") from exc
    text = rankings.rankings_csv(analysis)
    if args.format == "json":
        sys.stdout.write(json.dumps(_rank_data(analysis), indent=2) + "\n")
    else:  # the tau line goes where it cannot break the CSV
        sys.stdout.write(text if args.format == "csv" else aligned_csv(text))
        if analysis.tau_b is not None:
            stream = sys.stderr if args.format == "csv" else sys.stdout
            tau = f"Kendall tau-b (toy consensus vs test consensus): {analysis.tau_b:.4f}"
            print(tau, file=stream)
    if args.out is not None:
        _write(args, analysis, text)
    return 0


def _write(args: argparse.Namespace, analysis, text: str) -> None:  # noqa: ANN001
    from napari_mood.services.analysis_plots import save_formats
    from napari_mood.services.rankings import plot_rank_stability

    out = args.out
    write_text_atomic(out / "ranks.csv", text, replace=args.force)
    data = _rank_data(analysis)
    write_text_atomic(out / "ranks.json", json.dumps(data, indent=2) + "\n", replace=args.force)
    if analysis.bootstrap is not None:
        figure = plot_rank_stability(analysis)
        save_formats(figure, out / "rank_stability", args.plot_formats, dpi=args.dpi)
    print(f"written to {out}", file=sys.stderr)


def _rank_data(analysis) -> dict:  # noqa: ANN001
    """Return what ``ranks.json`` and ``--format json`` hold."""
    tau = analysis.tau_b
    return {
        "rankings": analysis.rankings,
        "scores": analysis.scores,
        "consensus": analysis.consensus,
        "toy_consensus": analysis.toy_consensus,
        "kendall_tau_b": None if tau is None or math.isnan(tau) else tau,
        "bootstrap": None
        if analysis.bootstrap is None
        else {
            "n_boot": int(analysis.bootstrap.shape[0]),
            "seed": analysis.seed,
            "methods": analysis.ordered(),
            "rank_frequencies": analysis.rank_counts().tolist(),
        },
    }
