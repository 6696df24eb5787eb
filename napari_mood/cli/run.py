"""``napari-mood run``: run a method the MOOD way, case by case, and list what went wrong."""

from __future__ import annotations

import argparse
import json
import sys

from napari_mood.cli._common import ProgressBar
from napari_mood.core.io import MoodInputError
from napari_mood.services.output import Inputs, check_output_file, write_text_atomic
from napari_mood.services.run_method import MethodRun, run_method

__all__ = ["format_run", "main"]


def format_run(run: MethodRun) -> str:
    """The run as an aligned table, then one summary line."""
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
    for path in run.changed_inputs:
        lines.append(f"WARNING: the input file {path} changed during the run")
    return "\n".join(lines) + "\n"


def main(args: argparse.Namespace) -> int:
    """Run ``run`` with parsed arguments; returns the exit code."""
    if args.json is not None:
        check_output_file(
            args.json, inputs=Inputs(folders=(args.input,)), force=args.force, what="--json"
        )
    try:
        run = run_method(
            args.command,
            args.input,
            args.output,
            task=args.task,
            time_limit=args.time_limit,
            force=args.force,
            progress=ProgressBar("run", enabled=not args.quiet),
        )
    except ValueError as exc:
        if isinstance(exc, MoodInputError):
            raise
        raise MoodInputError(None, str(exc), "check the command string") from exc
    sys.stdout.write(format_run(run))
    if args.json is not None:
        write_text_atomic(args.json, json.dumps(run.to_dict(), indent=2) + "\n", replace=args.force)
    return 0
