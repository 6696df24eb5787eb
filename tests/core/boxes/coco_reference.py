"""The COCO evaluator (pycocotools) run on a BoxSet pair: the oracle of the box tests."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence

import numpy as np
import pytest

from napari_mood.core.boxes import COCO_IOU_THRESHOLDS, BoxSet

coco = pytest.importorskip("pycocotools.coco", reason="pycocotools is the COCO oracle (dev extra)")
cocoeval = pytest.importorskip("pycocotools.cocoeval")

THRESHOLDS = np.array([0.3, *COCO_IOU_THRESHOLDS])


def xyxy_to_xywh(xyxy: np.ndarray) -> np.ndarray:
    """``(x1, y1, x2, y2)`` -> COCO ``[x, y, width, height]`` (what pycocotools reads)."""
    xyxy = np.asarray(xyxy, dtype=np.float64)
    return np.concatenate([xyxy[:, :2], xyxy[:, 2:] - xyxy[:, :2]], axis=1)


def _annotations(boxes: BoxSet, image_ids: dict[str, int], cat_ids: dict[str, int]) -> list:
    xywh = xyxy_to_xywh(boxes.xyxy)
    return [
        {
            "id": i + 1,
            "image_id": image_ids[image],
            "category_id": cat_ids[label],
            "bbox": [float(v) for v in xywh[i]],
            "area": float(xywh[i, 2] * xywh[i, 3]),
            "iscrowd": 0,
            "score": float(boxes.scores[i]),
        }
        for i, (image, label) in enumerate(zip(boxes.images, boxes.labels, strict=True))
    ]


def _coco(dataset: dict) -> object:
    api = coco.COCO()
    api.dataset = dataset
    with contextlib.redirect_stdout(io.StringIO()):
        api.createIndex()
    return api


def coco_reference(gt: BoxSet, pred: BoxSet, images: Sequence[str]) -> dict:
    """AP per threshold (mean over categories with GT), recall, TP per image at 0.3."""
    image_ids = {name: i + 1 for i, name in enumerate(images)}
    cat_ids = {c: i + 1 for i, c in enumerate(sorted({*gt.labels, *pred.labels}))}
    base = {
        "images": [{"id": i} for i in image_ids.values()],
        "categories": [{"id": i, "name": c} for c, i in cat_ids.items()],
    }
    truth = _coco({**base, "annotations": _annotations(gt, image_ids, cat_ids)})
    results = _annotations(pred, image_ids, cat_ids)
    with contextlib.redirect_stdout(io.StringIO()):
        if results:
            for r in results:  # loadRes sets these itself
                del r["id"], r["area"], r["iscrowd"]
            detections = truth.loadRes(results)
        else:  # loadRes cannot take an empty list (it reads anns[0])
            detections = _coco({**base, "annotations": []})
        ev = cocoeval.COCOeval(truth, detections, iouType="bbox")
        ev.params.iouThrs = THRESHOLDS
        ev.params.maxDets = [10**6]
        ev.params.areaRng = [[0, 1e5**2]]
        ev.params.areaRngLbl = ["all"]
        ev.evaluate()
        ev.accumulate()
    precision = ev.eval["precision"][:, :, :, 0, 0]  # T x R x K
    recall = ev.eval["recall"][:, :, 0, 0]  # T x K
    ap, rec = {}, {}
    for t_index, t in enumerate(THRESHOLDS):
        p, r = precision[t_index], recall[t_index]
        ap[float(t)] = float(np.mean(p[p > -1])) if (p > -1).any() else float("nan")
        rec[float(t)] = float(np.mean(r[r > -1])) if (r > -1).any() else float("nan")
    detected = dict.fromkeys(images, 0)
    names = {i: n for n, i in image_ids.items()}
    for record in ev.evalImgs:
        if record is not None:
            detected[names[record["image_id"]]] += int((record["gtMatches"][0] > 0).sum())
    return {"ap": ap, "recall": rec, "detected": detected, "precision": precision}
