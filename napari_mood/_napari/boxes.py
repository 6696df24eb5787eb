"""NOVA-style box datasets in napari: the reader and the layers (no Qt here).

A folder with PNG slices and ``boxes.csv`` (see :mod:`napari_mood.io.boxes`) opens
as:

- ``"<dataset> slices"``: the slices stacked as one Image (the slider picks the slice;
  slices of different sizes are padded at the bottom and right);
- ``"GT <reader>"`` per reader (thin, in the reader's colour) and ``"GT consensus"`` (or
  ``"GT"``): the boxes scored against, green when detected and orange when missed;
- ``"<method> boxes"`` per method (``predictions/`` files and ``maps/`` folders at 0.5):
  cyan when they match a GT box (TP), red when not (FP), with ``confidence``,
  ``outcome`` and ``image`` in the layer's features.

Outcomes are at IoU 0.3 with every prediction when the folder opens; the box widget
(:mod:`napari_mood._napari.widgets.boxes`) changes the IoU and the confidence threshold.
Box edges sit on pixel edges: napari puts pixel centres on whole numbers, so a box
``(x1, y1, x2, y2)`` is drawn from ``x1 - 0.5`` to ``x2 - 0.5``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from napari_mood._napari.layers import BOXES_KEY, LayerData
from napari_mood.io.boxes import BOXES_FILE, BoxDataset, discover_box_dataset, read_png
from napari_mood.io.errors import MoodInputError
from napari_mood.services.box_inputs import find_box_methods
from napari_mood.services.box_view import BoxView, box_view
from napari_mood.services.boxes import BoxBenchmark, BoxSet, evaluate_boxes, readers_of
from napari_mood.services.looks import BOX_COLORS, READER_COLORS

__all__ = [
    "box_layers",
    "get_box_reader",
    "is_box_dataset",
    "rectangles",
    "view_styles",
]

EDGE_WIDTH = 2.0
READER_EDGE_WIDTH = 1.0
PRED_TEXT = {"string": "{confidence:.2f}", "size": 8, "color": "white", "anchor": "upper_left"}
"""Each predicted box shows its confidence at its top-left corner."""


def is_box_dataset(path: str | os.PathLike[str]) -> bool:
    """Return a folder holding ``boxes.csv`` and PNG slices (in it or in ``images/``)."""
    folder = Path(path)
    if not (folder.is_dir() and (folder / BOXES_FILE).is_file()):
        return False
    images = folder / "images" if (folder / "images").is_dir() else folder
    return any(p.suffix.lower() == ".png" for p in images.iterdir())


def get_box_reader(path: str | list[str]) -> Callable[[Any], list[LayerData]] | None:
    """npe2 reader: a NOVA-style folder, else None (another reader takes it)."""
    if isinstance(path, list) or not is_box_dataset(path):
        return None
    return _read


def _read(path: str | list[str]) -> list[LayerData]:
    target = path[0] if isinstance(path, list) else path
    return box_layers(discover_box_dataset(target))


def rectangles(boxes: BoxSet, order: Sequence[str]) -> list[np.ndarray]:
    """Rectangles for napari, ``(4, 3)``: (slice index, row, column) corners on pixel edges.

    Examples
    --------
    >>> boxes = BoxSet.build(["b"], [[1, 2, 4, 6]])
    >>> rectangles(boxes, ["a", "b"])[0].tolist()
    [[1.0, 1.5, 0.5], [1.0, 1.5, 3.5], [1.0, 5.5, 3.5], [1.0, 5.5, 0.5]]
    """
    index = {image: i for i, image in enumerate(order)}
    shapes = []
    for image, (x1, y1, x2, y2) in zip(boxes.images, boxes.xyxy - 0.5, strict=True):
        z = float(index[image])
        shapes.append(np.array([[z, y1, x1], [z, y1, x2], [z, y2, x2], [z, y2, x1]]))
    return shapes


def _stack(dataset: BoxDataset) -> np.ndarray:
    height = max(h for _, h in dataset.sizes.values())
    width = max(w for w, _ in dataset.sizes.values())
    slices = []
    for image in dataset.order:
        pixels = read_png(dataset.images[image])
        pad = ((0, height - pixels.shape[0]), (0, width - pixels.shape[1]))
        slices.append(np.pad(pixels, pad))
    return np.stack(slices)


def view_styles(view: BoxView) -> tuple[list[str], list[str], list[str]]:
    """Edge colours of GT boxes, of shown predictions, and the shown predictions' outcomes."""
    gt = [BOX_COLORS["gt_detected" if hit else "gt_missed"] for hit in view.gt_detected]
    outcome = ["TP" if tp else "FP" for tp in view.pred_tp[view.pred_shown]]
    pred = [BOX_COLORS["pred_tp" if o == "TP" else "pred_fp"] for o in outcome]
    return gt, pred, outcome


def _shapes(
    boxes: BoxSet, order: Sequence[str], name: str, colors: Sequence[str], width: float, meta: dict
) -> LayerData:
    kwargs: dict[str, Any] = {
        "name": name, "shape_type": "rectangle", "ndim": 3, "face_color": "transparent",
        "edge_width": width, "metadata": {BOXES_KEY: meta}, "opacity": 1.0,
    }  # fmt: skip
    if len(boxes):
        kwargs["edge_color"] = list(colors)
    return rectangles(boxes, order), kwargs, "shapes"


def _features(boxes: BoxSet, outcome: Sequence[str]) -> dict[str, list]:
    return {
        "confidence": boxes.scores.tolist(),
        "outcome": list(outcome),
        "image": list(boxes.images),
    }


def box_layers(dataset: BoxDataset, *, iou: float = 0.3) -> list[LayerData]:
    """Layer data of a box dataset: slices, readers' boxes, GT, each method's boxes."""
    try:
        methods = find_box_methods(dataset)
    except MoodInputError:
        methods = {}
    result = evaluate_boxes(dataset, methods=methods, iou=iou)
    truth = result.truth
    order = dataset.order
    name = dataset.root.name
    layers: list[LayerData] = [
        (_stack(dataset), {"name": f"{name} slices", "colormap": "gray",
                           "axis_labels": ("slice", "y", "x"),
                           "metadata": {BOXES_KEY: {"role": "slices", "images": list(order),
                                                    "root": str(dataset.root)}}}, "image"),
    ]  # fmt: skip
    layers += _reader_layers(truth.file.boxes, truth.readers, order)
    layers += _scored_layers(result, iou)
    return layers


def _reader_layers(boxes: BoxSet, readers: Sequence[str], order: Sequence[str]) -> list[LayerData]:
    if len(readers) < 2:
        return []
    layers = []
    for k, reader in enumerate(readers_of(boxes)):
        mine = boxes.take([r == reader for r in boxes.readers])
        color = READER_COLORS[k % len(READER_COLORS)]
        meta = {"role": "reader", "reader": reader}
        layer = _shapes(mine, order, f"GT {reader}", [color] * len(mine), READER_EDGE_WIDTH, meta)
        layer[1]["visible"] = False
        layers.append(layer)
    return layers


def _scored_layers(result: BoxBenchmark, iou: float) -> list[LayerData]:
    order = result.images
    truth = result.truth
    gt = truth.boxes
    first = result.ranked()[0] if result.results else None
    view = box_view(gt, result.predictions[first] if first else BoxSet.empty(), iou=iou)
    gt_colors, _, _ = view_styles(view)
    name = "GT " + (truth.reader or "boxes")
    layers = [
        _shapes(
            gt, order, name, gt_colors, EDGE_WIDTH, {"role": "gt", "boxes": gt, "method": first}
        )
    ]
    for method in result.ranked():
        pred = result.predictions[method]
        _, colors, outcome = view_styles(box_view(result.ground_truth[method], pred, iou=iou))
        meta = {"role": "pred", "method": method, "boxes": pred, "gt": result.ground_truth[method]}
        data, kwargs, kind = _shapes(pred, order, f"{method} boxes", colors, EDGE_WIDTH, meta)
        kwargs["features"] = _features(pred, outcome)
        kwargs["text"] = dict(PRED_TEXT)
        kwargs["visible"] = method == first
        layers.append((data, kwargs, kind))
    return layers
