"""2-D boxes (NOVA-style localisation): model, IoU, COCO scoring, consensus, boxes from maps.

The consensus is that of two human readers' boxes. Pure like the rest of the core: arrays in, frozen dataclasses out.
"""

from napari_mood.core.boxes.geometry import (
    as_boxes,
    box_areas,
    box_iou,
)
from napari_mood.core.boxes.model import DEFAULT_LABEL, BoxSet
from napari_mood.core.boxes.scoring import (
    COCO_IOU_THRESHOLDS,
    RECALL_POINTS,
    BoxEvaluation,
    BoxOutcomes,
    ImageCounts,
    box_outcomes,
    evaluate_boxes,
    interpolated_ap,
    match_boxes,
)

__all__ = [
    "COCO_IOU_THRESHOLDS",
    "DEFAULT_LABEL",
    "RECALL_POINTS",
    "BoxEvaluation",
    "BoxOutcomes",
    "BoxSet",
    "box_outcomes",
    "ImageCounts",
    "as_boxes",
    "box_areas",
    "box_iou",
    "evaluate_boxes",
    "interpolated_ap",
    "match_boxes",
]
