"""Checks of grids, affines, values and folder contents, with messages that say how to fix.

Each check returns :class:`Problem` records instead of printing or raising, so the
command line, the viewer and the evaluator decide what to do with them (the policy
lives in :mod:`napari_mood.services.case_scoring`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from napari_mood.core._checks import check_instance, check_mapping
from napari_mood.core.problems import Problem
from napari_mood.io.errors import MoodInputError, MoodInputWarning, describe_entry, option
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset, read_sample_label, read_sample_score
from napari_mood.io.nifti import Grid, LabelRead, ScoreRead, read_grid, read_label, read_scores

__all__ = [
    "NAN_ZERO",
    "Problem",
    "affine_deviation",
    "check_affine",
    "check_case_names",
    "check_scan_affine",
    "check_label",
    "check_scores",
    "check_shape",
    "emit",
    "ignored_problems",
    "unscored_problems",
    "validate_dataset",
]

AFFINE_TOLERANCE = 1e-3

NAN_ZERO = option("use --nan-policy zero", "score NaN as zero (nan_policy='zero')")
"""What else to do about NaN scores, the option named both ways (:func:`option`)."""


def check_shape(
    shape: Sequence[int],
    reference: Sequence[int],
    path: Path | None,
    *,
    reference_name: str = "the label",
    what: str = "map",
) -> list[Problem]:
    """Return a ``shape`` error when ``shape`` differs from ``reference``.

    ``what`` the file at ``path`` is ("map", "label", "scan") is named in the hint.

    Parameters
    ----------
    shape : sequence of int
        The file's shape.
    reference : sequence of int
        The shape it must have.
    path : pathlib.Path or None
        The file, for the report.
    reference_name : str
        What ``reference`` is the shape of, in the message.
    what : str
        What the file is, in the hint.

    Returns
    -------
    list of Problem
        One error, or none when the shapes agree.

    Examples
    --------
    >>> [p.kind for p in check_shape((2, 3), (2, 4), None)]
    ['shape']
    """
    if tuple(shape) == tuple(reference):
        return []
    return [
        Problem(
            "shape",
            "error",
            path,
            f"shape {tuple(shape)} differs from {reference_name} {tuple(reference)}",
            f"write the {what} on the same voxel grid as the scan",
        )
    ]


def affine_deviation(affine: np.ndarray, reference: np.ndarray) -> float:
    """Return the largest absolute difference between two 4 x 4 affines.

    Parameters
    ----------
    affine, reference : numpy.ndarray
        Two 4 x 4 affines.

    Returns
    -------
    float
        The largest absolute element-wise difference.

    Examples
    --------
    >>> affine_deviation(np.eye(4), np.diag([1.0, 1.0, 1.5, 1.0]))
    0.5
    """
    return float(np.max(np.abs(np.asarray(affine, float) - np.asarray(reference, float))))


def check_affine(
    affine: np.ndarray,
    reference: np.ndarray,
    path: Path | None,
    *,
    tolerance: float = AFFINE_TOLERANCE,
    reference_name: str = "the label",
    what: str = "map",
) -> list[Problem]:
    """Return an ``affine`` warning when the affines differ by more than ``tolerance``.

    MOOD scores voxels, not world positions, so this is a warning: the file is compared
    voxel for voxel, which is wrong if it was written in another orientation. An affine
    holding NaN or infinity is reported as such (a damaged header); a non-finite
    ``reference`` is not compared (its own file is reported).

    Parameters
    ----------
    affine : numpy.ndarray
        The file's 4 x 4 affine.
    reference : numpy.ndarray
        The affine it is compared with.
    path : pathlib.Path or None
        The file, for the report.
    tolerance : float
        The largest difference accepted.
    reference_name : str
        What ``reference`` is the affine of, in the message.
    what : str
        What the file is, in the message.

    Returns
    -------
    list of Problem
        One warning, or none.

    Examples
    --------
    >>> [p.message for p in check_affine(np.diag([2.0, 1, 1, 1]), np.eye(4), None)]
    ['affine differs from that of the label by up to 1 (scored voxel for voxel anyway)']
    >>> [p.message for p in check_affine(np.full((4, 4), np.nan), np.eye(4), None)]
    ['its affine holds NaN or infinite values: the header is damaged (scored voxel for voxel anyway)']
    """
    if not np.isfinite(affine).all():
        return [
            Problem(
                "affine",
                "warning",
                path,
                "its affine holds NaN or infinite values: the header is damaged "
                "(scored voxel for voxel anyway)",
                f"save the {what} with the scan's affine",
            )
        ]
    if not np.isfinite(reference).all():
        return []
    deviation = affine_deviation(affine, reference)
    if deviation <= tolerance:
        return []
    return [
        Problem(
            "affine",
            "warning",
            path,
            f"affine differs from that of {reference_name} by up to {deviation:.4g} "
            "(scored voxel for voxel anyway)",
            f"check the {what} was not flipped or resampled; save it with the scan's affine",
        )
    ]


def check_scores(read: ScoreRead) -> list[Problem]:
    """Report NaN, infinite and out-of-range values found while reading a score map.

    Parameters
    ----------
    read : ScoreRead
        A score map as read, with its counts.

    Returns
    -------
    list of Problem
        An error for NaN voxels, warnings for infinite and out-of-range ones.
    """
    problems: list[Problem] = []
    if read.n_nan:
        problems.append(
            Problem(
                "nan",
                "error",
                read.path,
                f"{read.n_nan} NaN voxels",
                f"replace NaN by 0 in the method, or {NAN_ZERO}",
            )
        )
    n_inf = read.n_posinf + read.n_neginf
    if n_inf:
        problems.append(
            Problem("inf", "warning", read.path, f"{n_inf} infinite voxels (clipped to [0, 1])", "")
        )
    out = read.n_below + read.n_above - n_inf
    if out:
        problems.append(
            Problem(
                "range",
                "warning",
                read.path,
                f"{out} voxels outside [0, 1] ({read.n_below} below, {read.n_above} above; clipped)",
                "scores should be in [0, 1]",
            )
        )
    return problems


def check_label(read: LabelRead) -> list[Problem]:
    """Report label voxels that are not 0 or 1 after rounding.

    Parameters
    ----------
    read : LabelRead
        A label as read, with its count of non-binary voxels.

    Returns
    -------
    list of Problem
        One warning, or none.
    """
    if not read.n_nonbinary:
        return []
    return [
        Problem(
            "nonbinary",
            "warning",
            read.path,
            f"{read.n_nonbinary} voxels are not 0/1 after rounding (values >= 1 count as anomaly)",
            "labels should be binary masks",
        )
    ]


def check_case_names(
    expected: Iterable[str], found: Mapping[str, Path], folder: Path, *, what: str
) -> list[Problem]:
    """Report cases missing from ``found`` and extra files in it (compared with ``expected``).

    Parameters
    ----------
    expected : iterable of str
        The cases that have a label.
    found : mapping of str to pathlib.Path
        The files found, by case.
    folder : pathlib.Path
        The folder the files were looked for in.
    what : str
        What the files are ("map", "sample score"), in the messages.

    Returns
    -------
    list of Problem
        An error per missing case, a warning per extra file.
    """
    expected_set = set(expected)
    problems = [
        Problem(
            "missing",
            "error",
            folder / case,
            f"no {what} for case {case}",
            "the case scores as 0",
            case,
        )
        for case in sorted(expected_set - set(found))
    ]
    problems += [
        Problem("extra", "warning", path, f"{what} for a case without label (not scored)", "", case)
        for case, path in sorted(found.items())
        if case not in expected_set
    ]
    return problems


def _tag(problems: Iterable[Problem], case: str | None, method: str | None) -> list[Problem]:
    return [
        Problem(p.kind, p.severity, p.path, p.message, p.hint, p.case or case, p.method or method)
        for p in problems
    ]


def _unreadable(exc: MoodInputError, case: str | None, method: str | None) -> Problem:
    return Problem("unreadable", "error", exc.path, exc.problem, exc.hint, case, method)


def validate_dataset(
    dataset: MoodDataset, methods: Mapping[str, MethodFolder], *, read_maps: bool = True
) -> list[Problem]:
    """Check a dataset and its methods file by file; nothing is written.

    Reads every label and (with ``read_maps``) every map once.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    methods : mapping of str to MethodFolder
        The methods to check, by name.
    read_maps : bool
        Whether the methods' maps are read and checked (else only the folders, labels and
        scans are).

    Returns
    -------
    list of Problem
        Every problem found, folder problems first, then case by case.

    Examples
    --------
    >>> problems = validate_dataset(ds, methods)  # doctest: +SKIP
    >>> [str(p) for p in problems if p.severity == "error"]  # doctest: +SKIP
    """
    check_instance("dataset", dataset, MoodDataset, "a MoodDataset (from discover_dataset)")
    check_mapping("methods", methods, MethodFolder, "a MethodFolder (from discover_methods)")
    check_instance("read_maps", read_maps, bool, "True or False")
    problems = _folder_problems(dataset, methods)
    for case, label_path in sorted(dataset.pixel_labels.items()):
        scan_path = dataset.scans.get(case)
        problems += _validate_pixel_case(case, label_path, scan_path, methods, read_maps=read_maps)
    for case, label_path in sorted(dataset.sample_labels.items()):
        problems += _validate_sample_case(case, label_path, methods)
    return problems


def ignored_problems(dataset: MoodDataset, methods: Mapping[str, MethodFolder]) -> list[Problem]:
    """Files that sit where inputs are expected but are not read (stray files, folders).

    Also one line per method folder holding maps or scores directly although it has a
    ``pixel/`` or ``sample/`` subfolder (only the subfolder is read).

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    methods : mapping of str to MethodFolder
        The methods, by name.

    Returns
    -------
    list of Problem
        One line per file or folder that is not read.
    """
    found = [_ignored(p, "not a label or scan file (ignored)", None) for p in dataset.ignored]
    for name, method in methods.items():
        found += [
            _ignored(p, "not a score map or sample score (ignored)", name) for p in method.ignored
        ]
        if method.shadowed:
            found.append(_shadowed(method, name))
    return found


def _ignored(path: Path, message: str, method: str | None) -> Problem:
    kind = describe_entry(path)
    if kind != "a file":
        message = f"is {kind}, {message}"
    return Problem("ignored", "warning", path, message, "", None, method)


def _shadowed(method: MethodFolder, name: str) -> Problem:
    subfolders = " and ".join(
        f"{d.name}/" for d in (method.pixel_dir, method.sample_dir) if d not in (None, method.path)
    )
    return Problem(
        "ignored",
        "warning",
        method.path,
        f"holds {len(method.shadowed)} maps or scores directly ({_some(method.shadowed)}) "
        f"that are not read: they are read from {subfolders} only",
        f"move them into {subfolders}, or remove {subfolders}",
        None,
        name,
    )


def _some(paths: Sequence[Path], limit: int = 3) -> str:
    """Return the first few names, and how many more."""
    names = ", ".join(p.name for p in paths[:limit])
    return names + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def unscored_problems(
    dataset: MoodDataset, methods: Mapping[str, MethodFolder], *, pixel: bool, sample: bool
) -> list[Problem]:
    """One line per method folder listing its maps / scores of cases without a label.

    ``validate`` reports each file (:func:`check_case_names`); a run says it once.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    methods : mapping of str to MethodFolder
        The methods, by name.
    pixel, sample : bool
        Whether the pixel and sample tasks are scored.

    Returns
    -------
    list of Problem
        At most one warning per method folder and task.
    """
    found: list[Problem] = []
    for name, method in methods.items():
        for wanted, files, labels, folder in (
            (pixel, method.pixel, dataset.pixel_labels, method.pixel_folder),
            (sample, method.sample, dataset.sample_labels, method.sample_folder),
        ):
            extra = sorted(p for case, p in files.items() if case not in labels)
            if wanted and extra:
                message = (
                    f"{len(extra)} files for cases without a label are not scored: {_some(extra)}"
                )
                found.append(
                    Problem("extra", "warning", folder, message, "remove them", None, name)
                )
    return found


def _folder_problems(dataset: MoodDataset, methods: Mapping[str, MethodFolder]) -> list[Problem]:
    problems: list[Problem] = []
    if not dataset.pixel_labels and not dataset.sample_labels:
        problems.append(
            Problem(
                "empty",
                "error",
                dataset.root,
                "no labels found",
                "add toy_label/pixel and toy_label/sample",
            )
        )
    problems += ignored_problems(dataset, methods)
    for name, method in methods.items():
        pixel = _tag(
            check_case_names(
                dataset.pixel_labels, method.pixel, method.pixel_folder, what="pixel map"
            ),
            None,
            name,
        )
        sample = _tag(
            check_case_names(
                dataset.sample_labels, method.sample, method.sample_folder, what="sample score"
            ),
            None,
            name,
        )
        problems += pixel + sample
    return problems


def _validate_pixel_case(
    case: str,
    label_path: Path,
    scan_path: Path | None,
    methods: Mapping[str, MethodFolder],
    *,
    read_maps: bool,
) -> list[Problem]:
    try:
        label = read_label(label_path)
    except MoodInputError as exc:
        return [_unreadable(exc, case, None)]
    problems = _tag(check_label(label), case, None)
    problems += _label_against_scan(case, label, scan_path)
    if not read_maps:
        return problems
    for name, method in methods.items():
        path = method.pixel.get(case)
        if path is not None:
            problems += _tag(_validate_map(path, label), case, name)
    return problems


def _label_against_scan(case: str, label: LabelRead, scan_path: Path | None) -> list[Problem]:
    """Report a label on another grid than its scan (then every map is wrongly blamed)."""
    if scan_path is None:
        return []
    try:
        scan = read_grid(scan_path)
    except MoodInputError as exc:
        return [_unreadable(exc, case, None)]
    found = check_shape(
        label.mask.shape,
        scan.shape,
        label.path,
        reference_name=f"its scan {scan_path.name}",
        what="label",
    )
    found = [
        Problem(p.kind, p.severity, p.path, p.message, "fix the label: maps are compared with it")
        for p in found
    ]
    return _tag(found or check_scan_affine(scan, label, scan_path), case, None)


def check_scan_affine(scan: Grid, label: LabelRead, scan_path: Path) -> list[Problem]:
    """Report a scan whose affine differs from its label's (maps are compared with the label).

    Parameters
    ----------
    scan : Grid
        The scan's grid.
    label : LabelRead
        The case's label as read.
    scan_path : pathlib.Path
        The scan file, for the report.

    Returns
    -------
    list of Problem
        One warning, or none.

    Examples
    --------
    >>> label = LabelRead(np.zeros((2, 2), bool), np.eye(4), Path("l.nii.gz"), 0)
    >>> [str(p) for p in check_scan_affine(Grid((2, 2), np.eye(4) * 2), label, Path("s.nii.gz"))]  # doctest: +ELLIPSIS
    ['s.nii.gz: affine differs from that of its label l.nii.gz by up to 1 ...']
    """
    if not np.isfinite(label.affine).all():
        return check_affine(label.affine, scan.affine, label.path, what="label")
    return [
        Problem(
            p.kind,
            p.severity,
            p.path,
            p.message,
            "check which of the scan and its label was flipped or resampled",
        )
        for p in check_affine(
            scan.affine,
            label.affine,
            scan_path,
            reference_name=f"its label {label.path.name}",
            what="scan",
        )
    ]


def _validate_map(path: Path, label: LabelRead) -> list[Problem]:
    try:
        read = read_scores(path)
    except MoodInputError as exc:
        return [_unreadable(exc, None, None)]
    problems = check_shape(read.scores.shape, label.mask.shape, path)
    problems += check_affine(read.affine, label.affine, path) if not problems else []
    return problems + check_scores(read)


def _validate_sample_case(
    case: str, label_path: Path, methods: Mapping[str, MethodFolder]
) -> list[Problem]:
    try:
        read_sample_label(label_path)
    except MoodInputError as exc:
        return [_unreadable(exc, case, None)]
    problems: list[Problem] = []
    for name, method in methods.items():
        path = method.sample.get(case)
        if path is None:
            continue
        try:
            value = read_sample_score(path)
        except MoodInputError as exc:
            problems.append(_unreadable(exc, case, name))
            continue
        if np.isnan(value):
            problems.append(
                Problem(
                    "nan",
                    "error",
                    path,
                    "sample score is NaN",
                    "write a number in [0, 1]",
                    case,
                    name,
                )
            )
    return problems


def emit(problems: Iterable[Problem]) -> None:
    """Emit every problem as a :class:`MoodInputWarning` (for API users).

    Parameters
    ----------
    problems : iterable of Problem
        The problems to report.
    """
    for problem in problems:
        warnings.warn(problem.marked(), MoodInputWarning, stacklevel=2)
