"""The output guard: every file napari-mood writes goes through here.

Rules (the README's "Reliability" section lists what a user sees):

- inputs are read-only: an output inside an input folder (a dataset, its label or scan
  folders, a method folder) or onto an input file is refused, symbolic links resolved;
- an existing file is replaced only with ``force`` (``--force`` on the command line; the
  viewer asks first);
- a file output must not be a folder, a folder output must not be a file, and the place
  must be writable: all checked before the work starts;
- writes are atomic: a temporary file in the same folder, flushed and renamed over the
  target, so a crash, a full disk or an interrupt never leaves half a file or destroys the
  previous one. The permissions of a replaced file are kept.

A refusal is a :class:`OutputRefused` (a :class:`~napari_mood.core.io.MoodInputError`:
exit status 1, one message naming the path and what to do).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from napari_mood.core.io import MethodFolder, MoodDataset, MoodInputError

__all__ = [
    "Inputs",
    "OutputRefused",
    "atomic_path",
    "check_output_file",
    "check_output_folder",
    "write_bytes_atomic",
    "write_text_atomic",
]

PathLike = str | os.PathLike[str]
FORCE_HINT = "use --force to replace it, or choose another path"


class OutputRefused(MoodInputError):
    """An output path is refused (inside the inputs, existing without force, not writable)."""


@dataclass(frozen=True)
class Inputs:
    """The folders and files a run reads: outputs may not land in or on them."""

    folders: tuple[Path, ...] = ()
    files: tuple[Path, ...] = ()

    @classmethod
    def of(
        cls,
        dataset: MoodDataset | None = None,
        methods: Mapping[str, MethodFolder] | None = None,
        *,
        folders: Iterable[PathLike | None] = (),
        files: Iterable[PathLike | None] = (),
    ) -> Inputs:
        """The inputs of a dataset and its methods, plus other folders and files."""
        found = [Path(f) for f in folders if f is not None]
        if dataset is not None:
            labels = (*dataset.pixel_labels.values(), *dataset.sample_labels.values())
            found += [dataset.root, *{p.parent.parent for p in labels}]
            found += [] if dataset.scans_dir is None else [dataset.scans_dir]
        found += [method.path for method in (methods or {}).values()]
        return cls(_resolved(found), _resolved(Path(f) for f in files if f is not None))

    def holder(self, path: Path) -> Path | None:
        """The input folder or file ``path`` is in or on (resolved), else None."""
        target = _resolve(path)
        for file in self.files:
            if target == file:
                return file
        for folder in self.folders:
            if target == folder or target.is_relative_to(folder):
                return folder
        return None

    def __add__(self, other: Inputs) -> Inputs:
        return Inputs(self.folders + other.folders, self.files + other.files)


def _resolve(path: PathLike) -> Path:
    return Path(path).expanduser().resolve()


def _resolved(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(_resolve(p) for p in paths))


def _refuse_inputs(path: Path, inputs: Inputs, what: str) -> None:
    holder = inputs.holder(path)
    if holder is None:
        return
    kind = "the input file" if holder in inputs.files else "the input folder"
    raise OutputRefused(
        path,
        f"{what} would be written {'onto' if holder in inputs.files else 'inside'} {kind} {holder}",
        "inputs are read-only to napari-mood: choose a place outside the data",
    )


def _writable_place(path: Path, what: str) -> None:
    """The nearest existing ancestor must be a writable folder."""
    ancestor = path
    while not ancestor.exists():
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputRefused(
            path, f"{what}: {ancestor} is a file, not a folder", "choose another path"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputRefused(
            path, f"{what}: the folder {ancestor} is not writable", "choose a writable place"
        )


def check_output_file(
    path: PathLike, *, inputs: Inputs | None = None, force: bool = False, what: str = "the output"
) -> Path:
    """Check a file output before any work; return it (``~`` expanded, not resolved).

    Raises
    ------
    OutputRefused
        Inside the inputs, a folder, an existing file without ``force``, not writable.

    Examples
    --------
    >>> check_output_file("/data/mood/x.csv", inputs=Inputs(folders=(Path("/data/mood"),)))
    Traceback (most recent call last):
    ...
    napari_mood.services.output.OutputRefused: /data/mood/x.csv: the output would be written inside the input folder /data/mood (inputs are read-only to napari-mood: choose a place outside the data)
    """
    target = Path(path).expanduser()
    _refuse_inputs(target, inputs or Inputs(), what)
    if target.is_dir():
        raise OutputRefused(target, f"{what} is a folder", "give a file name")
    if target.exists() or target.is_symlink():
        if not force:
            raise OutputRefused(target, f"{what} exists already", FORCE_HINT)
        if not os.access(target, os.W_OK):
            raise OutputRefused(target, f"{what} exists and is read-only", "choose another path")
    _writable_place(target.parent, what)
    return target


def check_output_folder(
    path: PathLike,
    *,
    inputs: Inputs | None = None,
    force: bool = False,
    names: Sequence[str] = (),
    what: str = "the output folder",
) -> Path:
    """Check a folder output before any work: not in the inputs, writable, no file replaced.

    ``names`` are the files the run will write into the folder (relative paths): any of
    them that exists needs ``force``.
    """
    folder = Path(path).expanduser()
    _refuse_inputs(folder, inputs or Inputs(), what)
    if folder.exists() and not folder.is_dir():
        raise OutputRefused(folder, f"{what} is a file", "give a folder")
    existing = [name for name in names if (folder / name).exists()]
    if existing and not force:
        shown = ", ".join(existing[:3]) + (
            f" and {len(existing) - 3} more" if len(existing) > 3 else ""
        )
        raise OutputRefused(folder, f"{what} already holds {shown}", FORCE_HINT)
    _writable_place(folder, what)
    return folder


@contextlib.contextmanager
def atomic_path(path: PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` atomically.

    The parent folder is created. A replaced file keeps its permission bits; a new file
    gets the usual ``0o666 & ~umask``. On any error the temporary file is removed and
    ``path`` is left as it was; an ``OSError`` becomes :class:`OutputRefused` naming it.
    """
    target = Path(path).expanduser()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".part", dir=target.parent
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
        os.replace(temporary, target)
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


def _keep_mode(temporary: Path, target: Path) -> None:
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(temporary, mode)


def write_bytes_atomic(path: PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (flushed to disk before the rename)."""
    with atomic_path(path) as temporary:
        with temporary.open("wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    return Path(path).expanduser()


def write_text_atomic(path: PathLike, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`write_bytes_atomic`)."""
    return write_bytes_atomic(path, text.encode(encoding))
