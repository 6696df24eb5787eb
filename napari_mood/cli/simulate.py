"""``napari-mood simulate``: toy anomalies on a normal scan, or hypometabolism with ``--mask``.

The jobs are :func:`napari_mood.services.simulation.write_toy_dataset` and (``--kind pet
--mask REGION``) :func:`napari_mood.services.hypometabolism.write_hypometabolism_dataset`;
this module checks the options, calls one of them and prints what was written.
"""

from __future__ import annotations

import argparse
import warnings

from napari_mood.cli._args import DEFAULT_SEED
from napari_mood.io.errors import MoodInputWarning
from napari_mood.services.hypometabolism import (
    DEFAULT_DEGREES,
    DEFAULT_FWHM_MM,
    write_hypometabolism_dataset,
)
from napari_mood.services.simulation import write_toy_dataset

__all__ = ["check_args", "main"]


def check_args(args: argparse.Namespace) -> str | None:
    """Return a usage problem of the options, or None (checked before any work)."""
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


def main(args: argparse.Namespace) -> int:
    """Write the simulated dataset into ``--out`` and print one line per case (or subject)."""
    if args.mask is not None:
        return _main_pet(args)
    cases = write_toy_dataset(
        args.scan[0],
        args.out,
        kind=args.kind,
        per_case=args.per_case,
        count=args.count,
        normal=args.normal,
        prefix=args.prefix,
        seed=args.seed,
        force=args.force,
    )
    for case in cases:
        kinds = ", ".join(case.kinds) or "normal"
        print(f"{args.out / 'toy' / case.name}.nii.gz: {kinds}, {case.voxels} anomalous voxels")
    return 0


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


def _main_pet(args: argparse.Namespace) -> int:
    """Write every degree of hypometabolism of each scan; one line per subject."""
    _warn_ignored(args)
    found = write_hypometabolism_dataset(
        args.scan,
        args.mask,
        args.out,
        labels=args.atlas_labels,
        degrees=args.degree or DEFAULT_DEGREES,
        fwhm_mm=DEFAULT_FWHM_MM if args.smooth is None else args.smooth,
        gt_level=0.5 if args.gt_level is None else args.gt_level,
        region=args.region_name,
        force=args.force,
    )
    last = f"deg{round(found.degrees[-1] * 100):02d}"
    for subject in found.subjects:
        first = found.case_names(subject)[0]
        print(
            f"{args.out / 'toy' / first}.nii.gz ... {last}: {len(found.degrees)} cases, "
            f"GT {found.gt_voxels} voxels"
        )
    return 0
