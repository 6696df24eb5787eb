"""What a path holds, as napari-mood opens it: a file, a dataset, a case or methods folder.

The kinds (:func:`find_case_folder_layout`):

``file``
    one ``.nii`` / ``.nii.gz`` file; its role is guessed from where it lives
    (:func:`guess_file_role`).
``dataset``
    a MOOD dataset folder: it holds ``toy/`` or ``toy_label/`` (the folders ``toy/`` and
    ``toy_label/`` themselves count as their dataset). Method folders are looked for in
    ``DATASET/methods/`` (:func:`~napari_mood.io.methods.methods_beside`).
``case``
    a *case folder*, the simplest way to hand over one case::

        CASE/scan.nii.gz      the image (required; ``image.nii.gz`` also accepted)
        CASE/label.nii.gz     the ground-truth mask (optional; ``gt.nii.gz`` also accepted)
        CASE/<METHOD>.nii.gz  one score map per method, named after the method

``methods``
    a folder whose subfolders are method folders (``METHOD/CASE.nii.gz``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from napari_mood.io.errors import MoodInputError
from napari_mood.io.methods import METHODS_FOLDER
from napari_mood.io.mood import case_stem, is_nifti

__all__ = [
    "CASE_LABEL_NAMES",
    "check_openable",
    "CASE_SCAN_NAMES",
    "FileRole",
    "LayoutKind",
    "PathLayout",
    "dataset_root",
    "find_case_folder_layout",
    "guess_file_role",
    "SCANS_FOLDER",
]

LayoutKind = Literal["file", "dataset", "case", "methods", "unknown"]
FileRole = Literal["scan", "gt", "method"]

CASE_SCAN_NAMES: tuple[str, ...] = ("scan", "image")
CASE_LABEL_NAMES: tuple[str, ...] = ("label", "gt")
_DATASET_PARTS = ("toy", "toy_label")
SCANS_FOLDER = "scans"  # the name services/pet_sample.py writes
"""The folder of a scan set's scans (``pet-sample`` writes ``OUT/scans/``, beside its template
and atlas)."""


@dataclass(frozen=True)
class PathLayout:
    """What a path holds, as napari-mood opens it.

    Attributes
    ----------
    kind : {"file", "dataset", "case", "methods", "unknown"}
        See the module documentation.
    path : Path
        The path given (for ``dataset``: the dataset root, also when ``toy/`` was given).
    role : {"scan", "gt", "method"} or None
        For ``file``: what the file is taken for (:func:`guess_file_role`).
    scan, label : Path or None
        For ``case``: the scan and ground-truth files.
    maps : Mapping[str, Path]
        For ``case``: score map per method name.
    """

    kind: LayoutKind
    path: Path
    role: FileRole | None = None
    scan: Path | None = None
    label: Path | None = None
    maps: Mapping[str, Path] = field(default_factory=dict)


def check_openable(paths: list[Path]) -> None:
    """Refuse a folder given with other paths: several paths are the files of one case.

    A dataset, case or methods folder is opened alone (:func:`find_case_folder_layout`).

    Parameters
    ----------
    paths : list of Path
        What is to be opened, as given.

    Raises
    ------
    MoodInputError
        Naming the first folder among several paths.

    Examples
    --------
    >>> check_openable([Path("scan.nii.gz"), Path("gt.nii.gz")])
    """
    if len(paths) < 2:
        return
    folder = next((p for p in paths if p.is_dir()), None)
    if folder is not None:
        raise MoodInputError(
            folder,
            f"is a folder among {len(paths)} paths, which are read as the files of one case",
            "open a dataset, case or methods folder alone, or give only the case's files",
        )


def find_case_folder_layout(path: str | os.PathLike[str]) -> PathLayout:
    """Decide what a path is: a NIfTI file, a dataset, a case folder or a methods folder.

    Never raises for a path that does not exist or cannot be listed: it is ``unknown``.

    Parameters
    ----------
    path : str or os.PathLike
        What the user asked to open.

    Returns
    -------
    PathLayout
        Its kind and what was found in it.

    Examples
    --------
    >>> find_case_folder_layout("sample_data").kind  # doctest: +SKIP
    'dataset'
    >>> find_case_folder_layout("notes.txt").kind
    'unknown'
    """
    path = Path(path)
    if path.is_file():
        role = guess_file_role(path) if is_nifti(path) else None
        return PathLayout("file" if role else "unknown", path, role=role)
    if not path.is_dir():
        return PathLayout("unknown", path)
    try:
        return _folder_layout(path)
    except OSError:
        return PathLayout("unknown", path)


def _folder_layout(path: Path) -> PathLayout:
    if _is_dataset(path):
        return PathLayout("dataset", path)
    if path.name in _DATASET_PARTS and _is_dataset(path.parent):
        return PathLayout("dataset", path.parent)
    niftis = {case_stem(p.name): p for p in sorted(path.iterdir()) if p.is_file() and is_nifti(p)}
    scan = _first_named(niftis, CASE_SCAN_NAMES)
    if scan is not None:
        label = _first_named(niftis, CASE_LABEL_NAMES)
        used = {scan, label}
        maps = {name: p for name, p in niftis.items() if p not in used}
        return PathLayout("case", path, scan=scan, label=label, maps=maps)
    if not niftis and _holds_method_folders(path):
        return PathLayout("methods", path)
    return PathLayout("unknown", path)


def dataset_root(folder: str | os.PathLike[str]) -> Path | None:
    """Return the dataset ``folder`` is, or is part of; None for a plain folder.

    A dataset is a MOOD dataset (``toy/`` or ``toy_label/``; every folder in it up to
    ``methods/METHOD/pixel/`` counts as the dataset), a case folder (``scan.nii.gz`` ...),
    a method's folder (maps with their ``.nii.gz.txt`` scores) or a scan set (a ``scans/`` folder
    of NIfTI files beside NIfTI files of its own, a template or an atlas, as
    ``pet-sample`` writes them). The output
    guard refuses to write into a dataset a file given alone belongs to; the folder of a
    plain file (a scan in the working folder) is no dataset.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder of an input file.

    Returns
    -------
    pathlib.Path or None
        The dataset's folder.

    Examples
    --------
    >>> dataset_root("data/toy")  # doctest: +SKIP
    PosixPath('data')
    >>> dataset_root("downloads") is None
    True
    """
    path = Path(folder)
    for root in (path, *path.parents[:3]):  # toy/, toy_label/pixel/, methods/M/pixel/
        if (root / "toy_label").is_dir() or _holds_nifti(root / "toy"):
            return root  # a folder holding toy/ of folders only is no dataset (--out toy/)
    if find_case_folder_layout(path).kind == "case" or _holds_method_outputs(path):
        return path
    for root in (path, path.parent) if path.name == SCANS_FOLDER else (path,):
        if _holds_nifti(root / SCANS_FOLDER) and _holds_nifti(root):
            return root  # scans/ beside a template or an atlas (a plain scans/ is no set)
    return None


def _holds_method_outputs(folder: Path) -> bool:
    """Whether ``folder`` holds a map with its sample score beside it (a method's folder)."""
    try:
        return any(is_nifti(p) and p.with_name(p.name + ".txt").is_file() for p in folder.iterdir())
    except OSError:
        return False


def _holds_nifti(folder: Path) -> bool:
    try:
        return folder.is_dir() and any(is_nifti(p) for p in folder.iterdir())
    except OSError:
        return False


def _holds_method_folders(path: Path) -> bool:
    return any(sub.is_dir() and any(is_nifti(n) for n in os.listdir(sub)) for sub in path.iterdir())


def _is_dataset(path: Path) -> bool:
    return any((path / part).is_dir() for part in _DATASET_PARTS)


def _first_named(files: Mapping[str, Path], names: tuple[str, ...]) -> Path | None:
    lowered = {stem.lower(): p for stem, p in files.items()}
    return next((lowered[n] for n in names if n in lowered), None)


def guess_file_role(path: str | os.PathLike[str]) -> FileRole:
    """Guess whether a lone NIfTI file is a scan, a ground truth or a method's map.

    In order: a file under a folder whose name contains ``label`` (parent or grandparent,
    as ``toy_label/pixel/``) is a ground truth; a file in a dataset's ``toy/`` or named
    ``scan`` / ``image`` is a scan; a file named ``label`` / ``gt`` next to a scan is a
    ground truth; a file in a case folder (next to ``scan.nii.gz``), in a folder under
    ``methods/``, or next to sample scores (``*.nii.gz.txt``) is a method's map; anything
    else is a scan.

    Parameters
    ----------
    path : str or os.PathLike
        A NIfTI file.

    Returns
    -------
    {"scan", "gt", "method"}
        The role.

    Examples
    --------
    >>> guess_file_role("data/toy_label/pixel/brain_000.nii.gz")
    'gt'
    >>> guess_file_role("data/methods/ae/brain_000.nii.gz")
    'method'
    >>> guess_file_role("downloads/brain.nii.gz")
    'scan'
    """
    path = Path(path)
    folders = [p.name.lower() for p in (path.parent, path.parent.parent)]
    stem = case_stem(path.name).lower()
    if any("label" in name for name in folders):
        return "gt"
    if stem in CASE_SCAN_NAMES or (folders[0] == "toy" and _is_dataset(path.parent.parent)):
        return "scan"
    in_case_folder = _has_case_scan(path.parent)
    if in_case_folder and stem in CASE_LABEL_NAMES:
        return "gt"
    if in_case_folder or folders[1] == METHODS_FOLDER or _has_sample_scores(path.parent):
        return "method"
    return "scan"


def _has_case_scan(folder: Path) -> bool:
    return any((folder / f"{n}{s}").is_file() for n in CASE_SCAN_NAMES for s in (".nii.gz", ".nii"))


def _has_sample_scores(folder: Path) -> bool:
    try:
        return any(n.endswith((".nii.gz.txt", ".nii.txt")) for n in os.listdir(folder))
    except OSError:
        return False
