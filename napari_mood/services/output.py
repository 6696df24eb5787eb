"""The output guard: every file napari-mood writes goes through here.

Rules (the README's "Reliability" section lists what a user sees):

- inputs are read-only: an output inside an input folder (a dataset, its label or scan
  folders, a method folder) or onto an input file is refused, symbolic links resolved; a
  file given alone protects the dataset it lies in, not the plain folder it sits in
  (:meth:`Inputs.around`);
- an existing file is replaced only with ``force`` (``--force`` on the command line; the
  viewer asks first);
- a file output must not be a folder, a FIFO or a device (nor a link to one), a folder
  output must not be a file, the outputs of one run must not overlap (:func:`check_apart`),
  its name must be one the file system takes (no NUL, no part longer than the file
  system allows with the temporary name written first, :func:`check_output_name`), and
  the place must be one where a file can be created (tried): all checked before the
  work starts;
- writes are atomic (:mod:`napari_mood.services.atomic_files`) and generated datasets
  appear whole (:mod:`napari_mood.services.staging`).

A refusal is a :class:`OutputRefused` (a :class:`~napari_mood.io.errors.MoodInputError`:
exit status 1, one message naming the path and what to do).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from napari_mood.io.errors import MoodInputError, describe_entry, option
from napari_mood.io.layout import dataset_root
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset
from napari_mood.services.formats import check_format

__all__ = [
    "Inputs",
    "OutputOptions",
    "OutputRefused",
    "Planned",
    "entry_kind",
    "resolved_path",
    "check_apart",
    "check_output_file",
    "check_output_name",
    "check_outputs",
    "check_output_folder",
]

PathLike = str | os.PathLike[str]
FORCE_HINT = f"{option('use --force to replace it', 'allow replacing it')}, or choose another path"


class OutputRefused(MoodInputError):
    """An output path is refused (inside the inputs, existing without force, not writable)."""


@dataclass(frozen=True, kw_only=True)
class OutputOptions:
    """What every benchmark run writes besides its result; each job's outputs extend it.

    Attributes
    ----------
    out : Path, optional
        The result's file (``None``: the text is only returned).
    format : {"table", "csv", "json"}
        The result's text format.
    dpi : float
        The resolution of the figures written.
    force : bool
        Whether existing outputs are replaced.

    Raises
    ------
    ValueError
        ``format`` is not one of the result formats (checked when made, before any work).

    Examples
    --------
    >>> OutputOptions(format="xml")
    Traceback (most recent call last):
    ...
    ValueError: format must be one of table, csv, json, got 'xml'
    """

    out: Path | None = None
    format: Literal["table", "csv", "json"] = "table"
    dpi: float = 300
    force: bool = False

    def __post_init__(self) -> None:
        """Refuse an unknown format when the outputs are made, before any work."""
        check_format(self.format)


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
        """Return the inputs of paths opened as they are: folders, files and their datasets.

        Used where the paths are not a known dataset (``napari-mood view FILE ...``,
        ``simulate SCAN``, ``sweep size SCAN``). A folder given is an input folder. A file
        given is an input file, and the dataset its folder is or belongs to
        (:func:`~napari_mood.io.layout.dataset_root`: a MOOD dataset, a case folder, a
        scan set) an input folder; the folder of a plain file is not (``simulate
        normal.nii.gz --out toy/`` beside the scan is fine, never onto the scan).

        Parameters
        ----------
        paths : iterable of path
            The paths opened.

        Returns
        -------
        Inputs
            The folders given, each file and the dataset it lies in.
        """
        given = [Path(p) for p in paths]
        files = [p for p in given if not p.is_dir()]
        datasets = [folder for p in files for folder in _datasets_of(p)]
        return cls.of(folders=[*(p for p in given if p.is_dir()), *datasets], files=files)

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
        target = resolved_path(path)
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


def _datasets_of(file: Path) -> tuple[Path | None, ...]:
    """Return the dataset ``file``'s folder is or belongs to, as given and through links."""
    return dataset_root(file.parent), dataset_root(resolved_path(file).parent)


def resolved_path(path: PathLike) -> Path:
    """Return ``path`` with ``~`` expanded and links resolved (a link loop is refused)."""
    try:
        return Path(path).expanduser().resolve()
    except (RuntimeError, OSError) as error:  # a link loop: RuntimeError before Python 3.13
        raise OutputRefused(
            Path(path),
            "is, or lies under, a symbolic-link loop",
            "remove the loop or give another path",
        ) from error


def _resolved(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(resolved_path(p) for p in paths))


TEMPORARY_EXTRA = len("..12345678.part")
"""Bytes a temporary name adds to an output's name, its suffix aside: a file is written as
``.NAME.XXXXXXXX.part.SUFFIX`` first, a generated dataset as ``.NAME.XXXXXXXX.part``."""


def check_output_name(path: PathLike, what: str = "the output") -> Path:
    """Refuse a name no file system takes, before any work; return the path.

    A NUL character, a part longer than the file system's limit (``NAME_MAX``, usually
    255 bytes; the last part with room for the temporary name written first,
    :data:`TEMPORARY_EXTRA` and its suffix) or a whole path longer than ``PATH_MAX`` is refused naming it.

    Parameters
    ----------
    path : path-like
        The output.
    what : str
        How the output is named in the message.

    Returns
    -------
    pathlib.Path
        The path (``~`` expanded).

    Raises
    ------
    OutputRefused
        When the name cannot be made.

    Examples
    --------
    >>> check_output_name("results/" + "x" * 300 + ".csv")
    Traceback (most recent call last):
    ...
    napari_mood.services.output.OutputRefused: results/xxx...xxx.csv: the output's name is 304 bytes long, the file system takes at most 236 (with the temporary name napari-mood writes first) (choose a shorter name)
    """
    text = os.fspath(path)
    if "\0" in text:
        shown = Path(text.replace("\0", "\\0"))
        raise OutputRefused(shown, f"{what}'s name holds a NUL character", "choose another name")
    target = Path(text).expanduser()
    encoded = [os.fsencode(part) for part in target.parts]
    name_max, path_max = _name_limits(target)
    for index, part in enumerate(encoded):
        last = index == len(encoded) - 1
        extra = TEMPORARY_EXTRA + len(os.fsencode(target.suffix)) if last else 0
        if len(part) + extra > name_max:
            said = (
                f"{what}'s name is {len(part):,} bytes long, the file system takes at most "
                f"{name_max - extra} (with the temporary name napari-mood writes first)"
                if last
                else f"{what} has a folder name {len(part):,} bytes long, the file system "
                f"takes at most {name_max}"
            )
            raise OutputRefused(_shortened(target), said, "choose a shorter name")
    length = len(os.fsencode(os.path.abspath(target)))
    if length + TEMPORARY_EXTRA + len(os.fsencode(target.suffix)) >= path_max:
        raise OutputRefused(
            _shortened(target),
            f"{what}'s path is {length:,} bytes long, the file system takes at most {path_max}",
            "choose a shorter path",
        )
    return target


def _name_limits(target: Path) -> tuple[int, int]:
    """``NAME_MAX`` and ``PATH_MAX`` where ``target`` would be made (255, 4096 if unknown)."""
    ancestor = Path(os.path.abspath(target)).parent
    while True:
        try:
            if ancestor.is_dir():
                break
        except OSError:
            pass
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    limits = []
    for name, default in (("PC_NAME_MAX", 255), ("PC_PATH_MAX", 4096)):
        try:
            limits.append(int(os.pathconf(ancestor, name)) or default)
        except (OSError, ValueError, AttributeError):  # no pathconf on Windows
            limits.append(default)
    return limits[0], limits[1]


def _shortened(path: Path) -> Path:
    """``path`` with each part longer than 40 characters shown as its ends."""
    parts = [p if len(p) <= 40 else f"{p[:3]}...{p[-7:]}" for p in path.parts]
    return Path(*parts) if parts else path


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
            path,
            f"{what}: {ancestor} is {entry_kind(ancestor)}, not a folder",
            "choose another path",
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


def entry_kind(path: Path) -> str:
    """Say what ``path`` is (a file, a FIFO, ...; "not a folder" when missing)."""
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
    target = check_output_name(path, what)
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
    folder = check_output_name(path, what)
    for name in names:
        check_output_name(folder / name, f"{what} file {name}")
    _refuse_inputs(folder, inputs or Inputs(), what)
    if folder.is_symlink() and not folder.exists():
        raise OutputRefused(
            folder, f"{what} is a broken symbolic link", "remove the link or point it to a folder"
        )
    if folder.exists() and not folder.is_dir():
        raise OutputRefused(folder, f"{what} is {entry_kind(folder)}", "give a folder")
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
    a, b = resolved_path(inner.path), resolved_path(outer.path)
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
