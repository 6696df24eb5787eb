"""Simulated hypometabolism datasets: every degree of a region's hypometabolism per scan.

:func:`write_hypometabolism_dataset` is the ``simulate --kind pet --mask`` job. It writes,
for every healthy scan (the *subject*, named after its file) and every degree (and
degree 0, the healthy input), the case ``SUBJECT_REGION_degNN``::

    OUT/toy/CASE.nii.gz                   the input: healthy * (1 - degree * profile)
    OUT/toy_label/pixel/CASE.nii.gz       GT: profile >= gt_level (empty at degree 0)
    OUT/toy_label/sample/CASE.nii.gz.txt  1 (0 at degree 0)
    OUT/healthy/CASE.nii.gz               the healthy original (the reconstruction's target)
    OUT/region/CASE.nii.gz                the anomaly region (the GT mask, at every degree)
    OUT/pet_REGION.json                   what was done (mask, labels, FWHM, sigma, level)
    OUT/.napari-mood-generated            the marker of a generated dataset

The dataset is written whole (a staged folder renamed into place); a new region is
added beside the others, an existing one is replaced with ``force``.

See :mod:`napari_mood.core.simulate.hypometabolism` for the rule.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from napari_mood._version import __version__
from napari_mood.core._checks import (
    check_instance,
    check_path,
    check_sequence,
)
from napari_mood.core.simulate.hypometabolism import (
    HypometabolismProfile,
    degree_case_name,
    hypometabolism_profile,
    parse_degree_case,
    region_from_atlas,
    simulate_hypometabolism,
)
from napari_mood.io.errors import MoodInputError, MoodInputWarning, option
from napari_mood.io.mood import case_stem
from napari_mood.io.nifti import Volume, read_volume
from napari_mood.io.writers import mood_case_files, nifti_gz_bytes
from napari_mood.services.output import Inputs, check_output_folder
from napari_mood.services.staging import GENERATED_MARKER, staged_folder
from napari_mood.services.writers import write_files

__all__ = [
    "DEFAULT_DEGREES",
    "DEFAULT_FWHM_MM",
    "HypometabolismDataset",
    "region_name",
    "write_hypometabolism_dataset",
]

PathLike = str | os.PathLike[str]
DEFAULT_DEGREES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7)
DEFAULT_FWHM_MM = 8.0


@dataclass(frozen=True)
class HypometabolismDataset:
    """What :func:`write_hypometabolism_dataset` wrote."""

    region: str
    """The region's name, in every case name."""
    subjects: tuple[str, ...]
    """The subjects written (a scan that could not be used is left out, with a warning)."""
    degrees: tuple[float, ...]
    """The degrees of every subject, degree 0 (the healthy input) first."""
    gt_voxels: int
    """The GT voxels of every case with a degree above 0."""

    def case_names(self, subject: str) -> list[str]:
        """Return the case names of ``subject``, one per degree."""
        return [degree_case_name(subject, self.region, d) for d in self.degrees]


@dataclass(frozen=True)
class _Job:
    scans: tuple[Path, ...]
    mask: Path
    labels: tuple[int, ...] | None
    degrees: tuple[float, ...]
    fwhm_mm: float
    gt_level: float
    region: str


def region_name(mask: Path, labels: Sequence[int] | None) -> str:
    """Default region name: the mask's file name (letters, digits, '-') and the labels.

    Examples
    --------
    >>> region_name(Path("atlas_lobes.nii.gz"), [3, 4])
    'atlas-lobes-3-4'
    """
    stem = re.sub(r"[^A-Za-z0-9-]+", "-", case_stem(mask.name)).strip("-") or "region"
    return "-".join([stem, *(str(v) for v in labels or ())])


def write_hypometabolism_dataset(
    scans: Sequence[PathLike],
    mask: PathLike,
    out: PathLike,
    *,
    labels: Sequence[int] | None = None,
    degrees: Sequence[float] = DEFAULT_DEGREES,
    fwhm_mm: float = DEFAULT_FWHM_MM,
    gt_level: float = 0.5,
    region: str | None = None,
    force: bool = False,
) -> HypometabolismDataset:
    """Write the healthy inputs and every degree of hypometabolism of each scan.

    The output folder is checked first; a scan that cannot be used costs only its own
    subject (a warning naming it); none usable is an error. The dataset is written into
    a staged folder that becomes ``out`` when complete, other regions of an existing
    generated dataset carried over.

    Parameters
    ----------
    scans : sequence of path-like
        Healthy scans on the mask's grid, one subject each (named after its file).
    mask : path-like
        A 0/1 region mask, or a label atlas with ``labels``.
    out : path-like
        The dataset folder (a new region is added to a dataset napari-mood generated).
    labels : sequence of int, optional
        The atlas labels that make the region (default: every labelled voxel).
    degrees : sequence of float
        The degrees of hypometabolism, each in (0, 1).
    fwhm_mm : float
        The smoothing of the region into the profile.
    gt_level : float
        GT: the profile at or above this fraction of its maximum.
    region : str, optional
        The region's name in the case names (default: :func:`region_name`).
    force : bool
        Whether an existing region of the same name is replaced.

    Returns
    -------
    HypometabolismDataset
        The region, the subjects and degrees written, the GT size.

    Raises
    ------
    MoodInputError
        When the mask or every scan cannot be used, or ``out`` cannot take the dataset.

    Examples
    --------
    >>> from napari_mood.services.hypometabolism import write_hypometabolism_dataset
    >>> found = write_hypometabolism_dataset(  # doctest: +SKIP
    ...     ["pet/scans/pet_000.nii.gz"], "pet/atlas.nii.gz", "pet_set", labels=[3]
    ... )
    >>> found.case_names("pet_000")[:2]  # doctest: +SKIP
    ['pet_000_atlas-3_deg00', 'pet_000_atlas-3_deg05']
    """
    check_sequence("scans", scans, (str, os.PathLike), "scan paths")
    check_path("mask", mask)
    check_path("out", out)
    check_instance("force", force, bool, "True or False")
    mask, out = Path(mask), Path(out)
    job = _Job(
        scans=tuple(Path(s) for s in scans),
        mask=mask,
        labels=None if labels is None else tuple(labels),
        degrees=tuple(degrees),
        fwhm_mm=fwhm_mm,
        gt_level=gt_level,
        region=region or region_name(mask, labels),
    )
    subjects = _subjects(job.scans)
    inputs = _inputs(job)
    planned = _planned(list(subjects), job.region, job.degrees)
    # which existing files may be replaced is decided by _kept and staged_folder
    check_output_folder(
        out, inputs=inputs, force=True, names=planned, what=option("--out", "the output")
    )
    keep, staged_force = _kept(out, job.region, force=force)
    with staged_folder(
        out, force=staged_force, what=option("--out", "the output"), inputs=inputs, keep=keep
    ) as folder:
        return _write_dataset(job, folder, subjects, inputs)


def _inputs(job: _Job) -> Inputs:
    return Inputs.around((*job.scans, job.mask))


def _subjects(scans: Sequence[Path]) -> dict[str, Path]:
    subjects: dict[str, Path] = {}
    for scan in scans:
        name = case_stem(scan.name)
        if name in subjects:
            raise MoodInputError(
                scan,
                f"has the same name as {subjects[name]}",
                "rename one: cases are named after their scans",
            )
        subjects[name] = scan
    return subjects


def _planned(subjects: Sequence[str], region: str, degrees: Sequence[float]) -> list[str]:
    names = [degree_case_name(s, region, d) for s in subjects for d in (0.0, *degrees)]
    parts = (
        "toy/{}.nii.gz",
        "toy_label/pixel/{}.nii.gz",
        "toy_label/sample/{}.nii.gz.txt",
        "healthy/{}.nii.gz",
        "region/{}.nii.gz",
    )
    return [part.format(n) for n in names for part in parts] + [f"pet_{region}.json"]


def _profile(job: _Job, atlas: Volume) -> HypometabolismProfile:
    try:
        region = region_from_atlas(atlas.data, job.labels)
        if job.labels is None:
            _warn_whole_atlas(atlas, region)
        return hypometabolism_profile(
            region, fwhm_mm=job.fwhm_mm, spacing=atlas.spacing, gt_level=job.gt_level
        )
    except ValueError as exc:
        raise MoodInputError(
            job.mask,
            str(exc),
            f"give a 0/1 mask, or a label atlas {option('with --atlas-labels V,V', 'and its labels')}",
        ) from exc


def _warn_whole_atlas(atlas: Volume, region: np.ndarray) -> None:
    """Warn that an atlas given without labels makes its whole labelled part the region."""
    labels = np.unique(atlas.data[region])
    if labels.size > 1:
        shown = ", ".join(f"{v:g}" for v in labels[:5]) + (" ..." if labels.size > 5 else "")
        warnings.warn(
            f"{atlas.path}: holds {labels.size:,} labels ({shown}) and "
            f"{option('no --atlas-labels was given', 'no atlas labels were given')}: the region "
            f"is all of them (give {option('--atlas-labels V,V', 'atlas labels')} to pick "
            "atlas regions)",
            MoodInputWarning,
            stacklevel=2,
        )


def _healthy(path: Path, atlas: Volume) -> Volume:
    scan = read_volume(path)
    if scan.shape != atlas.shape:
        raise MoodInputError(
            path,
            f"has shape {scan.shape}, the mask {atlas.path} has {atlas.shape}",
            "give scans on the mask's grid",
        )
    if not np.all(np.isfinite(scan.data)):
        raise MoodInputError(
            path, "holds NaN or infinite values", "replace them (e.g. by 0), then simulate again"
        )
    deviation = float(np.max(np.abs(scan.affine - atlas.affine)))
    if deviation > 1e-3:
        warnings.warn(
            f"{atlas.path}: its affine differs from {path}'s by up to {deviation:.3g} (voxels are matched by index)",
            MoodInputWarning,
            stacklevel=2,
        )
    return scan


def _case_files(
    out: Path, name: str, healthy: Volume, profile: HypometabolismProfile, degree: float
) -> dict[Path, bytes]:
    diseased = simulate_hypometabolism(healthy.data, profile, degree=degree)
    gt = profile.mask if degree > 0 else np.zeros(profile.mask.shape, bool)
    files = mood_case_files(out, name, diseased, gt, healthy.affine)
    files[out / "healthy" / f"{name}.nii.gz"] = nifti_gz_bytes(healthy.data, healthy.affine)
    files[out / "region" / f"{name}.nii.gz"] = nifti_gz_bytes(profile.mask, healthy.affine)
    return files


def _manifest(job: _Job, subjects: dict[str, Path], profile: HypometabolismProfile) -> str:
    record = {
        "napari_mood": __version__,
        "rule": "diseased = healthy * (1 - degree * profile); profile = Gaussian-smoothed region / its max; GT = profile >= gt_level",
        "region": job.region, "mask": str(job.mask),
        "labels": None if job.labels is None else list(job.labels),
        "fwhm_mm": profile.fwhm_mm, "sigma_voxels": list(profile.sigma), "gt_level": profile.gt_level,
        "gt_voxels": int(profile.mask.sum()), "degrees": [0.0, *job.degrees],
        "subjects": {name: str(path) for name, path in subjects.items()},
    }  # fmt: skip
    return json.dumps(record, indent=2) + "\n"


def _write_subject(
    job: _Job,
    folder: Path,
    subject: str,
    scan: Volume,
    profile: HypometabolismProfile,
    inputs: Inputs,
) -> None:
    """Write every degree of one subject into ``folder``."""
    for degree in (0.0, *job.degrees):
        name = degree_case_name(subject, job.region, degree)
        write_files(_case_files(folder, name, scan, profile, degree), inputs=inputs)


def _files_of(out: Path) -> list[str]:
    """Every file and link in ``out`` (relative paths), the marker left out."""
    found = []
    for root, folders, files in os.walk(out):
        for name in files + [f for f in folders if (Path(root) / f).is_symlink()]:
            relative = (Path(root) / name).relative_to(out).as_posix()
            if relative != GENERATED_MARKER:
                found.append(relative)
    return sorted(found)


def _of_region(relative: str, region: str) -> bool:
    name = relative.rsplit("/", 1)[-1]
    case = parse_degree_case(name)
    return name == f"pet_{region}.json" or (case is not None and case.region == region)


def _kept(out: Path, region: str, *, force: bool) -> tuple[list[str], bool]:
    """Return the files of an existing PET dataset that stay, and the force the staging needs.

    Regions live side by side in one generated dataset: a new region is added (the
    others kept, no ``force`` needed), an existing one is replaced whole with ``force``
    (none of its old cases kept). Any other existing folder is left to
    :func:`~napari_mood.services.staging.staged_folder` (a generated one replaced whole
    with ``force``, anything else refused).
    """
    if not (out / GENERATED_MARKER).is_file() or not any(out.glob("pet_*.json")):
        return [], force
    files = _files_of(out)
    mine = [f for f in files if _of_region(f, region)]
    if mine and not force:
        example = f"pet_{region}.json" if f"pet_{region}.json" in mine else mine[0]
        raise MoodInputError(
            out,
            f"{option('--out', 'the output folder')} already holds region {region} ({len(mine)} "
            f"files, e.g. {example})",
            f"{option('use --force to replace', 'allow replacing')} that region whole, keeping the other "
            f"regions; or give {option('another --region-name', 'another region name')}",
        )
    return [f for f in files if f not in mine], True


def _write_dataset(
    job: _Job, folder: Path, subjects: dict[str, Path], inputs: Inputs
) -> HypometabolismDataset:
    """Read the mask and each scan, write every subject and the manifest into ``folder``."""
    atlas = read_volume(job.mask)
    profile = _profile(job, atlas)
    written: dict[str, Path] = {}
    for subject, path in subjects.items():
        try:
            scan = _healthy(path, atlas)
        except MoodInputError as exc:
            if len(subjects) == 1:
                raise
            warnings.warn(f"skipped: {exc}", MoodInputWarning, stacklevel=2)
            continue
        _write_subject(job, folder, subject, scan, profile, inputs)
        written[subject] = path
    if not written:
        raise MoodInputError(None, "no scan could be used (see the warnings)", "check the scans")
    manifest = _manifest(job, written, profile).encode()
    write_files({folder / f"pet_{job.region}.json": manifest}, inputs=inputs)
    return HypometabolismDataset(
        job.region, tuple(written), (0.0, *job.degrees), int(profile.mask.sum())
    )
