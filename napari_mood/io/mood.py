"""MOOD folders and sample-task text files (the volumes are read by :mod:`.nifti`).

Everything here is read-only: no function in this module writes to, renames or creates
anything anywhere (outputs go through :mod:`napari_mood.services.output`).

MOOD layout (as the official scorer ``scripts/evalresults.py`` of MIC-DKFZ/mood sees it)::

    DATASET/toy/CASE.nii.gz                     scans
    DATASET/toy_label/pixel/CASE.nii.gz         binary ground-truth masks
    DATASET/toy_label/sample/CASE.nii.gz.txt    "0" or "1"
    METHOD/CASE.nii.gz                          score map, same grid (pixel task)
    METHOD/CASE.nii.gz.txt                      one float (sample task)

The list of cases is driven by the label folders, like the official scorer.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from napari_mood.io.errors import MoodInputError, check_regular_file, option, warn_input
from napari_mood.io.json_input import read_json

if TYPE_CHECKING:
    from napari_mood.core.results import Task

__all__ = [
    "METHODS_FOLDER",
    "MethodFolder",
    "MoodDataset",
    "NIFTI_SUFFIXES",
    "case_stem",
    "check_labels_for",
    "check_methods_apart",
    "discover_dataset",
    "discover_methods",
    "find_methods",
    "is_nifti",
    "method_folder",
    "methods_beside",
    "read_sample_label",
    "read_sample_score",
    "read_splits",
    "resolve_path",
]

NIFTI_SUFFIXES: tuple[str, ...] = (".nii.gz", ".nii")
DEFAULT_SCANS = "toy"
"""The scans subfolder of a MOOD dataset when none is named."""
METHODS_FOLDER = "methods"
"""Where a dataset keeps its methods' outputs: ``DATASET/methods/<METHOD>/``."""


def is_nifti(path: str | os.PathLike[str]) -> bool:
    """Return True when the file name ends with ``.nii`` or ``.nii.gz``.

    Parameters
    ----------
    path : str or os.PathLike
        A file name or path (the file need not exist).

    Returns
    -------
    bool
        Whether the name has a NIfTI ending (case-insensitive).
    """
    return str(path).lower().endswith(NIFTI_SUFFIXES)


def case_stem(name: str) -> str:
    """Return a case name without ``.nii.gz`` / ``.nii`` / ``.txt`` endings.

    Parameters
    ----------
    name : str
        A file name of a scan, label, map or score.

    Returns
    -------
    str
        The case's name.

    Examples
    --------
    >>> case_stem("toy_0.nii.gz.txt")
    'toy_0'
    """
    if name.endswith(".txt"):
        name = name[: -len(".txt")]
    for suffix in NIFTI_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


_BOM = "\ufeff"


def _first_line(path: Path) -> str:
    """Return the first line as the official scorer reads it (UTF-8; a BOM is not skipped)."""
    check_regular_file(path, what="text file")
    try:
        with path.open("r", encoding="utf-8", errors="strict") as handle:
            line = handle.readline()
    except UnicodeDecodeError as exc:
        raise MoodInputError(
            path, "is not a text file", "write a single number on the first line"
        ) from exc
    except OSError as exc:
        raise MoodInputError(path, f"cannot be read ({exc.strerror or exc})", "check it") from exc
    if line.startswith(_BOM):
        raise MoodInputError(
            path,
            "starts with a byte-order mark (as Excel or Notepad save UTF-8); the official "
            "scorer cannot parse it either",
            "save it as plain UTF-8 without a BOM (e.g. `sed -i '1s/^\\xEF\\xBB\\xBF//'`)",
        )
    return line


def read_sample_label(path: str | os.PathLike[str]) -> int:
    """Read a sample label: ``int`` of the first line (``0`` or ``1``).

    Parameters
    ----------
    path : str or os.PathLike
        A sample label file (``CASE.nii.gz.txt``).

    Returns
    -------
    int
        The label.

    Raises
    ------
    MoodInputError
        When the first line is not an integer (the official scorer skips such cases).
    """
    path = Path(path)
    text = _first_line(path)
    try:
        return int(text)
    except ValueError as exc:
        raise MoodInputError(
            path, f"first line {text.strip()!r} is not an integer", 'write "0" or "1"'
        ) from exc


def read_sample_score(path: str | os.PathLike[str], *, clip: bool = True) -> float:
    """Read a sample score: ``float`` of the first line, clipped to [0, 1] (``clip``).

    NaN is returned as NaN (the caller applies the NaN policy).

    Parameters
    ----------
    path : str or os.PathLike
        A sample score file (``CASE.nii.gz.txt``).
    clip : bool
        Whether the score is clipped to [0, 1].

    Returns
    -------
    float
        The score (NaN kept).

    Raises
    ------
    MoodInputError
        When the first line does not parse as a float.
    """
    path = Path(path)
    text = _first_line(path)
    try:
        value = float(text)
    except ValueError as exc:
        raise MoodInputError(
            path, f"first line {text.strip()!r} is not a number", "write one float in [0, 1]"
        ) from exc
    if not clip or np.isnan(value):
        return value
    return float(np.clip(value, 0.0, 1.0))


@dataclass(frozen=True)
class MoodDataset:
    """A MOOD-layout dataset: where the scans and labels of each case are.

    Case names are label file names without ``.txt`` (for example ``toy_0.nii.gz``),
    exactly the names the official scorer joins with a method folder.

    ``pixel_listing`` / ``sample_listing`` are the label folders as the official scorer
    lists them, ``sorted(os.listdir(folder))``: every entry, hidden and stray files
    included. Its challenge batches index these listings
    (:func:`napari_mood.core.batches.listing_batch_ap`).
    """

    root: Path
    scans_dir: Path | None
    pixel_labels: Mapping[str, Path] = field(default_factory=dict)
    sample_labels: Mapping[str, Path] = field(default_factory=dict)
    scans: Mapping[str, Path] = field(default_factory=dict)
    ignored: tuple[Path, ...] = ()
    pixel_listing: tuple[str, ...] = ()
    sample_listing: tuple[str, ...] = ()

    @property
    def cases(self) -> tuple[str, ...]:
        """All case names (pixel or sample labelled, else scans), sorted."""
        names = set(self.pixel_labels) | set(self.sample_labels)
        return tuple(sorted(names or self.scans))

    @property
    def name(self) -> str:
        """Folder name of the dataset."""
        return self.root.name


def _listdir(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if not n.startswith("."))


def _nifti_files(folder: Path) -> tuple[dict[str, Path], list[Path]]:
    found: dict[str, Path] = {}
    ignored: list[Path] = []
    for name in _listdir(folder):
        path = folder / name
        if is_nifti(name):  # whatever it is (a folder, a FIFO): reading it says so
            found[name] = path
        else:
            ignored.append(path)
    return found, ignored


def _text_files(folder: Path) -> tuple[dict[str, Path], list[Path]]:
    found: dict[str, Path] = {}
    ignored: list[Path] = []
    for name in _listdir(folder):
        path = folder / name
        if name.endswith(".txt"):  # whatever it is: reading it says so
            found[name[: -len(".txt")]] = path
        else:
            ignored.append(path)
    return found, ignored


def _label_root(root: Path, labels: Path | None, scans: str) -> Path | None:
    if labels is not None:
        if not (labels / "pixel").is_dir() and not (labels / "sample").is_dir():
            raise MoodInputError(
                labels,
                "holds no pixel/ or sample/ label folder"
                if labels.is_dir()
                else "label folder not found",
                f"give {option('--labels', 'as labels')} the folder that holds pixel/ and sample/",
            )
        return labels
    for candidate in (root / f"{scans}_label", root / "toy_label", root / "label", root / "labels"):
        if candidate.is_dir():
            return candidate
    return None


def discover_dataset(
    folder: str | os.PathLike[str],
    *,
    scans: str | None = None,
    labels: str | os.PathLike[str] | None = None,
) -> MoodDataset:
    """Find the scans and labels of a MOOD-layout dataset folder.

    Parameters
    ----------
    folder : path-like
        Folder holding ``toy/`` (or ``scans``) and ``toy_label/``.
    scans : str, optional
        Name of the scans subfolder; when given it must exist (default ``toy``, optional).
    labels : path-like, optional
        Label folder (holding ``pixel/`` and/or ``sample/``) when it is elsewhere.

    Returns
    -------
    MoodDataset
        Where the scans and the pixel and sample labels of each case are, and the files
        ignored.

    Raises
    ------
    MoodInputError
        When the folder or the ``scans`` folder given does not exist, or the folder holds
        neither scans nor labels.

    Examples
    --------
    >>> ds = discover_dataset("sample_data")  # doctest: +SKIP
    >>> ds.cases[:2]  # doctest: +SKIP
    ('brain_000.nii.gz', 'brain_001.nii.gz')
    """
    root = Path(folder)
    if not root.is_dir():
        raise MoodInputError(root, "is not a folder", "give the folder holding toy/ and toy_label/")
    if scans is not None and not (root / scans).is_dir():
        raise MoodInputError(
            root / scans,
            "scans folder not found",
            f"give {option('--scans', 'as scans')} the name of the dataset's subfolder that holds the scans "
            f"(default {DEFAULT_SCANS})",
        )
    scans = DEFAULT_SCANS if scans is None else scans
    label_root = _label_root(root, None if labels is None else Path(labels), scans)
    pixel, sample, ignored = _read_label_root(label_root)
    pixel_listing, sample_listing = (
        _official_listing(None if label_root is None else label_root / kind)
        for kind in ("pixel", "sample")
    )
    scans_dir = root / scans if (root / scans).is_dir() else None
    scan_files, scan_ignored = _nifti_files(scans_dir) if scans_dir else ({}, [])
    if not (pixel or sample or scan_files):
        raise MoodInputError(
            root,
            f"holds no MOOD data (no {scans}/*.nii.gz and no labels in toy_label/pixel or toy_label/sample)",
            "point to the folder that contains toy/ and toy_label/, or "
            f"{option('use --scans / --labels', 'name the scans and labels folders')}",
        )
    return MoodDataset(
        root,
        scans_dir,
        pixel,
        sample,
        scan_files,
        tuple(ignored + scan_ignored),
        pixel_listing,
        sample_listing,
    )


def _official_listing(folder: Path | None) -> tuple[str, ...]:
    """``sorted(os.listdir(folder))``, as the official scorer lists a label folder."""
    if folder is None or not folder.is_dir():
        return ()
    return tuple(sorted(os.listdir(folder)))


LABELS_NEEDED = {"pixel": "pixel", "object": "pixel", "sample": "sample"}


def check_labels_for(dataset: MoodDataset, tasks: Iterable[str]) -> None:
    """Refuse to score a task without its labels (it would print AP 0 for everything).

    Parameters
    ----------
    dataset : MoodDataset
        The dataset to score.
    tasks : iterable of str
        The tasks asked for (``"pixel"``, ``"sample"``, ...: keys of ``LABELS_NEEDED``).

    Raises
    ------
    MoodInputError
        Naming the label folder that was looked for and what to do.
    """
    for task in tasks:
        kind = LABELS_NEEDED[task]
        found = dataset.pixel_labels if kind == "pixel" else dataset.sample_labels
        if not found:
            where = dataset.root / "toy_label" / kind
            raise MoodInputError(
                where,
                f"no {kind} labels for the {task} task: no *.nii.gz"
                + (".txt" if kind == "sample" else "")
                + " files there",
                f"put the ground truth in DATASET/toy_label/{kind}/, point "
                f"{option('--labels', 'the labels')} to the folder holding pixel/ and sample/, "
                f"or leave the task out{option(' (--task)', '')}",
            )


def _read_label_root(
    label_root: Path | None,
) -> tuple[dict[str, Path], dict[str, Path], list[Path]]:
    pixel: dict[str, Path] = {}
    sample: dict[str, Path] = {}
    ignored: list[Path] = []
    if label_root is None:
        return pixel, sample, ignored
    if (label_root / "pixel").is_dir():
        pixel, bad = _nifti_files(label_root / "pixel")
        ignored += bad
    if (label_root / "sample").is_dir():
        sample, bad = _text_files(label_root / "sample")
        ignored += bad
    return pixel, sample, ignored


@dataclass(frozen=True)
class MethodFolder:
    """A method's outputs: pixel maps and sample scores keyed by case name.

    ``pixel_dir`` / ``sample_dir`` are the folders the maps and scores were read from
    (``path`` itself, or its ``pixel/`` and ``sample/`` subfolders); ``shadowed`` are
    maps or scores lying directly in ``path`` that are not read because the subfolder
    exists.
    """

    name: str
    path: Path
    pixel: Mapping[str, Path] = field(default_factory=dict)
    sample: Mapping[str, Path] = field(default_factory=dict)
    ignored: tuple[Path, ...] = ()
    pixel_dir: Path | None = None
    sample_dir: Path | None = None
    shadowed: tuple[Path, ...] = ()

    @property
    def pixel_folder(self) -> Path:
        """Where the pixel maps are read from."""
        return self.path if self.pixel_dir is None else self.pixel_dir

    @property
    def sample_folder(self) -> Path:
        """Where the sample scores are read from."""
        return self.path if self.sample_dir is None else self.sample_dir


def method_folder(path: str | os.PathLike[str], *, name: str | None = None) -> MethodFolder:
    """Index a method folder: ``CASE.nii.gz`` maps and ``CASE.nii.gz.txt`` scores.

    A folder with ``pixel/`` and ``sample/`` subfolders is also accepted.

    Parameters
    ----------
    path : str or os.PathLike
        The method's folder.
    name : str, optional
        The method's name (default: the folder's name).

    Returns
    -------
    MethodFolder
        The method's maps and scores by case, the files ignored and the files one of its
        subfolders hides.

    Raises
    ------
    MoodInputError
        When the folder does not exist or holds no map and no score file.
    """
    root = Path(path)
    if not root.is_dir():
        raise MoodInputError(
            root, "is not a folder", "give the folder holding the method's .nii.gz maps"
        )
    pixel_dir = root / "pixel" if (root / "pixel").is_dir() else root
    sample_dir = root / "sample" if (root / "sample").is_dir() else root
    pixel, _ = _nifti_files(pixel_dir)
    sample, _ = _text_files(sample_dir)
    if not (pixel or sample):
        raise MoodInputError(
            root,
            "holds no score maps (*.nii.gz) and no sample scores (*.nii.gz.txt)",
            "check the folder",
        )
    ignored = _other_files(pixel_dir) | _other_files(sample_dir)
    shadowed = _shadowed(root, pixel_dir, sample_dir)
    return MethodFolder(
        name or root.name,
        root,
        pixel,
        sample,
        tuple(sorted(ignored)),
        pixel_dir,
        sample_dir,
        tuple(shadowed),
    )


def _shadowed(root: Path, pixel_dir: Path, sample_dir: Path) -> list[Path]:
    """Return the maps and scores in ``root`` shadowed by its ``pixel/`` / ``sample/`` folders."""
    found = list(_nifti_files(root)[0].values()) if pixel_dir != root else []
    found += list(_text_files(root)[0].values()) if sample_dir != root else []
    return sorted(found)


def _other_files(folder: Path) -> set[Path]:
    names = _listdir(folder)
    return {
        folder / n
        for n in names
        if not (is_nifti(n) or n.endswith(".txt")) and not (folder / n).is_dir()
    }


def discover_methods(parent: str | os.PathLike[str]) -> dict[str, MethodFolder]:
    """Index every subfolder of ``parent`` that holds maps or scores, by folder name.

    Parameters
    ----------
    parent : str or os.PathLike
        A folder with one subfolder per method.

    Returns
    -------
    dict of str to MethodFolder
        The methods by folder name; subfolders without outputs are skipped with a warning.

    Raises
    ------
    MoodInputError
        When no subfolder holds any map or score.
    """
    root = Path(parent)
    if not root.is_dir():
        raise MoodInputError(
            root, "is not a folder", "give the folder whose subfolders are methods"
        )
    methods: dict[str, MethodFolder] = {}
    for name in _listdir(root):
        sub = root / name
        if sub.is_dir() and _has_outputs(sub):
            methods[name] = method_folder(sub)
        elif sub.is_dir():
            warn_input(sub, "holds no .nii.gz maps and no .nii.gz.txt scores; not a method")
    if not methods:
        raise MoodInputError(
            root,
            "has no method subfolders with .nii.gz maps or .nii.gz.txt scores",
            "check the folder",
        )
    return methods


def methods_beside(root: str | os.PathLike[str]) -> dict[str, MethodFolder]:
    """Return the methods in ``root/methods/``, or none when that folder does not exist.

    The one rule for "a dataset's default methods" (command line, widgets, reader).

    Parameters
    ----------
    root : str or os.PathLike
        The dataset folder.

    Returns
    -------
    dict of str to MethodFolder
        The methods by folder name; empty when ``root/methods/`` does not exist.

    Raises
    ------
    MoodInputError
        When ``root/methods/`` exists but holds no method folder.

    Examples
    --------
    >>> sorted(methods_beside(sample_data_dir()))  # doctest: +SKIP
    ['binary', 'oracle_noisy', 'residual']
    """
    folder = Path(root) / METHODS_FOLDER
    return discover_methods(folder) if folder.is_dir() else {}


def find_methods(
    root: str | os.PathLike[str],
    *,
    preds: str | os.PathLike[str] | None = None,
    pred: Mapping[str, str | os.PathLike[str]] | None = None,
) -> dict[str, MethodFolder]:
    """Return the methods to evaluate on the dataset ``root``.

    Every subfolder of ``preds`` holding maps or scores, plus each ``pred`` folder under
    its given name; with neither, the dataset's own ``root/methods/``
    (:func:`methods_beside`).

    Parameters
    ----------
    root : str or os.PathLike
        The dataset folder.
    preds : str or os.PathLike, optional
        A folder with one subfolder per method (``--preds``).
    pred : mapping of str to path, optional
        Method folders by name (``--pred NAME=DIR``).

    Returns
    -------
    dict of str to MethodFolder
        The methods by name.

    Raises
    ------
    MoodInputError
        When no method is found; the message says where napari-mood looked.
    """
    methods: dict[str, MethodFolder] = {}
    if preds is not None:
        methods.update(discover_methods(preds))
    for name, folder in (pred or {}).items():
        methods[name] = method_folder(folder, name=name)
    if preds is None and not pred:
        methods = methods_beside(root)
    if not methods:
        raise MoodInputError(
            Path(root) / METHODS_FOLDER,
            "no methods: this folder does not exist and no other method folder was given",
            "put one folder per method under DATASET/methods/, or give "
            f"{option('--preds DIR', 'a folder of method folders')} or "
            f"{option('--pred [NAME=]DIR', 'method folders by name')}",
        )
    return methods


def resolve_path(path: str | os.PathLike[str]) -> Path:
    """``path`` with ``~`` expanded and links resolved; a link loop is a one-line error.

    Parameters
    ----------
    path : str or os.PathLike
        Any path.

    Returns
    -------
    pathlib.Path
        The absolute path with links resolved.

    Raises
    ------
    MoodInputError
        When ``path`` is, or lies under, a symbolic-link loop.
    """
    try:
        return Path(path).expanduser().resolve()
    except (RuntimeError, OSError) as exc:  # a link loop: RuntimeError before Python 3.13
        raise MoodInputError(
            path, "is, or lies under, a symbolic-link loop", "remove the loop or give another path"
        ) from exc


def check_methods_apart(dataset: MoodDataset, folders: Iterable[str | os.PathLike[str]]) -> None:
    """Refuse a method folder (or ``--preds`` parent) that is the dataset, its labels or scans.

    Scoring ``toy_label/pixel`` as a method gives AP 1 and the scans give nonsense.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset being scored.
    folders : iterable of path
        The method folders and ``--preds`` parents given.

    Raises
    ------
    MoodInputError
        Naming the folder and what it is.
    """
    parts = _dataset_parts(dataset)
    for folder in (Path(f) for f in folders):
        what = parts.get(resolve_path(folder))
        if what is not None:
            raise MoodInputError(
                folder,
                f"is {what}, not a method folder",
                f"give DATASET/methods {option('with --preds', 'as the methods parent')}, or the "
                f"method's own folder {option('with --pred', 'as a method')}",
            )


def _dataset_parts(dataset: MoodDataset) -> dict[Path, str]:
    labels = (*dataset.pixel_labels.values(), *dataset.sample_labels.values())
    parts = {p.parent.parent: "the dataset's label folder" for p in labels}
    parts.update({p.parent: "a label folder of the dataset" for p in labels})
    if dataset.scans_dir is not None:
        parts[dataset.scans_dir] = "the dataset's scans folder"
    parts[dataset.root] = "the dataset folder itself"
    return {resolve_path(path): what for path, what in parts.items()}


def _has_outputs(folder: Path) -> bool:
    for candidate in (folder, folder / "pixel", folder / "sample"):
        if candidate.is_dir() and any(
            is_nifti(n) or n.endswith(".txt") for n in os.listdir(candidate)
        ):
            return True
    return False


def read_splits(path: Path, dataset: MoodDataset, tasks: Sequence[Task]) -> list[list[int]]:
    """Return an official ``splits.json``: a JSON list of batches of label-folder indices.

    The indices must fit the label folder of each task scored with batches (pixel and
    object tasks use ``pixel/``, the sample task ``sample/``).

    Parameters
    ----------
    path : pathlib.Path
        The ``splits.json`` file.
    dataset : MoodDataset
        The dataset its indices point into.
    tasks : sequence of {"pixel", "sample", "object"}
        The tasks scored with its batches.

    Returns
    -------
    list of list of int
        The batches.

    Raises
    ------
    MoodInputError
        When the file cannot be read or its indices do not fit the label folders.
    """
    from napari_mood.core.batches import check_splits

    check_regular_file(path, what="splits file")
    hint = (
        "give a JSON list of batches, each a list of indices into sorted(os.listdir(label folder))"
    )
    splits = read_json(path, hint=hint)
    if not isinstance(splits, list):
        raise MoodInputError(path, "is not an official splits.json (not a JSON list)", hint)
    try:
        for task, listing in (("pixel", dataset.pixel_listing), ("sample", dataset.sample_listing)):
            if task in tasks and listing:
                check_splits(splits, len(listing))
    except (ValueError, TypeError) as exc:
        raise MoodInputError(
            path, f"is not an official splits.json for this dataset ({exc})", hint
        ) from exc
    return [list(batch) for batch in splits]
