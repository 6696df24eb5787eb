"""The ``napari-mood`` command line: one module per subcommand, GUI-free.

Subcommands: ``demo``, ``view`` (the napari viewer, imported only when run),
``evaluate``, ``validate``, ``simulate``, ``evaluate-recon``, ``figure``, ``evaluate-boxes``
(2-D boxes, NOVA-style), and the analyses ``run``, ``sweep``, ``sweep-report``,
``categories``, ``rank``. Exit codes: 0 success, 1 an input
or output cannot be used (the message names the file), 2 usage error.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence

from napari_mood.core.io import MoodInputError, MoodInputWarning, one_line

__all__ = ["main"]


def _run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return func(args)
    except MoodInputError as exc:  # inputs and outputs, incl. the output guard's refusals
        print(f"napari-mood: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("napari-mood: interrupted (nothing half-written was left behind)", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`)
        sys.stderr.close()
        return 0


def _on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``napari-mood`` command; returns the exit code."""
    from napari_mood.cli.parser import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    check = getattr(args, "check", None)
    problem = None if check is None else check(args)
    if problem:
        parser.error(f"{args.command}: {problem}")
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    try:
        with warnings.catch_warnings():
            if getattr(args, "quiet", False):
                warnings.simplefilter("ignore")  # --quiet: no warning on stderr
            else:
                warnings.simplefilter("always", MoodInputWarning)
                warnings.filterwarnings("always", module=r"napari_mood\.")  # ours: every one
                warnings.showwarning = _WarningPrinter()  # each once, one line, no source
            return _run(args.func, args)
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


_READABLE = {
    "BatchWarning": "batches",
    "UndefinedMetricWarning": "undefined metric",
    "UserWarning": "",
    "MoodInputWarning": "",
}


def readable_category(category: type[Warning]) -> str:
    """A warning class in words: ``UndefinedMetricWarning`` -> ``"undefined metric"``.

    Examples
    --------
    >>> readable_category(RuntimeWarning), readable_category(UserWarning)
    ('runtime', '')
    """
    name = category.__name__
    if name in _READABLE:
        return _READABLE[name]
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name.removesuffix("Warning"))
    return " ".join(w.lower() for w in words)


class _WarningPrinter:
    """``warnings.showwarning`` for the command line: each distinct warning once, one line."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, str]] = set()

    def __call__(self, message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        kind = readable_category(category)
        text = one_line(str(message))
        if (kind, text) in self._seen:
            return
        self._seen.add((kind, text))
        print(f"napari-mood: warning: {kind + ': ' if kind else ''}{text}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
