"""Output side of ``napari-mood evaluate``: options from arguments, table / CSV / JSON, progress."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import asdict, fields, replace
from typing import Any, TextIO

from napari_mood.core import ranking
from napari_mood.core.evaluate import DatasetEvaluation, EvaluationOptions
from napari_mood.core.io import (
    MethodFolder,
    MoodDataset,
    MoodInputError,
    MoodInputWarning,
    discover_dataset,
)
from napari_mood.services.engine import EngineStats, run_evaluation

__all__ = ["format_csv", "format_json", "format_table", "run"]


class ProgressBar:
    """A one-line progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, label: str, *, stream: TextIO | None = None, enabled: bool = True) -> None:
        self._label = label
        self._stream = sys.stderr if stream is None else stream
        self._enabled = enabled and self._stream.isatty()
        self._start = time.perf_counter()

    def __call__(self, done: int, total: int, item: str) -> None:
        if not self._enabled:
            return
        width = 24
        filled = int(width * done / max(total, 1))
        elapsed = time.perf_counter() - self._start
        bar = "#" * filled + "-" * (width - filled)
        end = "\n" if done >= total else ""
        self._stream.write(
            f"\r{self._label} [{bar}] {done}/{total} {elapsed:5.1f}s {item[:30]:<30}{end}"
        )
        self._stream.flush()


def options_from_args(args: argparse.Namespace) -> EvaluationOptions:
    """Build :class:`EvaluationOptions` from parsed arguments."""
    threshold = args.threshold if args.threshold is not None else 0.5
    return EvaluationOptions(
        tasks=tuple(args.task),
        mode=args.mode,
        strict=args.strict,
        nan_policy=args.nan_policy,
        sample_from_pixel=args.sample_from_pixel,
        object_threshold=threshold,
        size_window=args.size_window,
        connectivity=args.connectivity,
    )


def _toy_thresholds(
    args: argparse.Namespace, methods: Mapping[str, MethodFolder], options: EvaluationOptions
) -> dict[str, float]:
    toy = discover_dataset(args.toy, scans=args.scans)
    toy_options = replace(
        options, tasks=("object",), object_threshold="auto", sample_from_pixel=None
    )
    result, _ = _run_engine(args, toy, methods, toy_options, label="toy", warn=False)
    return {
        name: s.object.counts.threshold
        for name, s in result.methods.items()
        if s.object is not None
    }


def _run_engine(
    args: argparse.Namespace,
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    options: EvaluationOptions,
    *,
    label: str,
    warn: bool,
) -> tuple[DatasetEvaluation, EngineStats]:
    with warnings.catch_warnings():
        if not warn:
            warnings.simplefilter("ignore", MoodInputWarning)
        return run_evaluation(
            dataset,
            methods,
            options=options,
            workers=args.workers,
            scheduler=args.scheduler,
            cache=args.cache,
            progress=ProgressBar(label, enabled=not args.quiet),
            warn=warn,
        )


def run(args: argparse.Namespace, dataset: MoodDataset, methods: Mapping[str, MethodFolder]) -> int:
    """Run ``evaluate`` with parsed arguments; returns the exit code."""
    options = options_from_args(args)
    if "object" in options.tasks and args.threshold == "auto":
        if args.toy is not None:
            options = replace(options, object_threshold=_toy_thresholds(args, methods, options))
        else:
            warnings.warn(
                "object threshold chosen on the evaluated cases themselves: the object F1 is optimistic "
                "(give --toy DATASET to choose it on a separate toy set)",
                MoodInputWarning,
                stacklevel=1,
            )
    result, stats = _run_engine(args, dataset, methods, options, label="evaluate", warn=True)
    if args.verbose:
        print(
            f"{stats.computed} case x method results computed, {stats.cached} from cache, "
            f"{stats.cases_read} cases read by {stats.workers or 'cluster'} worker(s) "
            f"({stats.scheduler}), peak worker memory {stats.peak_memory_mb:.0f} MiB",
            file=sys.stderr,
        )
    result = add_statistics(
        result,
        batches=args.batches,
        batch_size=args.batch_size,
        bootstrap=args.bootstrap,
        seed=args.seed,
    )
    if args.report is not None:
        _write_report(args, result)
    text = {"table": format_table, "csv": format_csv, "json": format_json}[args.format](result)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    return 0


def _write_report(args: argparse.Namespace, result: DatasetEvaluation) -> None:
    try:
        from napari_mood.services import report
    except ImportError as exc:
        raise MoodInputError(
            None, f"--report needs matplotlib ({exc})", "pip install 'napari-mood[viewer]'"
        ) from exc
    categories_path = args.categories
    if categories_path is None and (args.dataset / "categories.csv").is_file():
        categories_path = args.dataset / "categories.csv"
    categories = report.read_categories(categories_path) if categories_path is not None else None
    files = report.write_report(
        result,
        args.report,
        csv_text=format_csv(result),
        categories=categories,
        n_boot=args.bootstrap or 1000,
        seed=args.seed,
    )
    print(f"report written to {files.html}", file=sys.stderr)


def add_statistics(
    result: DatasetEvaluation, *, batches: int, batch_size: int, bootstrap: int, seed: int
) -> DatasetEvaluation:
    """Add challenge batch AP and bootstrap intervals to each method's pixel summary."""
    if not (batches or bootstrap):
        return result
    methods = {}
    for name, summary in result.methods.items():
        accs = tuple(result.case_accumulators.get(name, {}).values())
        if summary.pixel is None or not accs:
            methods[name] = summary
            continue
        extra = dict(summary.pixel.extra)
        if batches:
            b = ranking.batch_average_precision(
                accs, n_runs=batches, batch_size=min(batch_size, len(accs)), seed=seed
            )
            extra["batch_ap"] = {
                "mean": b.mean,
                "n_batches": batches,
                "batch_size": min(batch_size, len(accs)),
                "seed": seed,
                "aps": list(b.scores),
                "splits": [list(x) for x in b.splits],
            }
        if bootstrap:
            ci = ranking.bootstrap_ap(accs, n_boot=bootstrap, seed=seed)
            extra["ap_ci95"] = [ci.low, ci.high]
        methods[name] = replace(summary, pixel=replace(summary.pixel, extra=extra))
    return replace(result, methods=methods)


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def format_table(result: DatasetEvaluation) -> str:
    """Aligned table for people, methods sorted by AP."""
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
        p = result.methods[name].pixel
        if p is None:
            continue
        if "batch_ap" in p.extra:
            b = p.extra["batch_ap"]
            lines.append(
                f"{name}: mean AP over {b['n_batches']} batches of {b['batch_size']} cases = {b['mean']:.4f}"
            )
        if "ap_ci95" in p.extra:
            lo, hi = p.extra["ap_ci95"]
            lines.append(f"{name}: pixel AP 95% bootstrap interval [{lo:.4f}, {hi:.4f}]")
    return lines


def format_csv(result: DatasetEvaluation) -> str:
    """CSV with one row per case x method (empty cells for undefined values)."""
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
    """The stable JSON documented in the README (NaN written as null)."""
    return json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n"
