"""What several subcommands share: the methods to evaluate, a terminal progress bar."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from napari_mood.core.io import (
    MethodFolder,
    MoodDataset,
    check_methods_apart,
    discover_dataset,
    find_methods,
)

__all__ = ["ProgressBar", "methods_from_args"]


def methods_from_args(
    args: argparse.Namespace, dataset: MoodDataset | None = None
) -> dict[str, MethodFolder]:
    """``--preds`` / ``--pred`` (default ``DATASET/methods``), as :func:`find_methods`.

    A method folder that is the dataset, its labels or its scans is refused
    (:func:`~napari_mood.core.io.check_methods_apart`); ``dataset`` is discovered from
    the arguments when not given.
    """
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
