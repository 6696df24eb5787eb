"""Simulated datasets: toy anomalies on a normal scan, written as a MOOD-layout dataset.

:func:`write_toy_dataset` is the ``simulate`` job (a notebook calls it as the command
does): the scan is read and brought to [0, 1] (:func:`unit_scan`), the cases are made one
at a time by :func:`napari_mood.core.simulate.iter_simulated_cases` and written into a
staged folder that becomes ``out`` when complete. The hypometabolism job (``--kind pet
--mask``) is :mod:`napari_mood.services.hypometabolism`; the size / contrast sweep is
:mod:`napari_mood.services.sweep`. The rules stay in :mod:`napari_mood.core.simulate`
and :mod:`napari_mood.core.sweep`; this module also hands their names to the front ends.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from napari_mood.core._checks import check_choice, check_instance, check_integer, check_path
from napari_mood.core.seed import DEFAULT_SEED
from napari_mood.core.simulate import (
    KINDS,
    AnomalyKind,
    SimulatedCase,
    iter_simulated_cases,
    to_unit_range,
)
from napari_mood.core.simulate.hypometabolism import (
    HypometabolismProfile,
    check_region_name,
    degree_case_name,
    degree_percent,
    hypometabolism_profile,
    parse_degree_case,
    region_from_atlas,
    simulate_hypometabolism,
)
from napari_mood.core.sweep import (
    PRESETS,
    SIZE_INTENSITY,
    SWEEP_KINDS,
    check_values,
    default_values,
    parse_values,
)
from napari_mood.io.errors import MoodInputError, MoodInputWarning, check_regular_file, option
from napari_mood.io.nifti import Volume, read_volume
from napari_mood.io.writers import mood_case_files
from napari_mood.services.output import Inputs, check_output_folder
from napari_mood.services.staging import staged_folder
from napari_mood.services.writers import write_files

__all__ = [
    "PRESETS",
    "SIZE_INTENSITY",
    "SWEEP_KINDS",
    "TOY_KINDS",
    "HypometabolismProfile",
    "ToyCase",
    "check_region_name",
    "check_values",
    "default_values",
    "degree_case_name",
    "degree_percent",
    "hypometabolism_profile",
    "iter_simulated_cases",
    "parse_degree_case",
    "parse_values",
    "region_from_atlas",
    "scan_inputs",
    "simulate_hypometabolism",
    "to_unit_range",
    "unit_scan",
    "write_toy_dataset",
]

PathLike = str | os.PathLike[str]
TOY_KINDS: tuple[str, ...] = (*KINDS, "mixed")
"""The kinds :func:`write_toy_dataset` makes (``mixed``: a random kind per anomaly)."""


@dataclass(frozen=True)
class ToyCase:
    """One case :func:`write_toy_dataset` wrote."""

    name: str
    """The case's name (``OUT/toy/NAME.nii.gz``)."""
    kinds: tuple[str, ...]
    """The kinds of its anomalies (none: a normal case)."""
    voxels: int
    """Its anomalous voxels."""


def unit_scan(path: Path, data: np.ndarray) -> np.ndarray:
    """Return the scan in [0, 1]; non-finite voxels refused, rescaling and constancy reported.

    Parameters
    ----------
    path : pathlib.Path
        The scan's file, named by the error and the warnings.
    data : numpy.ndarray
        Its voxels.

    Returns
    -------
    numpy.ndarray
        The voxels in [0, 1] (:func:`napari_mood.core.simulate.to_unit_range`).

    Raises
    ------
    MoodInputError
        When the scan holds no voxel, or a voxel is NaN or infinite.
    """
    if data.size == 0:
        raise MoodInputError(
            path, f"holds no voxel (shape {data.shape})", "simulate on a scan with voxels"
        )
    try:
        found = to_unit_range(data)
    except ValueError as exc:
        raise MoodInputError(
            path, str(exc), "replace them (e.g. by 0), then simulate again"
        ) from exc
    if found.constant:
        value = found.rescaled_from[0] if found.rescaled_from else float(found.data.flat[0])
        message = f"every voxel is {value:.4g} (a constant scan): the cases are simulated on it"
        message += " set to 0" if found.rescaled_from else ""
        warnings.warn(f"{path}: {message}", MoodInputWarning, stacklevel=2)
    elif found.rescaled_from is not None:
        low, high = found.rescaled_from
        warnings.warn(
            f"{path}: intensities rescaled from [{low:.4g}, {high:.4g}] to [0, 1] for the "
            "simulated cases",
            MoodInputWarning,
            stacklevel=2,
        )
    return found.data


def scan_inputs(scan: Path) -> Inputs:
    """Return the scan and the dataset it lies in, if any (:meth:`Inputs.around`).

    The scan is checked first: a missing scan is named as such, not as an output
    refused inside the folder it would have been in.

    Parameters
    ----------
    scan : pathlib.Path
        The normal scan a dataset is simulated from.

    Returns
    -------
    Inputs
        What the simulated dataset may not be written over.
    """
    check_regular_file(scan, what="scan")
    return Inputs.around((scan,))


def write_toy_dataset(
    scan: PathLike,
    out: PathLike,
    *,
    kind: AnomalyKind | Literal["mixed"] = "sphere",
    per_case: int = 1,
    count: int = 3,
    normal: int = 1,
    prefix: str = "case",
    seed: int = DEFAULT_SEED,
    force: bool = False,
) -> tuple[ToyCase, ...]:
    """Write ``normal`` normal and ``count`` anomalous cases of one scan into ``out``.

    ``out`` is checked first (not the scan's folder or dataset; new, empty or, with
    ``force``, a dataset napari-mood generated; writable); then the scan is read and the
    cases are simulated and written one at a time into a staged folder that becomes
    ``out`` when complete (:func:`~napari_mood.services.staging.staged_folder`).

    Parameters
    ----------
    scan : path-like
        A normal scan (.nii / .nii.gz).
    out : path-like
        The dataset folder to write.
    kind : {"sphere", "cube", "shuffle", "slab", "pet", "mixed"}
        The anomalies' kind (:data:`TOY_KINDS`; ``mixed``: a random kind per anomaly).
    per_case : int
        Anomalies per anomalous case.
    count : int
        Anomalous cases.
    normal : int
        Normal cases.
    prefix : str
        The cases' name prefix.
    seed : int
        Seed of the anomalies and noise.
    force : bool
        Whether an earlier generated dataset in ``out`` is replaced whole.

    Returns
    -------
    tuple of ToyCase
        The cases, in the order written.

    Raises
    ------
    TypeError
        An argument of the wrong type (``scan=None``, ``count="3"``), naming it.
    ValueError
        When ``kind`` is not one of :data:`TOY_KINDS`, or a count is negative
        (``per_case`` below 1).
    MoodInputError
        When the scan cannot be read or has no room for the anomalies, or ``out``
        cannot take the dataset.

    Examples
    --------
    >>> from napari_mood.services.simulation import write_toy_dataset
    >>> cases = write_toy_dataset("brain.nii.gz", "toy_set", count=2)  # doctest: +SKIP
    >>> [case.name for case in cases]  # doctest: +SKIP
    ['case_000', 'case_001', 'case_002']
    """
    check_choice("kind", kind, TOY_KINDS)
    scan, out = check_path("scan", scan), check_path("out", out)
    check_integer("per_case", per_case, minimum=1)
    check_integer("count", count, minimum=0)
    check_integer("normal", normal, minimum=0)
    check_instance("prefix", prefix, str, "a name (str)")
    check_integer("seed", seed, minimum=0)
    check_instance("force", force, bool, "True or False")
    inputs = scan_inputs(scan)
    check_output_folder(out, inputs=inputs, force=force, what=option("--out", "the output"))
    with staged_folder(
        out, force=force, what=option("--out", "the output"), inputs=inputs
    ) as folder:
        volume = read_volume(scan)
        if kind == "slab" and volume.data.ndim != 3:
            raise MoodInputError(
                scan,
                f"is {volume.data.ndim}-D: {option('--kind slab', 'a slab')} needs a 3-D scan",
                f"use {option('another --kind', 'another kind')}",
            )
        cases = iter_simulated_cases(
            unit_scan(scan, volume.data),
            kind=kind,
            count=per_case,
            n_anomalous=count,
            n_normal=normal,
            prefix=prefix,
            seed=seed,
        )
        return _write_cases(cases, volume, folder, inputs, per_case=per_case, kind=kind)


def _write_cases(
    cases: Iterable[SimulatedCase],
    volume: Volume,
    folder: Path,
    inputs: Inputs,
    *,
    per_case: int,
    kind: str,
) -> tuple[ToyCase, ...]:
    """Write each simulated case into ``folder``; no room for the anomalies names the scan."""
    written = []
    try:
        for case in cases:
            write_files(
                mood_case_files(folder, case.name, case.scan, case.mask, volume.affine),
                inputs=inputs,
            )
            kinds = tuple(a.kind for a in case.anomalies)
            written.append(ToyCase(case.name, kinds, int(case.mask.sum())))
    except ValueError as exc:
        if isinstance(exc, MoodInputError):
            raise
        raise MoodInputError(
            volume.path,
            f"no room for {option('--per-case ' + str(per_case), str(per_case))} {kind} anomalies "
            "in this scan "
            f"of shape {volume.shape} ({exc})",
            f"use {option('a smaller --per-case', 'fewer per case')}, "
            f"{option('another --kind', 'another kind')}, or a larger scan",
        ) from exc
    return tuple(written)
