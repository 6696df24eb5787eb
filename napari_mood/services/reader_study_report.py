"""A reader study as people and programs read it: tables, text, CSV, JSON, a figure.

The study itself is :mod:`napari_mood.services.reader_study`; this module presents it:
:func:`format_study` (the report printed by ``napari-mood review-report``),
:func:`study_files` / :func:`write_study` (the files of ``--out``, :data:`REPORT_FILES`),
:func:`study_tables` (raw rows, for the panel), :func:`study_frames` (pandas, when
installed) and :func:`plot_study` (matplotlib, when installed). CSV cells hold full
precision and are empty where a value is undefined; JSON writes those as ``null``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from napari_mood.io.errors import option
from napari_mood.services.adjudication import disagreements_csv
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.formats import require_pandas
from napari_mood.services.output import (
    Inputs,
    OutputRefused,
    Planned,
    check_outputs,
    resolved_path,
)
from napari_mood.services.reader_study import (
    PairAgreement,
    ReaderMethodCounts,
    ReaderStudy,
    ReaderTime,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = [
    "AGREEMENT_COLUMNS",
    "COUNT_COLUMNS",
    "REPORT_FILES",
    "TIME_COLUMNS",
    "StudyFormat",
    "check_study_outputs",
    "format_study",
    "plot_study",
    "study_files",
    "study_frames",
    "study_tables",
    "write_study",
]

StudyFormat = Literal["table", "csv", "json"]
_OUT = option("--out", "the output folder")
REPORT_FILES: tuple[str, ...] = (
    "readers.csv",
    "agreement.csv",
    "times.csv",
    "disagreements.csv",
    "reader_study.json",
)
"""The files ``napari-mood review-report`` writes into ``--out``."""
_SHOWN_DISAGREEMENTS = 20  # in the table text; every one is in the files


# --------------------------------------------------------------------------- tables


def _cell(value: object) -> str:
    """Return a CSV cell: full precision, empty for NaN."""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return str(value)


def _csv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[_cell(v) for v in row] for row in rows])
    return buffer.getvalue()


COUNT_COLUMNS = (
    "reader",
    "method",
    "cases",
    "regions",
    "true_finding",
    "false_alarm",
    "unsure",
    "blind",
    "precision",
    "precision_low",
    "precision_high",
)
AGREEMENT_COLUMNS = ("statistic", "readers", "shared", "observed", "expected", "kappa")
TIME_COLUMNS = ("reader", "verdicts", "timed", "breaks", "median_s", "mean_s", "total_s")


def _count_row(c: ReaderMethodCounts) -> tuple[object, ...]:
    return (
        c.reader, c.method, c.cases, c.regions, c.true_finding, c.false_alarm, c.unsure,
        c.blind, c.precision, c.precision_low, c.precision_high,
    )  # fmt: skip


def _agreement_row(p: PairAgreement) -> tuple[object, ...]:
    a = p.agreement
    return (p.statistic, ";".join(p.readers), a.items, a.observed, a.expected, a.kappa)


def _time_row(t: ReaderTime) -> tuple[object, ...]:
    return (t.reader, t.verdicts, t.timed, t.breaks, t.median_s, t.mean_s, t.total_s)


def _agreements(study: ReaderStudy) -> tuple[PairAgreement, ...]:
    return (*study.pairs, study.overall) if len(study.readers) > 1 else ()


def study_tables(study: ReaderStudy) -> dict[str, tuple[tuple[str, ...], list[tuple[object, ...]]]]:
    """Return the study's tables as ``name -> (columns, rows)`` (raw values, NaN for undefined).

    Parameters
    ----------
    study : ReaderStudy
        The reader study.

    Returns
    -------
    dict
        ``readers``, ``agreement`` and ``times``: each its column names and rows.
    """
    return {
        "readers": (COUNT_COLUMNS, [_count_row(c) for c in study.counts]),
        "agreement": (AGREEMENT_COLUMNS, [_agreement_row(p) for p in _agreements(study)]),
        "times": (TIME_COLUMNS, [_time_row(t) for t in study.times]),
    }


def study_files(study: ReaderStudy) -> dict[str, str]:
    """Name -> text of every file of :data:`REPORT_FILES` (CSV: empty cell for NaN).

    Parameters
    ----------
    study : ReaderStudy
        The reader study.

    Returns
    -------
    dict of str to str
        The file names and their text.
    """
    files = {f"{name}.csv": _csv(*table) for name, table in study_tables(study).items()}
    files["disagreements.csv"] = disagreements_csv(
        [(d.record, d.verdicts, d.blind) for d in study.disagreements], study.readers
    )
    files["reader_study.json"] = _json(study)
    return {name: files[name] for name in REPORT_FILES}


def _json(study: ReaderStudy) -> str:
    return json.dumps(study.to_dict(), indent=2, allow_nan=False) + "\n"


def check_study_outputs(
    out: str | os.PathLike[str],
    journals: Sequence[str | os.PathLike[str]],
    *,
    force: bool,
    plot: str | os.PathLike[str] | None = None,
    inputs: Inputs | None = None,
    what: str = _OUT,
) -> None:
    """Refuse a study's outputs onto its inputs, over files without ``force``, or among the journals.

    The output guard (:func:`~napari_mood.services.output.check_outputs`) with the
    journals (and ``inputs``, e.g. the data shown) as inputs; then ``out`` may not be a
    journal's own folder: the tables (CSV files) would be read as journals by the next
    study of that folder (``review-report reviews/*.csv``) and fail there. A subfolder
    is fine.

    Parameters
    ----------
    out : path-like
        The folder of :data:`REPORT_FILES`.
    journals : sequence of path-like
        The review journals of the study (only read).
    force : bool
        Replace existing outputs.
    plot : path-like, optional
        The figure file.
    inputs : Inputs, optional
        Further inputs (never written).
    what : str
        How the messages name ``out``.

    Raises
    ------
    OutputRefused
        When an output is refused (one line naming the path and what to do).

    Examples
    --------
    >>> try:
    ...     check_study_outputs("/reviews", ["/reviews/ana.csv"], force=True)
    ... except OutputRefused as refused:
    ...     print("the output folder is the folder of the journals" in str(refused))
    True
    """
    planned = [Planned(Path(out), what, folder=True, names=REPORT_FILES)]
    if plot is not None:
        planned.append(Planned(Path(plot), option("--plot", "the plot")))
    read = Inputs.of(files=journals) + (inputs or Inputs())
    check_outputs(planned, inputs=read, force=force)
    # the folder the journals are listed in, and where a linked journal really is
    folders = {resolved_path(Path(journal).parent) for journal in journals}
    folders |= {resolved_path(journal).parent for journal in journals}
    if resolved_path(out) in folders:
        raise OutputRefused(
            Path(out),
            f"{what} is the folder of the journals: its tables would be read as journals "
            "by the next study of that folder",
            "choose another folder; a subfolder is fine",
        )


def write_study(study: ReaderStudy, folder: str | os.PathLike[str], *, force: bool) -> list[Path]:
    """Write the reader-study report files into ``folder``.

    Write :func:`study_files` into ``folder`` (each atomically; check them first with the
    output guard: ``Planned(folder, ..., folder=True, names=REPORT_FILES)``).

    Parameters
    ----------
    study : ReaderStudy
        The reader study.
    folder : str or os.PathLike
        The report folder.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    out = Path(folder)
    return [
        write_text_atomic(out / name, text, replace=force)
        for name, text in study_files(study).items()
    ]


def study_frames(study: ReaderStudy) -> dict[str, pd.DataFrame]:
    """Return the study's tables as pandas DataFrames.

    Parameters
    ----------
    study : ReaderStudy
        The reader study.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``readers``, ``agreement``, ``times`` and ``disagreements``.

    Raises
    ------
    ImportError
        When pandas is not installed (it is not a dependency of napari-mood's core).
    """
    pd = require_pandas("study_frames")
    frames = {
        name: pd.DataFrame(rows, columns=list(columns))
        for name, (columns, rows) in study_tables(study).items()
    }
    text = study_files(study)["disagreements.csv"]
    frames["disagreements"] = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    return frames


# --------------------------------------------------------------------------- text


def format_study(study: ReaderStudy, fmt: StudyFormat) -> str:
    """Render a reader study in the ``--format`` asked for.

    ``table`` (a report for people), ``csv`` (the verdicts per reader and method) or
    ``json`` (everything; NaN as null).

    Parameters
    ----------
    study : ReaderStudy
        The reader study.
    fmt : {"table", "csv", "json"}
        The format.

    Returns
    -------
    str
        The text.

    Raises
    ------
    ValueError
        When ``fmt`` is unknown.
    """
    if fmt == "json":
        return _json(study)
    if fmt == "csv":
        return study_files(study)["readers.csv"]
    if fmt != "table":
        raise ValueError(f"fmt must be one of 'table', 'csv', 'json'; got {fmt!r}")
    return _report_text(study)


def _aligned(rows: Sequence[Sequence[str]], *, left: int = 2) -> list[str]:
    """Columns padded to one width; the first ``left`` ones left-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def _shown(value: float, digits: int = 3) -> str:
    return "n/a" if math.isnan(value) else f"{value:.{digits}f}"


def _report_text(study: ReaderStudy) -> str:
    lines = [
        f"reader study: {len(study.readers)} reader(s) ({', '.join(study.readers)}), "
        f"{len(study.journals)} journal(s), {study.regions} region(s) judged",
        "",
        f"Verdicts (precision = true / (true + false), unsure left out; "
        f"{study.confidence:.0%} Wilson interval):",
    ]
    rows = [[
        "reader", "method", "cases", "regions", "true", "false", "unsure", "blind",
        "precision", "interval",
    ]]  # fmt: skip
    for c in study.counts:
        interval = (
            "n/a" if math.isnan(c.precision_low)
            else f"[{c.precision_low:.3f}, {c.precision_high:.3f}]"
        )  # fmt: skip
        rows.append([
            c.reader, c.method, str(c.cases), str(c.regions), str(c.true_finding),
            str(c.false_alarm),
            str(c.unsure), str(c.blind), _shown(c.precision), interval,
        ])  # fmt: skip
    lines += _aligned(rows) + ["", *_agreement_text(study), "", *_time_text(study), ""]
    lines += _disagreement_text(study)
    if study.warnings:
        lines += ["", "Warnings:", *(f"  {w}" for w in study.warnings)]
    return "\n".join(lines) + "\n"


def _agreement_text(study: ReaderStudy) -> list[str]:
    if len(study.readers) < 2:
        return ["Agreement: one reader only, nothing to compare."]
    lines = [
        "Agreement on shared regions (Cohen's kappa per pair; Fleiss' kappa over the "
        f"regions every reader judged; {study.single_reader_regions} region(s) judged by "
        "one reader only):"
    ]
    rows = [["readers", "statistic", "shared", "agree", "kappa"]]
    for p in _agreements(study):
        who = " / ".join(p.readers) if p.statistic == "cohen" else f"all {len(p.readers)}"
        a = p.agreement
        rows.append([who, p.statistic, str(a.items), _shown(a.observed), _shown(a.kappa)])
    return lines + _aligned(rows)


def _time_text(study: ReaderStudy) -> list[str]:
    lines = [f"Time per region (gaps over {study.max_gap_s / 60:g} min are breaks, not counted):"]
    rows = [["reader", "verdicts", "timed", "breaks", "median s", "mean s"]]
    for t in study.times:
        rows.append([
            t.reader, str(t.verdicts), str(t.timed), str(t.breaks),
            _shown(t.median_s, 1), _shown(t.mean_s, 1),
        ])  # fmt: skip
    return lines + _aligned(rows, left=1)


def _disagreement_text(study: ReaderStudy) -> list[str]:
    if not study.disagreements:
        return ["Disagreements: none."]
    lines = [f"Disagreements: {len(study.disagreements)}"]
    rows = [["case", "method", "threshold", "region", *study.readers]]
    for d in study.disagreements[:_SHOWN_DISAGREEMENTS]:
        said = dict(d.verdicts)
        r = d.record
        rows.append(
            [r.case, r.method, f"{r.threshold:g}", str(r.object_id),
             *(said.get(name, "-") for name in study.readers)]
        )  # fmt: skip
    left = len(study.disagreements) - _SHOWN_DISAGREEMENTS
    more = [f"... and {left} more (disagreements.csv)"] if left > 0 else []
    return lines + _aligned(rows) + more


# --------------------------------------------------------------------------- figure


def plot_study(study: ReaderStudy) -> Figure:
    """Precision per method and reader with its interval (one dot and bar per reader).

    Needs matplotlib (the ``viewer`` extra). Save it with
    :func:`napari_mood.services.figures.save_figure`.

    Parameters
    ----------
    study : ReaderStudy
        The reader study.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    from matplotlib import rc_context

    from napari_mood.services.analysis_plots import colors_for, new_figure
    from napari_mood.services.figures import FIGURE_RC

    methods = study.methods
    fig = new_figure(width=min(7.2, max(3.5, 0.5 * len(methods) * len(study.readers) + 1.8)))
    axes = fig.axes[0]
    colors = colors_for(list(study.readers))
    step = 0.7 / max(len(study.readers), 1)
    with rc_context(FIGURE_RC):
        for r, reader in enumerate(study.readers):
            xs, ys, low, high = _precision_points(study, reader)
            offsets = [x - 0.35 + step * (r + 0.5) for x in xs]
            errors = np.abs(np.array([low, high], float) - np.array(ys, float))
            axes.errorbar(offsets, ys, yerr=errors, fmt="o", ms=3, lw=0.8, capsize=2,
                          color=colors[reader], label=reader)  # fmt: skip
        axes.set_xticks(range(len(methods)), list(methods))
        axes.set_xlim(-0.6, len(methods) - 0.4)
        axes.set_ylim(-0.02, 1.02)
        axes.set_ylabel("confirmed share (precision)")
        axes.set_title(
            f"Flagged regions confirmed by readers ({study.confidence:.0%} Wilson interval)"
        )
        axes.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _precision_points(
    study: ReaderStudy, reader: str
) -> tuple[list[int], list[float], list[float], list[float]]:
    """Return method positions, precision and interval of ``reader`` (undefined ones left out)."""
    mine = {c.method: c for c in study.counts if c.reader == reader}
    rows = [(m, mine.get(method)) for m, method in enumerate(study.methods)]
    kept = [(m, c) for m, c in rows if c is not None and not math.isnan(c.precision)]
    return (
        [m for m, _ in kept],
        [c.precision for _, c in kept],
        [c.precision_low for _, c in kept],
        [c.precision_high for _, c in kept],
    )
