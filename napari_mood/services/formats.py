"""A dataset evaluation as text: an aligned table for people, CSV per case, stable JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, fields
from types import ModuleType
from typing import Any

from napari_mood.core.results import DatasetEvaluation

__all__ = [
    "FORMATS",
    "check_format",
    "format_csv",
    "format_json",
    "format_result",
    "format_table",
    "require_pandas",
]

FORMATS = ("table", "csv", "json")


def check_format(fmt: str) -> str:
    """Return ``fmt`` when it is one of :data:`FORMATS`, else raise ValueError naming them.

    Parameters
    ----------
    fmt : str
        A result format asked for (checked before any work).

    Returns
    -------
    str
        ``fmt``.

    Raises
    ------
    ValueError
        ``fmt`` is not one of :data:`FORMATS`.

    Examples
    --------
    >>> check_format("JSON")
    Traceback (most recent call last):
    ...
    ValueError: format must be one of table, csv, json, got 'JSON'
    """
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


def format_result(result: DatasetEvaluation, fmt: str) -> str:
    """Return the result in one of :data:`FORMATS`.

    Parameters
    ----------
    result : DatasetEvaluation
        A dataset evaluation.
    fmt : {"table", "csv", "json"}
        The format.

    Returns
    -------
    str
        The text.
    """
    return {"table": format_table, "csv": format_csv, "json": format_json}[fmt](result)


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def format_table(result: DatasetEvaluation) -> str:
    """Aligned table for people, methods sorted by AP.

    Parameters
    ----------
    result : DatasetEvaluation
        A dataset evaluation.

    Returns
    -------
    str
        The table.
    """
    header = ["method"]
    rows: list[list[str]] = []
    tasks = result.options.tasks
    if "pixel" in tasks:
        header += ["pixel AP", "AUROC", "FPR@95", "best Dice", "@thr", "missing", "invalid"]
    if "sample" in tasks:
        header += ["sample AP", "s.AUROC", "s.missing"]
    if "object" in tasks:
        header += ["obj F1", "TP", "FP", "FN", "obj thr"]
    for name in result.ranked_methods():
        rows.append(_table_row(name, result))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = [f"dataset {result.dataset}: {len(result.cases)} cases, mode {result.options.mode}"]
    lines.append(
        "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w)
            for i, (h, w) in enumerate(zip(header, widths, strict=True))
        )
    )
    for r in rows:
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            )
        )
    lines += _extra_lines(result)
    return "\n".join(lines) + "\n"


def _table_row(name: str, result: DatasetEvaluation) -> list[str]:
    s = result.methods[name]
    row = [name]
    if s.pixel is not None:
        p = s.pixel
        row += [
            _fmt(p.ap),
            _fmt(p.auroc),
            _fmt(p.fpr95),
            _fmt(p.best_dice),
            _fmt(p.best_dice_threshold, 3),
            str(len(p.missing)),
            str(len(p.invalid)),
        ]
    if s.sample is not None:
        row += [_fmt(s.sample.ap), _fmt(s.sample.auroc), str(len(s.sample.missing))]
    if s.object is not None:
        c = s.object.counts
        row += [_fmt(c.f1), str(c.tp), str(c.fp), str(c.fn), _fmt(c.threshold, 2)]
    return row


def _extra_lines(result: DatasetEvaluation) -> list[str]:
    lines = []
    for name in result.ranked_methods():
        summary = result.methods[name]
        for task, part in (("pixel", summary.pixel), ("sample", summary.sample)):
            if part is not None and "batch_ap" in part.extra:
                b = part.extra["batch_ap"]
                lines.append(
                    f"{name}: {task} AP, mean over {b['n_batches']} batches of up to "
                    f"{b['batch_size']} cases = {_fmt(b['mean'])}"
                )
        p = summary.pixel
        if p is not None and "ap_ci95" in p.extra:
            lo, hi = p.extra["ap_ci95"]
            lines.append(f"{name}: pixel AP 95% bootstrap interval [{lo:.4f}, {hi:.4f}]")
    return lines


def format_csv(result: DatasetEvaluation) -> str:
    """CSV with one row per case x method (empty cells for undefined values).

    Parameters
    ----------
    result : DatasetEvaluation
        A dataset evaluation.

    Returns
    -------
    str
        CSV text with a header line.
    """
    buffer = io.StringIO()
    names = [f.name for f in fields(result.per_case[0])] if result.per_case else ["case", "method"]
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for row in result.per_case:
        values = asdict(row)
        writer.writerow(
            {
                k: ("" if v is None or (isinstance(v, float) and math.isnan(v)) else v)
                for k, v in values.items()
            }
        )
    return buffer.getvalue()


def format_json(result: DatasetEvaluation) -> str:
    """Return the stable JSON documented in the README (NaN written as null).

    Parameters
    ----------
    result : DatasetEvaluation
        A dataset evaluation.

    Returns
    -------
    str
        Indented JSON, ending with a line break.
    """
    return json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n"


def require_pandas(user: str) -> ModuleType:
    """Return the pandas module, or raise ImportError naming what to install.

    pandas is not a dependency of napari-mood's core (napari brings it): the results'
    ``to_frame`` and :func:`~napari_mood.services.reader_study_report.study_frames` need it.

    Parameters
    ----------
    user : str
        What needs pandas, named in the error (``"to_frame"``).

    Returns
    -------
    module
        ``pandas``.

    Raises
    ------
    ImportError
        pandas is not installed.
    """
    try:
        import pandas
    except ImportError as error:
        raise ImportError(
            f"{user} needs pandas, which napari-mood's core does not install: pip install pandas"
        ) from error
    return pandas
