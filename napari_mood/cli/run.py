"""``napari-mood run``: run a method the MOOD way, case by case, and list what went wrong."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from napari_mood.cli._common import ProgressBar
from napari_mood.io.errors import MoodInputError
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.output import Inputs, Planned, check_outputs
from napari_mood.services.run_method import MethodRun, expected_output, input_scans, run_method

__all__ = ["format_run", "main"]

FRESH_FOLDER_NOTE = (
    "note: each case ran in a fresh, empty working folder, not here: a file the method "
    "opens by a relative path is not found there (give it by absolute path, or --workdir "
    "DIR); each failed case's log is kept where its message says"
)


def format_run(run: MethodRun) -> str:
    """Return the run as an aligned table, then one summary line."""
    width = max([len(c.case) for c in run.cases] + [4])
    lines = [f"{'case':<{width}}  {'status':<11} {'seconds':>8}  message"]
    for c in run.cases:
        lines.append(f"{c.case:<{width}}  {c.status:<11} {c.seconds:8.2f}  {c.message}".rstrip())
    failed = run.failed()
    total = sum(c.seconds for c in run.cases)
    summary = f"{len(run.cases) - len(failed)} of {len(run.cases)} cases ok, {total:.1f} s in all"
    if failed:
        summary += f"; no output (scored 0 by evaluate): {', '.join(c.case for c in failed)}"
    lines.append(summary)
    if failed and run.workdir is None:
        lines.append(FRESH_FOLDER_NOTE)
    done = {"new": "appeared in", "changed": "changed in", "removed": "was removed from"}
    for entry in run.input_changes:
        lines.append(f"WARNING: {entry.path} {done[entry.change]} the input during the run")
    return "\n".join(lines) + "\n"


def _json(run: MethodRun) -> str:
    return json.dumps(run.to_dict(), indent=2) + "\n"


def _csv(run: MethodRun) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["case", "status", "seconds", "message"])
    writer.writerows([c.case, c.status, f"{c.seconds:.3f}", c.message] for c in run.cases)
    return buffer.getvalue()


def _formatted(run: MethodRun, kind: str) -> str:
    """Return the run as ``--format`` says: an aligned table, CSV (one row per case) or JSON."""
    if kind == "json":
        return _json(run)
    return _csv(run) if kind == "csv" else format_run(run)


def _check_outputs(args: argparse.Namespace) -> None:
    """``--out`` (with each case's file) and ``--report`` apart, and outside INPUT."""
    names = tuple(expected_output(scan.name, args.task) for scan in input_scans(args.input))
    planned = [Planned(args.out, "--out", folder=True, names=names)]
    if args.report is not None:
        planned.append(Planned(args.report, "--report"))
    check_outputs(planned, inputs=Inputs(folders=(args.input,)), force=args.force)


def main(args: argparse.Namespace) -> int:
    """Run ``run`` with parsed arguments; returns the exit code."""
    _check_outputs(args)
    try:
        run = run_method(
            args.command,
            args.input,
            args.out,
            task=args.task,
            time_limit=args.time_limit,
            force=args.force,
            progress=ProgressBar("run", enabled=not args.quiet),
            workdir=args.workdir,
        )
    except ValueError as exc:
        if isinstance(exc, MoodInputError):
            raise
        raise MoodInputError(None, str(exc), "check the command string") from exc
    sys.stdout.write(_formatted(run, args.format))
    if args.report is not None:
        write_text_atomic(args.report, _json(run), replace=args.force)
    return 0
