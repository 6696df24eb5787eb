"""The ``napari-mood`` argument parser: subcommands, options and their value types."""

from __future__ import annotations

import argparse
from pathlib import Path

from napari_mood._version import __version__
from napari_mood.cli import (
    boxes,
    evaluate,
    figure,
    parser_analyses,
    parser_recon,
    parser_review,
    validate,
    viewer,
)
from napari_mood.cli._args import (
    MAX_BATCHES,
    MAX_BOOTSTRAP,
    MAX_DPI,
    MAX_FIGURE_CASES,
    WORKERS_PER_CORE,
    _add_force,
    _add_method_args,
    _AppendPred,
    _batches,
    _bootstrap,
    _count,
    _dpi,
    _figure_cases,
    _figure_file,
    _output,
    _planes,
    _positive,
    _pred_pair,
    _reader_name,
    _screenshot,
    _size_window,
    _tasks,
    _threshold,
    _width,
    _workers,
)
from napari_mood.core.orientation import CONVENTIONS
from napari_mood.core.paper import WIDTH_PRESETS
from napari_mood.core.scores import SCORE_MODES

__all__ = ["build_parser"]


def _add_evaluate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate", help="score methods on a MOOD-layout dataset like the official scorer"
    )
    _add_method_args(p)
    p.add_argument(
        "--task",
        type=_tasks,
        default=None,
        help="pixel,sample,object (default: pixel and sample, those whose labels exist)",
    )
    p.add_argument(
        "--mode", choices=SCORE_MODES, default="mood", help="mood: float16 like the scorer"
    )
    p.add_argument(
        "--strict", action="store_true", help="missing or invalid predictions are errors"
    )
    p.add_argument(
        "--nan-policy", choices=("error", "zero"), default="error", help="what NaN scores mean"
    )
    p.add_argument(
        "--sample-from-pixel", choices=("max", "mean", "top1"), help="sample score when no .txt"
    )
    p.add_argument(
        "--batches",
        type=_batches,
        default=0,
        metavar="K",
        help=f"mean AP over K random case batches (at most {MAX_BATCHES:,})",
    )
    p.add_argument("--batch-size", type=_positive, default=20, help="cases per batch (default 20)")
    p.add_argument(
        "--splits",
        type=Path,
        metavar="FILE",
        help="batches from an official splits.json (lists of label-folder indices); replaces --batches/--seed",
    )
    p.add_argument(
        "--seed", type=_count, default=123, help="seed for batches and bootstrap (default 123)"
    )
    p.add_argument(
        "--bootstrap",
        type=_bootstrap,
        default=0,
        metavar="N",
        help=f"case bootstrap rounds for 95%% CIs (at most {MAX_BOOTSTRAP:,})",
    )
    p.add_argument("--threshold", type=_threshold, default=None, help="object task: FLOAT or auto")
    p.add_argument("--toy", type=Path, help="object task: dataset to choose the auto threshold on")
    p.add_argument(
        "--toy-preds",
        type=Path,
        metavar="PARENT",
        help="object task: the methods' outputs on the --toy dataset (default: TOY/methods)",
    )
    p.add_argument("--size-window", type=_size_window, help="object task: LO,HI in voxels")
    p.add_argument("--connectivity", choices=("full", "face"), default="full", help="object task")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--out", type=_output, help="write the result here instead of stdout")
    _add_force(p, "--out and --report files")
    p.add_argument(
        "--workers",
        type=_workers,
        help=f"local worker processes (default: all cores; at most {WORKERS_PER_CORE} per core)",
    )
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a dask.distributed scheduler")
    p.add_argument(
        "--cache", type=_output, metavar="DIR", help="reuse per-case results stored here"
    )
    p.add_argument(
        "--report", type=_output, metavar="DIR", help="also write CSV, JSON and an HTML report"
    )
    p.add_argument(
        "--categories",
        type=Path,
        metavar="CSV",
        help="case,category file for the report (default: DATASET/categories.csv)",
    )
    p.add_argument(
        "--verbose", action="store_true", help="print work done, cache hits, peak memory"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar and no warnings on stderr")
    p.set_defaults(func=evaluate.main)


def _add_validate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check a dataset and its methods without scoring")
    _add_method_args(p)
    p.set_defaults(func=validate.main)


def _add_viewer(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="open napari with the bundled sample case")
    _add_screenshot(p)
    p.set_defaults(func=viewer.demo)
    p = sub.add_parser("view", help="open files, a case or a dataset in napari")
    p.add_argument("paths", type=Path, nargs="+")
    p.add_argument("--pred", type=_pred_pair, action=_AppendPred, default=[], metavar="[NAME=]DIR")
    _add_screenshot(p)
    p.set_defaults(func=viewer.view)


def _add_screenshot(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--screenshot",
        type=_screenshot,
        metavar="PNG",
        help="render the window to this PNG file and exit (needs a display: xvfb-run -a)",
    )
    _add_force(p, "--screenshot file")


def _add_figure(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "figure", help="draw slices x (scan, ground truth, methods) as a PNG, SVG or PDF figure"
    )
    _add_method_args(p)
    p.add_argument(
        "--out", type=figure.figure_file, required=True, help="figure file: .png, .svg or .pdf"
    )
    _add_force(p, "figure files")
    p.add_argument(
        "--cases",
        type=figure.parse_cases,
        help="CASE,CASE,... one row each (default: the first cases with anomalies)",
    )
    p.add_argument(
        "--planes",
        type=_planes,
        default=("axial",),
        help="planes of each case, one row each: axial,coronal,sagittal (default axial)",
    )
    p.add_argument(
        "--slices",
        type=figure.parse_slices,
        help="slice per case, or several slices of one case: N,N,... axial, c:N coronal, "
        "s:N sagittal ('auto' chooses: largest GT area, else the top score)",
    )
    p.add_argument(
        "--methods",
        type=figure.parse_methods,
        help="method columns, in this order: NAME,NAME,... (default: every method found)",
    )
    p.add_argument(
        "--thresholds",
        type=figure.parse_thresholds,
        help="display thresholds: NAME=T,... or one T (default 0.5)",
    )
    presets = ", ".join(f"{name} {mm:g} mm" for name, mm in WIDTH_PRESETS.items())
    p.add_argument(
        "--width",
        type=_width,
        help=f"printed width: {presets}, or a length (89mm, 3.5in, 8.9cm); text stays 7 pt and "
        "wraps (default: 1.8-inch cells)",
    )
    p.add_argument(
        "--convention",
        choices=CONVENTIONS,
        default="radiological",
        help="radiological: patient's right on the left (default); neurological: on the right",
    )
    p.add_argument(
        "--letters",
        choices=("first", "all", "none"),
        default="first",
        help="orientation letters on the first image of each row (default), on all, or none",
    )
    p.add_argument(
        "--no-letters", dest="letters", action="store_const", const="none", help="--letters none"
    )
    p.add_argument("--no-scale-bar", action="store_true", help="no scale bar")
    p.add_argument(
        "--dpi", type=_dpi, default=300, help=f"resolution (default 300, at most {MAX_DPI:g})"
    )
    p.add_argument(
        "--annotate", action="store_true", help="write case AP and Dice under each method's cells"
    )
    p.add_argument("--no-crop", action="store_true", help="do not crop the slices to the body")
    p.add_argument(
        "--max-cases",
        type=_figure_cases,
        default=6,
        help=f"cases drawn when --cases is omitted (default 6, at most {MAX_FIGURE_CASES})",
    )
    p.set_defaults(func=figure.main, check=figure.check_args)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``napari-mood`` command."""
    parser = argparse.ArgumentParser(
        prog="napari-mood", description="See, score and compare MOOD anomaly-detection outputs."
    )
    parser.add_argument("--version", action="version", version=f"napari-mood {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_viewer(sub)
    _add_evaluate(sub)
    _add_validate(sub)
    parser_recon.add_simulate(sub)
    parser_recon.add_evaluate_recon(sub)
    parser_recon.add_pet_demo(sub)
    _add_figure(sub)
    boxes.add_parser(sub, output=_output, dpi=_dpi, figure=_figure_file, reader=_reader_name)
    parser_analyses.add_run(sub)
    parser_analyses.add_sweep(sub)
    parser_analyses.add_rank(sub)
    parser_analyses.add_categories(sub)
    parser_review.add_parser(sub)
    return parser
