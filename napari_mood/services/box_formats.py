"""A box benchmark as text: an aligned table, CSV rows per image, JSON.

:func:`format_box_result` gives each format of a
:class:`~napari_mood.services.boxes.BoxBenchmark` (its ``to_table``, ``to_json`` and
``to_dict`` call it); NaN is ``nan`` in the table, empty in the CSV, null in JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Any, Literal

from napari_mood.core.boxes import BoxEvaluation

if TYPE_CHECKING:
    from napari_mood.services.boxes import BoxBenchmark

__all__ = ["CSV_COLUMNS", "BoxFormat", "format_box_result", "result_dict"]

BoxFormat = Literal["table", "csv", "json"]


def format_box_result(result: BoxBenchmark, fmt: BoxFormat, *, per_image: bool = False) -> str:
    """Return the result as text in one of the formats.

    ``table``: a summary, plus detected / missed per image with ``per_image``; ``csv``:
    one row per image x method; ``json``: everything, NaN as null.

    Parameters
    ----------
    result : BoxBenchmark
        A box evaluation.
    fmt : {"table", "csv", "json"}
        The format.
    per_image : bool
        With ``table``, whether the per-image table follows the summary.

    Returns
    -------
    str
        The text, ending with a line break.
    """
    if fmt == "json":
        return json.dumps(result_dict(result), indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        return _csv(result)
    text = _summary_table(result)
    return text + ("\n" + _image_table(result) if per_image else "")


def _f(value: float, digits: int = 4) -> str:
    return "nan" if math.isnan(value) else f"{value:.{digits}f}"


def _iou_tag(iou: float) -> str:
    return f"{round(iou * 100):d}"


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _summary_table(result: BoxBenchmark) -> str:
    truth = result.truth
    who = f", reader {truth.reader}" if truth.reader else ""
    head = (
        f"dataset {result.dataset.root.name}: {len(result.images)} images, "
        f"{len(truth.boxes)} GT boxes ({truth.file.path.name}{who})"
    )
    tag = _iou_tag(next(iter(result.results.values())).count_iou) if result.results else "30"
    rows = [
        [
            "method",
            "mAP@30",
            "mAP@50",
            "mAP@[50:95]",
            "ACC50",
            f"TP{tag}",
            f"FP{tag}",
            f"FN{tag}",
            "boxes",
        ]
    ]
    for name in result.ranked():
        r = result.results[name]
        rows.append(
            [name, _f(r.map30), _f(r.map50), _f(r.map50_95), _f(r.acc50),
             f"{r.tp}/{r.n_gt}", str(r.fp), str(r.fn), str(r.n_pred)]
        )  # fmt: skip
    return head + "\n" + _aligned(rows)


def _image_table(result: BoxBenchmark) -> str:
    """Images sorted by total misses (most first), detected/missed/FP per method."""
    names = result.ranked()
    counts = {n: {c.image: c for c in result.results[n].per_image} for n in names}
    missed = {i: sum(counts[n][i].missed for n in names) for i in result.images}
    order = sorted(result.images, key=lambda i: (-missed[i], result.images.index(i)))
    first = counts[names[0]] if names else {}
    rows = [["image", "GT"] + [f"{n} det/miss/FP" for n in names]]
    for image in order:
        gt = str(first[image].gt) if first else "0"
        cells = [
            f"{counts[n][image].detected}/{counts[n][image].missed}/{counts[n][image].false_positives}"
            for n in names
        ]
        rows.append([image, gt, *cells])
    return "per image (sorted by misses)\n" + _aligned(rows)


CSV_COLUMNS = (
    "image",
    "method",
    "gt_boxes",
    "predicted_boxes",
    "detected",
    "missed",
    "false_positives",
    "top_iou",
    "count_iou",
)


def _csv(result: BoxBenchmark) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for name in result.ranked():
        r = result.results[name]
        for c in r.per_image:
            top = "" if math.isnan(c.top_iou) else f"{c.top_iou:.6g}"
            writer.writerow(
                [
                    c.image,
                    name,
                    c.gt,
                    c.predictions,
                    c.detected,
                    c.missed,
                    c.false_positives,
                    top,
                    r.count_iou,
                ]
            )
    return out.getvalue()


def _nan_none(value: float) -> float | None:
    return None if math.isnan(value) else value


def _method_dict(r: BoxEvaluation) -> dict[str, Any]:
    return {
        "map30": _nan_none(r.map30), "map50": _nan_none(r.map50), "map50_95": _nan_none(r.map50_95),
        "acc50": _nan_none(r.acc50),
        "ap": {f"{t:.2f}": _nan_none(v) for t, v in r.ap.items()},
        "recall": {f"{t:.2f}": _nan_none(v) for t, v in r.recall.items()},
        "ap_per_category": {c: {f"{t:.2f}": _nan_none(v) for t, v in a.items()} for c, a in r.ap_per_category.items()},
        "count_iou": r.count_iou, "tp": r.tp, "fp": r.fp, "fn": r.fn,
        "gt_boxes": r.n_gt, "predicted_boxes": r.n_pred,
    }  # fmt: skip


def result_dict(result: BoxBenchmark) -> dict[str, Any]:
    """Return every number of ``result`` as plain data (NaN as None), methods best first."""
    truth = result.truth
    return {
        "dataset": str(result.dataset.root),
        "images": list(result.images),
        "ground_truth": {
            "file": str(truth.file.path), "reader": truth.reader or None,
            "readers": list(truth.readers), "boxes": len(truth.boxes),
        },
        "score_map_threshold": result.threshold,
        "methods": {n: _method_dict(result.results[n]) for n in result.ranked()},
        "per_image": [
            {"image": c.image, "method": n, "gt_boxes": c.gt, "predicted_boxes": c.predictions,
             "detected": c.detected, "missed": c.missed, "false_positives": c.false_positives,
             "top_iou": _nan_none(c.top_iou)}
            for n in result.ranked() for c in result.results[n].per_image
        ],
        "problems": list(result.problems),
    }  # fmt: skip
