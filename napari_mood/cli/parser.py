"""The ``napari-mood`` argument parser: subcommands, options and their value types."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import cast

from napari_mood._version import __version__
from napari_mood.cli import (
    boxes,
    categories,
    evaluate,
    evaluate_recon,
    figure,
    pet_demo,
    rank,
    run,
    simulate,
    sweep,
    validate,
    viewer,
)
from napari_mood.cli.simulate_pet import check_pet_args
from napari_mood.core.orientation import CONVENTIONS, PLANES
from napari_mood.core.paper import WIDTH_PRESETS, parse_width
from napari_mood.core.recon import TESTS
from napari_mood.core.scores import SCORE_MODES, check_threshold
from napari_mood.core.simulate.hypometabolism import check_region_name, degree_percent
from napari_mood.core.sweep import PRESETS, SWEEP_KINDS, parse_values

__all__ = ["build_parser"]


def _pred_pair(text: str) -> tuple[str, Path]:
    """``NAME=DIR``, or a bare ``DIR`` named after its folder."""
    name, sep, folder = text.partition("=")
    if not sep:
        path = Path(text)
        name = path.name or path.resolve().name
        return name, path
    if not name or not folder:
        raise argparse.ArgumentTypeError(f"expected NAME=DIR or DIR, got {text!r}")
    return name, Path(folder)


class _AppendPred(argparse.Action):
    """``--pred`` repeated: each NAME once (a second one would silently replace the first)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        pairs = list(getattr(namespace, self.dest, None) or [])
        name, folder = cast(tuple[str, Path], values)  # from _pred_pair
        for known, other in pairs:
            if known == name:
                raise argparse.ArgumentError(
                    self, f"method name {name!r} given twice ({other} and {folder}): rename one"
                )
        setattr(namespace, self.dest, [*pairs, (name, folder)])


def _output(text: str) -> Path:
    """An output path: not empty (an empty path would mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty: give a path")
    return Path(text)


MAX_BATCHES = 100_000
MAX_DPI = 2400.0


def _size_window(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        lo, hi = (float(p) for p in parts)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected LO,HI (two numbers), got {text!r}") from exc
    if not 0 <= lo <= hi:
        raise argparse.ArgumentTypeError(f"need 0 <= LO <= HI, got {text!r}")
    return lo, hi


def _threshold(text: str) -> float | str:
    if text == "auto":
        return text
    try:
        return check_threshold(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (or 'auto')") from exc


def _integer(text: str, *, minimum: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {minimum} or more, got {value}")
    return value


def _count(text: str) -> int:
    """A whole number >= 0."""
    return _integer(text, minimum=0)


def _positive(text: str) -> int:
    """A whole number >= 1."""
    return _integer(text, minimum=1)


def _batches(text: str) -> int:
    """A number of batches: 0 .. MAX_BATCHES (each costs an AP over a batch of cases)."""
    value = _integer(text, minimum=0)
    if value > MAX_BATCHES:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_BATCHES:,}, got {value:,} (the mean AP does not change "
            "beyond that, and each batch costs an AP)"
        )
    return value


def _dpi(text: str) -> float:
    """A resolution: positive, at most MAX_DPI (beyond it one figure needs gigabytes)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_DPI):
        raise argparse.ArgumentTypeError(
            f"must be a positive number, at most {MAX_DPI:g} (beyond, one figure needs "
            f"gigabytes), got {text!r}"
        )
    return value


def _width(text: str) -> float:
    """A figure width in mm: a journal preset or a length with a unit."""
    try:
        return parse_width(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _planes(text: str) -> tuple[str, ...]:
    """``axial,coronal`` -> the planes of each case, in row order."""
    planes = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    unknown = [p for p in planes if p not in PLANES]
    if unknown or not planes or len(set(planes)) != len(planes):
        raise argparse.ArgumentTypeError(
            f"expected distinct planes among {','.join(PLANES)}, got {text!r}"
        )
    return planes


def _name_part(text: str) -> str:
    if not text or any(sep in text for sep in "/\\") or text in (".", ".."):
        raise argparse.ArgumentTypeError(f"must be a plain file-name part, got {text!r}")
    return text


def _add_force(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--force",
        "--overwrite",
        dest="force",
        action="store_true",
        help=f"replace existing {what} (never an input file)",
    )


def _tasks(text: str) -> tuple[str, ...]:
    tasks = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [t for t in tasks if t not in ("pixel", "sample", "object")]
    if bad or not tasks:
        raise argparse.ArgumentTypeError(
            f"tasks are pixel, sample, object (comma separated), got {text!r}"
        )
    return tasks


def _add_method_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dataset", type=Path, help="folder holding toy/ and toy_label/")
    parser.add_argument(
        "--preds", type=Path, help="folder whose subfolders are methods (default: DATASET/methods)"
    )
    parser.add_argument(
        "--pred",
        type=_pred_pair,
        action=_AppendPred,
        default=[],
        metavar="[NAME=]DIR",
        help="one method folder (named NAME, or after the folder); repeat for several",
    )
    parser.add_argument(
        "--labels", type=Path, help="label folder (holding pixel/ and sample/) if elsewhere"
    )
    parser.add_argument("--scans", help="name of the scans subfolder (default: toy)")


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
        type=_count,
        default=0,
        metavar="N",
        help="case bootstrap rounds for 95%% CIs",
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
    p.add_argument("--workers", type=_positive, help="local worker processes (default: all cores)")
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
        help="atlas label values of the region, e.g. 3,4 (default: nonzero)",
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


def _add_simulate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="write a MOOD-layout dataset with toy anomalies")
    p.add_argument(
        "scan", type=Path, nargs="+", help="a normal scan (.nii / .nii.gz); several with --mask"
    )
    p.add_argument(
        "--out", type=_output, required=True, help="output dataset folder (must not hold the cases)"
    )
    p.add_argument(
        "--kind", choices=simulate.KINDS, default="sphere", help="kind of anomaly (default sphere)"
    )
    p.add_argument("--count", type=_count, default=3, help="anomalous cases to write (default 3)")
    p.add_argument(
        "--per-case", type=_positive, default=1, help="anomalies per anomalous case (default 1)"
    )
    p.add_argument("--normal", type=_count, default=1, help="normal cases to write (default 1)")
    p.add_argument(
        "--prefix", type=_name_part, default="case", help="case name prefix (default: case)"
    )
    p.add_argument("--seed", type=_count, default=0, help="random seed (default 0)")
    _add_force(p, "output files")
    _add_simulate_pet(p)
    p.set_defaults(func=simulate.main, check=check_pet_args)


def _alpha(text: str) -> float:
    value = _number_in(text, low=0.0, high=1.0, low_open=True)
    if value >= 1:
        raise argparse.ArgumentTypeError(f"must lie in (0, 1), got {text!r}")
    return value


def _add_evaluate_recon(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("--scans", help="name of the inputs subfolder (default: toy)")
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
        "--plot", type=_output, metavar="FIG", help="normalised MSE vs degree (.png/.svg/.pdf)"
    )
    p.add_argument(
        "--dpi", type=_dpi, default=300, help=f"plot resolution (default 300, at most {MAX_DPI:g})"
    )
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--out", type=_output, help="write the result here instead of stdout")
    _add_force(p, "--out, --maps and --plot files")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no warnings on stderr")
    p.set_defaults(func=evaluate_recon.main)


def _add_pet_demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pet-sample", help="write simulated PET-like scans, template and atlas")
    p.add_argument("--out", type=_output, required=True, help="output folder")
    p.add_argument("--subjects", type=_positive, default=2, help="healthy scans (default 2)")
    p.add_argument("--step", type=_positive, default=1, help="keep every N-th voxel (default 1)")
    p.add_argument("--seed", type=_count, default=0, help="noise seed (default 0)")
    _add_force(p, "output files")
    p.set_defaults(func=pet_demo.pet_sample)
    p = sub.add_parser("reconstruct", help="toy reconstruction: the template scaled to each input")
    p.add_argument("dataset", type=Path, help="dataset whose inputs (toy/) are reconstructed")
    p.add_argument(
        "--template", type=Path, required=True, help="template (pet-sample's template.nii.gz)"
    )
    p.add_argument("--scans", help="name of the inputs subfolder (default: toy)")
    p.add_argument("--out", type=_output, required=True, help="output folder of reconstructions")
    _add_force(p, "output files")
    p.set_defaults(func=pet_demo.reconstruct)


def _add_viewer(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="open napari with the bundled sample case")
    p.add_argument("--screenshot", type=Path, help="render the window to this PNG and exit")
    p.set_defaults(func=viewer.demo)
    p = sub.add_parser("view", help="open files, a case or a dataset in napari")
    p.add_argument("paths", type=Path, nargs="+")
    p.add_argument("--pred", type=_pred_pair, action=_AppendPred, default=[], metavar="[NAME=]DIR")
    p.add_argument("--screenshot", type=Path, help="render the window to this PNG and exit")
    p.set_defaults(func=viewer.view)


def _add_figure(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "figure", help="draw slices x (scan, ground truth, methods) as a PNG, SVG or PDF figure"
    )
    _add_method_args(p)
    p.add_argument("--out", type=Path, required=True, help="figure file: .png, .svg or .pdf")
    _add_force(p, "figure files")
    p.add_argument(
        "--cases", help="CASE,CASE,... one row each (default: the first cases with anomalies)"
    )
    p.add_argument(
        "--planes",
        type=_planes,
        default=("axial",),
        help="planes of each case, one row each: axial,coronal,sagittal (default axial)",
    )
    p.add_argument(
        "--slices",
        help="slice per case, or several slices of one case: N,N,... axial, c:N coronal, "
        "s:N sagittal ('auto' chooses: largest GT area, else the top score)",
    )
    p.add_argument("--thresholds", help="display thresholds: NAME=T,... or one T (default 0.5)")
    presets = ", ".join(f"{name} {mm:g} mm" for name, mm in WIDTH_PRESETS.items())
    p.add_argument(
        "--width",
        type=_width,
        help=f"printed width: {presets}, or a length (89mm, 3.5in, 8.9cm); text stays 7 pt "
        "(default: 1.8-inch cells)",
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
        type=_positive,
        default=6,
        help="cases drawn when --cases is omitted (default 6)",
    )
    p.set_defaults(func=figure.main)


def _seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run a method the MOOD docker way (CMD INPUT OUTPUT), case by case, with a time limit",
    )
    p.add_argument(
        "command",
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


def _values(text: str) -> tuple[float, ...]:
    try:
        return parse_values(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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


def _add_sweep(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sweep",
        help="write a size or contrast sweep: one sphere at a fixed place, one case per value",
    )
    p.add_argument("kind", choices=SWEEP_KINDS, help="size: radii; contrast: intensities")
    p.add_argument("scan", type=Path, help="a normal scan (.nii / .nii.gz)")
    p.add_argument("--out", type=_output, required=True, help="output dataset folder")
    p.add_argument(
        "--preset",
        choices=tuple(PRESETS),
        default="brain",
        help="default radii: brain 0-80 step 5, abdomen 0-160 step 10; contrast radius 20 / 40",
    )
    p.add_argument(
        "--radii", dest="size_values", type=_values, help="size sweep: R,R,... or START:STOP:STEP"
    )
    p.add_argument(
        "--intensities",
        dest="contrast_values",
        type=_values,
        help="contrast sweep: V,V,... or START:STOP:STEP in [0, 1] (default 0:1:0.05)",
    )
    p.add_argument("--radius", type=float, help="contrast sweep: sphere radius (default: preset)")
    p.add_argument(
        "--intensity", type=_unit, default=1.0, help="size sweep: sphere intensity (default 1.0)"
    )
    p.add_argument(
        "--center",
        help="i,j,k voxel; body (default: the body's centre of mass); random (a body voxel, --seed)",
    )
    p.add_argument("--seed", type=_count, default=0, help="seed of --center random (default 0)")
    _add_force(p, "output files")
    p.set_defaults(func=sweep.main)
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


def _add_rank(sub: argparse._SubParsersAction) -> None:
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
        type=_batches,
        default=0,
        metavar="N",
        help="batch resamples for rank stability",
    )
    p.add_argument("--seed", type=_count, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--out", type=_output, metavar="DIR", help="write ranks.csv, ranks.json, plots")
    p.add_argument(
        "--formats", type=_formats, default=("png", "svg", "pdf"), help="png,svg,pdf (default all)"
    )
    _add_force(p, "files in --out")
    p.set_defaults(func=rank.main)


def _add_categories(sub: argparse._SubParsersAction) -> None:
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
    _add_simulate(sub)
    _add_evaluate_recon(sub)
    _add_pet_demo(sub)
    _add_figure(sub)
    boxes.add_parser(sub, output=_output, dpi=_dpi)
    _add_run(sub)
    _add_sweep(sub)
    _add_rank(sub)
    _add_categories(sub)
    return parser
