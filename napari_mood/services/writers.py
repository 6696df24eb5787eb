"""Write MOOD-layout cases and method outputs through the output guard.

The bytes come from :mod:`napari_mood.io.writers`; every file of a call is checked
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

from napari_mood.core.orientation import DisplayTransform
from napari_mood.io.writers import method_case_files, mood_case_files, nifti_gz_bytes
from napari_mood.services.atomic_files import write_bytes_atomic
from napari_mood.services.output import Inputs, check_output_file

__all__ = ["write_drawn_region", "write_files", "write_method_case", "write_mood_case"]

PathLike = str | os.PathLike[str]


def write_files(
    files: Mapping[Path, bytes], *, inputs: Inputs | None = None, force: bool = False
) -> tuple[Path, ...]:
    """Check every file, then write each atomically; returns the paths in order.

    Parameters
    ----------
    files : mapping of pathlib.Path to bytes
        The files and their content.
    inputs : Inputs, optional
        The inputs the files may not be written over.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    tuple of pathlib.Path
        The files written.
    """
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

    Parameters
    ----------
    out_dir : path-like
        The dataset folder.
    name : str
        The case's name.
    scan : numpy.ndarray
        The scan.
    mask : numpy.ndarray
        The pixel label.
    affine : numpy.ndarray
        The affine of both images.
    header : nibabel.Nifti1Header, optional
        Template header of both images.
    scans_folder : str
        Name of the scans folder.
    scan_levels : int, optional
        Quantise the scan to this many levels.
    inputs : Inputs, optional
        The inputs the files may not be written over.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    tuple of pathlib.Path
        The three files written.

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
    napari_mood.services.output.OutputRefused: ...: the file exists already (allow replacing it, or choose another path)
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
    """Write a method's output for one case; see :func:`method_case_files`.

    Parameters
    ----------
    method_dir : path-like
        The method's folder.
    name : str
        The case's name.
    score_map : numpy.ndarray, optional
        The pixel score map.
    sample_score : float, optional
        The sample score.
    affine : numpy.ndarray, optional
        The map's affine.
    header : nibabel.Nifti1Header, optional
        Template header of the map.
    map_levels : int, optional
        Quantise the map to this many levels.
    inputs : Inputs, optional
        The inputs the files may not be written over.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    tuple of pathlib.Path
        The files written.
    """
    files = method_case_files(
        method_dir, name, score_map, sample_score, affine, header, map_levels=map_levels
    )
    return write_files(files, inputs=inputs, force=force)


def write_drawn_region(
    path: PathLike,
    labels: np.ndarray,
    transform: DisplayTransform,
    *,
    inputs: Inputs | None = None,
    force: bool = False,
) -> Path:
    """Write a region drawn in the viewer as a NIfTI label image on the scan's grid.

    ``labels`` is a napari Labels layer's data, in display order on the scan's display
    grid; it is turned back to the file's voxel order (``transform.to_file``) and written
    with the scan's affine, label values kept (uint8 up to 255, else uint16), so that
    ``napari-mood simulate --kind pet --mask FILE [--labels ...]`` reads it as an atlas.

    Parameters
    ----------
    path : path-like
        The NIfTI file.
    labels : numpy.ndarray
        The drawn labels, in display order.
    transform : DisplayTransform
        The scan's display transform.
    inputs : Inputs, optional
        The inputs the file may not be written over.
    force : bool
        Whether an existing file is replaced.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        When ``labels`` is not on the scan's display grid, or holds negative values or
        values above 65535.
    napari_mood.io.errors.MoodInputError
        When ``path`` is an input, exists without ``force``, or cannot be written.
    """
    array = np.asarray(labels)
    if array.shape != transform.display_shape:
        raise ValueError(
            f"the drawn layer has shape {array.shape}, the scan's grid is "
            f"{transform.display_shape}: draw on a layer made over the scan"
        )
    if array.size and (array.min() < 0 or array.max() > np.iinfo(np.uint16).max):
        raise ValueError("label values must lie in 0..65535")
    dtype = np.uint8 if not array.size or array.max() <= 255 else np.uint16
    data = np.ascontiguousarray(transform.to_file(array.astype(dtype)))
    target = Path(path)
    write_files({target: nifti_gz_bytes(data, transform.affine)}, inputs=inputs, force=force)
    return target
