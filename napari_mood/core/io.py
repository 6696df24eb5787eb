"""Reading volumes, score files and MOOD folders: the only file input in the core.

Everything here is read-only: no function in this module writes to, renames or creates
anything inside an input folder.

MOOD layout (as the official scorer ``scripts/evalresults.py`` of MIC-DKFZ/mood sees it)::

    DATASET/toy/CASE.nii.gz                     scans
    DATASET/toy_label/pixel/CASE.nii.gz         binary ground-truth masks
    DATASET/toy_label/sample/CASE.nii.gz.txt    "0" or "1"
    METHOD/CASE.nii.gz                          score map, same grid (pixel task)
    METHOD/CASE.nii.gz.txt                      one float (sample task)

The list of cases is driven by the label folders, like the official scorer.
"""

from __future__ import annotations

import gzip
import os
import warnings
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nibabel as nib
import numpy as np
from isal import igzip

from napari_mood.core.scores import ONE_CODE, ScoreMode, check_mode, gt_mask

__all__ = [
    "METHODS_FOLDER",
    "NIFTI_SUFFIXES",
    "MoodDataset",
    "MoodInputError",
    "MoodInputWarning",
    "MethodFolder",
    "ScoreRead",
    "Volume",
    "case_stem",
    "discover_dataset",
    "discover_methods",
    "find_methods",
    "is_nifti",
    "load_nifti",
    "method_folder",
    "methods_beside",
    "read_label",
    "read_sample_label",
    "read_sample_score",
    "read_scores",
    "read_volume",
]

NIFTI_SUFFIXES: tuple[str, ...] = (".nii.gz", ".nii")
METHODS_FOLDER = "methods"
"""Where a dataset keeps its methods' outputs: ``DATASET/methods/<METHOD>/``."""


class MoodInputError(ValueError):
    """An input file or folder cannot be used; the message names it and says what to do."""

    def __init__(self, path: str | os.PathLike[str] | None, problem: str, hint: str = "") -> None:
        self.path = None if path is None else Path(path)
        self.problem = problem
        self.hint = hint
        where = f"{self.path}: " if self.path is not None else ""
        super().__init__(f"{where}{problem}" + (f" ({hint})" if hint else ""))


class MoodInputWarning(UserWarning):
    """An input is usable but suspicious (the message names the file)."""


@dataclass(frozen=True)
class Volume:
    """A volume read from a NIfTI file.

    Attributes
    ----------
    data : ndarray
        2-D or 3-D array (4-D files with one volume are squeezed).
    affine : ndarray
        4 x 4 voxel-to-world matrix.
    path : Path or None
        The file it came from.
    """

    data: np.ndarray
    affine: np.ndarray
    path: Path | None = None

    @property
    def spacing(self) -> tuple[float, ...]:
        """Voxel size along each array axis (norm of the affine columns)."""
        norms = np.linalg.norm(self.affine[:3, : self.data.ndim], axis=0)
        return tuple(float(n) if n > 0 else 1.0 for n in norms)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the data."""
        return tuple(self.data.shape)


@dataclass(frozen=True)
class ScoreRead:
    """A score map read as the pixel task reads it, with what was repaired on the way.

    ``scores`` is float16 clipped to [0, 1] in ``mood`` mode and float32 clipped in
    ``exact`` mode; NaN voxels are kept as NaN (the caller applies the NaN policy).
    """

    scores: np.ndarray
    affine: np.ndarray
    path: Path
    n_nan: int
    n_posinf: int
    n_neginf: int
    n_below: int
    n_above: int


def is_nifti(path: str | os.PathLike[str]) -> bool:
    """Return True when the file name ends with ``.nii`` or ``.nii.gz``."""
    return str(path).lower().endswith(NIFTI_SUFFIXES)


def case_stem(name: str) -> str:
    """Return a case name without ``.nii.gz`` / ``.nii`` / ``.txt`` endings.

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


def _decompress(path: Path) -> bytes:
    raw = path.read_bytes()
    if not raw:
        raise MoodInputError(path, "the file is empty", "re-export or re-download it")
    try:
        return igzip.decompress(raw)
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise MoodInputError(
            path,
            f"is not a readable gzip file ({exc})",
            "the file is corrupt or truncated: re-export it",
        ) from exc


def load_nifti(path: str | os.PathLike[str]) -> nib.Nifti1Image:
    """Open a ``.nii`` / ``.nii.gz`` file as a nibabel image, decoding gzip with ISA-L.

    Raises
    ------
    MoodInputError
        When the file is missing, empty, corrupt or not NIfTI.
    """
    path = Path(path)
    if not path.is_file():
        raise MoodInputError(path, "file not found", "check the path")
    if not is_nifti(path):
        raise MoodInputError(path, "is not a NIfTI file", "expected a .nii or .nii.gz file")
    content = _decompress(path) if path.name.lower().endswith(".gz") else path.read_bytes()
    return _image_from_bytes(path, content)


def _image_from_bytes(path: Path, content: bytes) -> nib.Nifti1Image:
    if len(content) < 348:
        raise MoodInputError(
            path, "is too short to be NIfTI", "the file is truncated: re-export it"
        )
    sizeof_hdr = int.from_bytes(content[:4], "little")
    klass = nib.Nifti2Image if sizeof_hdr in (540, 469893120) else nib.Nifti1Image
    try:
        img = klass.from_bytes(content)
    except (
        nib.filebasedimages.ImageFileError,
        nib.spatialimages.HeaderDataError,
        ValueError,
    ) as exc:
        raise MoodInputError(path, f"is not a valid NIfTI file ({exc})", "re-export it") from exc
    _check_ndim(path, img.shape)
    return img


def _check_ndim(path: Path, shape: tuple[int, ...]) -> None:
    extra = [s for s in shape[3:] if s != 1]
    if len(shape) < 2 or extra:
        raise MoodInputError(
            path,
            f"has shape {shape}",
            "napari-mood reads 2-D and 3-D volumes (4-D only with a single volume); "
            "split the 4-D file into 3-D volumes first",
        )


def _squeeze(data: np.ndarray) -> np.ndarray:
    while data.ndim > 3 and data.shape[-1] == 1:
        data = data[..., 0]
    return data


def read_volume(path: str | os.PathLike[str], *, dtype: type = np.float32) -> Volume:
    """Read a NIfTI volume as floating point, with its affine.

    Parameters
    ----------
    path : path-like
        ``.nii`` or ``.nii.gz`` file (2-D, 3-D, or 4-D with one volume).
    dtype : numpy float type
        Type of the returned data (scaling from the header is applied).

    Examples
    --------
    >>> vol = read_volume("scan.nii.gz")  # doctest: +SKIP
    >>> vol.data.shape, vol.spacing  # doctest: +SKIP
    ((99, 117, 95), (2.0, 2.0, 2.0))
    """
    img = load_nifti(path)
    data = _squeeze(np.asarray(img.get_fdata(dtype=dtype)))
    return Volume(data=data, affine=np.asarray(img.affine, dtype=np.float64), path=Path(path))


def read_scores(path: str | os.PathLike[str], *, mode: ScoreMode = "mood") -> ScoreRead:
    """Read a score map as the MOOD pixel task does.

    In ``mood`` mode the data are read with ``get_fdata(dtype=np.float16)`` (as the
    official scorer) and clipped to [0, 1]; ``exact`` keeps float32. NaN voxels stay NaN
    and are counted, as are infinities and values outside [0, 1] (before clipping).

    Examples
    --------
    >>> read = read_scores("method/toy_0.nii.gz")  # doctest: +SKIP
    >>> read.scores.dtype  # doctest: +SKIP
    dtype('float16')
    """
    check_mode(mode)
    img = load_nifti(path)
    dtype = np.float16 if mode == "mood" else np.float32
    with np.errstate(over="ignore"):  # beyond float16 range -> inf, clipped to 1 below
        scores = _squeeze(np.asarray(img.get_fdata(dtype=dtype)))
    affine = np.asarray(img.affine, dtype=np.float64)
    if _in_unit_range(scores):  # the common case: nothing to count or clip
        return ScoreRead(scores, affine, Path(path), 0, 0, 0, 0, 0)
    counts = _range_counts(scores)
    np.clip(scores, 0.0, 1.0, out=scores)
    scores += scores.dtype.type(0.0)  # -0.0 -> +0.0
    return ScoreRead(scores, affine, Path(path), *counts)


def _in_unit_range(scores: np.ndarray) -> bool:
    """True when every value is in [0, 1] (no NaN, no -0.0), checked cheaply."""
    if scores.size == 0:
        return True
    if scores.dtype == np.float16:
        # float16 codes 0..0x3C00 are exactly the values +0.0 .. 1.0
        return int(scores.view(np.uint16).max()) <= ONE_CODE
    return bool(0.0 <= scores.min() and scores.max() <= 1.0) and not np.signbit(scores).any()


def _range_counts(scores: np.ndarray) -> tuple[int, int, int, int, int]:
    n_nan = int(np.count_nonzero(np.isnan(scores)))
    n_posinf = int(np.count_nonzero(np.isposinf(scores)))
    n_neginf = int(np.count_nonzero(np.isneginf(scores)))
    n_below = int(np.count_nonzero(scores < 0))
    n_above = int(np.count_nonzero(scores > 1))
    return n_nan, n_posinf, n_neginf, n_below, n_above


@dataclass(frozen=True)
class LabelRead:
    """A ground-truth mask read as the official scorer reads it.

    ``mask`` is ``clip(rint(data), 0, 1) == 1``; ``n_nonbinary`` counts voxels whose
    rounded value was neither 0 nor 1 (they were clipped).
    """

    mask: np.ndarray
    affine: np.ndarray
    path: Path
    n_nonbinary: int


def read_label(path: str | os.PathLike[str]) -> LabelRead:
    """Read a binary GT mask: ``clip(rint(value), 0, 1) == 1`` as the official scorer.

    Integer files without scaling are compared without a float copy.

    Examples
    --------
    >>> read_label("toy_label/pixel/toy_0.nii.gz").mask.dtype  # doctest: +SKIP
    dtype('bool')
    """
    img = load_nifti(path)
    raw = _label_values(img)
    mask = gt_mask(raw)  # equals the official clip(rint(x), 0, 1) == 1
    rounded = np.rint(raw) if raw.dtype.kind == "f" else raw
    n_nonbinary = int(rounded.size - np.count_nonzero((rounded == 0) | (rounded == 1)))
    return LabelRead(
        _squeeze(mask), np.asarray(img.affine, dtype=np.float64), Path(path), n_nonbinary
    )


def _label_values(img: nib.Nifti1Image) -> np.ndarray:
    proxy = img.dataobj
    slope, inter = getattr(proxy, "slope", 1.0), getattr(proxy, "inter", 0.0)
    native = np.dtype(img.get_data_dtype())
    if native.kind in "iub" and slope == 1 and inter == 0 and hasattr(proxy, "get_unscaled"):
        return np.asarray(proxy.get_unscaled())
    return np.asarray(img.get_fdata())  # float64, exactly what the official scorer rounds


def _first_line(path: Path) -> str:
    try:
        with path.open("r", encoding="utf-8", errors="strict") as handle:
            return handle.readline()
    except UnicodeDecodeError as exc:
        raise MoodInputError(
            path, "is not a text file", "write a single number on the first line"
        ) from exc


def read_sample_label(path: str | os.PathLike[str]) -> int:
    """Read a sample label: ``int`` of the first line (``0`` or ``1``).

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


def read_sample_score(path: str | os.PathLike[str]) -> float:
    """Read a sample score: ``float`` of the first line, clipped to [0, 1].

    NaN is returned as NaN (the caller applies the NaN policy).

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
    return value if np.isnan(value) else float(np.clip(value, 0.0, 1.0))


@dataclass(frozen=True)
class MoodDataset:
    """A MOOD-layout dataset: where the scans and labels of each case are.

    Case names are label file names without ``.txt`` (for example ``toy_0.nii.gz``),
    exactly the names the official scorer joins with a method folder.
    """

    root: Path
    scans_dir: Path | None
    pixel_labels: Mapping[str, Path] = field(default_factory=dict)
    sample_labels: Mapping[str, Path] = field(default_factory=dict)
    scans: Mapping[str, Path] = field(default_factory=dict)
    ignored: tuple[Path, ...] = ()

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
        (
            found.__setitem__(name, path)
            if is_nifti(name) and path.is_file()
            else ignored.append(path)
        )
    return found, ignored


def _text_files(folder: Path) -> tuple[dict[str, Path], list[Path]]:
    found: dict[str, Path] = {}
    ignored: list[Path] = []
    for name in _listdir(folder):
        path = folder / name
        ok = name.endswith(".txt") and path.is_file()
        (found.__setitem__(name[: -len(".txt")], path) if ok else ignored.append(path))
    return found, ignored


def _label_root(root: Path, labels: Path | None, scans: str) -> Path | None:
    if labels is not None:
        return labels
    for candidate in (root / f"{scans}_label", root / "toy_label", root / "label", root / "labels"):
        if candidate.is_dir():
            return candidate
    return None


def discover_dataset(
    folder: str | os.PathLike[str],
    *,
    scans: str = "toy",
    labels: str | os.PathLike[str] | None = None,
) -> MoodDataset:
    """Find the scans and labels of a MOOD-layout dataset folder.

    Parameters
    ----------
    folder : path-like
        Folder holding ``toy/`` (or ``scans``) and ``toy_label/``.
    scans : str
        Name of the scans subfolder.
    labels : path-like, optional
        Label folder (holding ``pixel/`` and/or ``sample/``) when it is elsewhere.

    Raises
    ------
    MoodInputError
        When the folder does not exist or holds neither scans nor labels.

    Examples
    --------
    >>> ds = discover_dataset("sample_data")  # doctest: +SKIP
    >>> ds.cases[:2]  # doctest: +SKIP
    ('brain_000.nii.gz', 'brain_001.nii.gz')
    """
    root = Path(folder)
    if not root.is_dir():
        raise MoodInputError(root, "is not a folder", "give the folder holding toy/ and toy_label/")
    label_root = _label_root(root, None if labels is None else Path(labels), scans)
    pixel, sample, ignored = _read_label_root(label_root)
    scans_dir = root / scans if (root / scans).is_dir() else None
    scan_files, scan_ignored = _nifti_files(scans_dir) if scans_dir else ({}, [])
    if not (pixel or sample or scan_files):
        raise MoodInputError(
            root,
            f"holds no MOOD data (no {scans}/*.nii.gz and no labels in toy_label/pixel or toy_label/sample)",
            "point to the folder that contains toy/ and toy_label/, or use --scans / --labels",
        )
    return MoodDataset(root, scans_dir, pixel, sample, scan_files, tuple(ignored + scan_ignored))


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
    """A method's outputs: pixel maps and sample scores keyed by case name."""

    name: str
    path: Path
    pixel: Mapping[str, Path] = field(default_factory=dict)
    sample: Mapping[str, Path] = field(default_factory=dict)
    ignored: tuple[Path, ...] = ()


def method_folder(path: str | os.PathLike[str], *, name: str | None = None) -> MethodFolder:
    """Index a method folder: ``CASE.nii.gz`` maps and ``CASE.nii.gz.txt`` scores.

    A folder with ``pixel/`` and ``sample/`` subfolders is also accepted.

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
    return MethodFolder(name or root.name, root, pixel, sample, tuple(sorted(ignored)))


def _other_files(folder: Path) -> set[Path]:
    names = _listdir(folder)
    return {
        folder / n
        for n in names
        if not (is_nifti(n) or n.endswith(".txt")) and (folder / n).is_file()
    }


def discover_methods(parent: str | os.PathLike[str]) -> dict[str, MethodFolder]:
    """Index every subfolder of ``parent`` that holds maps or scores, by folder name.

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
            "put one folder per method under DATASET/methods/, or give --preds PARENT "
            "or --pred NAME=DIR",
        )
    return methods


def _has_outputs(folder: Path) -> bool:
    for candidate in (folder, folder / "pixel", folder / "sample"):
        if candidate.is_dir() and any(
            is_nifti(n) or n.endswith(".txt") for n in os.listdir(candidate)
        ):
            return True
    return False


def warn_input(path: Path | None, message: str) -> None:
    """Emit a :class:`MoodInputWarning` that names the file."""
    where = f"{path}: " if path is not None else ""
    warnings.warn(f"{where}{message}", MoodInputWarning, stacklevel=3)
