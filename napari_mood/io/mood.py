"""The MOOD dataset folder: scans, labels, sample-task text files, case names and splits.

The volumes are read by :mod:`.nifti`; the methods' output folders beside a dataset are
found by :mod:`.methods`.

Everything here is read-only: no function in this module writes to, renames or creates
anything anywhere (outputs go through :mod:`napari_mood.services.output`).

MOOD layout (as the official scorer ``scripts/evalresults.py`` of MIC-DKFZ/mood sees it)::

    DATASET/toy/CASE.nii.gz                     scans
    DATASET/toy_label/pixel/CASE.nii.gz         binary ground-truth masks
    DATASET/toy_label/sample/CASE.nii.gz.txt    "0" or "1"

The list of cases is driven by the label folders, like the official scorer.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from napari_mood.core._checks import check_instance, check_path
from napari_mood.io.errors import MoodInputError, check_regular_file, option
from napari_mood.io.json_input import read_json

if TYPE_CHECKING:
    from napari_mood.core.results import Task

__all__ = [
    "DEFAULT_SCANS",
    "MoodDataset",
    "NIFTI_SUFFIXES",
    "case_stem",
    "check_labels_for",
    "discover_dataset",
    "is_nifti",
    "nifti_files",
    "read_sample_label",
    "read_sample_score",
    "read_splits",
    "text_files",
    "visible_names",
]

NIFTI_SUFFIXES: tuple[str, ...] = (".nii.gz", ".nii")
DEFAULT_SCANS = "toy"
"""The scans subfolder of a MOOD dataset when none is named."""


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


def visible_names(folder: Path) -> list[str]:
    """Return the names in ``folder`` that do not start with a dot, sorted."""
    return sorted(n for n in os.listdir(folder) if not n.startswith("."))


def nifti_files(folder: Path) -> tuple[dict[str, Path], list[Path]]:
    """Return the ``.nii`` / ``.nii.gz`` entries of ``folder`` by name, and the other entries."""
    found: dict[str, Path] = {}
    ignored: list[Path] = []
    for name in visible_names(folder):
        path = folder / name
        if is_nifti(name):  # whatever it is (a folder, a FIFO): reading it says so
            found[name] = path
        else:
            ignored.append(path)
    return found, ignored


def text_files(folder: Path) -> tuple[dict[str, Path], list[Path]]:
    """Return the ``.txt`` entries of ``folder`` by case name (``.txt`` cut), and the others."""
    found: dict[str, Path] = {}
    ignored: list[Path] = []
    for name in visible_names(folder):
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
    root = check_path("folder", folder)
    if scans is not None:
        check_instance("scans", scans, str, "the name of a subfolder (str)")
    if labels is not None:
        check_path("labels", labels)
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
    scan_files, scan_ignored = nifti_files(scans_dir) if scans_dir else ({}, [])
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
        pixel, bad = nifti_files(label_root / "pixel")
        ignored += bad
    if (label_root / "sample").is_dir():
        sample, bad = text_files(label_root / "sample")
        ignored += bad
    return pixel, sample, ignored


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
