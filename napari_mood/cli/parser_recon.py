"""Parsers of ``simulate`` (incl. ``--kind pet``), ``evaluate-recon`` and ``pet-sample``."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from napari_mood.cli import (
    evaluate_recon,
    pet_demo,
    simulate,
)
from napari_mood.cli._args import (
    MAX_DPI,
    _add_force,
    _cases,
    _count,
    _dpi,
    _name_part,
    _output,
    _per_case,
    _positive,
    _subfolder,
    _subjects,
)
from napari_mood.cli.simulate_pet import check_pet_args
from napari_mood.core.recon import TESTS
from napari_mood.core.simulate.hypometabolism import check_region_name, degree_percent
from napari_mood.services.figure_files import FIGURE_FORMATS, check_figure_path
from napari_mood.services.pet_sample import MAX_STEP, MIN_VOXELS

__all__ = ["add_evaluate_recon", "add_pet_demo", "add_simulate"]


def _labels(text: str) -> list[int]:
    """``3,4`` -> the atlas label values of a region."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers like 3,4, got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError("give at least one label value")
    return list(dict.fromkeys(values))


def _degrees(text: str) -> tuple[float, ...]:
    """``0.05,0.1,0.7`` -> degrees of hypometabolism in (0, 1], whole per cents, sorted."""
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
        percents = sorted({degree_percent(v) for v in values if v != 0})
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"expected fractions in (0, 1] that are whole per cents, like 0.05,0.1,0.7; got {text!r} ({exc})"
        ) from None
    if not percents or len(percents) != len(values):
        raise argparse.ArgumentTypeError(
            f"expected distinct degrees in (0, 1] (0 is always written), got {text!r}"
        )
    return tuple(p / 100 for p in percents)


def _number_in(text: str, *, low: float, high: float, low_open: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    ok = math.isfinite(value) and (value > low if low_open else value >= low) and value <= high
    if not ok:
        span = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise argparse.ArgumentTypeError(f"must lie in {span}, got {text!r}")
    return value


def _fwhm(text: str) -> float:
    return _number_in(text, low=0.0, high=1000.0, low_open=False)


def _fraction(text: str) -> float:
    return _number_in(text, low=0.0, high=1.0, low_open=True)


def _region(text: str) -> str:
    try:
        return check_region_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_simulate_pet(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("hypometabolism (--kind pet --mask REGION)")
    g.add_argument(
        "--mask", type=Path, metavar="REGION", help="region mask or label atlas (.nii / .nii.gz)"
    )
    g.add_argument(
        "--labels",
        type=_labels,
        help="atlas label values of the region, e.g. 3,4 (default: nonzero, with a warning for an atlas)",
    )
    g.add_argument(
        "--degree",
        type=_degrees,
        help="degrees, e.g. 0.05,0.1,0.7 (default 0.05,0.1,0.15,0.2,0.3,0.4,0.5,0.7)",
    )
    g.add_argument(
        "--smooth", type=_fwhm, metavar="FWHM_MM", help="Gaussian FWHM in mm (default 8)"
    )
    g.add_argument(
        "--gt-level",
        type=_fraction,
        help="GT: smoothed region >= this fraction of its max (default 0.5)",
    )
    g.add_argument(
        "--region-name",
        type=_region,
        help="name in the case names (default: from the mask and labels)",
    )


def add_simulate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="write a MOOD-layout dataset with toy anomalies")
    p.add_argument(
        "scan", type=Path, nargs="+", help="a normal scan (.nii / .nii.gz); several with --mask"
    )
    p.add_argument(
        "--out",
        type=_output,
        required=True,
        help="output dataset folder: new or empty, or one napari-mood generated (written whole)",
    )
    p.add_argument(
        "--kind", choices=simulate.KINDS, default="sphere", help="kind of anomaly (default sphere)"
    )
    p.add_argument(
        "--count", type=_cases, default=3, help="anomalous cases (default 3, at most 1,000)"
    )
    p.add_argument(
        "--per-case",
        type=_per_case,
        default=1,
        help="anomalies per anomalous case (default 1, at most 100)",
    )
    p.add_argument(
        "--normal", type=_cases, default=1, help="normal cases (default 1, at most 1,000)"
    )
    p.add_argument(
        "--prefix", type=_name_part, default="case", help="case name prefix (default: case)"
    )
    p.add_argument("--seed", type=_count, default=0, help="random seed (default 0)")
    _add_force(p, "generated dataset, as a whole")
    _add_simulate_pet(p)
    p.set_defaults(func=simulate.main, check=check_pet_args)


def _alpha(text: str) -> float:
    value = _number_in(text, low=0.0, high=1.0, low_open=True)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {text!r}")
    return value


def _plot_path(text: str) -> Path:
    """An output figure whose extension napari-mood writes (refused before any work)."""
    try:
        return check_figure_path(_output(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_evaluate_recon(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "evaluate-recon",
        help="judge reconstructions against healthy originals (MSE, MAE, PSNR, SSIM, t-tests)",
    )
    p.add_argument("dataset", type=Path, help="simulated dataset (toy/, healthy/, region/)")
    p.add_argument(
        "--recon", type=Path, required=True, help="folder of reconstructions (CASE.nii.gz)"
    )
    p.add_argument("--healthy", type=Path, help="healthy originals (default DATASET/healthy)")
    p.add_argument("--region", type=Path, help="anomaly regions (default DATASET/region)")
    p.add_argument("--scans", type=_subfolder, help="name of the inputs subfolder (default: toy)")
    p.add_argument(
        "--brain-mask", type=Path, metavar="FILE", help="brain mask (default: healthy > 0)"
    )
    p.add_argument(
        "--test", choices=TESTS, default="welch", help="t-test vs degree 0 (default welch)"
    )
    p.add_argument(
        "--alpha", type=_alpha, default=0.05, help="level after Bonferroni (default 0.05)"
    )
    p.add_argument(
        "--maps", type=_output, metavar="DIR", help="write residual score maps (a method folder)"
    )
    p.add_argument(
        "--scale",
        type=evaluate_recon.scale_option,
        default="dataset",
        help="score map = residual / scale: dataset (default), case, or a number",
    )
    p.add_argument(
        "--plot",
        type=_plot_path,
        metavar="FIG",
        help=f"normalised MSE vs degree ({'/'.join(f'.{k}' for k in FIGURE_FORMATS)})",
    )
    p.add_argument(
        "--dpi", type=_dpi, default=300, help=f"plot resolution (default 300, at most {MAX_DPI:g})"
    )
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--out", type=_output, help="write the result here instead of stdout")
    _add_force(p, "--out, --maps and --plot files")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no warnings on stderr")
    p.set_defaults(func=evaluate_recon.main)


def _step(text: str) -> int:
    """``pet-sample --step``: 1 .. MAX_STEP (at least MIN_VOXELS voxels per axis are kept)."""
    value = _positive(text)
    if value > MAX_STEP:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_STEP}, got {value:,} (a larger step leaves fewer than "
            f"{MIN_VOXELS} voxels along an axis of the bundled brain)"
        )
    return value


def add_pet_demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pet-sample", help="write simulated PET-like scans, template and atlas")
    p.add_argument(
        "--out", type=_output, required=True, help="output folder: new or empty (written whole)"
    )
    p.add_argument(
        "--subjects", type=_subjects, default=2, help="healthy scans (default 2, at most 100)"
    )
    p.add_argument(
        "--step",
        type=_step,
        default=1,
        help=f"keep every N-th voxel (default 1, at most {MAX_STEP})",
    )
    p.add_argument("--seed", type=_count, default=0, help="noise seed (default 0)")
    _add_force(p, "generated sample, as a whole")
    p.set_defaults(func=pet_demo.pet_sample)
    p = sub.add_parser("reconstruct", help="toy reconstruction: the template scaled to each input")
    p.add_argument("dataset", type=Path, help="dataset whose inputs (toy/) are reconstructed")
    p.add_argument(
        "--template", type=Path, required=True, help="template (pet-sample's template.nii.gz)"
    )
    p.add_argument("--scans", type=_subfolder, help="name of the inputs subfolder (default: toy)")
    p.add_argument("--out", type=_output, required=True, help="output folder of reconstructions")
    _add_force(p, "output files")
    p.set_defaults(func=pet_demo.reconstruct)
