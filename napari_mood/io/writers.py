r"""The bytes of MOOD-layout cases and method outputs (the counterpart of ``io.py``).

Pure: these functions return ``{path: bytes}`` plans and write nothing; the files are
written by :mod:`napari_mood.services.writers` through the output guard (inputs never
touched, nothing replaced without ``force``, atomic writes).

Layout (official MOOD naming; ``NAME`` has no extension)::

    OUT/toy/NAME.nii.gz                     scan
    OUT/toy_label/pixel/NAME.nii.gz         pixel label, uint8 0/1
    OUT/toy_label/sample/NAME.nii.gz.txt    sample label, "1\n" or "0\n"
    METHOD/NAME.nii.gz                      pixel score map
    METHOD/NAME.nii.gz.txt                  sample score, one float and a newline

Files are gzip-compressed NIfTI-1 written deterministically (gzip mtime 0, no file
name in the gzip header, level 9), so the same arrays give the same bytes on the same
zlib.

``levels`` stores values in [0, 1] as integers ``k`` with ``k / levels`` the value
(``uint8`` up to 255 levels, else ``uint16``) and ``scl_slope`` about ``1 / levels``, so
files are small and ``get_fdata()`` returns values in [0, 1]. The slope is a float32;
when ``1 / levels`` is not exact in float32 it is rounded *down*, so ``levels * slope``
never exceeds 1. Powers of two (e.g. 1024) are exact, also after float16 reading.
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import nibabel as nib
import numpy as np

from napari_mood.io.mood import case_stem

PathLike = str | os.PathLike[str]


def _checked_stem(name: str) -> str:
    """Case name without extension; must be a plain file name."""
    stem = case_stem(str(name))
    if not stem or stem in (".", "..") or any(sep in stem for sep in "/\\"):
        raise ValueError(f"case name must be a plain file name, got {name!r}")
    return stem


def _slope(levels: int) -> float:
    slope = np.float32(1.0 / levels)
    while float(slope) * levels > 1.0:
        slope = np.nextafter(slope, np.float32(0.0))
    return float(slope)


def _quantize(data: np.ndarray, levels: int) -> tuple[np.ndarray, float]:
    if isinstance(levels, bool) or not isinstance(levels, int | np.integer):
        raise ValueError(f"levels must be an integer in 1 .. 65535, got {levels!r}")
    if not 1 <= levels <= 65535:
        raise ValueError(f"levels must be an integer in 1 .. 65535, got {levels!r}")
    values = np.asarray(data, dtype=np.float64)
    if values.size and not (
        np.all(np.isfinite(values)) and 0.0 <= values.min() <= values.max() <= 1.0
    ):
        raise ValueError("values must be finite and lie in [0, 1] to be stored with levels")
    dtype = np.uint8 if levels <= 255 else np.uint16
    codes = np.rint(values * levels).astype(dtype)
    return codes, _slope(int(levels))


def nifti_gz_bytes(
    data: np.ndarray,
    affine: np.ndarray,
    header: nib.Nifti1Header | None = None,
    *,
    levels: int | None = None,
) -> bytes:
    r"""Return the deterministic ``.nii.gz`` bytes of an array.

    Parameters
    ----------
    data : ndarray
        The volume. Stored as is (bool becomes uint8, float64 becomes float32) unless
        ``levels`` is given.
    affine : ndarray
        4 x 4 voxel-to-world matrix.
    header : Nifti1Header, optional
        Template header (e.g. of the source scan); dtype and scaling are replaced.
    levels : int, optional
        Store values in [0, 1] quantised to multiples of ``1 / levels`` (see module).

    Returns
    -------
    bytes
        A gzip stream with mtime 0 and no file name.

    Examples
    --------
    >>> blob = nifti_gz_bytes(np.zeros((2, 2, 2)), np.eye(4), levels=255)
    >>> blob[:2] == b"\x1f\x8b", nib.Nifti1Image.from_bytes(gzip.decompress(blob)).shape
    (True, (2, 2, 2))
    """
    slope = None
    if levels is not None:
        array, slope = _quantize(data, levels)
    else:
        array = np.asarray(data)
        if array.dtype == bool:
            array = array.astype(np.uint8)
        elif array.dtype == np.float64:
            array = array.astype(np.float32)
    image = nib.Nifti1Image(array, np.asarray(affine, dtype=np.float64), header=header)
    image.header.set_data_dtype(array.dtype)
    image.header.set_slope_inter(None, None)
    payload = image.to_bytes()
    if slope is not None:
        written = nib.Nifti1Header.from_fileobj(io.BytesIO(payload))
        written.set_slope_inter(slope, 0.0)
        block = written.binaryblock
        payload = block + payload[len(block) :]
    return gzip.compress(payload, compresslevel=9, mtime=0)


def _label_array(mask: np.ndarray) -> np.ndarray:
    array = np.asarray(mask)
    if array.dtype != bool and not np.isin(array, (0, 1)).all():
        raise ValueError("mask must be boolean or contain only 0 and 1")
    return array.astype(np.uint8)


def _score_text(score: float) -> str:
    value = float(score)
    if not np.isfinite(value):
        raise ValueError(f"sample score must be finite, got {score!r}")
    return f"{value!r}\n"


def mood_case_files(
    out_dir: PathLike,
    name: str,
    scan: np.ndarray,
    mask: np.ndarray,
    affine: np.ndarray,
    header: nib.Nifti1Header | None = None,
    *,
    scans_folder: str = "toy",
    scan_levels: int | None = None,
) -> dict[Path, bytes]:
    r"""Return the files of one case of a MOOD-layout dataset: scan, pixel label and sample label.

    Nothing is written: :func:`napari_mood.services.writers.write_mood_case` writes them
    through the output guard.

    Parameters
    ----------
    out_dir : path
        Dataset folder; sub-folders are created as needed.
    name : str
        Case name, with or without ``.nii.gz``.
    scan : ndarray
        The scan (float32 unless ``scan_levels`` is given).
    mask : ndarray of bool or 0/1
        Pixel ground truth, same shape as ``scan``; written as uint8. The sample label is
        1 if it has any voxel set, else 0.
    affine : ndarray
        4 x 4 voxel-to-world matrix of both images.
    header : Nifti1Header, optional
        Template header for both images.
    scans_folder : str
        Name of the scans folder; labels go to ``{scans_folder}_label``.
    scan_levels : int, optional
        Quantise the scan to ``scan_levels`` levels (values must lie in [0, 1]).

    Returns
    -------
    dict of Path -> bytes
        Scan, pixel label and sample label files, in that order.

    Examples
    --------
    >>> scan, mask = np.zeros((4, 4, 4)), np.zeros((4, 4, 4), bool)
    >>> files = mood_case_files("out", "toy_0", scan, mask, np.eye(4))
    >>> [p.as_posix() for p in files]
    ['out/toy/toy_0.nii.gz', 'out/toy_label/pixel/toy_0.nii.gz', 'out/toy_label/sample/toy_0.nii.gz.txt']
    >>> list(files.values())[2]
    b'0\n'
    """
    stem = _checked_stem(name)
    if not scans_folder or any(sep in scans_folder for sep in "/\\"):
        raise ValueError(f"scans_folder must be a plain folder name, got {scans_folder!r}")
    scan_array, label = np.asarray(scan), _label_array(mask)
    if scan_array.shape != label.shape:
        raise ValueError(f"scan shape {scan_array.shape} differs from mask shape {label.shape}")
    root = Path(out_dir)
    labels = root / f"{scans_folder}_label"
    paths = [
        root / scans_folder / f"{stem}.nii.gz",
        labels / "pixel" / f"{stem}.nii.gz",
        labels / "sample" / f"{stem}.nii.gz.txt",
    ]
    blobs = (
        nifti_gz_bytes(scan_array, affine, header, levels=scan_levels),
        nifti_gz_bytes(label, affine, header),
        f"{int(label.any())}\n".encode(),
    )
    return dict(zip(paths, blobs, strict=True))


def method_case_files(
    method_dir: PathLike,
    name: str,
    score_map: np.ndarray | None = None,
    sample_score: float | None = None,
    affine: np.ndarray | None = None,
    header: nib.Nifti1Header | None = None,
    *,
    map_levels: int | None = None,
) -> dict[Path, bytes]:
    r"""Return the files of a method's output for one case: pixel score map and/or sample score.

    Nothing is written (see :func:`napari_mood.services.writers.write_method_case`).

    Parameters
    ----------
    method_dir : path
        The method's folder (created as needed).
    name : str
        Case name, with or without ``.nii.gz``.
    score_map : ndarray, optional
        Pixel scores, written to ``NAME.nii.gz`` (float32 unless ``map_levels``).
    sample_score : float, optional
        Sample score, written to ``NAME.nii.gz.txt`` as one float and a newline.
    affine : ndarray
        4 x 4 voxel-to-world matrix; required with ``score_map``.
    header : Nifti1Header, optional
        Template header for the map.
    map_levels : int, optional
        Quantise the map to ``map_levels`` levels (values must lie in [0, 1]).

    Returns
    -------
    dict of Path -> bytes
        The files (map first).

    Examples
    --------
    >>> method_case_files("my_method", "toy_0", sample_score=0.25)
    {PosixPath('my_method/toy_0.nii.gz.txt'): b'0.25\n'}
    """
    stem = _checked_stem(name)
    if score_map is None and sample_score is None:
        raise ValueError("nothing to write: give score_map, sample_score or both")
    if score_map is not None and affine is None:
        raise ValueError("affine is required to write a score_map")
    root = Path(method_dir)
    jobs: list[tuple[Path, bytes]] = []
    if score_map is not None and affine is not None:
        blob = nifti_gz_bytes(np.asarray(score_map), affine, header, levels=map_levels)
        jobs.append((root / f"{stem}.nii.gz", blob))
    if sample_score is not None:
        jobs.append((root / f"{stem}.nii.gz.txt", _score_text(sample_score).encode()))
    return dict(jobs)
