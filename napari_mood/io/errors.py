"""The input errors and warnings: one line that names the file and says what to do.

Every reader of :mod:`napari_mood.io` raises :class:`MoodInputError` for an input it cannot
use and warns with :class:`MoodInputWarning` (through :func:`warn_input`) for one it can use
but a person should look at; the command line prints either as one line.

A message that tells what to change names an option twice, through :func:`option`
(:mod:`napari_mood.core.wording`, re-exported here for the readers and jobs): as the
command line spells it and in words. ``str()`` of an error or warning says the words
(what a panel or a notebook shows); the command line prints the flags
(:func:`with_flags`), so the one message serves every front end.
"""

from __future__ import annotations

import errno
import os
import stat
import warnings
from pathlib import Path

from napari_mood.core.wording import in_words, option, with_flags

__all__ = [
    "MoodInputError",
    "MoodInputWarning",
    "check_regular_file",
    "describe_entry",
    "in_words",
    "one_line",
    "option",
    "warn_input",
    "with_flags",
]


class MoodInputError(ValueError):
    """An input file or folder cannot be used; the message names it and says what to do.

    ``str()`` names options in words; ``args[0]`` keeps the :func:`option` marks, which
    the command line renders as flags (:func:`with_flags`).
    """

    def __init__(self, path: str | os.PathLike[str] | None, problem: str, hint: str = "") -> None:
        self.path = None if path is None else Path(path)
        self.problem = in_words(one_line(problem))
        self.hint = in_words(one_line(hint))
        where = f"{self.path}: " if self.path is not None else ""
        super().__init__(f"{where}{one_line(problem)}" + (f" ({one_line(hint)})" if hint else ""))

    def __str__(self) -> str:
        """Return the message with its options in words."""
        return in_words(str(self.args[0]) if self.args else "")

    def __repr__(self) -> str:
        """Return the error as a notebook echoes it, options in words."""
        return f"{type(self).__name__}({str(self)!r})"


def one_line(text: str) -> str:
    r"""``text`` on one line: every run of whitespace (line breaks too) becomes one space.

    Parameters
    ----------
    text : str
        Any text (an error message, a library's complaint).

    Returns
    -------
    str
        The text with its whitespace runs collapsed.

    Examples
    --------
    >>> one_line("got 0 bytes from object\n - could the file be damaged?")
    'got 0 bytes from object - could the file be damaged?'
    """
    return " ".join(str(text).split())


class MoodInputWarning(UserWarning):
    """An input is usable but suspicious (the message names the file).

    Like :class:`MoodInputError`, ``str()`` names options in words and ``args[0]`` keeps
    the :func:`option` marks for the command line.
    """

    def __str__(self) -> str:
        """Return the message with its options in words."""
        return in_words(str(self.args[0]) if self.args else "")

    def __repr__(self) -> str:
        """Return the warning as a notebook echoes it, options in words."""
        return f"{type(self).__name__}({str(self)!r})"


def describe_entry(path: str | os.PathLike[str]) -> str:
    """Return what a folder entry is, in words ("a folder", "a FIFO (named pipe)", ...).

    Links are followed; a link that leads nowhere is "a broken symbolic link".

    Parameters
    ----------
    path : str or os.PathLike
        The entry to describe.

    Returns
    -------
    str
        Its kind in words, or ``"missing"``.

    Examples
    --------
    >>> describe_entry("/")
    'a folder'
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except OSError:
        return "a broken symbolic link" if path.is_symlink() else "missing"
    for test, words in _ENTRY_KINDS:
        if test(mode):
            linked = " (through a symbolic link)" if path.is_symlink() and words != "a file" else ""
            return words + linked
    return "not a regular file"


_ENTRY_KINDS = (
    (stat.S_ISREG, "a file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_regular_file(path: str | os.PathLike[str], *, what: str = "file") -> Path:
    """Refuse, before opening it, anything that is not a regular file (links followed).

    A FIFO or a device is never opened: reading it could block forever or never end.

    Parameters
    ----------
    path : str or os.PathLike
        The file to be read.
    what : str
        What the file should be, for the message ("NIfTI file").

    Returns
    -------
    pathlib.Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    MoodInputError
        Missing, a broken link (or a loop of links), a folder, a FIFO, a device, a socket.

    Examples
    --------
    >>> check_regular_file("/", what="NIfTI file")
    Traceback (most recent call last):
    ...
    napari_mood.io.errors.MoodInputError: /: is a folder, not a NIfTI file (give the file itself)
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if path.is_symlink():
            loop = " (a loop of links)" if exc.errno == errno.ELOOP else ""
            raise MoodInputError(
                path, f"is a broken symbolic link{loop}", "point it to an existing file"
            ) from exc
        if exc.errno == errno.ENOENT:
            raise MoodInputError(path, "file not found", "check the path") from exc
        raise MoodInputError(
            path, f"cannot be read ({exc.strerror or exc})", "check its permissions"
        ) from exc
    if stat.S_ISREG(mode):
        return path
    kind = describe_entry(path)
    hint = (
        "give the file itself"
        if stat.S_ISDIR(mode)
        else "napari-mood never reads pipes or devices (they can block or never end): "
        "put a regular file there"
    )
    raise MoodInputError(path, f"is {kind}, not a {what}", hint)


def warn_input(path: Path | None, message: str) -> None:
    """Emit a :class:`MoodInputWarning` that names the file."""
    where = f"{path}: " if path is not None else ""
    warnings.warn(f"{where}{one_line(message)}", MoodInputWarning, stacklevel=3)
