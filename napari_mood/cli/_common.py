"""Helpers shared by several subcommands.

What several subcommands share: the methods to evaluate, a terminal progress bar,
optional dependencies refused in one line before any work.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import io
import json
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from napari_mood.io.methods import MethodFolder
    from napari_mood.io.mood import MoodDataset

__all__ = [
    "Need",
    "ProgressBar",
    "aligned_csv",
    "formatted_csv",
    "methods_from_args",
    "require",
    "require_all",
]

Need = tuple[str, "str | None", str]
"""``(module, extra, who)``: ``who`` (``"evaluate --scheduler"``) imports ``module``,
installed with ``pip install "napari-mood[extra]"`` (``None``: a plain dependency)."""


def require(module: str, extra: str | None, *, who: str) -> None:
    """Import ``module`` now, or refuse in one line naming what to install.

    Raises
    ------
    MoodInputError
        ``evaluate --scheduler needs distributed: No module named 'distributed'
        (pip install "napari-mood[cluster]")``.
    """
    from napari_mood.io.errors import MoodInputError, one_line

    try:
        importlib.import_module(module)
    except ImportError as exc:
        package = module.partition(".")[0]
        hint = (
            f'pip install "napari-mood[{extra}]"'
            if extra
            else f"a dependency of napari-mood: pip install {package}"
        )
        raise MoodInputError(None, f"{who} needs {package}: {one_line(str(exc))}", hint) from None


def require_all(args: argparse.Namespace) -> None:
    """:func:`require` what the parsed command needs (``needs`` of its parser, if any)."""
    needs: Callable[[argparse.Namespace], Iterable[Need]] | None = getattr(args, "needs", None)
    for module, extra, who in needs(args) if needs is not None else ():
        require(module, extra, who=who)


def methods_from_args(
    args: argparse.Namespace, dataset: MoodDataset | None = None
) -> dict[str, MethodFolder]:
    """``--preds`` / ``--pred`` (default ``DATASET/methods``), as :func:`find_methods`.

    A method folder that is the dataset, its labels or its scans is refused
    (:func:`~napari_mood.io.methods.check_methods_apart`); ``dataset`` is discovered from
    the arguments when not given.
    """
    from napari_mood.io.methods import check_methods_apart, find_methods
    from napari_mood.io.mood import discover_dataset

    if dataset is None:
        dataset = discover_dataset(args.dataset, scans=args.scans, labels=args.labels)
    given = [folder for _, folder in args.pred] + ([] if args.preds is None else [args.preds])
    check_methods_apart(dataset, given)  # before they are listed
    methods = find_methods(args.dataset, preds=args.preds, pred=dict(args.pred))
    check_methods_apart(dataset, [m.path for m in methods.values()])
    return methods


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


def aligned_csv(text: str) -> str:
    r"""CSV text as an aligned table (``--format table``): numbers right, text left.

    Examples
    --------
    >>> print(aligned_csv("method,score\nab,0.5\n"), end="")
    method  score
    ab        0.5
    """
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows if i < len(row)) for i in range(len(rows[0]))]

    def cell(value: str, width: int) -> str:
        return value.rjust(width) if _is_number(value) else value.ljust(width)

    lines = ["  ".join(cell(v, w) for v, w in zip(row, widths, strict=False)) for row in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def formatted_csv(text: str, kind: str) -> str:
    """Render a CSV result in the ``--format`` asked for.

    A CSV result as ``--format`` says: ``table`` aligned, ``csv`` as is, ``json`` a list
    of one object per row (values kept as the CSV's text).
    """
    if kind == "csv":
        return text
    if kind == "json":
        rows = list(csv.DictReader(io.StringIO(text)))
        return json.dumps(rows, indent=2) + "\n"
    return aligned_csv(text)
