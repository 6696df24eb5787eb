"""Parsers of ``simulate`` (incl. ``--kind pet``), ``evaluate-recon`` and ``pet-sample``."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from napari_mood.cli._args import (
    _cases,
    _name_part,
    _output,
    _per_case,
    _positive,
    _subfolder,
    _subjects,
    add_dpi,
    add_force,
    add_format,
    add_out,
    add_plot,
    add_quiet,
    add_seed,
    deprecated_alias,
)
from napari_mood.cli._common import Need
from napari_mood.cli.parser import Lazy
from napari_mood.services.options import TESTS
from napari_mood.services.pet_sample import MAX_STEP, MIN_VOXELS
from napari_mood.services.simulation import TOY_KINDS, check_region_name, degree_percent

__all__ = ["add_evaluate_recon", "add_pet_sample", "add_reconstruct", "add_simulate"]


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
    labels = g.add_argument(
        "--atlas-labels",
        type=_labels,
        metavar="V,V",
        help="atlas label values of the region, e.g. 3,4 (default: nonzero, with a warning for an atlas)",
    )
    deprecated_alias(p, labels, "--labels")
    g.add_argument(
        "--degree",
        type=_degrees,
        metavar="D,D",
        help="degrees, e.g. 0.05,0.1,0.7 (default 0.05,0.1,0.15,0.2,0.3,0.4,0.5,0.7)",
    )
    g.add_argument(
        "--smooth", type=_fwhm, metavar="FWHM_MM", help="Gaussian FWHM in mm (default 8)"
    )
    g.add_argument(
        "--gt-level",
        type=_fraction,
        metavar="FRACTION",
        help="GT: smoothed region >= this fraction of its max (default 0.5)",
    )
    g.add_argument(
        "--region-name",
        type=_region,
        metavar="NAME",
        help="name in the case names (default: from the mask and labels)",
    )


def add_simulate(p: argparse.ArgumentParser) -> None:
    """Options of ``simulate``."""
    p.add_argument(
        "scan",
        type=Path,
        nargs="+",
        metavar="SCAN",
        help="a normal scan (.nii / .nii.gz); several with --kind pet --mask",
    )
    add_out(
        p, "output dataset folder: new or empty, or one napari-mood generated (written whole)",
        required=True,
    )  # fmt: skip
    p.add_argument(
        "--kind", choices=TOY_KINDS, default="sphere", help="kind of anomaly (default sphere)"
    )
    p.add_argument(
        "--count", type=_cases, default=3, metavar="N",
        help="anomalous cases (default 3, at most 1,000)",
    )  # fmt: skip
    p.add_argument(
        "--per-case", type=_per_case, default=1, metavar="N",
        help="anomalies per anomalous case (default 1, at most 100)",
    )  # fmt: skip
    p.add_argument(
        "--normal", type=_cases, default=1, metavar="N",
        help="normal cases (default 1, at most 1,000)",
    )  # fmt: skip
    p.add_argument(
        "--prefix", type=_name_part, default="case", metavar="TEXT",
        help="case name prefix (default: case)",
    )  # fmt: skip
    add_seed(p, "the anomalies and noise")
    add_force(p, "generated dataset, as a whole: only the files napari-mood wrote there")
    add_quiet(p)
    _add_simulate_pet(p)
    p.set_defaults(
        func=Lazy("napari_mood.cli.simulate:main"),
        check=Lazy("napari_mood.cli.simulate:check_args"),
    )


def _alpha(text: str) -> float:
    value = _number_in(text, low=0.0, high=1.0, low_open=True)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {text!r}")
    return value


def _scale(text: str) -> str | float:
    from napari_mood.cli.evaluate_recon import scale_option

    return scale_option(text)


def _add_recon_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "dataset", type=Path, metavar="DATASET", help="simulated dataset (toy/, healthy/, region/)"
    )
    p.add_argument(
        "--recon", type=Path, required=True, metavar="DIR",
        help="folder of reconstructions (CASE.nii.gz)",
    )  # fmt: skip
    p.add_argument(
        "--healthy", type=Path, metavar="DIR", help="healthy originals (default DATASET/healthy)"
    )
    p.add_argument(
        "--region", type=Path, metavar="DIR", help="anomaly regions (default DATASET/region)"
    )
    p.add_argument(
        "--scans", type=_subfolder, metavar="NAME",
        help="name of the inputs subfolder (default: toy)",
    )  # fmt: skip
    p.add_argument(
        "--brain-mask", type=Path, metavar="FILE", help="brain mask (default: healthy > 0)"
    )


def _recon_needs(args: argparse.Namespace) -> list[Need]:
    return [("matplotlib", None, "evaluate-recon --plot")] if args.plot is not None else []


def add_evaluate_recon(p: argparse.ArgumentParser) -> None:
    """Options of ``evaluate-recon``."""
    _add_recon_inputs(p)
    p.add_argument(
        "--test", choices=TESTS, default="welch", help="t-test vs degree 0 (default welch)"
    )
    p.add_argument(
        "--alpha", type=_alpha, default=0.05, metavar="ALPHA",
        help="level after Bonferroni (default 0.05)",
    )  # fmt: skip
    maps = p.add_argument(
        "--save-maps", type=_output, metavar="DIR",
        help="also write residual score maps here (a method folder)",
    )  # fmt: skip
    deprecated_alias(p, maps, "--maps")
    p.add_argument(
        "--scale", type=_scale, default="dataset", metavar="SCALE",
        help="score map = residual / scale: dataset (default), case, or a number",
    )  # fmt: skip
    add_plot(p, "normalised MSE vs degree")
    add_dpi(p, "plot")
    add_format(p)
    add_out(p, "write the result here instead of stdout", metavar="FILE")
    add_force(p, "--out, --save-maps and --plot files")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.evaluate_recon:main"), needs=_recon_needs)


def _step(text: str) -> int:
    """``pet-sample --step``: 1 .. MAX_STEP (at least MIN_VOXELS voxels per axis are kept)."""
    value = _positive(text)
    if value > MAX_STEP:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_STEP}, got {value:,} (a larger step leaves fewer than "
            f"{MIN_VOXELS} voxels along an axis of the bundled brain)"
        )
    return value


def add_pet_sample(p: argparse.ArgumentParser) -> None:
    """Options of ``pet-sample``."""
    add_out(p, "output folder: new or empty (written whole)", required=True)
    p.add_argument(
        "--subjects", type=_subjects, default=2, metavar="N",
        help="healthy scans (default 2, at most 100)",
    )  # fmt: skip
    p.add_argument(
        "--step", type=_step, default=1, metavar="N",
        help=f"keep every N-th voxel (default 1, at most {MAX_STEP})",
    )  # fmt: skip
    add_seed(p, "the noise")
    add_force(p, "generated sample, as a whole: only the files napari-mood wrote there")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.pet_demo:pet_sample"))


def add_reconstruct(p: argparse.ArgumentParser) -> None:
    """Options of ``reconstruct``."""
    p.add_argument(
        "dataset",
        type=Path,
        metavar="DATASET",
        help="dataset whose inputs (toy/) are reconstructed",
    )
    p.add_argument(
        "--template", type=Path, required=True, metavar="FILE",
        help="template (pet-sample's template.nii.gz)",
    )  # fmt: skip
    p.add_argument(
        "--scans", type=_subfolder, metavar="NAME",
        help="name of the inputs subfolder (default: toy)",
    )  # fmt: skip
    add_out(p, "output folder of reconstructions", required=True)
    add_force(p, "output files")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.pet_demo:reconstruct"))
