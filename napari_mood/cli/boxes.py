"""``napari-mood evaluate-boxes``: score box predictions NOVA-style (COCO mAP, TP30, ...).

Inputs are read-only; ``--out`` and ``--figure`` go through the output guard and are
checked before any work. A problem in a ground-truth row is an error (exit 1, the rows
named); a problem in a prediction row leaves the row out with a warning (``--strict``:
an error).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from napari_mood.core.boxes.io import BoxDataset, discover_box_dataset
from napari_mood.core.io import MoodInputError
from napari_mood.services.boxes import (
    BoxBenchmark,
    BoxMethod,
    evaluate_box_methods,
    find_box_methods,
    format_box_result,
    load_ground_truth,
)
from napari_mood.services.output import (
    Inputs,
    Planned,
    check_outputs,
    write_text_atomic,
)

__all__ = ["main"]


def _inputs(dataset: BoxDataset, methods: Mapping[str, BoxMethod]) -> Inputs:
    folders = [dataset.root, dataset.images_dir] + [
        m.path for m in methods.values() if m.kind == "maps"
    ]
    files = [dataset.boxes_file] + [m.path for m in methods.values() if m.kind == "boxes"]
    return Inputs.of(folders=folders, files=files)


def _check_outputs(args: argparse.Namespace, inputs: Inputs) -> None:
    planned = [Planned(p, w) for p, w in ((args.out, "--out"), (args.figure, "--figure")) if p]
    check_outputs(planned, inputs=inputs, force=args.force)


def _figure_method(args: argparse.Namespace, result: BoxBenchmark) -> str:
    if args.figure_method is None:
        return result.ranked()[0]
    if args.figure_method not in result.results:
        raise MoodInputError(
            None, f"--figure-method {args.figure_method!r} is not a method",
            f"methods: {', '.join(result.results)}",
        )  # fmt: skip
    return str(args.figure_method)


def _figure_images(args: argparse.Namespace, dataset: BoxDataset) -> list[str] | None:
    if args.figure_images is None:
        return None
    chosen = [i.strip() for i in args.figure_images.split(",") if i.strip()]
    unknown = [i for i in chosen if i not in dataset.images]
    if unknown or not chosen:
        raise MoodInputError(
            None, f"--figure-images: unknown image(s) {', '.join(unknown) or '(none given)'}",
            f"images are named by file stem, e.g. {next(iter(dataset.images))}",
        )  # fmt: skip
    return chosen


def _write_figure(args: argparse.Namespace, result: BoxBenchmark, images: list[str] | None) -> None:
    try:
        from napari_mood.services.box_figures import write_box_figure
    except ImportError as exc:
        raise MoodInputError(
            None, f"--figure needs matplotlib ({exc})", "pip install 'napari-mood[viewer]'"
        ) from exc
    method = _figure_method(args, result)
    out = write_box_figure(result, method, args.figure, images=images, dpi=args.dpi)
    print(f"figure written to {out} ({method})", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    """Run ``evaluate-boxes`` with parsed arguments; returns the exit code."""
    dataset = discover_box_dataset(args.dataset, boxes=args.boxes, images=args.images)
    methods = find_box_methods(dataset, preds=args.pred, maps=args.maps)
    _check_outputs(args, _inputs(dataset, methods))
    images = _figure_images(args, dataset)
    truth = load_ground_truth(
        dataset, reader=args.reader, merge=args.merge, merge_iou=args.merge_iou,
        keep_single=not args.drop_single,
    )  # fmt: skip
    result = evaluate_box_methods(
        dataset, truth, methods, threshold=args.threshold, count_iou=args.iou,
        min_score=args.min_confidence, strict=args.strict,
    )  # fmt: skip
    text = format_box_result(result, args.format, per_image=args.per_image)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(args.out, text, replace=args.force)
    if args.figure is not None:
        _write_figure(args, result, images)
    return 0


def file_pair(text: str) -> tuple[str, Path]:
    """``NAME=PATH``, or a bare ``PATH`` named after its file stem (or folder)."""
    name, sep, value = text.partition("=")
    if not sep:
        path = Path(text)
        return (path.stem if path.suffix.lower() in (".csv", ".json") else path.name), path
    if not name or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH or PATH, got {text!r}")
    return name, Path(value)


def check_unit(text: str) -> float:
    """A number in [0, 1] (an IoU, a confidence)."""
    from napari_mood.core.scores import check_threshold

    try:
        return check_threshold(text, name="value")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def check_iou(text: str) -> float:
    """An IoU threshold in (0, 1]: at 0 every pair of boxes would match."""
    value = check_unit(text)
    if value == 0.0:
        raise argparse.ArgumentTypeError(
            "an IoU threshold must be above 0 (at 0 any two boxes match)"
        )
    return value


def add_parser(
    sub: argparse._SubParsersAction,
    *,
    output: Callable[[str], Path],
    dpi: Callable[[str], float],
    figure: Callable[[str], Path],
    reader: Callable[[str], str],
) -> None:
    """The ``evaluate-boxes`` subcommand and its options (value types given by the parser)."""
    p = sub.add_parser(
        "evaluate-boxes", help="score predicted boxes on a NOVA-style 2-D box dataset"
    )
    p.add_argument("dataset", type=Path, help="folder with images/*.png (or *.png) and boxes.csv")
    p.add_argument(
        "--boxes", type=Path, metavar="CSV", help="ground-truth boxes (default DATASET/boxes.csv)"
    )
    p.add_argument(
        "--images",
        type=Path,
        metavar="DIR",
        help="the PNG slices (default DATASET/images or DATASET)",
    )
    p.add_argument("--pred", type=file_pair, action="append", default=[], metavar="[NAME=]FILE",
                   help="a method's boxes, .csv or .json (COCO results); repeat for several")  # fmt: skip
    p.add_argument("--maps", type=file_pair, action="append", default=[], metavar="[NAME=]DIR",
                   help="a method's score maps (IMAGE.png or .npy) turned into boxes at --threshold")  # fmt: skip
    p.add_argument(
        "--threshold", type=check_unit, default=0.5, help="score maps: box threshold (default 0.5)"
    )
    p.add_argument(
        "--reader",
        type=reader,
        help="score against one reader, or 'consensus' (default with two readers)",
    )
    p.add_argument(
        "--merge",
        choices=("mean", "union"),
        default="mean",
        help="consensus box of a pair (default mean)",
    )
    p.add_argument(
        "--merge-iou",
        type=check_unit,
        default=0.3,
        help="consensus: pair boxes with IoU above (default 0.3)",
    )
    p.add_argument(
        "--drop-single", action="store_true", help="consensus: drop boxes only one reader drew"
    )
    p.add_argument(
        "--iou",
        type=check_iou,
        default=0.3,
        help="IoU of TP/FP/FN counts and the per-image table (default 0.3)",
    )
    p.add_argument(
        "--min-confidence", type=check_unit, help="leave out predictions below this confidence"
    )
    p.add_argument("--strict", action="store_true", help="a bad prediction row is an error")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument(
        "--per-image",
        action="store_true",
        help="table: detected/missed/FP per image, most misses first",
    )
    p.add_argument("--out", type=output, help="write the result here instead of stdout")
    p.add_argument("--figure", type=figure, metavar="FIG", help="draw boxes: .png, .svg or .pdf")
    p.add_argument("--figure-method", metavar="NAME", help="method drawn (default: the best)")
    p.add_argument(
        "--figure-images", metavar="A,B", help="images drawn (default: up to 6, most misses first)"
    )
    p.add_argument("--dpi", type=dpi, default=300, help="figure resolution (default 300)")
    p.add_argument(
        "--force",
        "--overwrite",
        dest="force",
        action="store_true",
        help="replace existing output files",
    )
    p.add_argument("--quiet", action="store_true", help="no warnings on stderr")
    p.set_defaults(func=main)
