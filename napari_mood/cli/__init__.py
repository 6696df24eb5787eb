"""The ``napari-mood`` command line: one module per subcommand, GUI-free.

Subcommands are listed in :data:`napari_mood.cli.parser.COMMANDS`; each module is
imported only when its subcommand runs, so ``napari-mood --help`` stays fast. They share
one vocabulary (:mod:`napari_mood.cli._args`, ``docs/cli-vocabulary.md``). Exit codes:
0 success, 1 an input or output cannot be used (the message names the file) or an
optional dependency is missing (one line naming what to install), 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

__all__ = ["main"]


INTERRUPTED = "napari-mood: interrupted (nothing half-written was left behind)"


def _run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    from napari_mood.cli._common import require_all
    from napari_mood.io.errors import MoodInputError, with_flags

    try:
        require_all(args)  # a missing optional dependency: one line, before any work
        code = func(args)
        sys.stdout.flush()  # a full device shows here when the text fits in the buffer
        return code
    except MoodInputError as exc:  # inputs and outputs, incl. the output guard's refusals
        print(f"napari-mood: error: {with_flags(str(exc.args[0]))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`): not an error
        _discard_stdout()
        return 0
    except StdoutUnusable:  # main says it, once
        return 1


def _on_sigterm(signum: int, frame: object) -> None:
    print("napari-mood: terminated (nothing half-written was left behind)", file=sys.stderr)
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``napari-mood`` command; returns the exit code.

    Standard output that cannot be written (closed with ``>&-``, a full device, an I/O
    error) is an error of its own: exit status 1 and one line on stderr, never a
    traceback, never text silently dropped.
    """
    for descriptor in (0, 1, 2):  # started with one closed: no file opened may take it
        _hold_descriptor(descriptor)
    stdout, stderr = _StandardOutput(sys.stdout), _Diagnostics(sys.stderr)
    sys.stdout, sys.stderr = stdout, stderr  # type: ignore[assignment]  # do what is used
    try:
        code = _main(argv)
    except KeyboardInterrupt:  # while starting (imports, parsing) or between jobs
        print(INTERRUPTED, file=sys.stderr)
        code = 130
    except SystemExit:  # argparse: --help, --version, a usage error
        _flush_quietly(stdout)
        if stdout.problem is None:
            raise
        code = 1
    finally:
        sys.stdout, sys.stderr = stdout.stream, stderr.stream  # type: ignore[assignment]
    if stdout.problem is not None:
        print(
            f"napari-mood: error: cannot write to standard output ({stdout.problem})",
            file=sys.stderr,
        )
        _discard_stdout()
        return 1
    return code


def _main(argv: Sequence[str] | None) -> int:
    from napari_mood.cli.parser import build_parser

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except StdoutUnusable:  # --help onto a closed standard output
        return 1
    check = getattr(args, "check", None)
    problem = None if check is None else check(args)
    if problem:
        parser.error(f"{args.command}: {problem}")
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    try:
        with warnings.catch_warnings():
            from napari_mood.io.errors import MoodInputWarning

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


# --------------------------------------------------------------------------- standard output


class StdoutUnusable(Exception):
    """Standard output cannot be written (closed, a full device, an I/O error): exit 1."""


class _StandardOutput:
    """Standard output wrapper that remembers the first failed write.

    ``sys.stdout`` during a command: the first failed write or flush is remembered
    (``problem``) and raised as :class:`StdoutUnusable`; a broken pipe stays a
    :class:`BrokenPipeError` (the reader went away: not an error).

    ``stream`` None means the command started with standard output closed: writing is
    then an error too, where ``print`` would drop the text without a word.
    """

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream
        self.problem: str | None = None

    def write(self, text: str) -> int:
        if self.stream is None:
            self._fail("it is closed")
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: the file object was closed
            self._fail(_reason(exc))

    def flush(self) -> None:
        if self.stream is None:
            return
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            self._fail(_reason(exc))

    def _fail(self, reason: str) -> NoReturn:
        if self.problem is None:
            self.problem = reason
        raise StdoutUnusable(reason)

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno, ...
        if self.stream is None:
            raise AttributeError(name)
        return getattr(self.stream, name)


class _Diagnostics:
    """Standard error wrapper that drops messages it cannot write.

    ``sys.stderr`` during a command: messages that cannot be written (standard error
    closed, a full device) are dropped; the exit status still tells.
    """

    def __init__(self, stream: TextIO | None) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            if self.stream is not None:
                self.stream.write(text)
        except (OSError, ValueError):  # nowhere left to say it
            pass
        return len(text)

    def flush(self) -> None:
        try:
            if self.stream is not None:
                self.stream.flush()
        except (OSError, ValueError):
            pass

    def isatty(self) -> bool:
        try:
            return bool(getattr(self.stream, "isatty", lambda: False)())
        except (OSError, ValueError):
            return False

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, ...
        if self.stream is None:
            raise AttributeError(name)
        return getattr(self.stream, name)


def _reason(exc: BaseException) -> str:
    """Return the OS's words for an error (``No space left on device``), else its text."""
    from napari_mood.io.errors import one_line

    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return one_line(str(exc)) or type(exc).__name__


def _flush_quietly(stdout: _StandardOutput) -> None:
    """Flush what argparse printed (``--help``); a failure is left in ``stdout.problem``."""
    try:
        stdout.flush()
    except StdoutUnusable:
        pass
    except BrokenPipeError:
        _discard_stdout()


def _hold_descriptor(descriptor: int) -> None:
    """Reserve a closed file descriptor by opening ``/dev/null`` on it.

    Put ``/dev/null`` on a closed descriptor, so that no file opened later takes its
    number (a child process writing to its standard output would write into it).
    """
    try:
        os.fstat(descriptor)
    except OSError:
        null = os.open(os.devnull, os.O_RDWR)
        if null != descriptor:
            os.dup2(null, descriptor)
            os.close(null)


def _discard_stdout() -> None:
    """Redirect standard output's descriptor to ``/dev/null`` after a failure.

    Point the descriptor of standard output at ``/dev/null`` once it has failed: what
    is left in Python's buffer then goes nowhere at exit, without a second message
    ("Exception ignored ... BrokenPipeError").
    """
    stream = sys.stdout.stream if isinstance(sys.stdout, _StandardOutput) else sys.stdout
    try:
        descriptor = stream.fileno() if stream is not None else -1
    except (AttributeError, OSError, ValueError):  # pytest's capture, a closed file
        return
    if descriptor < 0:
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


_READABLE = {
    "BatchWarning": "batches",
    "UndefinedMetricWarning": "undefined metric",
    "UserWarning": "",
    "MoodInputWarning": "",
}


def readable_category(category: type[Warning]) -> str:
    """Return a warning class in words: ``UndefinedMetricWarning`` -> ``"undefined metric"``.

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
        from napari_mood.io.errors import one_line, with_flags

        kind = readable_category(category)
        raw = message.args[0] if isinstance(message, Warning) and message.args else message
        text = one_line(with_flags(str(raw)))
        if (kind, text) in self._seen:
            return
        self._seen.add((kind, text))
        print(f"napari-mood: warning: {kind + ': ' if kind else ''}{text}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
