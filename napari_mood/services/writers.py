"""Write MOOD-layout cases and method outputs through the output guard.

The bytes come from :mod:`napari_mood.core.writers`; every file of a call is checked
(:func:`~napari_mood.services.output.check_output_file`: not an input, not existing
without ``force``, writable) before the first one is written, and each is written
atomically.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from napari_mood.core.writers import method_case_files, mood_case_files
from napari_mood.services.output import Inputs, check_output_file, write_bytes_atomic

__all__ = ["write_files", "write_method_case", "write_mood_case"]

PathLike = str | os.PathLike[str]


def write_files(
    files: Mapping[Path, bytes], *, inputs: Inputs | None = None, force: bool = False
) -> tuple[Path, ...]:
    """Check every file, then write each atomically; returns the paths in order."""
    for path in files:
        check_output_file(path, inputs=inputs, force=force, what="the file")
    return tuple(write_bytes_atomic(path, blob, replace=force) for path, blob in files.items())


def write_mood_case(
    out_dir: PathLike,
    name: str,
    scan: np.ndarray,
    mask: np.ndarray,
    affine: np.ndarray,
    header: Any = None,
    *,
    scans_folder: str = "toy",
    scan_levels: int | None = None,
    inputs: Inputs | None = None,
    force: bool = False,
) -> tuple[Path, ...]:
    """Write one case (scan, pixel label, sample label); see :func:`mood_case_files`.

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> paths = write_mood_case(out, "toy_0", np.zeros((4, 4, 4)), np.zeros((4, 4, 4)), np.eye(4))
    >>> [p.relative_to(out).as_posix() for p in paths]
    ['toy/toy_0.nii.gz', 'toy_label/pixel/toy_0.nii.gz', 'toy_label/sample/toy_0.nii.gz.txt']
    >>> write_mood_case(out, "toy_0", np.zeros((4, 4, 4)), np.zeros((4, 4, 4)), np.eye(4))
    Traceback (most recent call last):
    ...
    napari_mood.services.output.OutputRefused: ...: the file exists already (use --force to replace it, or choose another path)
    """
    files = mood_case_files(
        out_dir,
        name,
        scan,
        mask,
        affine,
        header,
        scans_folder=scans_folder,
        scan_levels=scan_levels,
    )
    return write_files(files, inputs=inputs, force=force)


def write_method_case(
    method_dir: PathLike,
    name: str,
    score_map: np.ndarray | None = None,
    sample_score: float | None = None,
    affine: np.ndarray | None = None,
    header: Any = None,
    *,
    map_levels: int | None = None,
    inputs: Inputs | None = None,
    force: bool = False,
) -> tuple[Path, ...]:
    """Write a method's output for one case; see :func:`method_case_files`."""
    files = method_case_files(
        method_dir, name, score_map, sample_score, affine, header, map_levels=map_levels
    )
    return write_files(files, inputs=inputs, force=force)
