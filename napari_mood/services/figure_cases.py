"""What a figure shows: cases as display-ordered arrays, and rows of (case, plane, slice).

:func:`figure_rows` is the one place that pairs cases with planes and slices (the
``--slices`` rules); slices left as None are chosen when drawing
(:func:`napari_mood.core.slices.choose_slice` along the plane's axis).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

import numpy as np

from napari_mood.core.orientation import PLANES, Plane, plane_view
from napari_mood.io.case import CaseData, load_case
from napari_mood.io.case import anomalous_cases as find_anomalous_cases
from napari_mood.io.errors import MoodInputError, MoodInputWarning, option
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import DEFAULT_SCANS, MoodDataset, case_stem

__all__ = [
    "DEFAULT_MAX_CASES",
    "FigureCase",
    "FigureRow",
    "Slices",
    "anomalous_cases",
    "check_row",
    "figure_rows",
    "load_figure_cases",
    "resolve_case",
]

DEFAULT_MAX_CASES = 6


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class FigureCase:
    """One case as a figure shows it: display-ordered ``(S, A, R)`` arrays on one grid.

    Attributes
    ----------
    name : str
        Case name shown in the row labels (``.nii.gz`` is dropped).
    scan : ndarray or None
        The scan, display-ordered (:mod:`napari_mood.core.orientation`: axis 0 inferior ->
        superior, axis 1 anterior -> posterior, axis 2 patient left -> right).
    gt : ndarray of bool or None
        Ground-truth mask on the same grid.
    maps : Mapping[str, ndarray]
        Score map per method on the same grid (a method without a map for the case is
        simply absent: its cell says so).
    spacing : tuple of float
        Voxel size in mm along the three display axes (each plane's aspect and the scale
        bar use it).
    """

    name: str
    scan: np.ndarray | None
    gt: np.ndarray | None
    maps: Mapping[str, np.ndarray] = field(default_factory=dict)
    spacing: tuple[float, ...] = (1.0, 1.0, 1.0)

    def __post_init__(self) -> None:
        """Refuse arrays that are not 3-D of one shape, or a spacing that is not positive."""
        shapes = {a.shape for a in (self.scan, self.gt, *self.maps.values()) if a is not None}
        if len(shapes) != 1 or len(next(iter(shapes))) != 3:
            raise ValueError(
                f"case {self.name}: scan, ground truth and maps must be 3-D arrays of one "
                f"shape, got {sorted(shapes)}"
            )
        spacing = tuple(float(v) for v in self.spacing)
        if len(spacing) != 3 or not all(math.isfinite(v) and v > 0 for v in spacing):
            raise ValueError(
                f"case {self.name}: spacing must be three positive voxel sizes (mm), "
                f"got {self.spacing!r}"
            )

    @property
    def shape(self) -> tuple[int, int, int]:
        """Display shape of the case's arrays."""
        first = next(a for a in (self.scan, self.gt, *self.maps.values()) if a is not None)
        return first.shape  # type: ignore[no-any-return]

    @classmethod
    def from_case_data(cls, case: CaseData) -> FigureCase:
        """Display-ordered views of a case read by :func:`napari_mood.io.case.load_case`.

        Parameters
        ----------
        case : CaseData
            A case as read.

        Returns
        -------
        FigureCase
            The case in display order.
        """
        show = case.transform.to_display
        return cls(
            name=case.stem,
            scan=None if case.scan is None else show(case.scan.data),
            gt=None if case.gt is None else show(case.gt),
            maps={name: show(scores) for name, scores in case.maps.items()},
            spacing=case.transform.spacing,
        )


@dataclass(frozen=True)
class FigureRow:
    """One row of a figure: a case, a plane and its slice (None chooses it).

    ``index`` counts along the plane's display axis (axial: the viewer's slider; coronal:
    anterior -> posterior; sagittal: patient left -> right).
    """

    case: FigureCase
    index: int | None = None
    plane: Plane = "axial"

    def __post_init__(self) -> None:
        """Refuse an unknown plane."""
        if self.plane not in PLANES:
            raise ValueError(f"plane must be one of {list(PLANES)}, got {self.plane!r}")

    @property
    def depth(self) -> int:
        """Number of slices of the case in this row's plane."""
        return self.case.shape[plane_view(self.plane).slice_axis]


def load_figure_cases(
    dataset: MoodDataset,
    cases: Sequence[str],
    methods: Mapping[str, MethodFolder],
    *,
    mode: Literal["mood", "exact"] = "mood",
    asked: bool = True,
    warn: bool = False,
) -> list[FigureCase]:
    """Read cases of a dataset (scan, ground truth, each method's map) for a figure.

    A figure shows every case on its scan, so a case without one to show (its scan file
    missing, unreadable or on another grid) is never drawn as an empty column: when the
    cases were asked for (``asked``) it is an error naming the scan; when they were
    chosen for the user (:func:`anomalous_cases`) the case is left out with a
    :class:`~napari_mood.io.errors.MoodInputWarning` naming the scan.

    Parameters
    ----------
    dataset : MoodDataset
        Where the scans and labels are.
    cases : sequence of str
        Case names, with or without ``.nii.gz`` (``brain_001`` or ``brain_001.nii.gz``).
    methods : Mapping[str, MethodFolder]
        Methods to show, in column order.
    mode : {"mood", "exact"}
        How maps are read (as the viewer and the scorer: ``mood``).
    asked : bool
        The user named these cases (else they were chosen automatically).
    warn : bool
        Also warn about each case's other problems (a missing or unreadable map).

    Returns
    -------
    list of FigureCase
        The cases read, in order.

    Raises
    ------
    MoodInputError
        When a case is not in the dataset (the message lists the cases it has), or an
        asked-for case has no scan to show.
    """
    names = [resolve_case(dataset, case) for case in cases]
    loaded = (_load_figure_case(dataset, name, methods, mode, asked, warn) for name in names)
    return [case for case in loaded if case is not None]


def _load_figure_case(
    dataset: MoodDataset,
    name: str,
    methods: Mapping[str, MethodFolder],
    mode: Literal["mood", "exact"],
    asked: bool,
    warn: bool,
) -> FigureCase | None:
    """One case, or None (with a warning) when it has no scan and was not asked for."""
    scan = dataset.scans.get(name)
    if scan is None:
        folder = dataset.scans_dir or dataset.root / DEFAULT_SCANS
        missing = f"the scan of case {case_stem(name)} is missing"
        _without_scan(folder / name, missing, "add the scan", asked)
        return None
    data = load_case(dataset, name, methods=methods, mode=mode)
    why = next((p for p in data.problems if p.path == scan), None) if data.scan is None else None
    if warn:
        for other in (p for p in data.problems if p is not why):
            warnings.warn(str(other), MoodInputWarning, stacklevel=4)
    if data.scan is None:
        problem = why.message if why is not None else "cannot be shown"
        hint = why.hint if why is not None else "re-export the scan"
        shown = f"{problem}; case {case_stem(name)} has no scan to show"
        _without_scan(scan, shown, hint, asked)
        return None
    if warn:
        _warn_not_finite(scan, data.scan.data)
    return FigureCase.from_case_data(data)


def _warn_not_finite(path: Path, scan: np.ndarray) -> None:
    """Warn, naming the scan, that its NaN or infinite voxels have no grey level."""
    count = int(scan.size - np.count_nonzero(np.isfinite(scan)))
    if count:
        warnings.warn(
            f"{path}: holds {count:,} NaN or infinite voxels: the figure's grey window is "
            "taken from the finite ones (check the scan: NaN and infinity are no intensity)",
            MoodInputWarning,
            stacklevel=4,
        )


def _without_scan(scan: Path, problem: str, hint: str, asked: bool) -> None:
    """Refuse an asked-for case without a scan; warn and leave out a chosen one."""
    if asked:
        raise MoodInputError(
            scan, problem, f"{hint}, or leave the case out {option('of --cases', 'of the figure')}"
        )
    message = f"{scan}: {problem} ({hint}); the case is left out of the figure"
    warnings.warn(message, MoodInputWarning, stacklevel=5)


def resolve_case(dataset: MoodDataset, case: str) -> str:
    """Return the dataset's name of ``case`` given with or without ``.nii.gz``.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    case : str
        A case name.

    Returns
    -------
    str
        The name as the dataset spells it.

    Raises
    ------
    MoodInputError
        When the dataset has no such case.
    """
    known = dataset.cases
    if case in known:
        return case
    by_stem = {case_stem(name): name for name in known}
    if case_stem(case) in by_stem:
        return by_stem[case_stem(case)]
    shown = ", ".join(case_stem(name) for name in known[:8]) + (", ..." if len(known) > 8 else "")
    raise MoodInputError(dataset.root, f"has no case {case!r}", f"cases: {shown}")


def anomalous_cases(dataset: MoodDataset, *, limit: int = DEFAULT_MAX_CASES) -> list[str]:
    """Return the first ``limit`` anomalous cases (:func:`napari_mood.io.case.is_anomalous`).

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    limit : int
        The most cases returned.

    Returns
    -------
    list of str
        The cases, in dataset order.
    """
    return find_anomalous_cases(dataset, limit=limit)


Slices = Sequence[int | None] | Mapping[str, Sequence[int | None]]
"""Slices of a figure: axial indices, or indices per plane (None chooses)."""


def figure_rows(
    cases: Sequence[FigureCase],
    slices: Slices | None = None,
    *,
    planes: Sequence[Plane] = ("axial",),
) -> list[FigureRow]:
    """Pair cases with planes and slices: per case, one row per plane (and slice).

    Parameters
    ----------
    cases : sequence of FigureCase
    slices : sequence of int or None, or Mapping[str, sequence of int or None], optional
        A sequence gives axial slices; a mapping gives slices per plane
        (``{"axial": [40], "coronal": [60]}``). For each plane: with one case, each slice
        is a row; with several cases, one slice per case. A plane without slices (or a
        None slice) is chosen automatically.
    planes : sequence of {"axial", "coronal", "sagittal"}
        The planes of each case, in row order.

    Returns
    -------
    list of FigureRow
        Case by case; within a case, plane by plane; within a plane, slice by slice.

    Raises
    ------
    ValueError
        For an unknown or repeated plane, slices of a plane not in ``planes``, numbers of
        cases and slices that do not fit, or a slice out of range.

    Examples
    --------
    >>> case = FigureCase("c", np.zeros((4, 5, 6)), None)
    >>> [(r.plane, r.index) for r in figure_rows([case], [1, 2], planes=("axial", "coronal"))]
    [('axial', 1), ('axial', 2), ('coronal', None)]
    """
    if not cases:
        raise ValueError("a figure needs at least one case")
    chosen_planes = _check_planes(planes)
    given = _slices_by_plane(slices, chosen_planes)
    per_case = {p: _indices_per_case(cases, given.get(p), p) for p in chosen_planes}
    rows = [
        FigureRow(case, index, plane)
        for k, case in enumerate(cases)
        for plane in chosen_planes
        for index in per_case[plane][k]
    ]
    for row in rows:
        check_row(row)
    return rows


def _check_planes(planes: Sequence[str]) -> tuple[Plane, ...]:
    unknown = [p for p in planes if p not in PLANES]
    if unknown or not planes or len(set(planes)) != len(planes):
        raise ValueError(f"planes must be distinct names among {list(PLANES)}, got {list(planes)}")
    return tuple(cast(Plane, p) for p in planes)


def _slices_by_plane(
    slices: Slices | None, planes: Sequence[Plane]
) -> dict[str, Sequence[int | None]]:
    if slices is None:
        return {}
    given = dict(slices) if isinstance(slices, Mapping) else {"axial": slices}
    for plane in given:
        if plane not in planes:
            raise ValueError(
                f"slices are given for the {plane} plane, which is not among the planes "
                f"{list(planes)}"
            )
    return given


def _indices_per_case(
    cases: Sequence[FigureCase], indices: Sequence[int | None] | None, plane: str
) -> list[list[int | None]]:
    if indices is None:
        return [[None] for _ in cases]
    if len(indices) == 0:
        raise ValueError(f"no {plane} slice given: give slice numbers or 'auto'")
    if len(cases) == 1:
        return [list(indices)]
    if len(indices) == len(cases):
        return [[index] for index in indices]
    raise ValueError(
        f"got {len(indices)} {plane} slices for {len(cases)} cases: give one slice per "
        "case, or several slices of one case"
    )


def check_row(row: FigureRow) -> None:
    """Raise a ValueError when the row's slice is outside its plane.

    Parameters
    ----------
    row : FigureRow
        A figure row.
    """
    depth = row.depth
    if row.index is not None and not 0 <= row.index < depth:
        raise ValueError(
            f"{row.plane} slice {row.index} is outside 0..{depth - 1} of case {row.case.name}"
        )
