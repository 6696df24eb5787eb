"""Size and contrast sweep datasets: one sphere per case, its radius or intensity swept.

:func:`write_sweep_dataset` (the ``sweep`` job) reads a scan and writes a MOOD-layout
dataset (``toy/``, ``toy_label/pixel``, ``toy_label/sample``) and ``sweep.json`` (each
case's radius, intensity, centre, voxels) through :func:`write_sweep`;
:func:`read_sweep` and :func:`labelled_cases` read one back for its report
(:mod:`napari_mood.services.sweep_report`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from napari_mood.core._checks import (
    check_instance,
    check_path,
)
from napari_mood.core.seed import DEFAULT_SEED
from napari_mood.core.sweep import SweepCase, SweepKind, check_values, sweep_cases
from napari_mood.io.errors import MoodInputError, MoodInputWarning, check_regular_file, option
from napari_mood.io.json_input import read_json
from napari_mood.io.mood import MoodDataset
from napari_mood.io.nifti import read_volume
from napari_mood.io.writers import mood_case_files
from napari_mood.services.atomic_files import write_bytes_atomic, write_text_atomic
from napari_mood.services.output import check_output_folder
from napari_mood.services.simulation import scan_inputs, unit_scan
from napari_mood.services.staging import staged_folder

__all__ = [
    "SWEEP_FILE",
    "SweepInfo",
    "labelled_cases",
    "read_sweep",
    "sweep_center",
    "write_sweep",
    "write_sweep_dataset",
]

SWEEP_FILE = "sweep.json"
PARAMETER = {"size": "radius", "contrast": "intensity"}


@dataclass(frozen=True)
class SweepInfo:
    """What ``sweep.json`` holds: the kind, the scan it was made from and every case."""

    kind: SweepKind
    scan: str
    cases: tuple[SweepCase, ...]

    def value_of(self) -> dict[str, float]:
        """``{case file name: swept value}``.

        Returns
        -------
        dict of str to float
            The value of each case.
        """
        return {f"{c.name}.nii.gz": c.value for c in self.cases}


def write_sweep(
    scan: np.ndarray,
    affine: np.ndarray,
    out: Path,
    values: Sequence[float],
    *,
    source: str = "",
    kind: SweepKind,
    center: Sequence[int] | None = None,
    radius: float = 20.0,
    intensity: float = 1.0,
    force: bool = False,
) -> SweepInfo:
    """Write the sweep cases of one scan (values in [0, 1]) and ``sweep.json`` into ``out``.

    ``source`` names the scan in ``sweep.json``. The caller checks ``out`` first (output
    guard) and makes it a staged folder (:func:`~napari_mood.services.staging.staged_folder`:
    the dataset appears whole, and ``--force`` replaces a whole earlier one, never leaving
    its cases beside the new ``sweep.json``); each file is written atomically.

    Parameters
    ----------
    scan : numpy.ndarray
        The scan, in [0, 1].
    affine : numpy.ndarray
        Its affine, written with every case.
    out : pathlib.Path
        The folder to write into.
    values : sequence of float
        The radii or intensities.
    source : str
        The scan's name.
    kind : {"size", "contrast"}
        The sweep.
    center : sequence of int, optional
        The sphere's centre (default: the body's centre).
    radius : float
        The radius of a contrast sweep.
    intensity : float
        The intensity of a size sweep.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    SweepInfo
        The kind, source and cases written.
    """
    found = []
    for case, changed, mask in sweep_cases(
        scan, values, kind=kind, center=center, radius=radius, intensity=intensity
    ):
        for path, blob in mood_case_files(out, case.name, changed, mask, affine).items():
            write_bytes_atomic(path, blob, replace=force)
        found.append(case)
    info = SweepInfo(kind, source, tuple(found))
    text = json.dumps(
        {
            "kind": kind,
            "parameter": PARAMETER[kind],
            "scan": source,
            "cases": [{**asdict(c), "case": f"{c.name}.nii.gz"} for c in found],
        },
        indent=2,
    )
    write_text_atomic(out / SWEEP_FILE, text + "\n", replace=force)
    return info


def sweep_center(
    scan: np.ndarray,
    center: Sequence[int] | Literal["body", "random"] | None,
    *,
    seed: int = DEFAULT_SEED,
) -> tuple[int, ...] | None:
    """Return the sweep's centre: None (the body's centre of mass), a random body voxel, or i,j,k.

    Parameters
    ----------
    scan : numpy.ndarray
        The scan, in [0, 1] (the body: its voxels above 0).
    center : sequence of int, "body", "random" or None
        Voxel indices, the body's centre of mass (``"body"`` or None) or a voxel of the
        body drawn with ``seed``.
    seed : int
        Seed of the random voxel.

    Returns
    -------
    tuple of int or None
        The voxel, or None for the body's centre of mass.
    """
    if center is None or center == "body":
        return None
    if center == "random":
        body = np.argwhere(scan > 0) if (scan > 0).any() else np.argwhere(np.ones(scan.shape, bool))
        pick = np.random.default_rng(seed).integers(len(body))
        return tuple(int(i) for i in body[pick])
    return tuple(int(i) for i in center)


def write_sweep_dataset(
    scan: Path,
    out: Path,
    values: Sequence[float],
    *,
    kind: SweepKind,
    center: Sequence[int] | Literal["body", "random"] | None = None,
    radius: float = 20.0,
    intensity: float = 1.0,
    seed: int = DEFAULT_SEED,
    force: bool = False,
) -> SweepInfo:
    """Write a size or contrast sweep dataset of one scan file, whole or not at all.

    ``out`` is checked first (not the scan's folder or dataset; new, empty or, with
    ``force``, a dataset napari-mood generated); then the scan is read, brought to
    [0, 1] (:func:`~napari_mood.services.simulation.unit_scan`) and the sweep written
    (:func:`write_sweep`) into a staged folder that becomes ``out`` when complete.

    Parameters
    ----------
    scan : pathlib.Path
        A normal scan (.nii / .nii.gz).
    out : pathlib.Path
        The dataset folder.
    values : sequence of float
        The radii or intensities.
    kind : {"size", "contrast"}
        The sweep.
    center : sequence of int, "body", "random" or None
        The sphere's centre (:func:`sweep_center`).
    radius : float
        The radius of a contrast sweep.
    intensity : float
        The intensity of a size sweep.
    seed : int
        Seed of ``center="random"``.
    force : bool
        Whether an earlier generated dataset in ``out`` is replaced whole.

    Returns
    -------
    SweepInfo
        The kind, source and cases written.

    Raises
    ------
    MoodInputError
        When the scan cannot be read or the centre does not fit it, or ``out`` cannot
        take the dataset.
    """
    check_path("scan", scan)
    check_path("out", out)
    check_instance("force", force, bool, "True or False")
    inputs = scan_inputs(scan)
    check_output_folder(out, inputs=inputs, force=force, what=option("--out", "the output"))
    with staged_folder(
        out, force=force, what=option("--out", "the output"), inputs=inputs
    ) as folder:
        volume = read_volume(scan)
        data = unit_scan(scan, volume.data)
        try:
            return write_sweep(
                data,
                volume.affine,
                folder,
                values,
                kind=kind,
                source=str(scan),
                center=sweep_center(data, center, seed=seed),
                radius=radius,
                intensity=intensity,
            )
        except ValueError as exc:
            if isinstance(exc, MoodInputError):
                raise
            raise MoodInputError(
                scan, str(exc), f"check {option('--center', 'the centre')}"
            ) from exc


def labelled_cases(info: SweepInfo, dataset: MoodDataset, folder: Path) -> SweepInfo:
    """Return the sweep's cases that ``dataset`` labels (pixel task), those missing named.

    Parameters
    ----------
    info : SweepInfo
        The sweep.
    dataset : MoodDataset
        The dataset its cases are scored in.
    folder : pathlib.Path
        The sweep's folder.

    Returns
    -------
    SweepInfo
        The sweep without the unlabelled cases.

    Raises
    ------
    MoodInputError
        Naming ``FOLDER/sweep.json`` when none of its cases is labelled (every AP would
        be empty). When only some are missing, a :class:`MoodInputWarning` names them and
        they are left out.
    """
    missing = [c.name for c in info.cases if f"{c.name}.nii.gz" not in dataset.pixel_labels]
    if not missing:
        return info
    path = Path(folder) / SWEEP_FILE
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    if len(missing) == len(info.cases):
        raise MoodInputError(
            path,
            f"names {len(missing)} case(s), none of them labelled in the dataset ({shown})",
            "give the folder this sweep.json was written with, or write the sweep again",
        )
    warnings.warn(
        f"{path}: {len(missing)} of its {len(info.cases)} cases have no pixel label in the "
        f"dataset ({shown}): left out of the report",
        MoodInputWarning,
        stacklevel=2,
    )
    kept = tuple(c for c in info.cases if c.name not in set(missing))
    return SweepInfo(info.kind, info.scan, kept)


def read_sweep(folder: Path) -> SweepInfo:
    """Read ``FOLDER/sweep.json``.

    Parameters
    ----------
    folder : pathlib.Path
        The sweep's folder.

    Returns
    -------
    SweepInfo
        The kind, source and cases.

    Raises
    ------
    MoodInputError
        When it is missing or not a sweep description.
    """
    path = Path(folder) / SWEEP_FILE
    if not path.exists():
        raise MoodInputError(path, "not found", "give a folder written by napari-mood sweep")
    check_regular_file(path, what="sweep description")
    hint = "write it again with napari-mood sweep"
    data: Any = read_json(path, hint=hint)
    try:
        cases = tuple(
            SweepCase(
                name=c["name"],
                kind=data["kind"],
                radius=float(c["radius"]),
                intensity=float(c["intensity"]),
                center=tuple(int(x) for x in c["center"]),
                voxels=int(c["voxels"]),
            )
            for c in data["cases"]
        )
        kind = data["kind"]
        if kind not in PARAMETER:
            raise ValueError(f"unknown kind {kind!r}")
        if not cases:
            raise ValueError("it names no case")
        check_values("size", [c.radius for c in cases])  # finite, >= 0
        check_values("contrast", [c.intensity for c in cases])  # in [0, 1]
    except (ValueError, KeyError, TypeError) as exc:
        raise MoodInputError(path, f"is not a sweep description ({exc})", hint) from exc
    _check_distinct(path, [c.name for c in cases])
    return SweepInfo(kind, str(data.get("scan", "")), cases)


def _check_distinct(path: Path, names: Sequence[str]) -> None:
    """Each case once: a repeat would be counted once, another case silently left out."""
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise MoodInputError(
            path,
            f"lists case {twice[0]} {names.count(twice[0])} times"
            + (f" (and {len(twice) - 1} other case(s) more than once)" if len(twice) > 1 else ""),
            "write the sweep again with napari-mood sweep",
        )
