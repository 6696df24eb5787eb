"""Options of ``demo``, ``view``, ``evaluate``, ``validate`` and ``figure`` (MOOD datasets)."""

from __future__ import annotations

import argparse
from pathlib import Path

from napari_mood.cli._args import (
    MAX_BATCHES,
    MAX_BOOTSTRAP,
    MAX_DPI,
    MAX_FIGURE_CASES,
    WORKERS_PER_CORE,
    _add_method_args,
    _AppendPred,
    _batches,
    _bootstrap,
    _dpi,
    _figure_cases,
    _output,
    _planes,
    _positive,
    _pred_pair,
    _screenshot,
    _size_window,
    _tasks,
    _threshold,
    _width,
    _workers,
    add_dpi,
    add_force,
    add_format,
    add_out,
    add_quiet,
    add_seed,
    deprecated_alias,
)
from napari_mood.cli._common import Need
from napari_mood.cli.parser import Lazy
from napari_mood.services.options import CONVENTIONS, SCORE_MODES
from napari_mood.services.paper import WIDTH_PRESETS

__all__ = ["add_demo", "add_evaluate", "add_figure", "add_validate", "add_view"]

VIEWER_COMMANDS = "napari_mood._napari.commands"
"""Module of the ``demo`` and ``view`` handlers: the napari wing owns them, the command line
names them by string and imports them only when one runs (``cli`` never imports ``_napari``)."""
_VIEWER_EXTRA = "pyqt6"
"""napari and a Qt binding: ``pip install "napari-mood[pyqt6]"``."""


def _viewer_needs(args: argparse.Namespace) -> list[Need]:
    return [("napari", _VIEWER_EXTRA, args.command), ("qtpy.QtCore", _VIEWER_EXTRA, args.command)]


def _evaluate_needs(args: argparse.Namespace) -> list[Need]:
    needs: list[Need] = []
    if args.scheduler is not None:
        needs.append(("distributed", "cluster", "evaluate --scheduler"))
    if args.report is not None:
        needs.append(("matplotlib", None, "evaluate --report"))
    return needs


def _figure_needs(args: argparse.Namespace) -> list[Need]:
    return [("matplotlib", None, "figure")]


def _add_object_task(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("object task (--task object)")
    g.add_argument(
        "--threshold", type=_threshold, metavar="T", help="score threshold: a number or auto"
    )
    g.add_argument(
        "--toy", type=Path, metavar="DATASET", help="dataset to choose the auto threshold on"
    )
    g.add_argument(
        "--toy-preds",
        type=Path,
        metavar="DIR",
        help="the methods' outputs on the --toy dataset (default: its methods/ folder)",
    )
    g.add_argument("--size-window", type=_size_window, metavar="LO,HI", help="sizes in voxels")
    g.add_argument(
        "--connectivity",
        choices=("full", "face"),
        default="full",
        help="voxels joined by faces, edges and corners (full, default) or faces only",
    )


def _add_batches(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("challenge batches and intervals")
    g.add_argument(
        "--batches",
        type=_batches,
        default=0,
        metavar="K",
        help=f"mean AP over K random case batches (at most {MAX_BATCHES:,})",
    )
    g.add_argument(
        "--batch-size", type=_positive, default=20, metavar="N", help="cases per batch (default 20)"
    )
    g.add_argument(
        "--splits",
        type=Path,
        metavar="FILE",
        help="batches from an official splits.json (lists of label-folder indices); "
        "replaces --batches/--seed",
    )
    add_seed(g, "batches and bootstrap")  # type: ignore[arg-type]
    g.add_argument(
        "--bootstrap",
        type=_bootstrap,
        default=0,
        metavar="N",
        help=f"case bootstrap rounds for 95%% CIs (at most {MAX_BOOTSTRAP:,})",
    )


def add_evaluate(p: argparse.ArgumentParser) -> None:
    """Options of ``evaluate``."""
    _add_method_args(p)
    p.add_argument(
        "--task",
        type=_tasks,
        metavar="TASKS",
        help="pixel,sample,object (default: pixel and sample, those whose labels exist)",
    )
    p.add_argument(
        "--mode", choices=SCORE_MODES, default="mood", help="mood: float16 like the scorer"
    )
    _add_policy(p)
    p.add_argument(
        "--sample-from-pixel",
        choices=("max", "mean", "top1"),
        help="sample score of a case without a .txt file, from its pixel map",
    )
    _add_batches(p)
    _add_object_task(p)
    add_format(p)
    add_out(p, "write the result here instead of stdout", metavar="FILE")
    add_force(p, "--out and --report files")
    p.add_argument(
        "--workers",
        type=_workers,
        metavar="N",
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
    add_dpi(p, "--report plot")
    p.add_argument(
        "--verbose", action="store_true", help="print work done, cache hits, peak memory"
    )
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.evaluate:main"), needs=_evaluate_needs)


def _add_policy(p: argparse.ArgumentParser) -> None:
    """``--strict`` and ``--nan-policy``: what ``evaluate`` stops on (``validate`` says the same)."""
    p.add_argument(
        "--strict", action="store_true", help="missing or invalid predictions are errors"
    )
    p.add_argument(
        "--nan-policy", choices=("error", "zero"), default="error", help="what NaN scores mean"
    )


def add_validate(p: argparse.ArgumentParser) -> None:
    """Options of ``validate``."""
    _add_method_args(p)
    _add_policy(p)
    add_format(p, "the problems found")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.validate:main"))


def _add_screenshot(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--screenshot",
        type=_screenshot,
        metavar="PNG",
        help="render the window to this PNG file and exit (needs a display: xvfb-run -a)",
    )
    add_force(p, "--screenshot file")


def add_demo(p: argparse.ArgumentParser) -> None:
    """Options of ``demo``."""
    _add_screenshot(p)
    p.set_defaults(func=Lazy(VIEWER_COMMANDS + ":demo"), needs=_viewer_needs)


def add_view(p: argparse.ArgumentParser) -> None:
    """Options of ``view``."""
    p.add_argument(
        "paths",
        type=Path,
        nargs="+",
        metavar="PATH",
        help="NIfTI files (a scan, its label, score maps), a case's files or a dataset folder",
    )
    p.add_argument(
        "--pred",
        type=_pred_pair,
        action=_AppendPred,
        default=[],
        metavar="[NAME=]DIR",
        help="a method's score maps to open with a dataset; repeat for several",
    )
    _add_screenshot(p)
    p.set_defaults(func=Lazy(VIEWER_COMMANDS + ":view"), needs=_viewer_needs)


def _add_figure_layout(p: argparse.ArgumentParser) -> None:
    presets = ", ".join(f"{name} {mm:g} mm" for name, mm in WIDTH_PRESETS.items())
    p.add_argument(
        "--width",
        type=_width,
        metavar="WIDTH",
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
        "--dpi",
        type=_dpi,
        default=300,
        metavar="DPI",
        help=f"resolution (default 300, at most {MAX_DPI:g})",
    )
    p.add_argument(
        "--annotate", action="store_true", help="write case AP and Dice under each method's cells"
    )
    p.add_argument("--no-crop", action="store_true", help="do not crop the slices to the body")


def add_figure(p: argparse.ArgumentParser) -> None:
    """Options of ``figure``."""
    from napari_mood.cli import figure

    _add_method_args(p)
    add_out(p, "figure file: .png, .svg or .pdf", metavar="FILE", required=True,
            type=figure.figure_file)  # fmt: skip
    add_force(p, "figure files")
    p.add_argument(
        "--cases",
        type=figure.parse_cases,
        metavar="CASES",
        help="CASE,CASE,... one row each (default: the first cases with anomalies)",
    )
    p.add_argument(
        "--planes",
        type=_planes,
        default=("axial",),
        metavar="PLANES",
        help="planes of each case, one row each: axial,coronal,sagittal (default axial)",
    )
    p.add_argument(
        "--slices",
        type=figure.parse_slices,
        metavar="SLICES",
        help="slice per case, or several slices of one case: N,N,... axial, c:N coronal, "
        "s:N sagittal ('auto' chooses: largest GT area, else the top score)",
    )
    p.add_argument(
        "--methods",
        type=figure.parse_methods,
        metavar="NAMES",
        help="method columns, in this order: NAME,NAME,... (default: every method found)",
    )
    threshold = p.add_argument(
        "--threshold",
        dest="thresholds",
        type=figure.parse_thresholds,
        metavar="T",
        help="display threshold: one T, or NAME=T,... per method (default 0.5)",
    )
    deprecated_alias(p, threshold, "--thresholds")
    _add_figure_layout(p)
    p.add_argument(
        "--max-cases",
        type=_figure_cases,
        default=None,
        metavar="N",
        help="cases drawn when --cases is omitted (default: of the first 6 anomalous ones, as "
        f"many as fit a 240-mm page; at most {MAX_FIGURE_CASES})",
    )
    add_quiet(p)
    p.set_defaults(
        func=Lazy("napari_mood.cli.figure:main"), check=figure.check_args, needs=_figure_needs
    )
