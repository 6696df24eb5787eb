"""What the objects panel shows.

The summary's rich text, the table's words and the rows of the objects Labels layer (napari ``features``: shown on hover and in the features table).

The matching itself is a job (:mod:`napari_mood.services.object_views`); these functions are
pure and cheap, and the layer rows are built in the panel's worker.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from napari_mood.services.object_views import MethodObjects, ObjectRecord, listed_records

__all__ = [
    "FEATURE_COLUMNS",
    "KIND_TEXT",
    "ObjectsLayer",
    "matched_text",
    "objects_layer",
    "summary_html",
    "window_text",
]

KIND_TEXT = {
    "TP": "TP",
    "FP": "FP",
    "FN": "FN",
    "matched-extra": "extra",
    "discarded": "discarded",
}
SUMMARY_HEADER: tuple[tuple[str, str], ...] = (
    ("Method", "left"),
    ("Thr.", "right"),
    ("TP", "right"),
    ("FP", "right"),
    ("FN", "right"),
    ("F1", "right"),
    ("Discarded", "right"),
)


@dataclass(frozen=True, eq=False)
class ObjectsLayer:
    """One method's TP, FP and FN objects in one label image, with a row per object.

    Label values number the shown objects (:func:`shown_objects`): predicted TP and FP
    objects ``1..offset``, missed GT objects (FN) ``offset + 1..`` where no predicted
    object lies (a missed GT object that a predicted object overlaps in part shows the
    rest of its outline). ``features`` has one row per label value (napari's Labels
    ``features``: shown on hover and in the features table) with the columns
    :data:`FEATURE_COLUMNS` (``object``: the object's id in the match, ``pred 12`` or
    ``GT 3``); ``kinds`` gives each label's kind (its colour).
    """

    image: np.ndarray
    features: dict[str, list[Any]]
    kinds: dict[int, str]
    offset: int


FEATURE_COLUMNS: tuple[str, ...] = (
    "index",
    "object",
    "kind",
    "voxels",
    "mm3",
    "max_score",
    "mean_score",
    "matched",
    "verdict",
)


def objects_layer(
    result: MethodObjects, *, verdicts: Mapping[int, str] | None = None
) -> ObjectsLayer:
    """Return the TP / FP / FN image of ``result`` with per-object features (no copy of it).

    Parameters
    ----------
    result : MethodObjects
        A method's object match and its label image.
    verdicts : mapping of int to str, optional
        Review verdicts of predicted objects, by predicted id (the ``verdict`` column).

    Examples
    --------
    >>> gt = np.zeros((1, 8), bool); gt[0, 1:3] = True; gt[0, 5:7] = True
    >>> score = np.zeros((1, 8)); score[0, 1:3] = 0.9
    >>> from napari_mood.services.object_views import compute_method_objects
    >>> from napari_mood.services.snapshots import MapSnapshot
    >>> layer = objects_layer(compute_method_objects(MapSnapshot("m", score, 0.5), gt))
    >>> layer.image.tolist(), layer.features["kind"]
    ([[0, 1, 1, 0, 0, 2, 2, 0]], ['TP', 'FN'])
    """
    offset = result.offset
    rows = listed_records(result.match, extra=False)
    verdicts = verdicts or {}
    columns: dict[str, list[Any]] = {name: [] for name in FEATURE_COLUMNS}
    kinds: dict[int, str] = {}
    for label, record in enumerate(rows, start=1):  # the order of shown_objects
        kinds[label] = record.kind
        for name, value in zip(FEATURE_COLUMNS, _feature_row(label, record, verdicts), strict=True):
            columns[name].append(value)
    return ObjectsLayer(result.image, columns, kinds, offset)


def _feature_row(label: int, record: ObjectRecord, verdicts: Mapping[int, str]) -> tuple[Any, ...]:
    verdict = verdicts.get(record.id, "") if record.source == "pred" else ""
    return (
        label,
        f"{'pred' if record.source == 'pred' else 'GT'} {record.id}",
        record.kind,
        record.size_voxels,
        np.nan if record.size_mm3 is None else round(record.size_mm3, 1),
        round(record.max_score, 4),
        round(record.mean_score, 4),
        matched_text(record),
        verdict,
    )


def matched_text(record: ObjectRecord) -> str:
    """Return what became of an object, for the table's "Match" column.

    Parameters
    ----------
    record : ObjectRecord
        An object.

    Returns
    -------
    str
        ``"GT 1"``, ``"pred 2, 3"``, ``"none"``, ``"missed"`` or ``"outside window"``.

    Examples
    --------
    >>> from napari_mood.core.objects import match_objects
    >>> gt = np.zeros((6, 6), bool); gt[1:3, 1:3] = True
    >>> [matched_text(r) for r in match_objects(gt * 0.9, gt, threshold=0.5).objects]
    ['GT 1', 'pred 1']
    """
    if record.kind == "discarded":
        return "outside window"
    if record.kind == "FN":
        return "missed"
    if not record.matched_ids:
        return "none"
    ids = ", ".join(str(i) for i in record.matched_ids)
    return f"GT {ids}" if record.source == "pred" else f"pred {ids}"


def window_text(window: tuple[float, float]) -> str:
    """Return the size window in words, e.g. ``"2–50"`` or ``"≥ 0"``.

    Parameters
    ----------
    window : tuple of float
        ``(lo, hi)`` in voxels.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> window_text((2.0, 50.0)), window_text((0.0, float("inf")))
    ('2–50', '≥ 0')
    """
    lo, hi = window
    return f"{lo:,.0f}–{hi:,.0f}" if np.isfinite(hi) else f"≥ {lo:,.0f}"


def summary_html(results: Sequence[MethodObjects]) -> str:
    """Return the summary (rich text): counts per method, then the size window used.

    Parameters
    ----------
    results : sequence of MethodObjects
        The methods' matches.

    Returns
    -------
    str
        A Qt rich-text table.
    """
    cells = "".join(f"<th align='{a}'>{h}</th>" for h, a in SUMMARY_HEADER)
    rows = [f"<tr>{cells}</tr>"]
    for result in results:
        m = result.match.counts
        values = (
            html.escape(result.method),
            f"{m.threshold:.3f}",
            str(m.tp),
            str(m.fp),
            str(m.fn),
            "n/a" if np.isnan(m.f1) else f"{m.f1:.2f}",
            str(m.discarded),
        )
        tds = "".join(
            f"<td align='{a}'>{v}</td>" for v, (_, a) in zip(values, SUMMARY_HEADER, strict=True)
        )
        rows.append(f"<tr>{tds}</tr>")
    text = f"<table cellspacing='0' cellpadding='4'>{''.join(rows)}</table>"
    windows = sorted({window_text(r.match.counts.size_window) for r in results})
    if windows:
        text += f"Size window: {' / '.join(windows)} voxels"
    if results and not all(r.has_gt for r in results):
        text += "<br>No ground truth: every kept object counts as FP."
    return text
