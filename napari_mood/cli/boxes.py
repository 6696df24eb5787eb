"""``napari-mood evaluate-boxes``: score box predictions NOVA-style (COCO mAP, TP30, ...).

Inputs are read-only; ``--out`` and ``--plot`` go through the output guard and are
checked before any work. A problem in a ground-truth row is an error (exit 1, the rows
named); a problem in a prediction row leaves the row out with a warning (``--strict``:
an error).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from napari_mood.io.boxes import BoxDataset, discover_box_dataset
from napari_mood.io.errors import MoodInputError
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.box_formats import format_box_result
from napari_mood.services.box_inputs import BoxMethod, find_box_methods
from napari_mood.services.boxes import BoxBenchmark, evaluate_boxes
from napari_mood.services.output import Inputs, Planned, check_outputs

__all__ = ["main"]


def _inputs(dataset: BoxDataset, methods: Mapping[str, BoxMethod]) -> Inputs:
    folders = [dataset.root, dataset.images_dir] + [
        m.path for m in methods.values() if m.kind == "maps"
    ]
    files = [dataset.boxes_file] + [m.path for m in methods.values() if m.kind == "boxes"]
    return Inputs.of(folders=folders, files=files)


def _check_outputs(args: argparse.Namespace, inputs: Inputs) -> None:
    planned = [Planned(p, w) for p, w in ((args.out, "--out"), (args.plot, "--plot")) if p]
    check_outputs(planned, inputs=inputs, force=args.force)


def _figure_method(args: argparse.Namespace, result: BoxBenchmark) -> str:
    if args.plot_method is None:
        return result.ranked()[0]
    if args.plot_method not in result.results:
        raise MoodInputError(
            None, f"--plot-method {args.plot_method!r} is not a method",
            f"methods: {', '.join(result.results)}",
        )  # fmt: skip
    return str(args.plot_method)


def _figure_images(args: argparse.Namespace, dataset: BoxDataset) -> list[str] | None:
    if args.plot_images is None:
        return None
    chosen = [i.strip() for i in args.plot_images.split(",") if i.strip()]
    unknown = [i for i in chosen if i not in dataset.images]
    if unknown or not chosen:
        raise MoodInputError(
            None, f"--plot-images: unknown image(s) {', '.join(unknown) or '(none given)'}",
            f"images are named by file stem, e.g. {next(iter(dataset.images))}",
        )  # fmt: skip
    return chosen


def _write_figure(args: argparse.Namespace, result: BoxBenchmark, images: list[str] | None) -> None:
    from napari_mood.services.box_figures import write_box_figure

    method = _figure_method(args, result)
    out = write_box_figure(result, method, args.plot, images=images, dpi=args.dpi)
    print(f"figure written to {out} ({method})", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    """Run ``evaluate-boxes`` with parsed arguments; returns the exit code."""
    dataset = discover_box_dataset(args.dataset, boxes=args.boxes, images=args.images)
    methods = find_box_methods(dataset, preds=args.pred, maps=args.maps)
    _check_outputs(args, _inputs(dataset, methods))
    images = _figure_images(args, dataset)
    result = evaluate_boxes(
        dataset, methods=methods, reader=args.reader, merge=args.merge,
        merge_iou=args.merge_iou, keep_single=not args.drop_single, threshold=args.threshold,
        iou=args.iou, min_confidence=args.min_confidence, strict=args.strict,
    )  # fmt: skip
    text = format_box_result(result, args.format, per_image=args.per_image)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(args.out, text, replace=args.force)
    if args.plot is not None:
        _write_figure(args, result, images)
    return 0
