"""Generated datasets written whole: a staged folder that becomes the output when complete.

``simulate``, ``sweep`` and ``pet-sample`` write into a hidden sibling folder
(:func:`staged_folder`); when complete it gets :data:`GENERATED_MARKER`, the manifest of
the files written (relative path and sha256 of each), and is renamed into place.
``force`` replaces only the files a manifest lists, unchanged: a folder holding anything
else (a user's notes, a method's outputs in ``DATASET/methods``, an edited file) is
refused, naming those files. The output guard (:mod:`napari_mood.services.output`)
checks the place first.

A folder an older napari-mood generated holds the marker without a manifest: it is
replaced only when every file in it is one the new run writes again (the same layout),
checked before the swap; anything else is refused the same way.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path

from napari_mood._version import __version__
from napari_mood.io.errors import option
from napari_mood.services.atomic_files import NO_HARD_LINKS, write_text_atomic
from napari_mood.services.output import (
    Inputs,
    OutputRefused,
    check_output_name,
    entry_kind,
    resolved_path,
)

__all__ = ["GENERATED_MARKER", "staged_folder"]

PathLike = str | os.PathLike[str]

GENERATED_MARKER = ".napari-mood-generated"
"""The manifest every generated dataset holds (JSON: each file written and its sha256).

``--force`` replaces only a folder that has it, and only when the folder holds nothing
but the files it lists, unchanged."""
_ONLY_GENERATED = option(
    ": --force replaces only a generated dataset", ": only a generated dataset is replaced"
)
_ABOUT = (
    "Written by napari-mood: a generated dataset and the files it wrote (sha256). napari-mood "
    "replaces this folder only when told to (the command line's --force), and only when it "
    "holds nothing but these files, unchanged."
)
_SHOWN = 5  # files named in a refusal, then a count


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
    folder beside ``path`` (``.NAME.XXXX.part``); when the caller is done, the manifest
    :data:`GENERATED_MARKER` lists every file in it with its sha256, and the folder is
    renamed into place: an error, a full disk, Ctrl-C or SIGTERM leave ``path`` as it was
    and no temporary folder (``kill -9`` may leave the hidden ``.part`` folder, never a
    half dataset at ``path``).

    ``path`` may be missing or an empty folder. A folder holding anything is replaced
    only with ``force``, and only when it holds nothing but the files its manifest lists,
    unchanged (an older napari-mood's folder, with the marker and no list: only when
    every file in it is one the caller wrote again): the old folder is moved aside, the
    new one renamed in, the old one removed, so two datasets are never mixed. Anything
    else (a file, a folder of other files, a user's file or an edited one in a generated
    dataset, a folder holding one of ``inputs``) is refused naming what it holds (at most
    five files, then a count), before the caller starts working (an older folder: after,
    before the swap). The new folder keeps the replaced one's permissions.

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
    keep = tuple(keep)
    _refuse_inputs_inside(target, shown, inputs or Inputs(), what)
    _refuse_unreplaceable(target, shown, force=force, what=what, keep=keep)
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
            json.dumps({"about": _ABOUT, "files": {}}), encoding="utf-8"
        )
        for name in keep:
            _carry(target / name, temporary / name)
        yield temporary
        written = _write_manifest(temporary) - set(keep)
        os.chmod(temporary, _folder_mode(target))
        _swap_in(temporary, target, shown, force=force, what=what, written=written)
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
    check_output_name(shown, what)
    if shown.is_symlink() and not shown.exists():
        raise OutputRefused(
            shown, f"{what} is a broken symbolic link", "remove the link or point it to a folder"
        )
    return resolved_path(shown)


def _refuse_unreplaceable(
    target: Path,
    shown: Path,
    *,
    force: bool,
    what: str,
    written: Collection[str] | None = None,
    keep: Collection[str] = (),
) -> None:
    """Refuse a target that is not missing, empty, or (with ``force``) a generated dataset.

    A generated dataset is replaced only when it holds nothing but the files of its
    manifest, unchanged. One without a manifest (an older napari-mood's) is replaced
    only when every file in it is among ``written``, the files the new run wrote (None:
    before the run, when it passes unless files are to be kept from it).
    """
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
    manifest = _read_manifest(target / GENERATED_MARKER)
    if manifest is None:  # an older napari-mood's dataset: no list of what it wrote
        if written is None and not keep:
            return  # decided after the run, against the files it wrote
        others = [e for e in _entries(target) if written is None or e not in written]
        note = "not written again by this run"
    else:
        others = _not_in_manifest(target, manifest)
        note = "not written by napari-mood, or changed since"
    if others:
        listed = ", ".join(others[:_SHOWN]) + (
            f" and {len(others) - _SHOWN} more" if len(others) > _SHOWN else ""
        )
        older = "" if manifest is not None else " (an older napari-mood's dataset: no manifest)"
        raise OutputRefused(
            shown,
            f"{what} holds {len(others):,} file{'s' if len(others) != 1 else ''} {note}"
            f"{older}: {listed}",
            "napari-mood replaces only the files it generated: move the others out, or choose a "
            "new folder",
        )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _fingerprint(path: Path) -> str | None:
    """Return the sha256 of a regular file, ``link:TARGET`` for a link, else None."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return f"link:{os.readlink(path)}"
    if not stat.S_ISREG(info.st_mode):
        return None  # a FIFO or a device is never read (and never generated)
    try:
        return _sha256(path)
    except OSError:
        return None


def _entries(folder: Path) -> list[str]:
    """Every file, link and empty folder under ``folder`` (relative; a folder ends in /).

    The manifest itself is left out; links are not followed.
    """
    found: list[str] = []

    def unreadable(error: OSError) -> None:
        found.append(Path(error.filename).relative_to(folder).as_posix() + "/ (unreadable)")

    for root, folders, files in os.walk(folder, onerror=unreadable):
        here = Path(root)
        links = [f for f in folders if (here / f).is_symlink()]
        for name in sorted(files + links):
            relative = (here / name).relative_to(folder).as_posix()
            if relative != GENERATED_MARKER:
                found.append(relative)
        if not files and not folders and here != folder:
            found.append(here.relative_to(folder).as_posix() + "/")
    return sorted(found)


def _write_manifest(folder: Path) -> set[str]:
    """Write :data:`GENERATED_MARKER` listing every file in ``folder``; return their names."""
    files = {name: _fingerprint(folder / name) for name in _entries(folder) if name[-1] != "/"}
    record = {"about": _ABOUT, "napari_mood": __version__, "files": files}
    write_text_atomic(folder / GENERATED_MARKER, json.dumps(record, indent=1) + "\n")
    return set(files)


def _read_manifest(marker: Path) -> dict[str, str] | None:
    """Return a manifest's files and their fingerprints; None for an older marker."""
    try:
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = record.get("files") if isinstance(record, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return None
    return files


def _not_in_manifest(target: Path, manifest: dict[str, str]) -> list[str]:
    """Return what ``target`` holds that its manifest does not list, or that changed since."""
    others = []
    for name in _entries(target):
        if name[-1] == "/":
            if not any(listed.startswith(name) for listed in manifest):
                others.append(name)
        elif name not in manifest:
            others.append(name)
        elif _fingerprint(target / name) != manifest[name]:
            others.append(f"{name} (changed)")
    return others


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


def _swap_in(
    temporary: Path, target: Path, shown: Path, *, force: bool, what: str, written: set[str]
) -> None:
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
    # it may have changed meanwhile; an older dataset is checked against what was written
    _refuse_unreplaceable(target, shown, force=force, what=what, written=written)
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
