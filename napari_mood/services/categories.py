"""Per-category analysis of an evaluation: tables, summaries and the paper's Figs. 5-7.

The numbers are :mod:`napari_mood.core.categories`' (one owner); this module takes them
from a :class:`~napari_mood.core.results.DatasetEvaluation` (pixel counts per case, sample
labels and scores per case; normal cases = sample label 0, or, without sample labels, no
GT voxel), writes CSV and draws: per group, each method's value as a coloured dot, the
median over the methods as a black bar, the constant and random baselines as grey marks.
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

import numpy as np
from matplotlib import rc_context
from matplotlib.figure import Figure

from napari_mood.core.categories import (
    CaseCategory,
    CategoryScore,
    Level,
    Metric,
    best_overall,
    category_scores,
    summarise_categories,
)
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.results import DatasetEvaluation
from napari_mood.core.seed import DEFAULT_SEED
from napari_mood.io.errors import MoodInputWarning, option
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset, check_labels_for
from napari_mood.services.analysis_plots import colors_for, new_figure, save_formats
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.evaluation import (
    EvaluationOptions,
    Progress,
    default_tasks,
    evaluate,
)
from napari_mood.services.figures import FIGURE_RC
from napari_mood.services.output import Inputs, check_output_folder

__all__ = [
    "CaseCategory",
    "CategoryReport",
    "CategoryScore",
    "Level",
    "Metric",
    "METRIC_LABEL",
    "category_rows",
    "evaluation_inputs",
    "plot_categories",
    "scores_csv",
    "summary_csv",
    "write_category_report",
]

METRIC_LABEL: dict[str, str] = {
    "pixel_ap": "pixel AP",
    "sample_ap": "sample AP",
    "pixel_fpr95": "pixel FPR at 95% TPR",
    "sample_fpr95": "sample FPR at 95% TPR",
}
_BASELINE_MARK = {"constant": "_", "random": "x"}  # grey marks (never in medians)


def evaluation_inputs(
    result: DatasetEvaluation,
) -> tuple[
    Mapping[str, Mapping[str, CurveAccumulator]], dict[str, dict[str, tuple[int, float]]], list[str]
]:
    """``(pixel counts per method and case, sample (label, score) per method and case, normal cases)``.

    Parameters
    ----------
    result : DatasetEvaluation
        A dataset evaluation.

    Returns
    -------
    tuple
        Per method and case the voxel counts and the sample ``(label, score)``, and the
        cases without anomaly.
    """
    sample: dict[str, dict[str, tuple[int, float]]] = {}
    normal = set()
    for row in result.per_case:
        if row.sample_label is not None:
            score = 0.0 if row.sample_score is None else float(row.sample_score)
            sample.setdefault(row.method, {})[row.case] = (int(row.sample_label), score)
            if row.sample_label == 0:
                normal.add(row.case)
        elif row.gt_voxels == 0:
            normal.add(row.case)
    return result.case_accumulators, sample, sorted(normal)


def category_rows(
    result: DatasetEvaluation,
    categories: Mapping[str, CaseCategory],
    *,
    level: Level = "category",
    seed: int | None = DEFAULT_SEED,
) -> tuple[CategoryScore, ...]:
    """:func:`~napari_mood.core.categories.category_scores` of an evaluation.

    Parameters
    ----------
    result : DatasetEvaluation
        A dataset evaluation.
    categories : mapping of str to CaseCategory
        The category of each case (cases not evaluated are ignored).
    level : {"category", "subcategory"}
        Which level groups the cases.
    seed : int or None
        Seed of the random baseline; None leaves the baselines out.

    Returns
    -------
    tuple of CategoryScore
        One row per group and method.
    """
    pixel, sample, normal = evaluation_inputs(result)
    known = {c: v for c, v in categories.items() if c in set(result.cases)}
    return category_scores(known, pixel, sample, normal=normal, level=level, seed=seed)


def _num(value: float) -> str:
    return "" if math.isnan(value) else f"{value:.6f}"


def scores_csv(rows: Sequence[CategoryScore]) -> str:
    """One row per (level, group, method): the four metrics (NaN empty).

    Parameters
    ----------
    rows : sequence of CategoryScore
        Rows of :func:`category_rows`.

    Returns
    -------
    str
        CSV text.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["level", "group", "category", "method", "baseline", "n_cases", *METRIC_LABEL])
    for r in rows:
        values = [_num(r.metric(m)) for m in METRIC_LABEL]  # type: ignore[arg-type]
        writer.writerow([r.level, r.group, r.parent, r.method, int(r.baseline), r.n_cases, *values])
    return buffer.getvalue()


def summary_csv(rows: Sequence[CategoryScore], metrics: Sequence[Metric]) -> str:
    """Per level, metric and group: median over methods, best method(s) and value; then overall.

    Parameters
    ----------
    rows : sequence of CategoryScore
        Rows of :func:`category_rows`.
    metrics : sequence of str
        The metrics summarised.

    Returns
    -------
    str
        CSV text.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["level", "metric", "group", "median", "best", "best_value"])
    for level in dict.fromkeys(r.level for r in rows):
        mine = [r for r in rows if r.level == level]
        for metric in metrics:
            for s in summarise_categories(mine, metric):
                writer.writerow(
                    [level, metric, s.group, _num(s.median), " ".join(s.best), _num(s.best_value)]
                )
            names, value = best_overall(mine, metric)
            writer.writerow(
                [level, metric, "(overall: mean over groups)", "", " ".join(names), _num(value)]
            )
    return buffer.getvalue()


def plot_categories(
    rows: Sequence[CategoryScore], metric: Metric, *, title: str | None = None
) -> Figure:
    """Dots per method, median bar, baseline marks; one column per group (in order).

    Parameters
    ----------
    rows : sequence of CategoryScore
        Rows of :func:`category_rows`.
    metric : str
        The metric drawn.
    title : str, optional
        The figure's title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    groups = list(dict.fromkeys(r.group for r in rows))
    methods = list(dict.fromkeys(r.method for r in rows if not r.baseline))
    colors = colors_for(sorted(methods))  # a method keeps its colour in every plot
    fig = new_figure(width=max(3.5, 0.45 * len(groups) + 1.6), height=2.6)
    ax = fig.axes[0]
    spread = np.linspace(-0.2, 0.2, len(methods)) if len(methods) > 1 else np.zeros(1)
    with rc_context(FIGURE_RC):
        for k, name in enumerate(methods):
            ys = [_value(rows, g, name, metric) for g in groups]
            ax.plot(
                np.arange(len(groups)) + spread[k],
                ys,
                "o",
                markersize=3.5,
                color=colors[name],
                label=name,
            )
        for i, s in enumerate(summarise_categories(rows, metric)):
            ax.hlines(
                s.median,
                i - 0.3,
                i + 0.3,
                color="black",
                linewidth=1.2,
                label="median" if i == 0 else "_nolegend_",
            )
        for base, mark in _BASELINE_MARK.items():
            ys = [_value(rows, g, base, metric) for g in groups]
            if not all(math.isnan(y) for y in ys):
                ax.plot(
                    np.arange(len(groups)),
                    ys,
                    mark,
                    color="0.45",
                    markersize=6,
                    label=f"{base} baseline",
                )
        ax.set_xticks(
            np.arange(len(groups)),
            groups,
            rotation=45 if len(groups) > 3 else 0,
            ha="right" if len(groups) > 3 else "center",
        )
        ax.set(ylabel=METRIC_LABEL[metric], ylim=(-0.03, 1.03), xlim=(-0.6, len(groups) - 0.4))
        ax.grid(axis="y", alpha=0.3, linewidth=0.5)
        if ax.get_legend_handles_labels()[0]:  # no labelled artist: no legend (and no warning)
            ax.legend(frameon=False, fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
        if title:
            ax.set_title(title)
    return fig


def _value(rows: Sequence[CategoryScore], group: str, method: str, metric: Metric) -> float:
    for r in rows:
        if r.group == group and r.method == method:
            return r.metric(metric)
    return math.nan


PLOTTED: tuple[Metric, ...] = ("sample_ap", "pixel_ap", "sample_fpr95")
"""The metrics drawn per level (one figure each)."""
SUMMARISED: tuple[Metric, ...] = ("pixel_ap", "sample_ap", "pixel_fpr95", "sample_fpr95")
"""The metrics of ``category_summary.csv``."""


@dataclass(frozen=True)
class CategoryReport:
    """What :func:`write_category_report` wrote."""

    rows: tuple[CategoryScore, ...]
    summary: str
    """``category_summary.csv``'s text (:func:`summary_csv`)."""
    folder: Path


def write_category_report(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    categories_file: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    formats: Sequence[str] = ("png",),
    dpi: float = 300,
    seed: int = DEFAULT_SEED,
    force: bool = False,
    progress: Progress | None = None,
) -> CategoryReport:
    """Evaluate, then write per-(sub)category tables and plots into ``out``.

    ``out`` is checked (and the categories read) before any case is evaluated. A case
    of the categories file that is not in the dataset is a warning naming the file.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    methods : mapping of str to MethodFolder
        The methods evaluated.
    categories_file : path-like
        ``case,category[,subcategory[,order]]`` rows.
    out : path-like
        The folder written: ``category_scores.csv``, ``category_summary.csv`` and one
        figure per level and metric of :data:`PLOTTED` in each format.
    formats : sequence of str
        The figures' formats.
    dpi : float
        The figures' resolution.
    seed : int
        Seed of the bootstrap intervals.
    force : bool
        Whether existing files in ``out`` are replaced.
    progress : callable, optional
        Called with ``(done, total, case)`` as the evaluation goes.

    Returns
    -------
    CategoryReport
        The rows, the summary CSV and the folder.

    Raises
    ------
    MoodInputError
        When the categories file cannot be read, the labels are missing, or ``out``
        cannot take the files.
    """
    from napari_mood.services.report import read_case_categories

    path = Path(categories_file)
    inputs = Inputs.of(dataset, methods, files=(path,))
    categories = read_case_categories(path, cases=dataset.cases)
    levels: tuple[Level, ...] = ("category",)
    if any(c.subcategory for c in categories.values()):
        levels = ("category", "subcategory")
    names = [f"{lv}_{m}.{f}" for lv in levels for m in PLOTTED for f in formats]
    names = ["category_scores.csv", "category_summary.csv", *names]
    folder = check_output_folder(
        out, inputs=inputs, force=force, names=names, what=option("--out", "the output")
    )
    tasks = default_tasks(dataset)
    check_labels_for(dataset, tasks)
    found = evaluate(
        dataset, methods=methods, options=EvaluationOptions(tasks=tasks), workers=1,
        progress=progress, warn=True,
    )  # fmt: skip
    unknown = sorted(set(categories) - set(found.result.cases))
    if unknown:
        warnings.warn(
            f"{path}: {len(unknown)} case(s) not in the dataset: {', '.join(unknown[:5])}",
            MoodInputWarning,
            stacklevel=2,
        )
    rows: list[CategoryScore] = []
    for level in levels:
        mine = category_rows(found.result, categories, level=level, seed=seed)
        rows += mine
        for metric in PLOTTED:
            figure = plot_categories(mine, metric)
            save_formats(figure, folder / f"{level}_{metric}", formats, dpi=dpi)
    write_text_atomic(folder / "category_scores.csv", scores_csv(rows), replace=force)
    summary = summary_csv(rows, SUMMARISED)
    write_text_atomic(folder / "category_summary.csv", summary, replace=force)
    return CategoryReport(tuple(rows), summary, folder)
