"""The ``napari-mood`` command line: one module per subcommand, GUI-free.

Subcommands: ``demo``, ``view`` (the napari viewer, imported only when run),
``evaluate``, ``validate``, ``simulate``, ``figure``. Exit codes: 0 success, 1 an input
or output cannot be used (the message names the file), 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Sequence

from napari_mood.core.io import MoodInputError, MoodInputWarning

__all__ = ["main"]


def _run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return func(args)
    except MoodInputError as exc:
        print(f"napari-mood: error: {exc}", file=sys.stderr)
        return 1
    except FileExistsError as exc:
        print(
            f"napari-mood: error: {exc} (use --overwrite, or another --out folder)", file=sys.stderr
        )
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``napari-mood`` command; returns the exit code."""
    from napari_mood.cli.parser import build_parser

    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        if getattr(args, "quiet", False):
            warnings.simplefilter("ignore", MoodInputWarning)
        else:
            warnings.simplefilter("always", MoodInputWarning)
            warnings.showwarning = _show_warning
        return _run(args.func, args)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    print(f"napari-mood: warning: {message}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
