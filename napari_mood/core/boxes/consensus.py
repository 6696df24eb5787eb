"""The consensus of two readers' boxes (NOVA: boxes merged at IoU > 0.3, then adjudicated).

The rule, per image and category:

1. Pairs of boxes of reader A and reader B (the two readers present, in the order they
   first appear in the file) with ``IoU > min_iou`` (strictly; 0.3 as NOVA) are paired
   one-to-one, greedily by decreasing IoU (ties: A's file order, then B's).
2. A pair becomes one box: the mean of the two boxes' corners (``how="mean"``, default:
   neither reader's extent is preferred) or the box enclosing both (``how="union"``).
3. A box of one reader without a partner is kept as it is (``keep_single=True``,
   default: a finding seen by one reader stays a finding; NOVA's adjudication cannot be
   replayed) or dropped (``keep_single=False``: only findings both readers marked).

An image with boxes of one reader only keeps them. More than two readers on one image
is refused. The consensus boxes' reader is ``"consensus"``.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_choice
from napari_mood.core.boxes.geometry import box_iou
from napari_mood.core.boxes.model import BoxSet

__all__ = ["CONSENSUS", "MergeRule", "merge_readers", "readers_of"]

CONSENSUS = "consensus"
MergeRule = Literal["mean", "union"]


def readers_of(boxes: BoxSet) -> tuple[str, ...]:
    """Return the readers of ``boxes`` in order of first appearance (``""``: none named).

    Parameters
    ----------
    boxes : BoxSet
        Boxes with their readers.

    Returns
    -------
    tuple of str
        The distinct reader names.
    """
    return tuple(dict.fromkeys(boxes.readers))


def merge_readers(
    boxes: BoxSet, *, min_iou: float = 0.3, how: MergeRule = "mean", keep_single: bool = True
) -> BoxSet:
    """Return the consensus of two readers' boxes (see the module's rule).

    Parameters
    ----------
    boxes : BoxSet
        The boxes of at most two readers per image.
    min_iou : float
        The IoU from which two readers' boxes pair up, in [0, 1).
    how : {"mean", "union"}
        How a pair becomes one box.
    keep_single : bool
        Whether a box without a partner stays.

    Returns
    -------
    BoxSet
        The consensus boxes.

    Raises
    ------
    ValueError
        When ``how`` or ``min_iou`` is invalid, or an image has more than two readers.

    Examples
    --------
    >>> two = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [2, 0, 12, 10]], readers=["R1", "R2"])
    >>> merge_readers(two).xyxy.tolist()
    [[1.0, 0.0, 11.0, 10.0]]
    >>> merge_readers(two, how="union").xyxy.tolist()
    [[0.0, 0.0, 12.0, 10.0]]
    """
    check_choice("how", how, get_args(MergeRule))
    if not 0.0 <= min_iou < 1.0:
        raise ValueError(f"min_iou must be in [0, 1); got {min_iou}")
    order = readers_of(boxes)
    parts = []
    for image in dict.fromkeys(boxes.images):
        for label in dict.fromkeys(boxes.labels):
            rows = boxes.rows_of(image, label)
            if rows.size:
                parts.append(_merge_cell(boxes, rows, order, min_iou, how, keep_single))
    merged = BoxSet.concat(parts)
    return BoxSet(
        merged.images, merged.xyxy, merged.scores, merged.labels, (CONSENSUS,) * len(merged)
    )


def _merge_cell(
    boxes: BoxSet,
    rows: np.ndarray,
    order: tuple[str, ...],
    min_iou: float,
    how: MergeRule,
    keep_single: bool,
) -> BoxSet:
    present = [r for r in order if r in {boxes.readers[i] for i in rows}]
    if len(present) > 2:
        raise ValueError(
            f"image {boxes.images[rows[0]]} has boxes of {len(present)} readers "
            f"({', '.join(present)}); a consensus merges two"
        )
    if len(present) < 2:
        return boxes.take(rows)
    a = rows[[boxes.readers[i] == present[0] for i in rows]]
    b = rows[[boxes.readers[i] == present[1] for i in rows]]
    pairs = _pairs(box_iou(boxes.xyxy[a], boxes.xyxy[b]), min_iou)
    merged = [_combine(boxes.xyxy[a[i]], boxes.xyxy[b[j]], how) for i, j in pairs]
    single = [] if not keep_single else _unpaired(a, b, pairs)
    xyxy = np.array(merged + [boxes.xyxy[r] for r in single]).reshape(-1, 4)
    image, label = boxes.images[rows[0]], boxes.labels[rows[0]]
    return BoxSet.build([image] * len(xyxy), xyxy, labels=[label] * len(xyxy))


def _pairs(iou: np.ndarray, min_iou: float) -> list[tuple[int, int]]:
    """One-to-one pairs with IoU > min_iou, greedily by decreasing IoU, sorted by A's order."""
    candidates = sorted(
        ((-iou[i, j], i, j) for i, j in zip(*np.nonzero(iou > min_iou), strict=True)),
    )
    used_a: set[int] = set()
    used_b: set[int] = set()
    pairs = []
    for _, i, j in candidates:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            pairs.append((int(i), int(j)))
    return sorted(pairs)


def _combine(first: np.ndarray, second: np.ndarray, how: MergeRule) -> np.ndarray:
    if how == "mean":
        return (first + second) / 2.0
    return np.concatenate([np.minimum(first[:2], second[:2]), np.maximum(first[2:], second[2:])])


def _unpaired(a: np.ndarray, b: np.ndarray, pairs: list[tuple[int, int]]) -> list[int]:
    paired_a = {i for i, _ in pairs}
    paired_b = {j for _, j in pairs}
    return [int(r) for k, r in enumerate(a) if k not in paired_a] + [
        int(r) for k, r in enumerate(b) if k not in paired_b
    ]
