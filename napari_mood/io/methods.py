"""Methods' output folders: a method's maps and scores by case, and where methods are found.

Everything here is read-only: no function in this module writes to, renames or creates
anything anywhere (outputs go through :mod:`napari_mood.services.output`).

A method folder, as the official scorer ``scripts/evalresults.py`` of MIC-DKFZ/mood joins
it with a dataset's case names (:mod:`.mood`)::

    METHOD/CASE.nii.gz                          score map, same grid (pixel task)
    METHOD/CASE.nii.gz.txt                      one float (sample task)

(or ``METHOD/pixel/`` and ``METHOD/sample/``). A dataset's own methods live in
``DATASET/methods/<METHOD>/`` (:data:`METHODS_FOLDER`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from napari_mood.core._checks import check_instance, check_mapping, check_path
from napari_mood.io.errors import MoodInputError, option, warn_input
from napari_mood.io.mood import MoodDataset, is_nifti, nifti_files, text_files, visible_names

__all__ = [
    "METHODS_FOLDER",
    "MethodFolder",
    "check_methods_apart",
    "discover_methods",
    "find_methods",
    "method_folder",
    "methods_beside",
    "resolve_path",
]

METHODS_FOLDER = "methods"
"""Where a dataset keeps its methods' outputs: ``DATASET/methods/<METHOD>/``."""


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
    root = check_path("path", path)
    if name is not None:
        check_instance("name", name, str, "a method name (str)")
    if not root.is_dir():
        raise MoodInputError(
            root, "is not a folder", "give the folder holding the method's .nii.gz maps"
        )
    pixel_dir = root / "pixel" if (root / "pixel").is_dir() else root
    sample_dir = root / "sample" if (root / "sample").is_dir() else root
    pixel, _ = nifti_files(pixel_dir)
    sample, _ = text_files(sample_dir)
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
    found = list(nifti_files(root)[0].values()) if pixel_dir != root else []
    found += list(text_files(root)[0].values()) if sample_dir != root else []
    return sorted(found)


def _other_files(folder: Path) -> set[Path]:
    names = visible_names(folder)
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
    root = check_path("parent", parent)
    if not root.is_dir():
        raise MoodInputError(
            root, "is not a folder", "give the folder whose subfolders are methods"
        )
    methods: dict[str, MethodFolder] = {}
    for name in visible_names(root):
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
    root = check_path("root", root)
    if pred is not None:
        check_mapping("pred", pred, (str, os.PathLike), "a folder (path)")
    methods: dict[str, MethodFolder] = {}
    if preds is not None:
        methods.update(discover_methods(check_path("preds", preds)))
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
