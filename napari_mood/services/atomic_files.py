"""Atomic file writes: a file appears whole or not at all.

A temporary file in the same folder, flushed and renamed over the target, so a crash, a
full disk or an interrupt never leaves half a file or destroys the previous one. The
permissions of a replaced file are kept. Without ``replace`` the last step is a hard
link that fails if the target exists, so two runs racing for one new file never replace
each other's (the second is refused). What may be written where is checked before, by
the output guard (:mod:`napari_mood.services.output`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from napari_mood.services.output import FORCE_HINT, OutputRefused

__all__ = ["atomic_path", "write_bytes_atomic", "write_text_atomic"]

PathLike = str | os.PathLike[str]


@contextlib.contextmanager
def atomic_path(path: PathLike, *, replace: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it becomes ``path`` atomically.

    The temporary name ends in ``path``'s suffix (``.x.png.1a2b.part.png``), so writers
    that choose the format by the name (napari's screenshot, matplotlib) write the right one.

    The parent folder is created. With ``replace`` an existing file is replaced (it
    keeps its permission bits); without it the last step never replaces anything: when
    another process created ``path`` meanwhile (two runs racing for the same new
    ``--out``), :class:`OutputRefused` is raised and that file is kept. A new file gets
    the usual ``0o666 & ~umask``. On any error the temporary file is removed and ``path``
    is left as it was; an ``OSError`` becomes :class:`OutputRefused` naming it.

    Parameters
    ----------
    path : path-like
        The file to write.
    replace : bool
        Whether an existing file may be replaced.

    Yields
    ------
    pathlib.Path
        The temporary file to write.

    Raises
    ------
    OutputRefused
        When the file cannot be written or, without ``replace``, appeared meanwhile.
    """
    target = Path(path).expanduser()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=f".part{target.suffix}", dir=target.parent
        )
        os.close(handle)
    except OSError as error:
        raise OutputRefused(
            target, f"cannot be written ({error.strerror})", "choose another place"
        ) from error
    temporary = Path(name)
    try:
        yield temporary
        _keep_mode(temporary, target)
        _publish(temporary, target, replace=replace)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise OutputRefused(
            target,
            f"cannot be written ({error.strerror or error})",
            "free space or choose another place",
        ) from error
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK}
"""The errors of ``os.link`` on a file system without hard links (a copy is made instead)."""


def _publish(temporary: Path, target: Path, *, replace: bool) -> None:
    """Rename ``temporary`` to ``target``; without ``replace``, never over an existing file."""
    if replace:
        os.replace(temporary, target)
        return
    try:
        os.link(temporary, target)  # atomic, and fails if the target exists
    except FileExistsError:
        raise _appeared(target) from None
    except OSError as error:
        if error.errno not in NO_HARD_LINKS:
            raise
        _publish_exclusive(temporary, target)  # a file system without hard links
        return
    temporary.unlink()


def _publish_exclusive(temporary: Path, target: Path) -> None:
    """Reserve the name with ``O_EXCL`` (atomic), then rename the temporary file over it."""
    try:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        raise _appeared(target) from None
    os.replace(temporary, target)


def _appeared(target: Path) -> OutputRefused:
    return OutputRefused(
        target, "exists already (it appeared while napari-mood was working)", FORCE_HINT
    )


def _keep_mode(temporary: Path, target: Path) -> None:
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temporary, mode)


def write_bytes_atomic(path: PathLike, data: bytes, *, replace: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (flushed to disk before the rename).

    ``replace=False``: never replace a file that appeared meanwhile (:func:`atomic_path`).

    Parameters
    ----------
    path : path-like
        The file.
    data : bytes
        Its content.
    replace : bool
        Whether an existing file may be replaced.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    with atomic_path(path, replace=replace) as temporary:
        with temporary.open("wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    return Path(path).expanduser()


def write_text_atomic(
    path: PathLike, text: str, *, encoding: str = "utf-8", replace: bool = True
) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`write_bytes_atomic`).

    Parameters
    ----------
    path : path-like
        The file.
    text : str
        Its content.
    encoding : str
        The text's encoding.
    replace : bool
        Whether an existing file may be replaced.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    return write_bytes_atomic(path, text.encode(encoding), replace=replace)
