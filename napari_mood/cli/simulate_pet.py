"""``napari-mood simulate SCAN... --kind pet --mask REGION``: hypometabolism at several degrees.

Writes, for every healthy scan (the *subject*, named after its file) and every degree
(and degree 0, the healthy input), the case ``SUBJECT_REGION_degNN``::

    OUT/toy/CASE.nii.gz                   the input: healthy * (1 - degree * profile)
    OUT/toy_label/pixel/CASE.nii.gz       GT: profile >= --gt-level (empty at degree 0)
    OUT/toy_label/sample/CASE.nii.gz.txt  1 (0 at degree 0)
    OUT/healthy/CASE.nii.gz               the healthy original (the reconstruction's target)
    OUT/region/CASE.nii.gz                the anomaly region (the GT mask, at every degree)
    OUT/pet_REGION.json                   what was done (mask, labels, FWHM, sigma, level)
    OUT/.napari-mood-generated            the marker of a generated dataset

The dataset is written whole (a staged folder renamed into place); a new
``--region-name`` is added beside the others, an existing one is replaced with ``--force``.

See :mod:`napari_mood.core.simulate.hypometabolism` for the rule.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from napari_mood._version import __version__
from napari_mood.cli._args import DEFAULT_SEED
from napari_mood.io.case import find_case_folder_layout
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.mood import case_stem
from napari_mood.io.nifti import Volume, read_volume
from napari_mood.io.writers import mood_case_files, nifti_gz_bytes
from napari_mood.services.output import (
    GENERATED_MARKER,
    Inputs,
    check_output_folder,
    staged_folder,
)
from napari_mood.services.simulation import (
    HypometabolismProfile,
    degree_case_name,
    hypometabolism_profile,
    parse_degree_case,
    region_from_atlas,
    simulate_hypometabolism,
)
from napari_mood.services.writers import write_files

__all__ = ["DEFAULT_DEGREES", "check_pet_args", "main", "region_name"]

DEFAULT_DEGREES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7)
DEFAULT_FWHM_MM = 8.0


def region_name(mask: Path, labels: Sequence[int] | None) -> str:
    """Default region name: the mask's file name (letters, digits, '-') and the labels.

    Examples
    --------
    >>> region_name(Path("atlas_lobes.nii.gz"), [3, 4])
    'atlas-lobes-3-4'
    """
    stem = re.sub(r"[^A-Za-z0-9-]+", "-", case_stem(mask.name)).strip("-") or "region"
    return "-".join([stem, *(str(v) for v in labels or ())])


def check_pet_args(args: argparse.Namespace) -> str | None:
    """Return a usage problem of the PET options, or None (checked before any work)."""
    pet_only = [
        name
        for name, value in (("--atlas-labels", args.atlas_labels), ("--degree", args.degree), ("--smooth", args.smooth),
                            ("--gt-level", args.gt_level), ("--region-name", args.region_name))
        if value is not None
    ]  # fmt: skip
    if args.mask is None:
        if pet_only:
            return f"{', '.join(pet_only)} need(s) --mask REGION (with --kind pet)"
        if len(args.scan) > 1:
            return "one scan only, except with --kind pet --mask REGION"
        if args.count + args.normal == 0:
            return "--count 0 --normal 0 writes no case: give at least one"
        return None
    if args.kind != "pet":
        return "--mask simulates hypometabolism: give --kind pet"
    return None


def _inputs(args: argparse.Namespace) -> Inputs:
    folders: list[Path | None] = []
    for path in (*args.scan, args.mask):
        layout = find_case_folder_layout(path.parent)
        folders += [path.parent, layout.path if layout.kind == "dataset" else None]
    return Inputs.of(folders=folders, files=(*args.scan, args.mask))


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


def _profile(args: argparse.Namespace, atlas: Volume, fwhm: float) -> HypometabolismProfile:
    try:
        region = region_from_atlas(atlas.data, args.atlas_labels)
        if args.atlas_labels is None:
            _warn_whole_atlas(atlas, region)
        return hypometabolism_profile(
            region, fwhm_mm=fwhm, spacing=atlas.spacing, gt_level=args.gt_level or 0.5
        )
    except ValueError as exc:
        raise MoodInputError(
            args.mask, str(exc), "give a 0/1 mask, or a label atlas with --atlas-labels L,..."
        ) from exc


def _warn_whole_atlas(atlas: Volume, region: np.ndarray) -> None:
    """Warn that an atlas given without --atlas-labels makes its whole labelled part the region."""
    labels = np.unique(atlas.data[region])
    if labels.size > 1:
        shown = ", ".join(f"{v:g}" for v in labels[:5]) + (" ..." if labels.size > 5 else "")
        warnings.warn(
            f"{atlas.path}: holds {labels.size:,} labels ({shown}) and no --atlas-labels was given: "
            "the region is all of them (give --atlas-labels L,... to pick atlas regions)",
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


def _manifest(
    args: argparse.Namespace,
    region: str,
    subjects: dict[str, Path],
    profile: HypometabolismProfile,
    degrees: Sequence[float],
) -> str:
    record = {
        "napari_mood": __version__,
        "rule": "diseased = healthy * (1 - degree * profile); profile = Gaussian-smoothed region / its max; GT = profile >= gt_level",
        "region": region, "mask": str(args.mask), "labels": args.atlas_labels,
        "fwhm_mm": profile.fwhm_mm, "sigma_voxels": list(profile.sigma), "gt_level": profile.gt_level,
        "gt_voxels": int(profile.mask.sum()), "degrees": [0.0, *degrees],
        "subjects": {name: str(path) for name, path in subjects.items()},
    }  # fmt: skip
    return json.dumps(record, indent=2) + "\n"


def _write_subject(
    args: argparse.Namespace,
    folder: Path,
    subject: str,
    region: str,
    scan: Volume,
    profile: HypometabolismProfile,
    degrees: Sequence[float],
    inputs: Inputs,
) -> str:
    """Write every degree of one subject into ``folder``; the line to print."""
    for degree in (0.0, *degrees):
        name = degree_case_name(subject, region, degree)
        write_files(_case_files(folder, name, scan, profile, degree), inputs=inputs)
    first, last = degree_case_name(subject, region, 0.0), f"deg{round(degrees[-1] * 100):02d}"
    return f"{args.out / 'toy' / first}.nii.gz ... {last}: {len(degrees) + 1} cases, GT {int(profile.mask.sum())} voxels"


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

    Regions live side by side in one generated dataset: a new ``--region-name`` is added
    (the others kept, no ``--force`` needed), an existing one is replaced whole with
    ``--force`` (none of its old cases kept). Any other existing folder is left to
    :func:`~napari_mood.services.output.staged_folder` (a generated one replaced whole
    with ``--force``, anything else refused).
    """
    if not (out / GENERATED_MARKER).is_file() or not any(out.glob("pet_*.json")):
        return [], force
    files = _files_of(out)
    mine = [f for f in files if _of_region(f, region)]
    if mine and not force:
        example = f"pet_{region}.json" if f"pet_{region}.json" in mine else mine[0]
        raise MoodInputError(
            out,
            f"--out already holds region {region} ({len(mine)} files, e.g. {example})",
            "use --force to replace that region whole, keeping the other regions; "
            "or give another --region-name",
        )
    return [f for f in files if f not in mine], True


_TOY_DEFAULTS = {"count": 3, "per_case": 1, "normal": 1, "prefix": "case", "seed": DEFAULT_SEED}


def _warn_ignored(args: argparse.Namespace) -> None:
    given = [f"--{k.replace('_', '-')}" for k, v in _TOY_DEFAULTS.items() if getattr(args, k) != v]
    if given:
        warnings.warn(
            f"ignored: {', '.join(given)} apply to toy anomalies (without --mask); "
            "with --mask every scan gets every degree",
            MoodInputWarning,
            stacklevel=2,
        )


def main(args: argparse.Namespace) -> int:
    """Write the healthy inputs and every degree of hypometabolism of each scan.

    The output folder and the mask are checked first; a scan that cannot be used costs
    only its own subject (a warning naming it); none usable is an error. The dataset is
    written into a staged folder that becomes ``--out`` when complete, other regions of
    an existing generated dataset carried over (:func:`_kept`).
    """
    _warn_ignored(args)
    degrees = tuple(args.degree or DEFAULT_DEGREES)
    region = args.region_name or region_name(args.mask, args.atlas_labels)
    subjects = _subjects(args.scan)
    inputs = _inputs(args)
    planned = _planned(list(subjects), region, degrees)
    # which existing files may be replaced is decided by _kept and staged_folder
    check_output_folder(args.out, inputs=inputs, force=True, names=planned, what="--out")
    keep, force = _kept(args.out, region, force=args.force)
    with staged_folder(args.out, force=force, what="--out", inputs=inputs, keep=keep) as folder:
        lines = _write_dataset(args, folder, region, subjects, degrees, inputs)
    print("\n".join(lines))
    return 0


def _write_dataset(
    args: argparse.Namespace,
    folder: Path,
    region: str,
    subjects: dict[str, Path],
    degrees: Sequence[float],
    inputs: Inputs,
) -> list[str]:
    """Read the mask and each scan, write every subject and the manifest into ``folder``."""
    atlas = read_volume(args.mask)
    profile = _profile(args, atlas, DEFAULT_FWHM_MM if args.smooth is None else args.smooth)
    written: dict[str, Path] = {}
    lines = []
    for subject, path in subjects.items():
        try:
            scan = _healthy(path, atlas)
        except MoodInputError as exc:
            if len(subjects) == 1:
                raise
            warnings.warn(f"skipped: {exc}", MoodInputWarning, stacklevel=2)
            continue
        lines.append(_write_subject(args, folder, subject, region, scan, profile, degrees, inputs))
        written[subject] = path
    if not written:
        raise MoodInputError(None, "no scan could be used (see the warnings)", "check the scans")
    manifest = _manifest(args, region, written, profile, degrees).encode()
    write_files({folder / f"pet_{region}.json": manifest}, inputs=inputs)
    return lines
