"""A reconstruction evaluation as text (table, CSV, JSON) and as the normalised-MSE plot.

:func:`write_recon_evaluation` is the ``evaluate-recon`` job: check every output, evaluate,
then write the text, the score maps and the plot asked for (:class:`ReconOutputs`).

The plot follows the FDG-PET simulation paper's Fig. 2: the mean MSE of the
reconstructions at each degree of simulated hypometabolism, divided by the mean MSE of
the healthy inputs' reconstructions (so 1 at degree 0), one line per simulated region,
one panel per mask (whole brain, anomaly region). Error bars are one standard deviation
(divided by the same healthy mean); a filled marker is a degree whose MSE differs from
the healthy inputs' after Bonferroni correction, an open marker one that does not.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from napari_mood.core.recon_study import DegreeRow
from napari_mood.io.errors import MoodInputError, option
from napari_mood.io.recon import ReconFolders, degree_cases, find_recon_cases
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.output import (
    OutputOptions,
    Planned,
    check_apart,
    check_output_file,
    check_outputs,
)
from napari_mood.services.recon import (
    ReconEvaluation,
    ReconOptions,
    case_rows,
    evaluate_recon,
    planned_map_names,
    recon_inputs,
    recon_json,
    write_score_maps,
)

__all__ = [
    "FORMATS",
    "ReconOutputs",
    "ReconRun",
    "format_recon",
    "plot_normalised_mse",
    "write_recon_evaluation",
]

FORMATS = ("table", "csv", "json")


def format_recon(result: ReconEvaluation, fmt: str) -> str:
    """Return the evaluation in one of :data:`FORMATS` (table: summary; csv: one row per case).

    Parameters
    ----------
    result : ReconEvaluation
        A reconstruction evaluation.
    fmt : {"table", "csv", "json"}
        The format.

    Returns
    -------
    str
        The text.
    """
    return {"table": _table, "csv": _csv, "json": _json}[fmt](result)


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf"
        return f"{value:.{digits}g}" if abs(value) < 1e-3 and value != 0 else f"{value:.{digits}f}"
    return str(value)


_HEADER = [
    "region",
    "mask",
    "degree",
    "n",
    "MSE",
    "sd",
    "nMSE",
    "MAE",
    "PSNR",
    "SSIM",
    "t",
    "p",
    "p(Bonf)",
    "signif",
]


def _row(r: DegreeRow) -> list[str]:
    test = r.test
    cells = [r.region, r.where, f"{round(r.degree * 100)}%", str(r.n_cases)]
    cells += [_fmt(v) for v in (r.mse, r.mse_sd, r.normalised_mse, r.mae)]
    cells += [_fmt(r.psnr, 2), _fmt(r.ssim)]
    if test is None:
        return cells + ["-", "-", "-", "-"]
    return cells + [
        _fmt(test.statistic, 3),
        _fmt(test.p_value, 3),
        _fmt(test.p_bonferroni, 3),
        _fmt(test.significant),
    ]


def _table(result: ReconEvaluation) -> str:
    rows = [_row(r) for r in result.rows]
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(_HEADER)
    ]
    simulated = sum(1 for c in result.cases if c.degree is not None)
    opts = result.options
    skipped = f", {len(result.skipped)} skipped" if result.skipped else ""
    lines = [
        f"dataset {result.dataset}: {len(result.cases)} cases ({simulated} simulated){skipped}, "
        f"{opts.test} t-test vs degree 0, Bonferroni over degrees, alpha {opts.alpha:g}; "
        "data_range: healthy max - min in the brain"
    ]
    for cells in [_HEADER, *rows]:
        lines.append(
            "  ".join(
                c.ljust(w) if i < 2 else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            )
        )
    if not rows:
        lines.append("(no simulated case: names like SUBJECT_REGION_degNN give the degree)")
    lines += [f"problem: {p}" for p in result.problems]
    return "\n".join(lines) + "\n"


def _csv(result: ReconEvaluation) -> str:
    rows = case_rows(result)
    buffer = io.StringIO()
    if not rows:
        return ""
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buffer.getvalue()


def _json(result: ReconEvaluation) -> str:
    return json.dumps(recon_json(result), indent=2, allow_nan=False) + "\n"


def plot_normalised_mse(
    result: ReconEvaluation, path: str | os.PathLike[str], *, dpi: float = 300
) -> Path:
    """Draw the normalised MSE against the degree (module docstring) into a PNG/SVG/PDF.

    Fonts follow the figures' settings (TrueType in PDF, text kept in SVG); the file is
    written atomically. The caller has checked ``path`` with the output guard.

    Parameters
    ----------
    result : ReconEvaluation
        A reconstruction evaluation.
    path : str or os.PathLike
        The figure file.
    dpi : float
        Resolution.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    from napari_mood.services.figures import FIGURE_RC, save_figure

    masks = [m for m in ("brain", "anomaly") if any(r.where == m for r in result.rows)]
    if not masks:
        raise ValueError("nothing to plot: no simulated case (names SUBJECT_REGION_degNN)")
    with rc_context(FIGURE_RC):
        figure = Figure(figsize=(3.5 * len(masks), 2.6))
        axes = figure.subplots(1, len(masks), squeeze=False)[0]
        for ax, mask in zip(axes, masks, strict=True):
            _panel(ax, [r for r in result.rows if r.where == mask], mask)
        figure.tight_layout()
    return save_figure(figure, path, dpi=dpi)


def _panel(ax: Any, rows: list[DegreeRow], mask: str) -> None:
    regions = sorted({r.region for r in rows})
    for index, region in enumerate(regions):
        mine = [r for r in rows if r.region == region]
        base = next((r.mse for r in mine if r.degree == 0.0), math.nan)
        x = [r.degree * 100 for r in mine]
        y = [r.normalised_mse for r in mine]
        err = [r.mse_sd / base if base > 0 else math.nan for r in mine]
        colour = f"C{index % 10}"
        ax.errorbar(x, y, yerr=err, color=colour, lw=1, capsize=2, label=region)
        for r, xi, yi in zip(mine, x, y, strict=True):
            filled = r.test is not None and r.test.significant
            ax.plot(xi, yi, "o", ms=4, mec=colour, mfc=colour if filled else "white", zorder=3)
    ax.axhline(1.0, color="0.5", lw=0.6, ls="--")
    ax.set_xlabel("degree of hypometabolism (%)")
    ax.set_ylabel("MSE / MSE of healthy inputs")
    ax.set_title("whole brain" if mask == "brain" else "anomaly region")
    if len(regions) > 1:
        ax.legend(frameon=False)


@dataclass(frozen=True, kw_only=True)
class ReconOutputs(OutputOptions):
    """What a reconstruction run writes besides its result: the ``evaluate-recon`` outputs.

    ``out``, ``format``, ``dpi`` (the plot's) and ``force`` as in :class:`OutputOptions`.

    Attributes
    ----------
    save_maps : Path, optional
        A MOOD method folder to write each case's score map and sample score into.
    plot : Path, optional
        The normalised-MSE plot (needs simulated cases, names ``SUBJECT_REGION_degNN``).
    """

    save_maps: Path | None = None
    plot: Path | None = None


@dataclass(frozen=True)
class ReconRun:
    """A reconstruction run: the evaluation, its text and the files written (by output field)."""

    result: ReconEvaluation
    text: str
    written: Mapping[str, tuple[Path, ...]]


NOTHING_TO_PLOT = option(
    "simulate with napari-mood simulate --kind pet --mask, or drop --plot",
    "simulate hypometabolism in a region mask, or ask for no plot",
)


def write_recon_evaluation(
    folders: ReconFolders,
    outputs: ReconOutputs,
    *,
    options: ReconOptions | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> ReconRun:
    """Evaluate the reconstructions (:func:`evaluate_recon`), then write what is asked.

    Every output is checked before any work: apart from each other, outside the inputs,
    none replaced without ``outputs.force``. ``save_maps`` is a method folder that
    ``evaluate`` reads whole, so no other output may lie in it. A plot needs simulated
    cases, checked before the evaluation and again (every case skipped) before anything
    is written.

    Parameters
    ----------
    folders : ReconFolders
        The inputs, reconstructions and masks.
    outputs : ReconOutputs
        What to write.
    options : ReconOptions, optional
        The test, its alpha and the score maps' scale.
    progress : callable, optional
        Called with ``(done, total, case)``.

    Returns
    -------
    ReconRun
        The evaluation, its text in ``outputs.format`` and the files written.

    Raises
    ------
    MoodInputError
        An output refused, nothing to plot, or a problem of the inputs.
    """
    names = find_recon_cases(folders)
    _check_outputs(outputs, folders, names)
    if outputs.plot is not None and not degree_cases(names):
        raise MoodInputError(
            folders.inputs, "no simulated case to plot (names SUBJECT_REGION_degNN)",
            NOTHING_TO_PLOT,
        )  # fmt: skip
    result = evaluate_recon(folders, options=options or ReconOptions(), progress=progress)
    if outputs.plot is not None and not result.rows:
        raise MoodInputError(
            outputs.plot, "nothing to plot: every simulated case was skipped", NOTHING_TO_PLOT
        )
    text = format_recon(result, outputs.format)
    written: dict[str, tuple[Path, ...]] = {}
    if outputs.out is not None:
        out = check_output_file(outputs.out, inputs=recon_inputs(folders), force=outputs.force)
        written["out"] = (write_text_atomic(out, text),)
    if outputs.save_maps is not None:
        written["save_maps"] = write_score_maps(
            result, folders, outputs.save_maps, force=outputs.force
        )
    if outputs.plot is not None:
        written["plot"] = (plot_normalised_mse(result, outputs.plot, dpi=outputs.dpi),)
    return ReconRun(result, text, written)


def _check_outputs(outputs: ReconOutputs, folders: ReconFolders, names: list[str]) -> None:
    """Check every output; ``save_maps`` first with its whole tree as its own."""
    files = (
        (option("--out", "the output"), outputs.out),
        (option("--plot", "the plot"), outputs.plot),
    )
    planned = [Planned(path, what) for what, path in files if path is not None]
    if outputs.save_maps is not None:
        maps = option("--save-maps", "the score-map folder")
        check_apart([*planned, Planned(outputs.save_maps, maps, folder=True, names=None)])
        map_names = tuple(planned_map_names(names))
        planned.append(Planned(outputs.save_maps, maps, folder=True, names=map_names))
    check_outputs(planned, inputs=recon_inputs(folders), force=outputs.force)
