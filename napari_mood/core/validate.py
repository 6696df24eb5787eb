"""Checks of grids, affines, values and folder contents, with messages that say how to fix.

Each check returns :class:`Problem` records instead of printing or raising, so the
command line, the viewer and the evaluator decide what to do with them (the policy
lives in :mod:`napari_mood.core.evaluate`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from napari_mood.core.io import (
    MethodFolder,
    MoodDataset,
    MoodInputError,
    MoodInputWarning,
    read_sample_label,
    read_sample_score,
)
from napari_mood.core.nifti import LabelRead, ScoreRead, read_label, read_scores, read_shape

__all__ = [
    "Problem",
    "ProblemKind",
    "affine_deviation",
    "check_affine",
    "check_case_names",
    "check_label",
    "check_scores",
    "check_shape",
    "emit",
    "ignored_problems",
    "validate_dataset",
]

ProblemKind = Literal[
    "missing",
    "extra",
    "shape",
    "affine",
    "nan",
    "inf",
    "range",
    "nonbinary",
    "unreadable",
    "empty",
    "ignored",
]
Severity = Literal["error", "warning"]
AFFINE_TOLERANCE = 1e-3


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input.

    Attributes
    ----------
    kind : str
        Class of problem (``missing``, ``shape``, ``affine``, ``nan``, ...).
    severity : {"error", "warning"}
        ``error``: the file cannot be scored as it is (the evaluator applies the policy);
        ``warning``: it is scored, but a person should look.
    path : Path or None
        The file or folder concerned.
    message : str
        What is wrong, with numbers.
    hint : str
        What to do about it.
    case, method : str or None
        Where it belongs.
    """

    kind: ProblemKind
    severity: Severity
    path: Path | None
    message: str
    hint: str = ""
    case: str | None = None
    method: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path is not None else ""
        hint = f" -> {self.hint}" if self.hint else ""
        return f"{where}{self.message}{hint}"


def check_shape(
    shape: Sequence[int],
    reference: Sequence[int],
    path: Path | None,
    *,
    reference_name: str = "the label",
) -> list[Problem]:
    """Return a ``shape`` error when ``shape`` differs from ``reference``.

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
            "write the map on the same voxel grid as the scan",
        )
    ]


def affine_deviation(affine: np.ndarray, reference: np.ndarray) -> float:
    """Return the largest absolute difference between two 4 x 4 affines.

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
) -> list[Problem]:
    """Return an ``affine`` warning when the affines differ by more than ``tolerance``.

    MOOD scores voxels, not world positions, so this is a warning: the map is compared
    voxel for voxel, which is wrong if it was written in another orientation.
    """
    deviation = affine_deviation(affine, reference)
    if deviation <= tolerance:
        return []
    return [
        Problem(
            "affine",
            "warning",
            path,
            f"affine differs from the scan's by up to {deviation:.4g} (scored voxel for voxel anyway)",
            "check the map was not flipped or resampled; save it with the scan's affine",
        )
    ]


def check_scores(read: ScoreRead) -> list[Problem]:
    """Report NaN, infinite and out-of-range values found while reading a score map."""
    problems: list[Problem] = []
    if read.n_nan:
        problems.append(
            Problem(
                "nan",
                "error",
                read.path,
                f"{read.n_nan} NaN voxels",
                "replace NaN by 0 in the method, or use --nan-policy zero",
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
    """Report label voxels that are not 0 or 1 after rounding."""
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
    """Report cases missing from ``found`` and extra files in it (compared with ``expected``)."""
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

    Examples
    --------
    >>> problems = validate_dataset(ds, methods)  # doctest: +SKIP
    >>> [str(p) for p in problems if p.severity == "error"]  # doctest: +SKIP
    """
    problems = _folder_problems(dataset, methods)
    for case, label_path in sorted(dataset.pixel_labels.items()):
        problems += _validate_pixel_case(case, label_path, methods, read_maps=read_maps)
        problems += _label_against_scan(case, label_path, dataset.scans.get(case))
    for case, label_path in sorted(dataset.sample_labels.items()):
        problems += _validate_sample_case(case, label_path, methods)
    return problems


def ignored_problems(dataset: MoodDataset, methods: Mapping[str, MethodFolder]) -> list[Problem]:
    """Files that sit where inputs are expected but are not read (stray files, folders)."""
    found = [
        Problem("ignored", "warning", p, "not a label or scan file (ignored)")
        for p in dataset.ignored
    ]
    for name, method in methods.items():
        found += [
            Problem(
                "ignored", "warning", p, "not a score map or sample score (ignored)", "", None, name
            )
            for p in method.ignored
        ]
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
            check_case_names(dataset.pixel_labels, method.pixel, method.path, what="pixel map"),
            None,
            name,
        )
        sample = _tag(
            check_case_names(
                dataset.sample_labels, method.sample, method.path, what="sample score"
            ),
            None,
            name,
        )
        problems += pixel + sample
    return problems


def _validate_pixel_case(
    case: str, label_path: Path, methods: Mapping[str, MethodFolder], *, read_maps: bool
) -> list[Problem]:
    try:
        label = read_label(label_path)
    except MoodInputError as exc:
        return [_unreadable(exc, case, None)]
    problems = _tag(check_label(label), case, None)
    if not read_maps:
        return problems
    for name, method in methods.items():
        path = method.pixel.get(case)
        if path is not None:
            problems += _tag(_validate_map(path, label), case, name)
    return problems


def _label_against_scan(case: str, label_path: Path, scan_path: Path | None) -> list[Problem]:
    """A label on another grid than its scan (then every map is wrongly blamed)."""
    if scan_path is None:
        return []
    try:
        label, scan = read_shape(label_path), read_shape(scan_path)
    except MoodInputError as exc:
        return [_unreadable(exc, case, None)]
    found = check_shape(label, scan, label_path, reference_name=f"its scan {scan_path.name}")
    return [
        Problem(
            p.kind, p.severity, p.path, p.message, "fix the label: maps are compared with it", case
        )
        for p in found
    ]


def _validate_map(path: Path, label: LabelRead) -> list[Problem]:
    try:
        read = read_scores(path)
    except MoodInputError as exc:
        return [_unreadable(exc, None, None)]
    problems = check_shape(read.scores.shape, label.mask.shape, path)
    problems += check_affine(read.affine, label.affine, path)
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
    """Emit every problem as a :class:`MoodInputWarning` (for API users)."""
    for problem in problems:
        warnings.warn(str(problem), MoodInputWarning, stacklevel=2)
