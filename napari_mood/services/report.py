"""Shareable evaluation reports: CSV, JSON and one self-contained HTML file.

The HTML embeds its plots as PNG data URIs (matplotlib, Agg backend), so the single file
can be mailed or attached to a paper review. GUI-free; needs matplotlib
(``pip install 'napari-mood[viewer]'``).
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from napari_mood.core.categories import CaseCategory, Level
from napari_mood.core.curves import CurveAccumulator, merge_accumulators
from napari_mood.core.metrics import average_precision_from_curve
from napari_mood.core.ranking import bootstrap_ap, rank_methods
from napari_mood.core.results import DatasetEvaluation
from napari_mood.core.seed import DEFAULT_RESAMPLES, DEFAULT_SEED
from napari_mood.io.errors import MoodInputError, check_regular_file
from napari_mood.io.mood import case_stem
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.output import Inputs, check_output_folder

__all__ = [
    "ALL_CATEGORIES",
    "REPORT_FILES",
    "ReportFiles",
    "category_choices",
    "read_case_categories",
    "write_report",
]

N_WORST = 5


#: The files a report folder receives (their order is :class:`ReportFiles`' fields).
REPORT_FILES: tuple[str, str, str] = ("results.csv", "results.json", "report.html")


@dataclass(frozen=True)
class ReportFiles:
    """Paths written by :func:`write_report`."""

    csv: Path
    json: Path
    html: Path


def read_case_categories(
    path: str | Path, *, cases: Collection[str] | None = None
) -> dict[str, CaseCategory]:
    """Read ``case,category[,subcategory[,order]]`` rows (header optional, ``#`` comments).

    Case names with or without ``.nii.gz``; ``order`` is an optional number (the
    sub-category's difficulty order in tables and plots). UTF-8 (a BOM, as Excel writes,
    is dropped). A first row naming any of the columns is the header, and must name them
    in that order. ``cases``, the dataset's case names, when given: at least one row must
    name one of them (else the columns or the names are wrong, and every table is empty).

    Parameters
    ----------
    path : str or pathlib.Path
        The categories file.
    cases : collection of str, optional
        The dataset's cases.

    Returns
    -------
    dict of str to CaseCategory
        The category of each case (names with ``.nii.gz``).

    Raises
    ------
    MoodInputError
        When the file is missing, not a regular file, not UTF-8 text, not CSV, its header
        names other columns, a row does not have two columns, a case or category is
        empty, an order is not a number, a case is in two rows that differ (naming both),
        the file holds no case (empty, header or comments only), or none of ``cases``.
    """
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise MoodInputError(
            path, "categories file not found", f"give a CSV with columns {_COLUMNS}"
        )
    check_regular_file(path, what="categories file")
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:  # a BOM (Excel) is dropped
            found = _categories(path, csv.reader(handle))
    except UnicodeDecodeError as exc:
        raise MoodInputError(
            path, "is not UTF-8 text", f"save it as a UTF-8 CSV with columns {_COLUMNS}"
        ) from exc
    except (csv.Error, OSError) as exc:
        raise MoodInputError(
            path, f"cannot be read as CSV ({exc})", f"write a CSV with columns {_COLUMNS}"
        ) from exc
    if cases is not None:
        _check_known(path, found, cases)
    return found


def _check_known(path: Path, found: Mapping[str, CaseCategory], cases: Collection[str]) -> None:
    """At least one row names a case of the dataset."""
    if cases and not set(found) & set(cases):
        named = ", ".join(sorted(found)[:3]) + (", ..." if len(found) > 3 else "")
        raise MoodInputError(
            path,
            f"none of its {len(found)} case(s) is in the dataset ({named})",
            f"name the cases as the dataset does (e.g. {sorted(cases)[0]}); "
            f"a header, if any, is {_COLUMNS}",
        )


ALL_CATEGORIES = "All categories"


def category_choices(
    categories: Mapping[str, CaseCategory],
) -> dict[str, frozenset[str] | None]:
    """Return the browser's category filter: ``{label: cases}``, every case first (None).

    Categories in order of name, then ``"category / sub-category"`` entries.

    Parameters
    ----------
    categories : mapping of str to CaseCategory
        The category of each case.

    Returns
    -------
    dict of str to frozenset or None
        The cases of each filter entry.

    Examples
    --------
    >>> cats = {"a.nii.gz": CaseCategory("local", "sphere"), "b.nii.gz": CaseCategory("global")}
    >>> {k: sorted(v or ()) for k, v in category_choices(cats).items()}
    {'All categories': [], 'global': ['b.nii.gz'], 'local': ['a.nii.gz'], 'local / sphere': ['a.nii.gz']}
    """
    choices: dict[str, frozenset[str] | None] = {ALL_CATEGORIES: None}
    for name in sorted({c.category for c in categories.values()}):
        choices[name] = frozenset(k for k, c in categories.items() if c.category == name)
    pairs = sorted({(c.category, c.subcategory) for c in categories.values() if c.subcategory})
    for name, sub in pairs:
        choices[f"{name} / {sub}"] = frozenset(
            k for k, c in categories.items() if (c.category, c.subcategory) == (name, sub)
        )
    return choices


_COLUMNS = "case,category[,subcategory[,order]]"
_HEADER = ("case", "category", "subcategory", "order")


def _is_header(path: Path, row: Sequence[str]) -> bool:
    """Row 1 naming any column is the header: then it must name them in order."""
    cells = [c.strip().lower() for c in row]
    while cells and not cells[-1]:  # trailing empty cells (spreadsheets write them)
        cells.pop()
    if not set(cells) & set(_HEADER):
        return False
    if tuple(cells) != _HEADER[: len(cells)] or len(cells) < 2:
        raise MoodInputError(
            path, f"row 1 (header) is {','.join(row)!r}", f"name the columns {_COLUMNS}"
        )
    return True


def _names(path: Path, row_number: int, row: Sequence[str]) -> tuple[str, str]:
    """Return the case and category of a row: neither may be empty."""
    case, category = row[0].strip(), row[1].strip()
    for what, text in (("case", case), ("category", category)):
        if not text:
            raise MoodInputError(
                path, f"row {row_number}: the {what} is empty", f"write {_COLUMNS}"
            )
    return case, category


def _order(path: Path, row: int, text: str) -> float | None:
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise MoodInputError(
            path, f"row {row}: order {text!r} is not a number", f"write {_COLUMNS}"
        )
    return value


def _categories(path: Path, rows: Iterator[list[str]]) -> dict[str, CaseCategory]:
    out: dict[str, CaseCategory] = {}
    where: dict[str, int] = {}
    for i, row in enumerate(rows):
        if not row or row[0].startswith("#"):
            continue
        if len(row) < 2:
            raise MoodInputError(path, f"row {i + 1} has {len(row)} column(s)", f"write {_COLUMNS}")
        if i == 0 and _is_header(path, row):
            continue
        case, category_name = _names(path, i + 1, row)
        sub = row[2].strip() if len(row) > 2 else ""
        order = _order(path, i + 1, row[3]) if len(row) > 3 else None
        name = case if case.endswith((".nii.gz", ".nii")) else f"{case}.nii.gz"
        category = CaseCategory(category_name, sub, order)
        if name in out and out[name] != category:
            raise MoodInputError(
                path,
                f"case {case_stem(name)} is in row {where[name]} ({_described(out[name])}) "
                f"and in row {i + 1} ({_described(category)})",
                "give each case one category: remove one of the rows",
            )
        out[name], where[name] = category, where.get(name, i + 1)
    if not out:
        raise MoodInputError(
            path, "holds no case (empty, or a header or comments only)", f"write {_COLUMNS}"
        )
    return out


def _described(category: CaseCategory) -> str:
    parts = [category.category, category.subcategory]
    parts += [] if category.order is None else [f"order {category.order:g}"]
    return " / ".join(p for p in parts if p)


def _png(fig: Any, dpi: float) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _figure(width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, fig.add_subplot(1, 1, 1)


def _pr_plot(result: DatasetEvaluation, dpi: float) -> str | None:
    if not result.case_accumulators:
        return None
    fig, ax = _figure(5.5, 4.2)
    for name in result.ranked_methods():
        accs = tuple(result.case_accumulators.get(name, {}).values())
        if not accs:
            continue
        curve = merge_accumulators(accs).curve()
        if curve.n_pos == 0:
            continue
        recall, precision = curve.pr_arrays()
        ap = average_precision_from_curve(curve)
        ax.step(recall, precision, where="pre", label=f"{name} (AP {ap:.3f})")
    ax.set(
        xlabel="recall",
        ylabel="precision",
        xlim=(0, 1),
        ylim=(0, 1.02),
        title="Pixel precision-recall (pooled)",
    )
    ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig, dpi)


def _per_case_plot(result: DatasetEvaluation, dpi: float) -> str | None:
    rows = [r for r in result.per_case if not math.isnan(r.pixel_ap)]
    if not rows:
        return None
    cases = sorted({r.case for r in rows})
    methods = result.ranked_methods()
    fig, ax = _figure(max(5.0, 0.5 * len(cases) + 2), 3.8)
    width = 0.8 / max(len(methods), 1)
    for k, name in enumerate(methods):
        values = {r.case: r.pixel_ap for r in rows if r.method == name}
        xs = np.arange(len(cases)) + (k - (len(methods) - 1) / 2) * width
        ax.bar(xs, [values.get(c, np.nan) for c in cases], width=width, label=name)
    ax.set_xticks(
        np.arange(len(cases)),
        [c.split(".nii")[0] for c in cases],
        rotation=60,
        ha="right",
        fontsize=7,
    )
    ax.set(ylabel="pixel AP", ylim=(0, 1))
    ax.legend(
        fontsize=8, ncols=min(len(methods), 4), loc="lower center", bbox_to_anchor=(0.5, 1.08)
    )
    return _png(fig, dpi)


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def _ci(accs: Sequence[CurveAccumulator], n_boot: int, seed: int) -> tuple[float, float] | None:
    if len(accs) < 2 or n_boot < 1 or sum(a.n_pos for a in accs) == 0:
        return None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # resamples without positives count 0 (said in the report)
        boot = bootstrap_ap(accs, n_boot=n_boot, seed=seed)
    return boot.low, boot.high


def _leaderboard(result: DatasetEvaluation, *, n_boot: int, seed: int) -> str:
    aps = {n: (s.pixel.ap if s.pixel else math.nan) for n, s in result.methods.items()}
    ranks = rank_methods(aps)
    head = [
        "rank",
        "method",
        "pixel AP",
        "95% CI",
        "AUROC",
        "FPR@95",
        "best Dice",
        "sample AP",
        "sample AUROC",
        "object F1 (TP/FP/FN)",
    ]
    lines = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for name in result.ranked_methods():
        s = result.methods[name]
        p = s.pixel
        ci = (
            _ci(tuple(result.case_accumulators.get(name, {}).values()), n_boot, seed) if p else None
        )
        obj = s.object.counts if s.object else None
        cells = [
            str(ranks[name]),
            html.escape(name),
            _fmt(p.ap if p else None),
            f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "–",
            _fmt(p.auroc if p else None),
            _fmt(p.fpr95 if p else None),
            f"{_fmt(p.best_dice)} @ {_fmt(p.best_dice_threshold, 2)}" if p else "–",
            _fmt(s.sample.ap if s.sample else None),
            _fmt(s.sample.auroc if s.sample else None),
            f"{_fmt(obj.f1)} ({obj.tp}/{obj.fp}/{obj.fn}) @ {obj.threshold:.2f}" if obj else "–",
        ]
        lines.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "\n".join(lines) + "</table>"


def _worst_cases(result: DatasetEvaluation) -> str:
    parts = []
    for name in result.ranked_methods():
        rows = sorted(
            (r for r in result.per_case if r.method == name and not math.isnan(r.pixel_ap)),
            key=lambda r: r.pixel_ap,
        )[:N_WORST]
        if not rows:
            continue
        items = "".join(
            f"<tr><td>{html.escape(r.case)}</td><td>{_fmt(r.pixel_ap)}</td><td>{_fmt(r.dice)}</td>"
            f"<td>{r.object_tp if r.object_tp is not None else '–'}/{r.object_fn if r.object_fn is not None else '–'}</td>"
            f"<td>{html.escape(r.status)}</td></tr>"
            for r in rows
        )
        parts.append(
            f"<h3>{html.escape(name)}</h3><table><tr><th>case</th><th>pixel AP</th><th>Dice</th>"
            f"<th>GT objects found/missed</th><th>status</th></tr>{items}</table>"
        )
    return "\n".join(parts) or "<p>No case with anomalies was scored.</p>"


def _category_table(result: DatasetEvaluation, categories: Mapping[str, CaseCategory]) -> str:
    from napari_mood.services.categories import category_rows

    cases = set(result.cases)
    known = {c: v for c, v in categories.items() if c in cases}
    if not known:
        return "<p>No case of the categories file is in this dataset.</p>"
    methods = result.ranked_methods()
    levels: tuple[Level, ...] = ("category",)
    if any(v.subcategory for v in known.values()):
        levels = ("category", "subcategory")
    parts = []
    for level in levels:
        rows = {
            (r.group, r.method): r for r in category_rows(result, known, level=level, seed=None)
        }
        groups = list(dict.fromkeys(g for g, _ in rows))
        head = "".join(f"<th>{html.escape(m)}<br>pixel / sample AP</th>" for m in methods)
        lines = [f"<table><tr><th>{level}</th><th>cases</th>{head}</tr>"]
        for group in groups:
            n = max(r.n_cases for (g, _), r in rows.items() if g == group)
            cells = "".join(
                f"<td>{_fmt(rows[(group, m)].pixel_ap)} / {_fmt(rows[(group, m)].sample_ap)}</td>"
                if (group, m) in rows
                else "<td>–</td>"
                for m in methods
            )
            lines.append(f"<tr><td>{html.escape(group)}</td><td>{n}</td>{cells}</tr>")
        parts.append("\n".join(lines) + "</table>")
    note = (
        "<p>Pixel AP pooled over the group's cases; sample AP of the group's cases against "
        "the normal cases. <code>napari-mood categories</code> adds FPR@95%TPR, medians, "
        "best methods, baselines and plots.</p>"
    )
    return "\n".join(parts) + note


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
td:nth-child(2),th:nth-child(2),td:first-child{text-align:left}th{background:#f0f0f0}
img{max-width:100%}.note{color:#666;font-size:90%}
"""


def render_html(
    result: DatasetEvaluation,
    *,
    categories: Mapping[str, CaseCategory] | None = None,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    dpi: float = 300,
) -> str:
    """Return the report as one HTML document (plots embedded as PNG at ``dpi``)."""
    pr, per_case = _pr_plot(result, dpi), _per_case_plot(result, dpi)
    problems = "".join(f"<li>{html.escape(str(p))}</li>" for p in result.problems)
    body = [
        f"<h1>napari-mood report: {html.escape(result.dataset)}</h1>",
        f"<p>{len(result.cases)} cases, {len(result.methods)} methods, mode <code>{result.options.mode}</code>, "
        f"tasks {', '.join(result.options.tasks)}. Numbers follow the official MOOD scorer.</p>",
        "<h2>Leaderboard</h2>",
        _leaderboard(result, n_boot=n_boot, seed=seed),
        f"<p class='note'>95% CI: percentile case bootstrap of the pooled pixel AP ({n_boot} resamples, seed {seed}).</p>",
    ]
    if pr:
        body += ["<h2>Precision-recall</h2>", f"<img alt='pooled PR curves' src='{pr}'>"]
    if per_case:
        body += ["<h2>Per-case AP</h2>", f"<img alt='per-case AP' src='{per_case}'>"]
    if categories:
        body += ["<h2>Per category</h2>", _category_table(result, categories)]
    body += ["<h2>Worst cases per method</h2>", _worst_cases(result)]
    if problems:
        body += ["<h2>Input problems</h2>", f"<ul>{problems}</ul>"]
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>napari-mood report: {html.escape(result.dataset)}</title><style>{_CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>\n"
    )


def write_report(
    result: DatasetEvaluation,
    folder: str | Path,
    *,
    csv_text: str,
    categories: Mapping[str, CaseCategory] | None = None,
    n_boot: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    dpi: float = 300,
    inputs: Inputs | None = None,
    force: bool = False,
) -> ReportFiles:
    """Write ``results.csv``, ``results.json`` and ``report.html`` into ``folder``.

    The folder is checked by the output guard first (not inside the inputs, no report
    file replaced without ``force``); the HTML is drawn before anything is written and
    each file is written atomically.
    The plots are embedded as PNG at ``dpi`` (``evaluate --dpi``).

    Parameters
    ----------
    result : DatasetEvaluation
        A dataset evaluation.
    folder : str or pathlib.Path
        The report folder.
    csv_text : str
        The per-case CSV, as the command prints it.
    categories : mapping of str to CaseCategory, optional
        Case categories, for per-category tables.
    n_boot : int
        Bootstrap resamples of the rank intervals.
    seed : int
        Seed of the resampling.
    dpi : float
        Resolution of the embedded plots.
    inputs : Inputs, optional
        The inputs the files may not be written over.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    ReportFiles
        The three files written.
    """
    folder = check_output_folder(
        folder, inputs=inputs, force=force, names=REPORT_FILES, what="the report folder"
    )
    page = render_html(result, categories=categories, n_boot=n_boot, seed=seed, dpi=dpi)
    files = ReportFiles(*(folder / name for name in REPORT_FILES))
    write_text_atomic(files.csv, csv_text, replace=force)
    data = json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n"
    write_text_atomic(files.json, data, replace=force)
    write_text_atomic(files.html, page, replace=force)
    return files
