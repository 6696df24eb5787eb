"""``napari-mood simulate``: read a normal scan, add toy anomalies, write a MOOD-layout dataset."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

from napari_mood.cli import simulate_pet
from napari_mood.io.case import find_case_folder_layout
from napari_mood.io.errors import MoodInputError, MoodInputWarning, check_regular_file
from napari_mood.io.nifti import Volume, read_volume
from napari_mood.io.writers import mood_case_files
from napari_mood.services.output import Inputs, check_output_folder, staged_folder
from napari_mood.services.simulation import iter_simulated_cases, to_unit_range
from napari_mood.services.writers import write_files

__all__ = ["KINDS", "main", "scan_inputs", "unit_scan"]

KINDS = ("sphere", "cube", "shuffle", "slab", "pet", "mixed")


def unit_scan(path: Path, data: np.ndarray) -> np.ndarray:
    """Return the scan in [0, 1]; non-finite voxels refused, rescaling and constancy reported."""
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


def _write_cases(
    args: argparse.Namespace, volume: Volume, folder: Path, inputs: Inputs
) -> list[str]:
    """Simulate and write the cases into ``folder`` one at a time; the lines to print."""
    if args.kind == "slab" and volume.data.ndim != 3:
        raise MoodInputError(
            args.scan,
            f"is {volume.data.ndim}-D: --kind slab needs a 3-D scan",
            "use another --kind",
        )
    lines = []
    scan = unit_scan(args.scan, volume.data)
    try:
        for case in iter_simulated_cases(
            scan,
            kind=args.kind,
            count=args.per_case,
            n_anomalous=args.count,
            n_normal=args.normal,
            prefix=args.prefix,
            seed=args.seed,
        ):
            files = mood_case_files(folder, case.name, case.scan, case.mask, volume.affine)
            write_files(files, inputs=inputs)
            kinds = ", ".join(a.kind for a in case.anomalies) or "normal"
            lines.append(
                f"{args.out / 'toy' / case.name}.nii.gz: {kinds}, {int(case.mask.sum())} anomalous voxels"
            )
    except ValueError as exc:
        if isinstance(exc, MoodInputError):
            raise
        raise MoodInputError(
            args.scan,
            f"no room for --per-case {args.per_case} {args.kind} anomalies in this scan "
            f"of shape {volume.shape} ({exc})",
            "use a smaller --per-case, another --kind, or a larger scan",
        ) from exc
    return lines


def scan_inputs(scan: Path) -> Inputs:
    """Return the scan, its folder and, when it lives in a dataset, the whole dataset.

    The scan is checked first: a missing scan is named as such, not as an output
    refused inside the folder it would have been in.
    """
    check_regular_file(scan, what="scan")
    layout = find_case_folder_layout(scan.parent)
    dataset = layout.path if layout.kind == "dataset" else None
    return Inputs.of(folders=(scan.parent, dataset), files=(scan,))


def main(args: argparse.Namespace) -> int:
    """Write ``--normal`` normal and ``--count`` anomalous cases (``--per-case`` anomalies each).

    The output folder is checked first (not the scan's folder or dataset, new, empty or
    with ``--force`` a dataset napari-mood generated, writable); then the scan is read
    and the cases are simulated and written one at a time into a staged folder that
    becomes ``--out`` when complete (:func:`~napari_mood.services.output.staged_folder`).
    """
    if args.mask is not None:
        return simulate_pet.main(args)
    args = argparse.Namespace(**{**vars(args), "scan": args.scan[0]})
    inputs = scan_inputs(args.scan)
    check_output_folder(args.out, inputs=inputs, force=args.force, what="--out")
    with staged_folder(args.out, force=args.force, what="--out", inputs=inputs) as folder:
        lines = _write_cases(args, read_volume(args.scan), folder, inputs)
    print("\n".join(lines))
    return 0
