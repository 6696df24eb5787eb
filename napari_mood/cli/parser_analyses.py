"""Parsers of the MOOD paper's analyses: ``run``, ``sweep``, ``sweep-report``, ``rank``, ``categories``."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from napari_mood.cli._args import (
    MAX_BOOTSTRAP,
    _add_method_args,
    _bootstrap,
    _center,
    _intensities,
    _output,
    _radii,
    _radius,
    add_dpi,
    add_force,
    add_format,
    add_out,
    add_plot_formats,
    add_quiet,
    add_seed,
    deprecated_alias,
)
from napari_mood.cli._common import Need
from napari_mood.cli.parser import Lazy
from napari_mood.services.simulation import PRESETS, SWEEP_KINDS

__all__ = ["add_categories", "add_rank", "add_run", "add_sweep", "add_sweep_report"]


def _plotting(args: argparse.Namespace) -> list[Need]:
    """Return the optional dependency the analyses need: matplotlib (their services use it)."""
    return [("matplotlib", None, args.command)]


def _seconds(text: str) -> float:
    """Return a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _method_command(text: str) -> str:
    """Return a method's command that splits like a shell line (not empty, quotes balanced)."""
    from napari_mood.services.run_method import split_command

    try:
        split_command(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


RUN_USAGE = """%(prog)s [-h] [--task {pixel,sample}] [--time-limit SECONDS]
         [--workdir DIR] [--report FILE] [--format {table,csv,json}] [--force]
         [--quiet] COMMAND INPUT --out DIR"""

RUN_DESCRIPTION = """\
Run a method the MOOD docker way (CMD INPUT OUTPUT), case by case, with a time limit.

Each case runs on a read-only copy of its scan, in a fresh, empty working folder that is
removed after the case (like the challenge's container): the method does not run in the
folder you start napari-mood from. The command's own words naming a file there are made
absolute ('python my_method.py' works), but a helper or model file the method opens by a
relative path is not found: give it by absolute path, or run the method in a folder of
your choice with --workdir DIR (never the input folder nor inside it; the inputs are
still checked for changes). A failed case's message names its working folder and the
kept log of the method's output."""


def add_run(p: argparse.ArgumentParser) -> None:
    """Options of ``run``."""
    p.usage = RUN_USAGE
    p.description = RUN_DESCRIPTION
    p.add_argument(
        "command",
        type=_method_command,
        metavar="COMMAND",
        help="the method: 'CMD' is called as CMD INPUT_FOLDER OUTPUT_FOLDER, or with "
        "{input} / {output} placeholders (e.g. a docker run line)",
    )
    source = p.add_argument(
        "input",
        type=Path,
        nargs="?",
        default=argparse.SUPPRESS,
        metavar="INPUT",
        help="folder of scans (read-only)",
    )
    deprecated_alias(p, source, "--input")
    add_out(p, "folder for the method's outputs", required=True, old=("--output",))
    p.add_argument(
        "--task", choices=("pixel", "sample"), default="pixel", help="what the method writes"
    )
    p.add_argument(
        "--time-limit", type=_seconds, default=600.0, metavar="SECONDS",
        help="seconds per case (default 600, as MOOD)",
    )  # fmt: skip
    p.add_argument(
        "--workdir",
        type=Path,
        metavar="DIR",
        help="run the method in this existing folder (default: a fresh, empty one per case)",
    )
    report = p.add_argument(
        "--report", type=_output, metavar="FILE", help="also write the run as JSON to FILE"
    )
    deprecated_alias(p, report, "--json")
    add_format(p, "the run")
    add_force(p, "outputs")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.run:main"))


def _unit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie in [0, 1], got {text!r}")
    return value


def add_sweep(p: argparse.ArgumentParser) -> None:
    """Options of ``sweep``."""
    p.add_argument("kind", choices=SWEEP_KINDS, help="size: radii; contrast: intensities")
    p.add_argument("scan", type=Path, metavar="SCAN", help="a normal scan (.nii / .nii.gz)")
    add_out(p, "output dataset folder: new or empty (written whole)", required=True)
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
        metavar="VALUES",
        help="size sweep: R,R,... or START:STOP:STEP, radii 0 to 1,000 voxels, each once "
        "(at most 1,000 values)",
    )
    p.add_argument(
        "--intensities",
        dest="contrast_values",
        type=_intensities,
        metavar="VALUES",
        help="contrast sweep: V,V,... or START:STOP:STEP in [0, 1] (default 0:1:0.05)",
    )
    p.add_argument(
        "--radius", type=_radius, metavar="VOXELS",
        help="contrast sweep: sphere radius (default: preset)",
    )  # fmt: skip
    p.add_argument(
        "--intensity", type=_unit, metavar="V", help="size sweep: sphere intensity (default 1.0)"
    )
    p.add_argument(
        "--center",
        type=_center,
        metavar="WHERE",
        help="i,j,k voxel; body (default: the body's centre of mass); random (a body voxel, --seed)",
    )
    add_seed(p, "--center random")
    add_force(p, "generated dataset, as a whole: only the files napari-mood wrote there")
    add_quiet(p)
    p.set_defaults(
        func=Lazy("napari_mood.cli.sweep:main"),
        check=Lazy("napari_mood.cli.sweep:check_args"),
        needs=_plotting,
    )


def add_sweep_report(p: argparse.ArgumentParser) -> None:
    """Options of ``sweep-report``."""
    _add_method_args(p)
    add_out(p, "folder for sweep_ap.csv and the plot files", required=True)
    add_format(p, "AP per method and value")
    add_plot_formats(p)
    add_dpi(p)
    p.add_argument("--title", metavar="TEXT", help="plot title")
    add_force(p, "report files")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.sweep:report"), needs=_plotting)


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


def add_rank(p: argparse.ArgumentParser) -> None:
    """Options of ``rank``."""
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
        "--task", type=_rank_tasks, default=("pixel", "sample"), metavar="TASKS",
        help="pixel,sample (default both)",
    )  # fmt: skip
    p.add_argument(
        "--bootstrap",
        type=_bootstrap,
        default=0,
        metavar="N",
        help=f"batch resamples for rank stability (at most {MAX_BOOTSTRAP:,})",
    )
    add_seed(p, "the bootstrap")
    add_format(p, "the ranking")
    add_out(p, "also write ranks.csv, ranks.json and the plots here")
    add_plot_formats(p)
    add_dpi(p)
    add_force(p, "files in --out")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.rank:main"), needs=_plotting)


def add_categories(p: argparse.ArgumentParser) -> None:
    """Options of ``categories``."""
    _add_method_args(p)
    p.add_argument(
        "--categories",
        type=Path,
        metavar="CSV",
        help="case,category[,subcategory[,order]] (default: DATASET/categories.csv)",
    )
    add_out(p, "folder for the tables and plots", required=True)
    add_format(p, "the summary")
    add_plot_formats(p)
    add_dpi(p)
    add_seed(p, "the random baseline")
    add_force(p, "files in --out")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.categories:main"), needs=_plotting)
