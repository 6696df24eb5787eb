"""The output guard: every file napari-mood writes goes through here.

Rules (the README's "Reliability" section lists what a user sees):

- inputs are read-only: an output inside an input folder (a dataset, its label or scan
  folders, a method folder) or onto an input file is refused, symbolic links resolved;
- an existing file is replaced only with ``force`` (``--force`` on the command line; the
  viewer asks first);
- a file output must not be a folder, a FIFO or a device (nor a link to one), a folder
  output must not be a file, the outputs of one run must not overlap (:func:`check_apart`),
  and the place must be one where a file can be created (tried): all checked before the
  work starts;
- writes are atomic: a temporary file in the same folder, flushed and renamed over the
  target, so a crash, a full disk or an interrupt never leaves half a file or destroys the
  previous one. The permissions of a replaced file are kept. Without ``force`` the last
  step is a hard link that fails if the target exists, so two runs racing for one new
  file never replace each other's (the second is refused).

A refusal is a :class:`OutputRefused` (a :class:`~napari_mood.io.errors.MoodInputError`:
exit status 1, one message naming the path and what to do).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from napari_mood.io.errors import MoodInputError, describe_entry
from napari_mood.io.mood import MethodFolder, MoodDataset

__all__ = [
    "GENERATED_MARKER",
    "Inputs",
    "OutputRefused",
    "Planned",
    "atomic_path",
    "check_apart",
    "check_output_file",
    "check_outputs",
    "check_output_folder",
    "staged_folder",
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

    def __post_init__(self) -> None:
        # resolved once here, whoever builds it: a relative or linked path compares as itself
        """Resolve every path once, so a relative or linked path compares as itself."""
        object.__setattr__(self, "folders", _resolved(Path(p) for p in self.folders))
        object.__setattr__(self, "files", _resolved(Path(p) for p in self.files))

    @classmethod
    def of(
        cls,
        dataset: MoodDataset | None = None,
        methods: Mapping[str, MethodFolder] | None = None,
        *,
        folders: Iterable[PathLike | None] = (),
        files: Iterable[PathLike | None] = (),
    ) -> Inputs:
        """Return the inputs of a dataset and its methods, plus other folders and files.

        Parameters
        ----------
        dataset : MoodDataset, optional
            A dataset: its folder and label folders.
        methods : mapping of str to MethodFolder, optional
            Methods: their folders.
        folders : iterable of path or None
            More input folders (None ignored).
        files : iterable of path or None
            More input files (None ignored).

        Returns
        -------
        Inputs
            The resolved folders and files.
        """
        found = [Path(f) for f in folders if f is not None]
        if dataset is not None:
            labels = (*dataset.pixel_labels.values(), *dataset.sample_labels.values())
            found += [dataset.root, *{p.parent.parent for p in labels}]
            found += [] if dataset.scans_dir is None else [dataset.scans_dir]
        found += [method.path for method in (methods or {}).values()]
        return cls(tuple(found), tuple(Path(f) for f in files if f is not None))

    @classmethod
    def around(cls, paths: Iterable[PathLike]) -> Inputs:
        """Return the inputs of paths opened as they are: a folder, or a file and its folder.

        Used where the paths are not a known dataset (``napari-mood view FILE ...``): a
        file's own folder counts as an input folder, since it may be a dataset's.

        Parameters
        ----------
        paths : iterable of path
            The paths opened.

        Returns
        -------
        Inputs
            The folders given, and each file with its folder.
        """
        given = [Path(p) for p in paths]
        files = [p for p in given if not p.is_dir()]
        return cls.of(
            folders=[*(p for p in given if p.is_dir()), *(p.parent for p in files)], files=files
        )

    def holder(self, path: Path) -> Path | None:
        """Return the input folder or file ``path`` is in or on (resolved), else None.

        Parameters
        ----------
        path : pathlib.Path
            A planned output.

        Returns
        -------
        pathlib.Path or None
            The input it would touch.
        """
        target = _resolve(path)
        for file in self.files:
            if target == file:
                return file
        for folder in self.folders:
            if target == folder or target.is_relative_to(folder):
                return folder
        return None

    def __add__(self, other: Inputs) -> Inputs:
        """Return the inputs of both."""
        return Inputs(self.folders + other.folders, self.files + other.files)


def _resolve(path: PathLike) -> Path:
    try:
        return Path(path).expanduser().resolve()
    except (RuntimeError, OSError) as error:  # a link loop: RuntimeError before Python 3.13
        raise OutputRefused(
            Path(path),
            "is, or lies under, a symbolic-link loop",
            "remove the loop or give another path",
        ) from error


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


def _writable_place(path: Path, what: str, *, start: Path) -> None:
    """Refuse a path whose nearest existing ancestor is no folder where a file can be made.

    Checked by creating (and removing) an empty temporary file there: permissions alone
    do not tell (``/proc``, read-only mounts, root). Refusals name ``path``.
    """
    ancestor = start
    while not ancestor.exists():
        if ancestor.is_symlink():
            raise OutputRefused(
                path,
                f"{what}: {ancestor} is a broken symbolic link",
                "remove the link or point it to a folder",
            )
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputRefused(
            path, f"{what}: {ancestor} is {_kind(ancestor)}, not a folder", "choose another path"
        )
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputRefused(
            path, f"{what}: the folder {ancestor} is not writable", "choose a writable place"
        )
    try:
        handle, probe = tempfile.mkstemp(prefix=".napari-mood-probe.", dir=ancestor)
    except OSError as error:
        raise OutputRefused(
            path,
            f"{what}: no file can be created in {ancestor} ({error.strerror or error})",
            "choose a writable place",
        ) from error
    os.close(handle)
    os.unlink(probe)


def _kind(path: Path) -> str:
    kind = describe_entry(path)
    return kind if kind != "missing" else "not a folder"


def _refuse_special(path: Path, what: str) -> None:
    """Refuse to replace a FIFO, a device or a socket (or a link to one) by a file."""
    kind = describe_entry(path)
    if path.exists() and kind.split(" (")[0] not in ("a file", "a folder"):
        raise OutputRefused(
            path,
            f"{what} is {kind}, not a regular file: napari-mood never replaces it",
            "give the path of a regular file",
        )


def check_output_file(
    path: PathLike, *, inputs: Inputs | None = None, force: bool = False, what: str = "the output"
) -> Path:
    """Check a file output before any work; return it (``~`` expanded, not resolved).

    Parameters
    ----------
    path : path-like
        The file to write.
    inputs : Inputs, optional
        The run's input folders and files, which the output may not be in or on.
    force : bool
        Whether an existing file may be replaced.
    what : str
        How the output is named in the messages.

    Returns
    -------
    pathlib.Path
        The path.

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
    _refuse_special(target, what)
    if target.is_dir():
        raise OutputRefused(target, f"{what} is a folder", "give a file name")
    if target.exists() or target.is_symlink():
        if not force:
            raise OutputRefused(target, f"{what} exists already", FORCE_HINT)
        if not os.access(target, os.W_OK):
            raise OutputRefused(target, f"{what} exists and is read-only", "choose another path")
    _writable_place(target, what, start=target.parent)
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

    ``names`` are the files the run will write into the folder (relative paths): each is
    checked against the inputs like a file output (an input file may lie in the output
    folder: it is never replaced), and any of them that exists needs ``force``.

    Parameters
    ----------
    path : path-like
        The folder to write into.
    inputs : Inputs, optional
        The run's input folders and files, which the output may not be in or on.
    force : bool
        Whether existing files may be replaced.
    names : sequence of str
        The files the run writes there.
    what : str
        How the output is named in the messages.

    Returns
    -------
    pathlib.Path
        The folder (``~`` expanded).

    Raises
    ------
    OutputRefused
        Inside the inputs, not a folder, not writable, or holding one of ``names`` without
        ``force``.
    """
    folder = Path(path).expanduser()
    _refuse_inputs(folder, inputs or Inputs(), what)
    if folder.is_symlink() and not folder.exists():
        raise OutputRefused(
            folder, f"{what} is a broken symbolic link", "remove the link or point it to a folder"
        )
    if folder.exists() and not folder.is_dir():
        raise OutputRefused(folder, f"{what} is {_kind(folder)}", "give a folder")
    for name in names:  # each planned file, not only the folder, against the inputs
        _refuse_inputs(folder / name, inputs or Inputs(), f"{what} file {name}")
        _refuse_special(folder / name, f"{what} file {name}")
    existing = [name for name in names if (folder / name).exists()]
    if existing and not force:
        shown = ", ".join(existing[:3]) + (
            f" and {len(existing) - 3} more" if len(existing) > 3 else ""
        )
        raise OutputRefused(folder, f"{what} already holds {shown}", FORCE_HINT)
    _writable_place(folder, what, start=folder)
    return folder


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


_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK}


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
        if error.errno not in _NO_HARD_LINKS:
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


@dataclass(frozen=True)
class Planned:
    """An output a run will write: a file, or a folder (and the files it writes there).

    ``names`` are the files a folder output writes (relative paths); ``None`` means the
    whole folder tree belongs to it (a cache).
    """

    path: Path
    what: str
    folder: bool = False
    names: tuple[str, ...] | None = None
    replace: bool | None = None  # None: the run's force; True: a cache adds to what is there


def check_outputs(planned: Sequence[Planned], *, inputs: Inputs, force: bool) -> None:
    """Check every output of a run before any work: apart, outside the inputs, usable.

    The one call a command makes with everything it will write: :func:`check_apart`,
    then each file (:func:`check_output_file`) and each folder with the files it writes
    (:func:`check_output_folder`), all against every input folder and file.

    Parameters
    ----------
    planned : sequence of Planned
        Every output of the run.
    inputs : Inputs
        The run's inputs.
    force : bool
        Whether existing files may be replaced.

    Raises
    ------
    OutputRefused
        Naming the first output that cannot be used and why.

    Examples
    --------
    >>> data = Inputs(files=(Path("/data/splits.json"),))
    >>> check_outputs([Planned(Path("/data/splits.json"), "--out")], inputs=data, force=True)
    Traceback (most recent call last):
    ...
    napari_mood.services.output.OutputRefused: /data/splits.json: --out would be written onto the input file /data/splits.json (inputs are read-only to napari-mood: choose a place outside the data)
    """
    check_apart(planned)
    for out in planned:
        replace = force if out.replace is None else out.replace
        if out.folder:
            names = () if out.names is None else out.names
            check_output_folder(out.path, inputs=inputs, force=replace, names=names, what=out.what)
        else:
            check_output_file(out.path, inputs=inputs, force=replace, what=out.what)


def check_apart(outputs: Sequence[Planned]) -> None:
    """Refuse outputs of one run that overlap (one would replace or land in the other).

    Parameters
    ----------
    outputs : sequence of Planned
        Every output of the run.

    Raises
    ------
    OutputRefused
        Naming both outputs.

    Examples
    --------
    >>> check_apart([Planned(Path("/r"), "--out"), Planned(Path("/r"), "--report", True, ())])
    Traceback (most recent call last):
    ...
    napari_mood.services.output.OutputRefused: /r: --out and --report overlap: one would replace or be written into the other (give each its own place)
    """
    for i, first in enumerate(outputs):
        for second in outputs[i + 1 :]:
            if _overlap(first, second) or _overlap(second, first):
                raise OutputRefused(
                    first.path,
                    f"{first.what} and {second.what} overlap: one would replace or be "
                    "written into the other",
                    "give each its own place",
                )


def _overlap(inner: Planned, outer: Planned) -> bool:
    """Whether ``inner`` is, or lies in what belongs to, ``outer``."""
    a, b = _resolve(inner.path), _resolve(outer.path)
    if a == b:
        return True
    if not a.is_relative_to(b):
        return False
    if not outer.folder or outer.names is None:
        return True  # under a file output (its folder cannot exist), or in a whole tree
    relative = a.relative_to(b)
    return any(
        relative == Path(name)
        or Path(name).is_relative_to(relative)
        or relative.is_relative_to(name)
        for name in outer.names
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


# --------------------------------------------------------------------------- generated datasets

GENERATED_MARKER = ".napari-mood-generated"
"""The file every generated dataset holds: ``--force`` replaces only a folder that has it."""


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
    napari_mood.services.output.OutputRefused: ...: the output folder already holds a dataset napari-mood generated (use --force to replace it as a whole, or choose a new folder)
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
            "Written by napari-mood: a generated dataset. `--force` replaces this folder as a whole.\n",
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
    return _resolve(shown)


def _refuse_unreplaceable(target: Path, shown: Path, *, force: bool, what: str) -> None:
    """Refuse a target that is not missing, empty, or (with ``force``) a generated dataset."""
    if not target.exists():
        return
    if not target.is_dir():
        raise OutputRefused(shown, f"{what} is {_kind(target)}", "give a folder")
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
            f"{GENERATED_MARKER}){': --force replaces only a generated dataset' if force else ''}",
            "a generated dataset is written whole into a new or empty folder: choose one",
        )
    if not force:
        raise OutputRefused(
            shown,
            f"{what} already holds a dataset napari-mood generated",
            "use --force to replace it as a whole, or choose a new folder",
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
        if error.errno not in _NO_HARD_LINKS:
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
