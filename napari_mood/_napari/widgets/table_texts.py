"""What the comparison table shows: its columns, each cell's text, the best values, CSV text.

The numbers are :mod:`napari_mood.core.compare`'s (:class:`ComparisonTable`, through
:mod:`napari_mood.services.comparison`); this module only decides how they read.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from napari_mood.io.validate import Problem
from napari_mood.services.comparison import N_BOOT, ComparisonRow, ComparisonTable

__all__ = [
    "COLUMNS",
    "Column",
    "best_methods",
    "describe_table",
    "format_cell",
    "format_table",
    "format_value",
    "problems_text",
    "shown_columns",
]

Better = Literal["higher", "lower"]


@dataclass(frozen=True)
class Column:
    """A table column showing the :class:`ComparisonRow` attribute ``key``.

    ``better`` says which values are best (None: not compared); ``interval`` names the
    row attributes of a 95% interval shown after the value (``0.85 [0.71, 0.91]``) with
    ``interval_digits`` decimals.
    """

    key: str
    title: str
    tip: str
    better: Better | None = None
    digits: int = 4
    interval: tuple[str, str] | None = None
    interval_digits: int = 2


COLUMNS: tuple[Column, ...] = (
    Column("method", "Method", "Method name"),
    Column(
        "pixel_ap",
        "Pixel AP",
        "Voxel-level average precision of the pooled voxels "
        "[case-bootstrap 95% interval, dataset only]",
        "higher",
        interval=("ap_low", "ap_high"),
    ),
    Column("auroc", "AUROC", "Voxel-level area under the ROC curve", "higher"),
    Column(
        "fpr95",
        "FPR@95",
        "False-positive rate at 95% true-positive rate (smallest FPR with TPR >= 0.95)",
        "lower",
    ),
    Column("best_dice", "Best Dice", "Highest voxel Dice over all thresholds", "higher"),
    Column("best_dice_threshold", "Dice thr.", "Threshold giving the best Dice", digits=3),
    Column("object_threshold", "Obj. thr.", "Threshold the objects are counted at", digits=3),
    Column("object_tp", "TP", "GT objects detected (MOOD object rule)", "higher"),
    Column("object_fp", "FP", "Predicted objects matching no GT object", "lower"),
    Column("object_fn", "FN", "GT objects missed", "lower"),
    Column("object_f1", "Obj. F1", "Object F1 = 2TP / (2TP + FP + FN)", "higher"),
    Column("sample_ap", "Sample AP", "Case-level average precision (sample task)", "higher"),
    Column(
        "rank",
        "Rank",
        "Rank by pixel AP (1 = best; ties share the best rank) "
        "[case-bootstrap 95% interval, dataset only]",
        "lower",
        interval=("rank_low", "rank_high"),
    ),
)


def _number(value: object) -> float | None:
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        return None if math.isnan(value) else float(value)
    return None


def best_methods(table: ComparisonTable) -> dict[str, set[str]]:
    """Methods holding the best value of each comparable column (ties: all of them).

    Columns whose ``better`` is None, and columns without any number, are left out.

    Parameters
    ----------
    table : ComparisonTable
        A comparison.

    Returns
    -------
    dict of str to set of str
        Per column key, the best method(s).

    Examples
    --------
    >>> rows = (ComparisonRow("a", 0.9, 0.9, 0.1, 0.8, 0.5, 0.5, 1, 3, 0, 0.4),
    ...         ComparisonRow("b", 0.5, 0.9, 0.2, 0.6, 0.5, 0.5, 1, 1, 0, 0.6))
    >>> best = best_methods(ComparisonTable("case", "c", 1, rows))
    >>> best["pixel_ap"], sorted(best["auroc"]), best["object_fp"]
    ({'a'}, ['a', 'b'], {'b'})
    """
    out: dict[str, set[str]] = {}
    for column in COLUMNS:
        if column.better is None:
            continue
        values = {r.method: _number(getattr(r, column.key)) for r in table.rows}
        numbers = [v for v in values.values() if v is not None]
        if not numbers:
            continue
        best = max(numbers) if column.better == "higher" else min(numbers)
        out[column.key] = {m for m, v in values.items() if v == best}
    return out


def format_value(value: object, *, digits: int = 4) -> str:
    """Text of a value: ``""`` for None/NaN, ``digits`` decimals for floats.

    Parameters
    ----------
    value : object
        A cell's value.
    digits : int
        Decimals of a float.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> format_value(0.123456), format_value(float("nan")), format_value(3)
    ('0.1235', '', '3')
    """
    if value is None:
        return ""
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def format_cell(row: ComparisonRow, column: Column) -> str:
    """Text of a row's cell: the value, then its interval when the row has one.

    Parameters
    ----------
    row : ComparisonRow
        A method's row.
    column : Column
        The column.

    Returns
    -------
    str
        The text, e.g. ``'0.8500 [0.71, 0.91]'``.

    Examples
    --------
    >>> row = ComparisonRow("a", 0.85, 0.9, 0.1, 0.8, 0.5, 0.5, 1, 0, 0, 1.0,
    ...                     ap_low=0.712, ap_high=0.908)
    >>> format_cell(row, COLUMNS[1])
    '0.8500 [0.71, 0.91]'
    """
    text = format_value(getattr(row, column.key), digits=column.digits)
    if column.interval is None or not text:
        return text
    low, high = (getattr(row, name) for name in column.interval)
    if low is None or high is None:
        return text
    digits = column.interval_digits
    return f"{text} [{format_value(low, digits=digits)}, {format_value(high, digits=digits)}]"


def shown_columns(table: ComparisonTable) -> tuple[Column, ...]:
    """Columns with at least one value in ``table`` (``method`` always).

    Parameters
    ----------
    table : ComparisonTable
        A comparison.

    Returns
    -------
    tuple of Column
        The columns, in ``COLUMNS`` order.
    """
    return tuple(
        c
        for c in COLUMNS
        if c.key == "method" or any(format_value(getattr(r, c.key)) != "" for r in table.rows)
    )


def _csv_fields(table: ComparisonTable) -> list[str]:
    """Row attributes written for each shown column (interval bounds when any row has them)."""
    fields = []
    for column in shown_columns(table):
        fields.append(column.key)
        if column.interval and any(getattr(r, column.interval[0]) is not None for r in table.rows):
            fields += column.interval
    return fields


def format_table(
    table: ComparisonTable, *, delimiter: str = ",", order: Sequence[str] | None = None
) -> str:
    r"""Return the CSV (or tab-separated, ``delimiter="\t"``) text of a table, one row per method.

    The first two columns say what was compared (``scope``: case or dataset, and its
    ``name``); then the :class:`ComparisonRow` fields of :func:`shown_columns` (an
    interval as two more columns, ``*_low`` and ``*_high``). Floats keep full precision,
    undefined values are empty. ``order`` lists the methods in the order to write them.

    Examples
    --------
    >>> rows = (ComparisonRow("a", 0.5, 0.75, 0.5, 0.8, 0.35, 0.5, 1, 0, 0, 1.0, rank=1),)
    >>> print(format_table(ComparisonTable("case", "c1", 1, rows)).splitlines()[1])
    case,c1,a,0.5,0.75,0.5,0.8,0.35,0.5,1,0,0,1.0,1
    """
    fields = _csv_fields(table)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["scope", "name", *fields])
    methods = list(order) if order is not None else [r.method for r in table.rows]
    for method in methods:
        row = table.row(method)
        writer.writerow([table.scope, table.name, *(_raw(getattr(row, f)) for f in fields)])
    return buffer.getvalue()


def _raw(value: object) -> str:
    """Full-precision text of a value (numpy scalars as plain numbers); "" for None/NaN."""
    if isinstance(value, float | np.floating):
        return "" if math.isnan(value) else repr(float(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    return "" if value is None else str(value)


def describe_table(table: ComparisonTable, problems: tuple[Problem, ...]) -> str:
    """One sentence saying what the table shows.

    Parameters
    ----------
    table : ComparisonTable
        The table.
    problems : tuple of Problem
        The input problems met.

    Returns
    -------
    str
        The sentence.
    """
    if table.scope == "case":
        return f"Case {table.name}: objects at each method's display threshold; rank by pixel AP."
    text = (
        f"Dataset {table.name}: {table.n_cases} cases, {len(table.rows)} methods; "
        f"rank by pooled pixel AP, 95% intervals from {N_BOOT} case-bootstrap resamples."
    )
    return text + (f" {len(problems)} input problem(s), see the notification." if problems else "")


def problems_text(name: str, problems: tuple[Problem, ...], limit: int = 5) -> str:
    """Return the first ``limit`` input problems of a dataset, one per line.

    Parameters
    ----------
    name : str
        The dataset's name.
    problems : tuple of Problem
        The problems.
    limit : int
        The most problems listed.

    Returns
    -------
    str
        The lines, a header line first.
    """
    lines = [str(p) for p in problems[:limit]]
    more = len(problems) - limit
    tail = [f"... and {more} more (see `napari-mood evaluate {name}`)"] if more > 0 else []
    return "\n".join([f"napari-mood: dataset {name}:", *lines, *tail])
