"""How box outcomes look, in figures and in the viewer (one owner of the colours).

Object-matching colours of the voxel widgets, kept for boxes: green = ground truth found
(TP), orange = ground truth missed (FN), red = prediction matching nothing (FP); a
prediction that found its box is cyan (drawn dashed, over the green GT box).
"""

from __future__ import annotations

from napari_mood.core.looks import GT_COLOR

__all__ = ["BOX_COLORS", "READER_COLORS"]

BOX_COLORS: dict[str, str] = {
    "gt": GT_COLOR,
    "gt_detected": GT_COLOR,
    "gt_missed": "#ff9900",
    "pred": "#ffff00",
    "pred_tp": "#00e5ff",
    "pred_fp": "#ff3333",
}
"""Edge colours: plain GT / predictions (no matching shown) and the four outcomes."""
READER_COLORS: tuple[str, ...] = ("#7fbf7f", "#bf7fbf", "#7f9fff")
"""Each reader's own boxes (before the consensus)."""
