"""Generated datasets written whole: a staged folder that becomes the output when complete.

``simulate``, ``sweep`` and ``pet-sample`` write into a hidden sibling folder
(:func:`staged_folder`) holding :data:`GENERATED_MARKER`; ``force`` replaces only a folder
that holds the marker. The output guard (:mod:`napari_mood.services.output`) checks the
place first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from napari_mood.io.errors import option
from napari_mood.services.atomic_files import NO_HARD_LINKS
from napari_mood.services.output import Inputs, OutputRefused, entry_kind, resolved_path

__all__ = ["GENERATED_MARKER", "staged_folder"]

PathLike = str | os.PathLike[str]

GENERATED_MARKER = ".napari-mood-generated"
"""The file every generated dataset holds: ``--force`` replaces only a folder that has it."""
_ONLY_GENERATED = option(
    ": --force replaces only a generated dataset", ": only a generated dataset is replaced"
)


@contextlib.contextmanager
def staged_folder(
    path: PathLike,
    *,
    force: bool,
    what: str = "the output folder",
    inputs: Inputs | None = None,
    keep: Iterable[str] = (),
) -> Iterator[Path]:
    """Yield a temporary sibling folder of ``path``; on success it becomes ``path``, whole.

    A generated dataset (``simulate``, ``sweep``, ``pet-sample``) is written into a hidden
    folder beside ``path`` (``.NAME.XXXX.part``) holding the marker file
    :data:`GENERATED_MARKER`, and renamed into place when complete: an error, a full disk,
    Ctrl-C or SIGTERM leave ``path`` as it was and no temporary folder (``kill -9`` may
    leave the hidden ``.part`` folder, never a half dataset at ``path``).

    ``path`` may be missing or an empty folder. A folder holding anything is replaced
    only with ``force``, and only when napari-mood generated it (it holds the marker):
    the old folder is moved aside, the new one renamed in, the old one removed, so two
    datasets are never mixed. Anything else (a file, a folder of other files, a folder
    holding one of ``inputs``) is refused before the caller starts working. The new
    folder keeps the replaced one's permissions.

    ``keep``: files of the replaced folder (relative paths) carried into the new one
    (hard links, else copies) before the caller writes: a dataset grown by a run
    (``simulate --kind pet`` adds a region beside the others) is still swapped in whole.

    Parameters
    ----------
    path : path-like
        The folder to make.
    force : bool
        Whether an existing folder may be replaced (only one napari-mood generated).
    what : str
        How the folder is named in the messages.
    inputs : Inputs, optional
        The run's input folders and files, which the output may not be in or on.
    keep : iterable of str
        Files of the replaced folder (relative paths) carried into the new one.

    Yields
    ------
    pathlib.Path
        The temporary folder to write into.

    Raises
    ------
    OutputRefused
        ``path`` cannot be replaced (see above), or the folder cannot be written.

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "sim"
    >>> with staged_folder(out, force=False) as folder:
    ...     _ = (folder / "sweep.json").write_text("{}")
    >>> sorted(p.name for p in out.iterdir())
    ['.napari-mood-generated', 'sweep.json']
    >>> with staged_folder(out, force=False) as folder:
    ...     pass
    Traceback (most recent call last):
    ...
    napari_mood.services.output.OutputRefused: ...: the output folder already holds a dataset napari-mood generated (allow replacing it as a whole, or choose a new folder)
    """
    import shutil

    shown = Path(path).expanduser()
    target = _staging_target(shown, what)
    _refuse_unreplaceable(target, shown, force=force, what=what)
    _refuse_inputs_inside(target, shown, inputs or Inputs(), what)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(
            tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        )
    except OSError as error:
        raise OutputRefused(
            shown,
            f"{what} cannot be written ({error.strerror or error})",
            "choose a writable place",
        ) from error
    try:
        (temporary / GENERATED_MARKER).write_text(
            "Written by napari-mood: a generated dataset. napari-mood replaces this folder as "
            "a whole only when told to replace it (the command line's --force).\n",
            encoding="utf-8",
        )
        for name in keep:
            _carry(target / name, temporary / name)
        yield temporary
        os.chmod(temporary, _folder_mode(target))
        _swap_in(temporary, target, shown, force=force, what=what)
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        raise OutputRefused(
            shown,
            f"{what} cannot be written ({error.strerror or error})",
            "free space or choose another place",
        ) from error
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _staging_target(shown: Path, what: str) -> Path:
    """Return the real place of a folder output (links resolved: the swap happens there)."""
    if shown.is_symlink() and not shown.exists():
        raise OutputRefused(
            shown, f"{what} is a broken symbolic link", "remove the link or point it to a folder"
        )
    return resolved_path(shown)


def _refuse_unreplaceable(target: Path, shown: Path, *, force: bool, what: str) -> None:
    """Refuse a target that is not missing, empty, or (with ``force``) a generated dataset."""
    if not target.exists():
        return
    if not target.is_dir():
        raise OutputRefused(shown, f"{what} is {entry_kind(target)}", "give a folder")
    try:
        entries = sorted(os.listdir(target))
    except OSError as error:
        raise OutputRefused(
            shown, f"{what} cannot be read ({error.strerror})", "choose another place"
        ) from error
    if not entries:
        return
    listed = ", ".join(entries[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
    if not (target / GENERATED_MARKER).is_file():
        raise OutputRefused(
            shown,
            f"{what} already holds {listed}, not marked as generated by napari-mood (no "
            f"{GENERATED_MARKER}){_ONLY_GENERATED if force else ''}",
            "a generated dataset is written whole into a new or empty folder: choose one",
        )
    if not force:
        raise OutputRefused(
            shown,
            f"{what} already holds a dataset napari-mood generated",
            f"{option('use --force to replace it', 'allow replacing it')} as a whole, or choose a "
            "new folder",
        )


def _refuse_inputs_inside(target: Path, shown: Path, inputs: Inputs, what: str) -> None:
    """Refuse to replace a folder whole that holds an input (it would be removed with it)."""
    for held in (*inputs.folders, *inputs.files):
        if held.is_relative_to(target):
            raise OutputRefused(
                shown,
                f"{what} holds the input {held}: replacing the folder would remove it",
                "inputs are read-only to napari-mood: choose a place outside the data",
            )


def _carry(source: Path, copy: Path) -> None:
    """``copy`` becomes a hard link to ``source`` (a copy where links are not possible)."""
    import shutil

    copy.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        os.symlink(os.readlink(source), copy)
        return
    try:
        os.link(source, copy)
    except OSError as error:
        if error.errno not in NO_HARD_LINKS:
            raise
        shutil.copy2(source, copy)


def _folder_mode(target: Path) -> int:
    """Return the replaced folder's permission bits, else a new folder's (``0o777 & ~umask``)."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o777 & ~umask


def _swap_in(temporary: Path, target: Path, shown: Path, *, force: bool, what: str) -> None:
    """Rename ``temporary`` to ``target``; with ``force`` the old generated folder goes."""
    import shutil
    import warnings

    from napari_mood.io.errors import MoodInputWarning

    try:
        os.rename(temporary, target)  # a new name, or over an empty folder: atomic
        return
    except OSError as error:
        if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    _refuse_unreplaceable(target, shown, force=force, what=what)  # it changed meanwhile
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    os.rename(target, aside)  # over the empty placeholder
    try:
        os.rename(temporary, target)
    except BaseException:
        os.rename(aside, target)
        raise
    problems: list[str] = []
    shutil.rmtree(aside, onerror=lambda *a: problems.append(str(a[1])))
    if problems:
        warnings.warn(
            f"{aside}: the replaced dataset could not be removed completely ({problems[0]}): "
            "remove it yourself",
            MoodInputWarning,
            stacklevel=3,
        )
