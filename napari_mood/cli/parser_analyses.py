"""Parsers of the MOOD paper's analyses: ``run``, ``sweep``, ``sweep-report``, ``rank``, ``categories``."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from napari_mood.cli import (
    categories,
    rank,
    run,
    sweep,
)
from napari_mood.cli._args import (
    MAX_BOOTSTRAP,
    _add_force,
    _add_method_args,
    _bootstrap,
    _center,
    _count,
    _intensities,
    _output,
    _radii,
    _radius,
)
from napari_mood.core.sweep import PRESETS, SWEEP_KINDS
from napari_mood.services.run_method import split_command

__all__ = ["add_categories", "add_rank", "add_run", "add_sweep"]


def _seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _method_command(text: str) -> str:
    """A method's command that splits like a shell line (not empty, quotes balanced)."""
    try:
        split_command(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run a method the MOOD docker way (CMD INPUT OUTPUT), case by case, with a time limit",
    )
    p.add_argument(
        "command",
        type=_method_command,
        help="the method: 'CMD' is called as CMD INPUT_FOLDER OUTPUT_FOLDER, or with "
        "{input} / {output} placeholders (e.g. a docker run line)",
    )
    p.add_argument("--input", type=Path, required=True, help="folder of scans (read-only)")
    p.add_argument("--output", type=_output, required=True, help="folder for the method's outputs")
    p.add_argument(
        "--task", choices=("pixel", "sample"), default="pixel", help="what the method writes"
    )
    p.add_argument(
        "--time-limit", type=_seconds, default=600.0, help="seconds per case (default 600, as MOOD)"
    )
    p.add_argument("--json", type=_output, metavar="FILE", help="also write the run as JSON")
    _add_force(p, "outputs")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run.main)


def _formats(text: str) -> tuple[str, ...]:
    kinds = tuple(dict.fromkeys(t.strip().lower() for t in text.split(",") if t.strip()))
    if not kinds or any(k not in ("png", "svg", "pdf") for k in kinds):
        raise argparse.ArgumentTypeError(f"expected png,svg,pdf (any of them), got {text!r}")
    return kinds


def _unit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {text!r}")
    return value


def add_sweep(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep",
        help="write a size or contrast sweep: one sphere at a fixed place, one case per value",
    )
    p.add_argument("kind", choices=SWEEP_KINDS, help="size: radii; contrast: intensities")
    p.add_argument("scan", type=Path, help="a normal scan (.nii / .nii.gz)")
    p.add_argument(
        "--out",
        type=_output,
        required=True,
        help="output dataset folder: new or empty (written whole)",
    )
    p.add_argument(
        "--preset",
        choices=tuple(PRESETS),
        default="brain",
        help="default radii: brain 0-80 step 5, abdomen 0-160 step 10; contrast radius 20 / 40",
    )
    p.add_argument(
        "--radii",
        dest="size_values",
        type=_radii,
        help="size sweep: R,R,... or START:STOP:STEP, radii 0 to 1,000 voxels, each once "
        "(at most 1,000 values)",
    )
    p.add_argument(
        "--intensities",
        dest="contrast_values",
        type=_intensities,
        help="contrast sweep: V,V,... or START:STOP:STEP in [0, 1] (default 0:1:0.05)",
    )
    p.add_argument("--radius", type=_radius, help="contrast sweep: sphere radius (default: preset)")
    p.add_argument("--intensity", type=_unit, help="size sweep: sphere intensity (default 1.0)")
    p.add_argument(
        "--center",
        type=_center,
        help="i,j,k voxel; body (default: the body's centre of mass); random (a body voxel, --seed)",
    )
    p.add_argument("--seed", type=_count, default=0, help="seed of --center random (default 0)")
    _add_force(p, "generated dataset, as a whole")
    p.set_defaults(func=sweep.main, check=sweep.check_args)
    p = sub.add_parser("sweep-report", help="AP against radius / intensity per method (CSV + plot)")
    _add_method_args(p)
    p.add_argument("--out", type=_output, required=True, help="folder for sweep_ap.csv / .png ...")
    p.add_argument(
        "--formats", type=_formats, default=("png", "svg", "pdf"), help="png,svg,pdf (default all)"
    )
    p.add_argument("--title", help="plot title")
    _add_force(p, "report files")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=sweep.report)


def _labelled(text: str) -> tuple[str, Path]:
    """``LABEL=FILE`` or ``FILE`` (labelled by the dataset name inside)."""
    label, sep, path = text.partition("=")
    if not sep:
        return "", Path(text)
    if not label or not path:
        raise argparse.ArgumentTypeError(f"expected LABEL=FILE or FILE, got {text!r}")
    return label, Path(path)


def _rank_tasks(text: str) -> tuple[str, ...]:
    tasks = tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
    if not tasks or any(t not in ("pixel", "sample") for t in tasks):
        raise argparse.ArgumentTypeError(f"tasks are pixel, sample (comma separated), got {text!r}")
    return tasks


def add_rank(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rank",
        help="rank methods per dataset and task (batch-mean AP), consensus, bootstrap, toy-vs-test tau",
    )
    p.add_argument(
        "results",
        type=_labelled,
        nargs="+",
        metavar="[LABEL=]RESULTS.json",
        help="evaluate --format json outputs (one per dataset, e.g. brain=b.json abdom=a.json)",
    )
    p.add_argument(
        "--toy",
        type=_labelled,
        action="append",
        default=[],
        metavar="[LABEL=]RESULTS.json",
        help="results on the toy sets: Kendall tau-b of their consensus vs the test consensus",
    )
    p.add_argument(
        "--task", type=_rank_tasks, default=("pixel", "sample"), help="pixel,sample (default both)"
    )
    p.add_argument(
        "--bootstrap",
        type=_bootstrap,
        default=0,
        metavar="N",
        help=f"batch resamples for rank stability (at most {MAX_BOOTSTRAP:,})",
    )
    p.add_argument("--seed", type=_count, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--out", type=_output, metavar="DIR", help="write ranks.csv, ranks.json, plots")
    p.add_argument(
        "--formats", type=_formats, default=("png", "svg", "pdf"), help="png,svg,pdf (default all)"
    )
    _add_force(p, "files in --out")
    p.set_defaults(func=rank.main)


def add_categories(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "categories",
        help="pixel / sample AP and FPR@95 per anomaly category and sub-category, with baselines",
    )
    _add_method_args(p)
    p.add_argument(
        "--categories",
        type=Path,
        metavar="CSV",
        help="case,category[,subcategory[,order]] (default: DATASET/categories.csv)",
    )
    p.add_argument("--out", type=_output, required=True, help="folder for the tables and plots")
    p.add_argument(
        "--formats", type=_formats, default=("png", "svg", "pdf"), help="png,svg,pdf (default all)"
    )
    p.add_argument("--seed", type=_count, default=0, help="seed of the random baseline (default 0)")
    _add_force(p, "files in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=categories.main)
