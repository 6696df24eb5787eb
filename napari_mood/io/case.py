"""One case as the viewer shows it: scan, ground truth and every method's map on one grid.

What a path given to the viewer holds (a file, a dataset, a case folder, a methods
folder) is decided in :mod:`napari_mood.io.layout`.

Every layer of a case is shown on the scan's grid with the scan's display transform,
voxel for voxel, as MOOD scores it; files whose affine differs from the scan's are still
aligned voxel-wise and reported in :attr:`CaseData.problems`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from napari_mood.core.objects.components import find_components
from napari_mood.core.orientation import DisplayTransform, display_transform, orientable
from napari_mood.core.problems import Problem
from napari_mood.core.scores import ScoreMode, check_mode
from napari_mood.io.errors import MoodInputError
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset, case_stem, read_sample_label
from napari_mood.io.nifti import Volume, read_grid, read_label
from napari_mood.io.streamed import read_map, read_scan
from napari_mood.io.validate import check_affine, check_label, check_scores, check_shape

__all__ = [
    "CaseData",
    "anomalous_cases",
    "case_is_anomalous",
    "case_transform",
    "first_anomalous_case",
    "is_anomalous",
    "load_case",
    "methods_from_files",
]


@dataclass(frozen=True)
class CaseData:
    """Everything the viewer shows for one case, read once.

    Attributes
    ----------
    name : str
        Case name (file name such as ``brain_000.nii.gz``, or a case folder's name).
    scan : Volume or None
        The scan (None when only a mask or maps were given): float32, or small for a
        viewer (:func:`load_case`'s ``small_scan_above``).
    gt : ndarray of bool or None
        Ground-truth mask on the scan's grid.
    maps : Mapping[str, ndarray]
        Score map per method as read (float16 in ``mood`` mode); NaN voxels are set to 0.
    transform : DisplayTransform
        Display transform of the reference grid (the scan's, else the GT's, else the
        first map's), used for every layer.
    problems : tuple of Problem
        What was wrong, each naming its file: missing or unreadable maps, shape
        mismatches (the file is skipped), affine deviations, NaN (shown as 0), values
        outside [0, 1] (clipped), non-binary labels.
    gt_path : Path or None
        File of the ground truth.
    map_paths : Mapping[str, Path]
        File of each map in ``maps``.
    dataset : Path or None
        Root of the MOOD dataset the case comes from.
    """

    name: str
    scan: Volume | None
    gt: np.ndarray | None
    maps: Mapping[str, np.ndarray]
    transform: DisplayTransform
    problems: tuple[Problem, ...] = ()
    gt_path: Path | None = None
    map_paths: Mapping[str, Path] = field(default_factory=dict)
    dataset: Path | None = None

    @property
    def stem(self) -> str:
        """Case name without ``.nii.gz`` / ``.nii``."""
        return case_stem(self.name)

    @property
    def methods(self) -> tuple[str, ...]:
        """Names of the methods whose map was loaded, in loading order."""
        return tuple(self.maps)


@dataclass(frozen=True)
class _Reference:
    shape: tuple[int, ...]
    affine: np.ndarray
    what: str


def load_case(
    dataset: MoodDataset | None,
    case: str,
    *,
    methods: Mapping[str, MethodFolder] | None = None,
    scan_path: str | os.PathLike[str] | None = None,
    label_path: str | os.PathLike[str] | None = None,
    mode: ScoreMode = "mood",
    on_grid: Callable[[CaseData], None] | None = None,
    small_scan_above: int | None = None,
) -> CaseData:
    """Read the scan, ground truth and method maps of one case onto the scan's grid.

    Parameters
    ----------
    dataset : MoodDataset or None
        Where the scan and pixel label of ``case`` are looked up.
    case : str
        Case name as in the dataset (``brain_000.nii.gz``); maps are ``method.pixel[case]``.
    methods : Mapping[str, MethodFolder], optional
        Methods whose map of ``case`` to load, by display name.
    scan_path, label_path : path-like, optional
        Override (or replace, without a dataset) the dataset's scan and label files.
    mode : {"mood", "exact"}
        How maps are read (see :func:`napari_mood.io.nifti.read_scores`; plain maps are
        streamed into their arrays by :func:`napari_mood.io.streamed.read_map`).
    on_grid : callable, optional
        Called once the scan and the ground truth are read and checked, while the maps
        are still being read, with the case so far (no maps; the problems found so far):
        a viewer shows the scan from then on. Not called when neither could be read (the
        grid then comes from a map). The scan and GT arrays it gets are those returned.
    small_scan_above : int, optional
        A scan of more voxels is kept small (float16, or its stored integers of up to 16
        bits; :func:`napari_mood.io.streamed.read_scan`).

    Returns
    -------
    CaseData
        Maps whose shape differs from the scan's are skipped and reported in ``problems``.

    Raises
    ------
    MoodInputError
        When nothing at all could be read.

    Examples
    --------
    >>> ds = discover_dataset("sample_data")  # doctest: +SKIP
    >>> data = load_case(ds, "brain_000.nii.gz", methods=methods_beside(ds.root))  # doctest: +SKIP
    >>> data.transform.to_display(data.gt).shape  # doctest: +SKIP
    """
    check_mode(mode)
    methods = {} if methods is None else methods
    if dataset is not None and scan_path is None and label_path is None:
        _check_case_name(dataset, case)
    scan_file = _pick(scan_path, dataset.scans.get(case) if dataset else None)
    label_file = _pick(label_path, dataset.pixel_labels.get(case) if dataset else None)
    problems: list[Problem] = []
    map_files = [p for m in methods.values() if (p := m.pixel.get(case)) is not None]
    reads = _Reads(scan_file, label_file, map_files, mode, small_scan_above)
    scan = _read_scan(reads, scan_file, case, problems)
    if scan is not None and scan_file is not None:
        scan = _scan_on_their_grid(scan, scan_file, [label_file, *map_files], case, problems)
    reference = None
    if scan is not None and scan_file is not None:
        own = _Reference(scan.shape, scan.affine, "the scan")
        reference = _reference_or(None, own, scan_file, case, None, problems)
    gt, reference = _read_gt(reads, label_file, case, reference, problems)
    grid = partial(
        CaseData,
        name=case,
        scan=scan,
        gt=gt,
        gt_path=label_file if gt is not None else None,
        dataset=dataset.root if dataset else None,
    )
    if on_grid is not None and reference is not None:
        transform = case_transform(reference.shape, reference.affine)
        on_grid(grid(maps={}, transform=transform, problems=tuple(problems)))
    maps, map_paths, reference = _read_maps(reads, methods, case, reference, problems)
    if reference is None:
        raise MoodInputError(
            scan_file or label_file, f"nothing could be read for case {case}", _summary(problems)
        )
    return grid(
        maps=maps,
        transform=case_transform(reference.shape, reference.affine),
        problems=tuple(problems),
        map_paths=map_paths,
    )


def case_transform(shape: tuple[int, ...], affine: np.ndarray) -> DisplayTransform:
    """Return the display transform of a case's grid, voxel for voxel if its affine is damaged.

    A damaged affine (:func:`~napari_mood.core.orientation.orientable` is False) is shown as
    if it were the identity, as the scorer, which compares voxels, reads it.

    Parameters
    ----------
    shape : tuple of int
        The grid's shape (2-D or 3-D).
    affine : ndarray
        Its 4 x 4 voxel-to-world matrix, as the file's header gives it.

    Returns
    -------
    DisplayTransform
        The transform every layer of the case is shown with.

    Examples
    --------
    >>> case_transform((4, 5, 6), np.full((4, 4), np.nan)).affine.tolist()[0]
    [1.0, 0.0, 0.0, 0.0]
    """
    usable = orientable(affine, len(shape))
    return display_transform(shape, affine if usable else np.eye(4))


def _reference_or(
    reference: _Reference | None,
    own: _Reference,
    path: Path,
    case: str,
    method: str | None,
    problems: list[Problem],
) -> _Reference:
    """Keep ``reference``, or make the file's own grid the case's, reporting a damaged affine."""
    if reference is not None:
        return reference
    if not orientable(own.affine, len(own.shape)):
        problems.append(
            Problem(
                "affine",
                "warning",
                path,
                "its affine gives no direction to every axis (NaN or infinite values, or a "
                "zero column): the header is damaged; shown voxel for voxel",
                f"save {own.what} again with a valid affine (e.g. that of the scanner)",
                case,
                method,
            )
        )
    return own


def _check_case_name(dataset: MoodDataset, case: str) -> None:
    """Refuse a case the dataset does not have, saying which names it has."""
    if case in dataset.cases or case in dataset.scans:
        return
    close = [c for c in dataset.cases if case_stem(c) == case_stem(case)]
    hint = (
        f"case names are label file names: give {close[0]}"
        if close
        else "its cases are "
        + ", ".join(dataset.cases[:3])
        + (", ..." if len(dataset.cases) > 3 else "")
    )
    raise MoodInputError(dataset.root, f"has no case {case!r}", hint)


def _scan_on_their_grid(
    scan: Volume, path: Path, others: list[Path | None], case: str, problems: list[Problem]
) -> Volume | None:
    """Drop (and report) a scan whose grid none of its label and maps share, if they agree.

    At least two other files must agree, else the scan stays the reference.
    """
    shapes = []
    for other in others:
        try:
            shapes += [] if other is None else [read_grid(other).shape]
        except MoodInputError:
            continue  # reported when the file itself is read
    if len(shapes) < 2 or scan.shape in shapes or len(set(shapes)) > 1:
        return scan  # one other file against the scan: the scan is the reference
    problems.append(
        Problem(
            "shape",
            "error",
            path,
            f"shape {scan.shape} differs from its label and maps {shapes[0]}; not shown",
            "write the scan on the voxel grid of its label and maps",
            case,
        )
    )
    return None


def _pick(explicit: str | os.PathLike[str] | None, found: Path | None) -> Path | None:
    return Path(explicit) if explicit is not None else found


def _summary(problems: list[Problem]) -> str:
    return "; ".join(str(p) for p in problems) or "give a scan, a label or a map"


READ_THREADS = 2
"""Files of a case decoded at once (gzip inflation and NumPy conversion release the GIL)."""


class _Reads:
    """A case's files, read in up to :data:`READ_THREADS` threads before they are checked.

    ``result(kind, path)`` waits for that file and returns what the reader returned or
    raises what it raised, so the checks run in the same order, with the same messages,
    as reading one by one. Files are started in order: scan, label, then the maps.
    """

    def __init__(
        self,
        scan: Path | None,
        label: Path | None,
        maps: list[Path],
        mode: ScoreMode,
        small_scan_above: int | None = None,
    ) -> None:
        jobs: dict[tuple[str, Path], Callable[[], Any]] = {}
        if scan is not None:
            jobs["scan", scan] = partial(read_scan, scan, small_above=small_scan_above)
        if label is not None:
            jobs["label", label] = partial(read_label, label)
        for path in maps:
            jobs["map", path] = partial(read_map, path, mode=mode)
        workers = max(1, min(READ_THREADS, len(jobs)))
        pool = ThreadPoolExecutor(workers, thread_name_prefix="napari-mood-read")
        self._futures = {key: pool.submit(job) for key, job in jobs.items()}  # in this order
        pool.shutdown(wait=False)  # results are awaited one by one (the scan's first)

    def result(self, kind: str, path: Path) -> Any:
        return self._futures[kind, path].result()


def _read_scan(
    reads: _Reads, path: Path | None, case: str, problems: list[Problem]
) -> Volume | None:
    if path is None:
        return None
    try:
        return reads.result("scan", path)
    except MoodInputError as exc:
        problems.append(Problem("unreadable", "error", exc.path, exc.problem, exc.hint, case))
        return None


def _read_gt(
    reads: _Reads,
    path: Path | None,
    case: str,
    reference: _Reference | None,
    problems: list[Problem],
) -> tuple[np.ndarray | None, _Reference | None]:
    if path is None:
        return None, reference
    try:
        read = reads.result("label", path)
    except MoodInputError as exc:
        problems.append(Problem("unreadable", "error", exc.path, exc.problem, exc.hint, case))
        return None, reference
    own = _Reference(read.mask.shape, read.affine, "the label")
    found = _check_grid(read.mask.shape, read.affine, path, reference, case, None, what="label")
    problems += found + _tag(check_label(read), case, None)
    if any(p.kind == "shape" for p in found):
        return None, reference
    return read.mask, _reference_or(reference, own, path, case, None, problems)


def _read_maps(
    reads: _Reads,
    methods: Mapping[str, MethodFolder],
    case: str,
    reference: _Reference | None,
    problems: list[Problem],
) -> tuple[dict[str, np.ndarray], dict[str, Path], _Reference | None]:
    maps: dict[str, np.ndarray] = {}
    paths: dict[str, Path] = {}
    for name, method in methods.items():
        path = method.pixel.get(case)
        if path is None:
            problems.append(_missing_map(method, name, case))
            continue
        scores, reference = _read_map(reads, path, case, name, reference, problems)
        if scores is not None:
            maps[name], paths[name] = scores, path
    return maps, paths, reference


def _missing_map(method: MethodFolder, name: str, case: str) -> Problem:
    expected = method.pixel_folder / case
    return Problem(
        "missing",
        "warning",
        expected,
        f"method {name} has no map for this case",
        "",
        case,
        name,
    )


def _read_map(
    reads: _Reads,
    path: Path,
    case: str,
    method: str,
    reference: _Reference | None,
    problems: list[Problem],
) -> tuple[np.ndarray | None, _Reference | None]:
    try:
        read = reads.result("map", path)
    except MoodInputError as exc:
        problems.append(
            Problem("unreadable", "error", exc.path, exc.problem, exc.hint, case, method)
        )
        return None, reference
    found = _check_grid(read.scores.shape, read.affine, path, reference, case, method)
    problems += found
    if any(p.kind == "shape" for p in found):
        return None, reference
    problems += [_shown_as_zero(p) for p in _tag(check_scores(read), case, method)]
    if read.n_nan:
        read.scores[np.isnan(read.scores)] = 0  # our own fresh array, not an input
    own = _Reference(read.scores.shape, read.affine, "the first map")
    return read.scores, _reference_or(reference, own, path, case, method, problems)


def _check_grid(
    shape: tuple[int, ...],
    affine: np.ndarray,
    path: Path,
    reference: _Reference | None,
    case: str,
    method: str | None,
    *,
    what: str = "map",
) -> list[Problem]:
    if reference is None:
        return []
    found = check_shape(shape, reference.shape, path, reference_name=reference.what, what=what)
    if found:
        skipped = [_skipped(p) for p in found]
        return _tag(skipped, case, method)
    affine_problems = check_affine(
        affine, reference.affine, path, reference_name=reference.what, what=what
    )
    return _tag(affine_problems, case, method)


def _skipped(problem: Problem) -> Problem:
    return Problem(
        problem.kind, problem.severity, problem.path, problem.message + "; not shown", problem.hint
    )


def _shown_as_zero(problem: Problem) -> Problem:
    if problem.kind != "nan":
        return problem
    message = problem.message + " (shown as 0)"
    return Problem("nan", "warning", problem.path, message, "", problem.case, problem.method)


def _tag(problems: list[Problem], case: str, method: str | None) -> list[Problem]:
    return [
        Problem(p.kind, p.severity, p.path, p.message, p.hint, case, p.method or method)
        for p in problems
    ]


def methods_from_files(
    case: str, files: Mapping[str, str | os.PathLike[str]]
) -> dict[str, MethodFolder]:
    """Wrap single map files (``{method: path}``) as method folders holding ``case``.

    Parameters
    ----------
    case : str
        The case the maps belong to.
    files : mapping of str to path
        One map file per method.

    Returns
    -------
    dict of str to MethodFolder
        One method folder per file, holding ``case`` only.

    Examples
    --------
    >>> methods_from_files("c.nii.gz", {"A": "/x/A.nii.gz"})["A"].pixel
    {'c.nii.gz': PosixPath('/x/A.nii.gz')}
    """
    return {
        name: MethodFolder(name, Path(path).parent, {case: Path(path)})
        for name, path in files.items()
    }


def is_anomalous(sample_label: int | None, gt_voxels: int | None) -> bool:
    """Whether a case holds an anomaly: its sample label says so, else its GT has a voxel.

    The one rule for "anomalous case" (reader, figures, dataset browser). A case with
    neither label is normal.

    Parameters
    ----------
    sample_label : int or None
        The case's sample label, when it has one.
    gt_voxels : int or None
        The number of GT voxels, when the case has a pixel label.

    Returns
    -------
    bool
        Whether the case is anomalous.

    Examples
    --------
    >>> is_anomalous(1, None), is_anomalous(None, 12), is_anomalous(0, 12), is_anomalous(None, None)
    (True, True, False, False)
    """
    if sample_label is not None:
        return sample_label == 1
    return bool(gt_voxels)


def case_is_anomalous(dataset: MoodDataset, case: str) -> bool:
    """Read a case's labels and apply :func:`is_anomalous`; unreadable labels count as normal.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    case : str
        One of its cases.

    Returns
    -------
    bool
        Whether the case is anomalous.
    """
    try:
        sample = dataset.sample_labels.get(case)
        if sample is not None:
            return is_anomalous(read_sample_label(sample), None)
        pixel = dataset.pixel_labels.get(case)
        voxels = None if pixel is None else int(np.count_nonzero(read_label(pixel).mask))
        return is_anomalous(None, voxels)
    except MoodInputError:
        return False


def anomalous_cases(dataset: MoodDataset, *, limit: int | None = None) -> list[str]:
    """Return the dataset's anomalous cases in order (at most ``limit``).

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    limit : int, optional
        Stop after this many (labels of later cases are not read).

    Returns
    -------
    list of str
        The anomalous cases.
    """
    found: list[str] = []
    for case in dataset.cases:
        if limit is not None and len(found) >= limit:
            break
        if case_is_anomalous(dataset, case):
            found.append(case)
    return found


def first_anomalous_case(dataset: MoodDataset) -> str:
    """Return the first anomalous case (:func:`is_anomalous`), else the first case.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.

    Returns
    -------
    str
        A case name.

    Raises
    ------
    MoodInputError
        When the dataset has no case.
    """
    cases = dataset.cases
    if not cases:
        raise MoodInputError(
            dataset.root, "has no case", "add scans to toy/ and labels to toy_label/"
        )
    if len(cases) == 1:
        return cases[0]  # the answer either way: no label is read
    found = anomalous_cases(dataset, limit=1)
    return found[0] if found else cases[0]


def focus_voxel(gt: np.ndarray) -> tuple[int, ...] | None:
    """Where to look first in a case: a voxel of its largest ground-truth object.

    The voxel of the largest connected object (26-connectivity in 3-D) nearest to that
    object's centroid (always inside the object, even for a ring). None without GT.

    Examples
    --------
    >>> gt = np.zeros((5, 5, 5), bool); gt[1:4, 1:4, 1:4] = True; gt[0, 4, 4] = True
    >>> focus_voxel(gt)
    (2, 2, 2)
    """
    arr = np.asarray(gt)
    mask = arr if arr.dtype == np.bool_ else arr > 0
    if not mask.any():
        return None
    found = find_components(mask, "full")  # numbered in raster order, as scipy's label
    voxels = np.argwhere(found.labels == int(np.argmax(found.sizes)) + 1)
    nearest = voxels[np.argmin(((voxels - voxels.mean(axis=0)) ** 2).sum(axis=1))]
    return tuple(int(v) + part.start for v, part in zip(nearest, found.crop, strict=True))
