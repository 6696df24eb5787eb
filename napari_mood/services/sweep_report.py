"""The sweep's report: AP against radius or intensity, per method.

:func:`write_sweep_report` (the ``sweep-report`` job) evaluates methods on a sweep dataset
(:mod:`napari_mood.services.sweep`; the pixel task, as ``napari-mood evaluate``) and gives,
per method and sweep value, the pixel AP pooled over that value's cases (one case per
value unless several sweeps share a folder: the MOOD paper's "AP per sweep value"), as
CSV and as a figure. A method's missing or unusable map scores 0, as everywhere.
"""

from __future__ import annotations

import csv
import io
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib import rc_context

from napari_mood.core.curves import merge_accumulators
from napari_mood.core.metrics import UndefinedMetricWarning, average_precision_from_curve
from napari_mood.core.results import DatasetEvaluation
from napari_mood.core.sweep import SweepKind
from napari_mood.io.errors import option
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset
from napari_mood.services.analysis_plots import colors_for, new_figure, save_formats
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.evaluation import EvaluationOptions, Progress, evaluate
from napari_mood.services.figures import FIGURE_RC
from napari_mood.services.output import Inputs, check_output_folder
from napari_mood.services.sweep import PARAMETER, SweepInfo, labelled_cases, read_sweep

__all__ = [
    "SweepPoint",
    "SweepReport",
    "plot_sweep",
    "sweep_csv",
    "sweep_points",
    "write_sweep_report",
]

PathLike = str | os.PathLike[str]
AXIS_LABEL = {"size": "sphere radius (voxels)", "contrast": "sphere intensity"}


@dataclass(frozen=True)
class SweepPoint:
    """A method's pixel AP pooled over the cases of one sweep value."""

    method: str
    value: float
    ap: float
    n_cases: int
    gt_voxels: int


def sweep_points(result: DatasetEvaluation, info: SweepInfo) -> tuple[SweepPoint, ...]:
    """Per method (ranked order) and sweep value (ascending): the pooled pixel AP.

    A value whose cases hold no GT voxel has AP NaN (no anomaly to find).

    Parameters
    ----------
    result : DatasetEvaluation
        The sweep's evaluation.
    info : SweepInfo
        The sweep.

    Returns
    -------
    tuple of SweepPoint
        One point per method and value.
    """
    value_of = info.value_of()
    values = sorted(set(value_of.values()))
    points = []
    for method in result.ranked_methods():
        accs = result.case_accumulators.get(method, {})
        for value in values:
            chosen = [accs[c] for c, v in value_of.items() if v == value and c in accs]
            points.append(_point(method, value, chosen))
    return tuple(points)


def _point(method: str, value: float, accs: Sequence) -> SweepPoint:
    n_pos = sum(a.n_pos for a in accs)
    ap = math.nan
    if n_pos:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            ap = average_precision_from_curve(merge_accumulators(accs).curve())
    return SweepPoint(method, value, ap, len(accs), n_pos)


def sweep_csv(points: Sequence[SweepPoint], kind: SweepKind) -> str:
    """``method,<radius|intensity>,pixel_ap,n_cases,gt_voxels`` (NaN as empty).

    Parameters
    ----------
    points : sequence of SweepPoint
        The points.
    kind : {"size", "contrast"}
        The sweep.

    Returns
    -------
    str
        CSV text.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["method", PARAMETER[kind], "pixel_ap", "n_cases", "gt_voxels"])
    for p in points:
        ap = "" if math.isnan(p.ap) else f"{p.ap:.6f}"
        writer.writerow([p.method, f"{p.value:g}", ap, p.n_cases, p.gt_voxels])
    return buffer.getvalue()


def plot_sweep(points: Sequence[SweepPoint], kind: SweepKind, *, title: str | None = None):  # noqa: ANN201
    """AP against radius or intensity, one line per method (the paper's Fig. 4).

    Parameters
    ----------
    points : sequence of SweepPoint
        The points.
    kind : {"size", "contrast"}
        The sweep.
    title : str, optional
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    methods = list(dict.fromkeys(p.method for p in points))
    colors = colors_for(sorted(methods))  # a method keeps its colour in every plot
    fig = new_figure()
    ax = fig.axes[0]
    with rc_context(FIGURE_RC):
        for name in methods:
            mine = [p for p in points if p.method == name]
            ax.plot(
                [p.value for p in mine],
                [p.ap for p in mine],
                marker="o",
                markersize=3,
                linewidth=1,
                color=colors[name],
                label=name,
            )
        ax.set(xlabel=AXIS_LABEL[kind], ylabel="pixel AP", ylim=(-0.02, 1.02))
        ax.grid(alpha=0.3, linewidth=0.5)
        ax.legend(frameon=False, loc="best")
        if title:
            ax.set_title(title)
    return fig


@dataclass(frozen=True)
class SweepReport:
    """What :func:`write_sweep_report` wrote."""

    kind: SweepKind
    points: tuple[SweepPoint, ...]
    csv: str
    """The points as CSV (:func:`sweep_csv`), as written to ``sweep_ap.csv``."""
    files: tuple[Path, ...]
    """``sweep_ap.csv`` and the figure in each format."""


def write_sweep_report(
    folder: PathLike,
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    out: PathLike,
    *,
    formats: Sequence[str] = ("png",),
    dpi: float = 300,
    title: str | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> SweepReport:
    """Evaluate methods on a sweep dataset; write ``sweep_ap.csv`` and the AP figure.

    ``out`` is checked before any case is evaluated.

    Parameters
    ----------
    folder : path-like
        The sweep dataset (with ``sweep.json``).
    dataset : MoodDataset
        The same folder, discovered (:func:`~napari_mood.io.mood.discover_dataset`).
    methods : mapping of str to MethodFolder
        The methods evaluated.
    out : path-like
        The report folder.
    formats : sequence of str
        The figure's formats (``png``, ``svg``, ``pdf``).
    dpi : float
        The figure's resolution.
    title : str, optional
        The figure's title.
    force : bool
        Whether existing report files are replaced.
    progress : callable, optional
        Called with ``(done, total, case)`` as the evaluation goes.

    Returns
    -------
    SweepReport
        The points, their CSV and the files written.

    Raises
    ------
    MoodInputError
        When the folder is no sweep dataset, labels none of its cases, or ``out``
        cannot take the report.
    """
    folder = Path(folder)
    info = labelled_cases(read_sweep(folder), dataset, folder)  # none: an error; some: a warning
    inputs = Inputs.of(dataset, methods)
    names = ["sweep_ap.csv", *(f"sweep_ap.{f}" for f in formats)]
    target = check_output_folder(
        out, inputs=inputs, force=force, names=names, what=option("--out", "the output")
    )
    found = evaluate(
        dataset,
        methods=methods,
        options=EvaluationOptions(tasks=("pixel",)),
        workers=1,
        progress=progress,
        warn=True,
    )
    points = sweep_points(found.result, info)
    text = sweep_csv(points, info.kind)
    written = write_text_atomic(target / "sweep_ap.csv", text, replace=force)
    figure = plot_sweep(points, info.kind, title=title)
    saved = save_formats(figure, target / "sweep_ap", formats, dpi=dpi)
    return SweepReport(info.kind, points, text, (written, *saved))
