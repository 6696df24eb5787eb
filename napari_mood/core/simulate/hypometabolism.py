"""Hypometabolism on healthy scans, as in the FDG-PET simulation framework (Hassanaly et al.).

A region (from a label atlas or a mask) is smoothed with a Gaussian of a given FWHM in
millimetres and the healthy scan is dimmed by a *degree* under the smoothed region::

    profile  = G_sigma * region / max(G_sigma * region)        (in [0, 1], max exactly 1)
    diseased = healthy * (1 - degree * profile)
    GT       = profile >= gt_level                             (0.5 by default)

``sigma = FWHM / (2 sqrt(2 ln 2))`` millimetres, divided by the voxel size along each axis
(the norm of the affine's column) to give voxels. The smoothing treats everything outside
the volume as 0 (``mode='constant'``). Normalising the smoothed region to a maximum of 1
makes ``degree`` the largest relative decrease of any voxel, whatever the region's size
and the FWHM (a thin region smoothed widely would otherwise never reach its degree). The
ground truth does not depend on the degree, so every degree of one region has the same
mask. Nothing is random: the same inputs give the same arrays.

Case names of a simulated set say what each case is (one owner: :func:`degree_case_name`
and :func:`parse_degree_case`): ``SUBJECT_REGION_degNN`` with ``NN`` the degree in whole
per cent, ``deg00`` the healthy input of that subject and region.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import ndimage as ndi

__all__ = [
    "DEFAULT_GT_LEVEL",
    "DegreeCase",
    "HypometabolismProfile",
    "check_region_name",
    "degree_case_name",
    "degree_percent",
    "dim_scan",
    "fwhm_to_sigma",
    "hypometabolism_profile",
    "parse_degree_case",
    "region_from_atlas",
    "simulate_hypometabolism",
]

DEFAULT_GT_LEVEL = 0.5
"""Ground truth: voxels where the normalised smoothed region is at least half its maximum."""

FWHM_PER_SIGMA = 2.0 * math.sqrt(2.0 * math.log(2.0))
"""FWHM of a Gaussian in units of its standard deviation (about 2.3548)."""

_REGION_NAME = re.compile(r"[A-Za-z0-9-]+")
_CASE_NAME = re.compile(r"(?P<subject>.+)_(?P<region>[A-Za-z0-9-]+)_deg(?P<percent>\d{2,3})")


def fwhm_to_sigma(fwhm_mm: float, spacing: Sequence[float]) -> tuple[float, ...]:
    """Gaussian standard deviation in voxels along each axis for a FWHM in millimetres.

    Parameters
    ----------
    fwhm_mm : float
        Full width at half maximum, in mm (0: no smoothing).
    spacing : sequence of float
        Voxel size along each array axis, in mm (all positive).

    Returns
    -------
    tuple of float
        One standard deviation per axis.

    Raises
    ------
    ValueError
        When the FWHM is negative or not a number, or a voxel size is not positive.

    Examples
    --------
    >>> [round(s, 4) for s in fwhm_to_sigma(8.0, (2.0, 2.0, 4.0))]
    [1.6986, 1.6986, 0.8493]
    """
    fwhm = float(fwhm_mm)
    if not (math.isfinite(fwhm) and fwhm >= 0):
        raise ValueError(f"FWHM must be a non-negative number of mm, got {fwhm_mm!r}")
    sizes = [float(s) for s in spacing]
    if not sizes or not all(math.isfinite(s) and s > 0 for s in sizes):
        raise ValueError(f"voxel sizes must be positive numbers, got {tuple(spacing)!r}")
    return tuple(fwhm / FWHM_PER_SIGMA / s for s in sizes)


def region_from_atlas(atlas: np.ndarray, labels: Sequence[int] | None = None) -> np.ndarray:
    """Return the region of a label atlas (or of a mask) as a boolean array.

    Parameters
    ----------
    atlas : ndarray
        A label image (integer values, read as floats are rounded to the nearest
        integer) or a mask.
    labels : sequence of int, optional
        The label values that make the region. Without them every nonzero voxel is in
        the region (a mask, or the whole labelled part of an atlas). An image of more
        than one nonzero value must hold whole numbers (an atlas): other values are a
        scan, which would make the whole head the region.

    Returns
    -------
    numpy.ndarray
        Bool mask of the atlas's shape.

    Raises
    ------
    ValueError
        A label not in the atlas (naming the labels it holds), non-finite values, more
        than one nonzero value that are not all whole numbers (a scan), or an empty
        region.

    Examples
    --------
    >>> atlas = np.array([[0, 1, 2], [3, 3, 2]])
    >>> region_from_atlas(atlas, [2, 3]).astype(int).tolist()
    [[0, 0, 1], [1, 1, 1]]
    """
    values = np.asarray(atlas)
    if values.dtype.kind == "f" and not np.all(np.isfinite(values)):
        raise ValueError("the atlas holds NaN or infinite values")
    if labels is None:
        if np.unique(values[values != 0]).size > 1:
            _label_codes(values)  # an atlas holds whole numbers: else it is a scan
        region = values != 0
    else:
        codes = _label_codes(values)
        present = np.unique(codes)
        missing = [int(v) for v in labels if int(v) not in present]
        if missing:
            shown = ", ".join(str(int(v)) for v in present[:20])
            more = " ..." if present.size > 20 else ""
            raise ValueError(f"label(s) {missing} not in the atlas (it holds {shown}{more})")
        region = np.isin(codes, [int(v) for v in labels])
    if not region.any():
        raise ValueError("the region is empty (no voxel is set)")
    return region


def _label_codes(values: np.ndarray) -> np.ndarray:
    """Atlas values as integer labels.

    The integer labels of an atlas (floats within 0.001 of one, as header scaling
    leaves them); values farther from a whole number are a scan.
    """
    if values.dtype.kind != "f":
        return values
    codes = np.rint(values)
    far = np.abs(values - codes) > 1e-3
    if far.any():
        odd = float(values[far].flat[0])
        raise ValueError(
            f"holds values that are not whole numbers (e.g. {odd:g}): a scan, not a mask "
            "or a label atlas"
        )
    return codes.astype(np.int64)


@dataclass(frozen=True, eq=False)
class HypometabolismProfile:
    """Where and how much a region dims: the normalised smoothed region and its GT.

    Attributes
    ----------
    profile : ndarray of float64
        Smoothed region divided by its maximum (values in [0, 1], maximum 1).
    mask : ndarray of bool
        Ground truth: ``profile >= gt_level``.
    fwhm_mm : float
        FWHM of the Gaussian, in mm.
    sigma : tuple of float
        Its standard deviation in voxels along each axis.
    gt_level : float
        Level of the ground truth, as a fraction of the maximum.
    """

    profile: np.ndarray
    mask: np.ndarray
    fwhm_mm: float
    sigma: tuple[float, ...]
    gt_level: float


def hypometabolism_profile(
    region: np.ndarray,
    *,
    fwhm_mm: float,
    spacing: Sequence[float],
    gt_level: float = DEFAULT_GT_LEVEL,
) -> HypometabolismProfile:
    """Smooth a region with a Gaussian of ``fwhm_mm`` and normalise it to a maximum of 1.

    Parameters
    ----------
    region : ndarray of bool
        The region (2-D or 3-D), not empty.
    fwhm_mm : float
        FWHM of the Gaussian in mm (0 keeps the sharp region).
    spacing : sequence of float
        Voxel size along each axis in mm (see :func:`fwhm_to_sigma`).
    gt_level : float
        The ground truth is ``profile >= gt_level``; in (0, 1].

    Returns
    -------
    HypometabolismProfile
        The smoothed region in [0, 1] and its GT (the profile at ``gt_level`` or above).

    Examples
    --------
    >>> region = np.zeros((21, 21, 21), bool)
    >>> region[5:16, 5:16, 5:16] = True
    >>> found = hypometabolism_profile(region, fwhm_mm=4.0, spacing=(2.0, 2.0, 2.0))
    >>> float(found.profile.max()), found.profile[10, 10, 2:9].round(2).tolist()
    (1.0, [0.0, 0.03, 0.27, 0.73, 0.97, 1.0, 1.0])
    >>> found.mask[10, 10].astype(int).tolist()  # the edge of the region at level 0.5
    [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    """
    mask = np.asarray(region, dtype=bool)
    if mask.ndim not in (2, 3):
        raise ValueError(f"region must be 2-D or 3-D, got shape {mask.shape}")
    if not mask.any():
        raise ValueError("the region is empty (no voxel is set)")
    level = float(gt_level)
    if not (math.isfinite(level) and 0 < level <= 1):
        raise ValueError(f"gt_level must lie in (0, 1], got {gt_level!r}")
    if len(spacing) != mask.ndim:
        raise ValueError(f"spacing {tuple(spacing)} does not match a {mask.ndim}-D region")
    sigma = fwhm_to_sigma(fwhm_mm, spacing)
    smoothed = ndi.gaussian_filter(mask.astype(np.float64), sigma, mode="constant", cval=0.0)
    profile = smoothed / smoothed.max()
    return HypometabolismProfile(profile, profile >= level, float(fwhm_mm), sigma, level)


def dim_scan(scan: np.ndarray, profile: np.ndarray, degree: float) -> np.ndarray:
    """``scan * (1 - degree * profile)``: the one rule of a PET-style decrease.

    Returns a new array (float64 unless ``scan`` is a floating array, whose dtype is
    kept); ``scan`` is not modified.

    Parameters
    ----------
    scan : numpy.ndarray
        The healthy scan.
    profile : numpy.ndarray
        The relative decrease at each voxel, in [0, 1].
    degree : float
        The largest relative decrease.

    Returns
    -------
    numpy.ndarray
        The dimmed scan.

    Examples
    --------
    >>> dim_scan(np.array([2.0, 2.0]), np.array([1.0, 0.5]), 0.3).tolist()
    [1.4, 1.7]
    """
    arr = np.asarray(scan)
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    out = arr * (1.0 - float(degree) * np.asarray(profile))
    return out.astype(arr.dtype, copy=False)


def _check_degree(degree: float) -> float:
    value = float(degree)
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"degree must lie in [0, 1], got {degree!r}")
    return value


def simulate_hypometabolism(
    healthy: np.ndarray, profile: HypometabolismProfile, *, degree: float
) -> np.ndarray:
    """Return the diseased scan: ``healthy * (1 - degree * profile.profile)``.

    Parameters
    ----------
    healthy : ndarray
        The healthy scan (any real intensities, e.g. SUVR), same shape as the profile.
        Not modified.
    profile : HypometabolismProfile
        From :func:`hypometabolism_profile`.
    degree : float
        Largest relative decrease, in [0, 1] (0.3 = 30 %).

    Returns
    -------
    numpy.ndarray
        The diseased scan (see :func:`dim_scan`).

    Examples
    --------
    >>> region = np.zeros((9, 9), bool)
    >>> region[3:6, 3:6] = True
    >>> found = hypometabolism_profile(region, fwhm_mm=0.0, spacing=(1.0, 1.0))
    >>> diseased = simulate_hypometabolism(np.full((9, 9), 2.0), found, degree=0.25)
    >>> float(diseased[4, 4]), float(diseased[0, 0])
    (1.5, 2.0)
    """
    scan = np.asarray(healthy)
    if scan.shape != profile.profile.shape:
        raise ValueError(
            f"scan shape {scan.shape} differs from region shape {profile.profile.shape}"
        )
    if scan.dtype.kind in "fc" and not np.all(np.isfinite(scan)):
        raise ValueError("the scan holds NaN or infinite values")
    return dim_scan(scan, profile.profile, _check_degree(degree))


def degree_percent(degree: float) -> int:
    """Return the degree in whole per cent; a degree that is not a whole per cent is refused.

    Parameters
    ----------
    degree : float
        A degree in [0, 1].

    Returns
    -------
    int
        The per cent.

    Raises
    ------
    ValueError
        When ``degree`` is outside [0, 1] or not a whole per cent.

    Examples
    --------
    >>> degree_percent(0.05), degree_percent(0.7)
    (5, 70)
    """
    value = _check_degree(degree)
    percent = round(value * 100)
    if abs(value * 100 - percent) > 1e-6:
        raise ValueError(f"degree must be a whole per cent (0.05, 0.1, ...), got {degree!r}")
    return int(percent)


def check_region_name(name: str) -> str:
    """Return a region name for case names: letters, digits and '-' only (no '_').

    Parameters
    ----------
    name : str
        The region's name.

    Returns
    -------
    str
        ``name``.

    Raises
    ------
    ValueError
        When it holds another character.
    """
    if not _REGION_NAME.fullmatch(name):
        raise ValueError(f"region name must hold only letters, digits and '-', got {name!r}")
    return name


def degree_case_name(subject: str, region: str, degree: float) -> str:
    """Case name ``SUBJECT_REGION_degNN`` (``NN``: degree in whole per cent, two digits).

    Parameters
    ----------
    subject : str
        The subject, a plain file-name part.
    region : str
        The region's name (:func:`check_region_name`).
    degree : float
        The degree, a whole per cent.

    Returns
    -------
    str
        The case name.

    Raises
    ------
    ValueError
        When a part is invalid.

    Examples
    --------
    >>> degree_case_name("sub-01", "ad", 0.05), degree_case_name("sub-01", "ad", 0.0)
    ('sub-01_ad_deg05', 'sub-01_ad_deg00')
    """
    if not subject or any(sep in subject for sep in "/\\"):
        raise ValueError(f"subject must be a plain file-name part, got {subject!r}")
    return f"{subject}_{check_region_name(region)}_deg{degree_percent(degree):02d}"


@dataclass(frozen=True)
class DegreeCase:
    """What a simulated case name says: subject, region and degree (0: healthy input)."""

    subject: str
    region: str
    degree: float


def parse_degree_case(name: str) -> DegreeCase | None:
    """Read ``SUBJECT_REGION_degNN[.nii.gz]``; None when the name is not of that form.

    Parameters
    ----------
    name : str
        A file or case name.

    Returns
    -------
    DegreeCase or None
        Subject, region and degree.

    Examples
    --------
    >>> parse_degree_case("brain_000_ad_deg30.nii.gz")
    DegreeCase(subject='brain_000', region='ad', degree=0.3)
    >>> parse_degree_case("brain_000.nii.gz") is None
    True
    """
    stem = name
    for suffix in (".txt", ".gz", ".nii"):
        stem = stem.removesuffix(suffix)
    found = _CASE_NAME.fullmatch(stem)
    if found is None or int(found["percent"]) > 100:
        return None
    return DegreeCase(found["subject"], found["region"], int(found["percent"]) / 100)
