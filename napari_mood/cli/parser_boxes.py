"""Options of ``evaluate-boxes`` (NOVA-style 2-D box datasets)."""

from __future__ import annotations

import argparse
from pathlib import Path

from napari_mood.cli._args import (
    _output,
    _reader_name,
    add_dpi,
    add_force,
    add_format,
    add_out,
    add_plot,
    add_quiet,
    deprecated_alias,
)
from napari_mood.cli._common import Need
from napari_mood.cli.parser import Lazy

__all__ = ["add_evaluate_boxes", "check_iou", "check_unit", "file_pair"]


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
    """Return a number in [0, 1] (an IoU, a confidence)."""
    from napari_mood.services.options import check_threshold

    try:
        return check_threshold(text, name="value")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def check_iou(text: str) -> float:
    """Return an IoU threshold in (0, 1]: at 0 every pair of boxes would match."""
    value = check_unit(text)
    if value == 0.0:
        raise argparse.ArgumentTypeError(
            "an IoU threshold must be above 0 (at 0 any two boxes match)"
        )
    return value


def _needs(args: argparse.Namespace) -> list[Need]:
    return [("matplotlib", None, "evaluate-boxes --plot")] if args.plot is not None else []


def _add_truth(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--reader",
        type=_reader_name,
        metavar="NAME",
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
        metavar="IOU",
        help="consensus: pair boxes with IoU above (default 0.3)",
    )
    p.add_argument(
        "--drop-single", action="store_true", help="consensus: drop boxes only one reader drew"
    )


def _add_plot(p: argparse.ArgumentParser) -> None:
    add_plot(p, "draw the boxes of one method on the images", old=("--figure",))
    method = p.add_argument(
        "--plot-method", metavar="NAME", help="method drawn by --plot (default: the best)"
    )
    deprecated_alias(p, method, "--figure-method")
    images = p.add_argument(
        "--plot-images",
        metavar="A,B",
        help="images drawn by --plot (default: up to 6, most misses first)",
    )
    deprecated_alias(p, images, "--figure-images")
    add_dpi(p)


def add_evaluate_boxes(p: argparse.ArgumentParser) -> None:
    """Options of ``evaluate-boxes``."""
    p.add_argument(
        "dataset",
        type=Path,
        metavar="DATASET",
        help="folder with images/*.png (or *.png) and boxes.csv",
    )
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
        "--threshold",
        type=check_unit,
        default=0.5,
        metavar="T",
        help="score maps: box threshold (default 0.5)",
    )
    _add_truth(p)
    p.add_argument(
        "--iou",
        type=check_iou,
        default=0.3,
        metavar="IOU",
        help="IoU of TP/FP/FN counts and the per-image table (default 0.3)",
    )
    p.add_argument(
        "--min-confidence",
        type=check_unit,
        metavar="C",
        help="leave out predictions below this confidence",
    )
    p.add_argument("--strict", action="store_true", help="a bad prediction row is an error")
    add_format(p)
    p.add_argument(
        "--per-image",
        action="store_true",
        help="table: detected/missed/FP per image, most misses first",
    )
    add_out(p, "write the result here instead of stdout", metavar="FILE", type=_output)
    _add_plot(p)
    add_force(p, "--out and --plot files")
    add_quiet(p)
    p.set_defaults(func=Lazy("napari_mood.cli.boxes:main"), needs=_needs)
