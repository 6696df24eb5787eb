"""Figures of box benchmarks: slices with GT and predicted boxes, coloured by outcome.

Each panel is one image: the slice in gray, GT boxes (green: detected, orange: missed)
and the method's boxes (cyan dashed: TP, red dashed: FP) at the counting IoU, with the
confidence of each image's five most confident predictions at their top-left corner. Text and fonts follow
:data:`napari_mood.services.figures.FIGURE_RC` (TrueType in PDF, text in SVG).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from napari_mood.core.boxes import BoxOutcomes, BoxSet, box_outcomes
from napari_mood.io.boxes import read_png
from napari_mood.services.boxes import BoxBenchmark
from napari_mood.services.figures import FIGURE_RC, save_figure
from napari_mood.services.looks import BOX_COLORS

__all__ = ["images_by_misses", "make_box_figure", "write_box_figure"]

PANEL_INCHES = 1.9
LABELLED = 5
"""Confidences are written on the most confident predictions of each image only."""
_LINE_PT = 0.9


def images_by_misses(result: BoxBenchmark, method: str, *, limit: int = 6) -> list[str]:
    """Images with ground truth, most missed boxes first (then most FPs, then image order).

    Parameters
    ----------
    result : BoxBenchmark
        A box evaluation.
    method : str
        One of its methods.
    limit : int
        The most images returned.

    Returns
    -------
    list of str
        Image ids.
    """
    counts = [c for c in result.results[method].per_image if c.gt > 0]
    counts.sort(key=lambda c: (-c.missed, -c.false_positives, result.images.index(c.image)))
    return [c.image for c in counts[:limit]]


def make_box_figure(
    result: BoxBenchmark, method: str, images: Sequence[str], *, columns: int = 3
) -> Figure:
    """One panel per image (rows of ``columns``), a legend and the counting IoU in the title.

    Parameters
    ----------
    result : BoxBenchmark
        A box evaluation.
    method : str
        The method drawn.
    images : sequence of str
        The images drawn, in order.
    columns : int
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.

    Raises
    ------
    ValueError
        When ``method`` is unknown or ``images`` is empty.
    """
    if method not in result.results:
        raise ValueError(f"unknown method {method!r}; methods: {', '.join(result.results)}")
    if not images:
        raise ValueError("no image to draw")
    gt, pred = result.ground_truth[method], result.predictions[method]
    iou = result.results[method].count_iou
    found = box_outcomes(gt, pred, iou_threshold=iou)
    cols = min(columns, len(images))
    rows = math.ceil(len(images) / cols)
    with rc_context(FIGURE_RC):
        figure = Figure(figsize=(cols * PANEL_INCHES, rows * (PANEL_INCHES + 0.15) + 0.55))
        axes = figure.subplots(rows, cols, squeeze=False)
        for ax, image in zip(axes.ravel(), images, strict=False):
            _panel(ax, result, image, gt, pred, found)
        for ax in axes.ravel()[len(images) :]:
            ax.set_axis_off()
        figure.suptitle(f"{method}: boxes at IoU {iou:g}", y=0.995)
        figure.legend(handles=_legend(), loc="lower center", ncol=4, frameon=False)
        figure.subplots_adjust(left=0.01, right=0.99, top=1 - 0.35 / figure.get_figheight(),
                               bottom=0.3 / figure.get_figheight(), wspace=0.04, hspace=0.15)  # fmt: skip
    return figure


def _panel(
    ax: Axes, result: BoxBenchmark, image: str, gt: BoxSet, pred: BoxSet, found: BoxOutcomes
) -> None:
    pixels = read_png(result.dataset.images[image])
    ax.imshow(pixels, cmap="gray", interpolation="nearest")
    ax.set_axis_off()
    counts = {c.image: c for c in result.results[next(iter(result.results))].per_image}
    ax.set_title(f"{image} ({counts[image].gt} GT)", pad=2)
    for row in gt.rows_of(image):
        hit = bool(found.gt_detected[row])
        _box(ax, gt.xyxy[row], BOX_COLORS["gt_detected" if hit else "gt_missed"], "-")
    rows = pred.rows_of(image)
    labelled = set(rows[np.argsort(-pred.scores[rows], kind="mergesort")[:LABELLED]].tolist())
    for row in rows:
        tp = bool(found.pred_matched[row])
        color = BOX_COLORS["pred_tp" if tp else "pred_fp"]
        _box(ax, pred.xyxy[row], color, "--")
        if row in labelled:
            x1, y1 = pred.xyxy[row, :2]
            ax.text(x1, y1 - 2, f"{pred.scores[row]:.2f}", color=color, fontsize=5, va="bottom")


def _box(ax: Axes, xyxy: np.ndarray, color: str, style: str) -> None:
    # imshow puts pixel (r, c) at [c - 0.5, c + 0.5]: box edges at whole pixels shift by -0.5
    x1, y1, x2, y2 = (float(v) - 0.5 for v in xyxy)
    ax.add_patch(
        Rectangle(
            (x1, y1),
            x2 - x1,
            y2 - y1,
            fill=False,
            edgecolor=color,
            linewidth=_LINE_PT,
            linestyle=style,
        )
    )


def _legend() -> list[Line2D]:
    solid = [("GT detected", "gt_detected"), ("GT missed", "gt_missed")]
    dashed = [("prediction TP", "pred_tp"), ("prediction FP", "pred_fp")]
    return [Line2D([], [], color=BOX_COLORS[k], linestyle="-", label=t) for t, k in solid] + [
        Line2D([], [], color=BOX_COLORS[k], linestyle="--", label=t) for t, k in dashed
    ]


def write_box_figure(
    result: BoxBenchmark,
    method: str,
    path: Path,
    *,
    images: Sequence[str] | None = None,
    dpi: float = 300,
) -> Path:
    """Draw (default: the images with the most misses) and save atomically as PNG, SVG or PDF.

    Parameters
    ----------
    result : BoxBenchmark
        A box evaluation.
    method : str
        The method drawn.
    path : pathlib.Path
        The file (its extension chooses the format).
    images : sequence of str, optional
        The images drawn.
    dpi : float
        Resolution.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    chosen = list(images) if images is not None else images_by_misses(result, method)
    return save_figure(make_box_figure(result, method, chosen), path, dpi=dpi)
