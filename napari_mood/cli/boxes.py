"""``napari-mood evaluate-boxes``: score box predictions NOVA-style (COCO mAP, TP30, ...).

The run is one job, :func:`napari_mood.services.boxes.write_box_evaluation` (outputs
checked before any work, then scored and written); this module parses, calls and prints.
"""

from __future__ import annotations

import argparse
import sys

from napari_mood.io.boxes import discover_box_dataset
from napari_mood.services.box_inputs import find_box_methods
from napari_mood.services.boxes import BoxOutputs, write_box_evaluation

__all__ = ["main"]


def _plot_images(text: str | None) -> list[str] | None:
    """``--plot-images a,b`` -> ``["a", "b"]``."""
    if text is None:
        return None
    return [i.strip() for i in text.split(",") if i.strip()]


def main(args: argparse.Namespace) -> int:
    """Run ``evaluate-boxes`` with parsed arguments; returns the exit code."""
    dataset = discover_box_dataset(args.dataset, boxes=args.boxes, images=args.images)
    methods = find_box_methods(dataset, preds=args.pred, maps=args.maps)
    outputs = BoxOutputs(
        out=args.out, format=args.format, per_image=args.per_image, plot=args.plot,
        plot_method=args.plot_method, plot_images=_plot_images(args.plot_images),
        dpi=args.dpi, force=args.force,
    )  # fmt: skip
    run = write_box_evaluation(
        dataset, methods, outputs, reader=args.reader, merge=args.merge,
        merge_iou=args.merge_iou, keep_single=not args.drop_single, threshold=args.threshold,
        iou=args.iou, min_confidence=args.min_confidence, strict=args.strict,
    )  # fmt: skip
    if args.out is None:
        sys.stdout.write(run.text)
    if "plot" in run.written:
        print(f"figure written to {run.written['plot']} ({run.plot_method})", file=sys.stderr)
    return 0
