"""Pseudo-healthy reconstructions judged against the healthy originals they should recover.

A reconstruction method reads an input (healthy, or with simulated hypometabolism) and
returns a pseudo-healthy image. Against the healthy original (the ground truth of every
input made from it) this module measures, inside a mask (the whole brain, or the anomaly
region):

- ``mse = mean((recon - healthy)^2)``, ``mae = mean(|recon - healthy|)``;
- ``psnr = 10 log10(data_range^2 / mse)`` (``inf`` when ``mse`` is 0);
- ``ssim``: scikit-image's SSIM map (``structural_similarity(..., full=True)``, its default
  7-voxel uniform window) averaged over the mask's voxels at least 3 voxels from the
  volume's border, the border scikit-image itself leaves out of its mean; with a mask of
  every voxel this equals scikit-image's own SSIM.

``data_range`` is always explicit: :func:`healthy_data_range` (the healthy original's
``max - min`` inside the brain mask), one value per case shared by both masks, so PSNR
inside the anomaly region and in the whole brain use the same peak. A constant healthy
image (range 0) has NaN PSNR and SSIM.

The anomaly map of a reconstruction method is the residual ``|input - recon|``; it
becomes a MOOD score map with :func:`residual_scores` (divided by a scale, clipped to
[0, 1], 0 outside the brain). The study over many cases (per region and degree, with its
t-tests) is :mod:`napari_mood.core.recon_study`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = [
    "SSIM_WINDOW",
    "CaseProblem",
    "ReconMetrics",
    "Role",
    "Where",
    "binary_mask_problem",
    "brain_mask_problem",
    "case_brain",
    "check_recon_case",
    "healthy_data_range",
    "non_finite_voxels",
    "recon_metrics",
    "residual_map",
    "residual_scale",
    "residual_scores",
    "ssim_map",
]

Where = Literal["brain", "anomaly"]
Role = Literal["input", "healthy", "recon", "region", "brain"]
"""The arrays of one case: what :class:`CaseProblem` points at."""
SSIM_WINDOW = 7
"""scikit-image's default SSIM window (voxels a side); every axis needs at least this many."""
RESIDUAL_QUANTILE = 0.999
"""Quantile of the brain's residuals taken as a robust maximum (:func:`residual_scale`)."""


@dataclass(frozen=True)
class ReconMetrics:
    """How close a reconstruction is to the healthy original inside one mask."""

    mse: float
    mae: float
    psnr: float
    ssim: float
    n_voxels: int
    data_range: float


def non_finite_voxels(data: np.ndarray) -> str:
    """Return what is not finite in ``data``, as words ('' when every voxel is finite).

    Parameters
    ----------
    data : numpy.ndarray
        Any array.

    Returns
    -------
    str
        The counts of NaN, +inf and -inf voxels, or ``''``.

    Examples
    --------
    >>> non_finite_voxels(np.array([1.0, np.nan, np.inf, -np.inf, np.nan]))
    'holds 2 NaN, 1 +inf and 1 -inf voxels'
    >>> non_finite_voxels(np.full(3, np.inf))
    'holds 3 +inf voxels (every voxel)'
    >>> non_finite_voxels(np.zeros(3))
    ''
    """
    values = np.asarray(data)
    if values.dtype.kind not in "fc" or bool(np.isfinite(values).all()):
        return ""
    counts = {
        "NaN": int(np.isnan(values).sum()),
        "+inf": int(np.isposinf(values).sum()),
        "-inf": int(np.isneginf(values).sum()),
    }
    parts = [f"{n} {what}" for what, n in counts.items() if n]
    words = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    total = sum(counts.values())
    every = " (every voxel)" if total == values.size else ""
    return f"holds {words} voxel{'s' if total > 1 else ''}{every}"


def brain_mask_problem(mask: np.ndarray) -> str:
    """Why ``mask`` cannot be the brain mask of every case ('' when it can).

    A brain mask is finite, has a nonzero voxel and holds 0 and one other value (a 0/1
    or 0/255 mask; a probability map or a label atlas is refused, not guessed at).

    Parameters
    ----------
    mask : numpy.ndarray
        The brain mask given.

    Returns
    -------
    str
        The problem in words, or ``''``.

    Examples
    --------
    >>> brain_mask_problem(np.array([0, 1, 1]))
    ''
    >>> brain_mask_problem(np.array([0.0, 0.2, 0.9]))
    'is not a binary mask: it holds 2 values besides 0 (0.2, 0.9)'
    """
    values = np.asarray(mask)
    bad = non_finite_voxels(values)
    if bad:
        return bad
    if not np.any(values):
        return "is empty: no voxel is nonzero"
    return binary_mask_problem(values)


def binary_mask_problem(mask: np.ndarray) -> str:
    """Why ``mask`` is not a binary mask ('' when it is): 0 and at most one other value.

    A 0/1 or 0/255 mask, or an all-zero one, is binary; a probability map, a scan or a
    label atlas is not (refused, not guessed at). The one rule for the brain mask and the
    anomaly region of :func:`check_recon_case`.

    Parameters
    ----------
    mask : numpy.ndarray
        A finite mask.

    Returns
    -------
    str
        The problem in words, or ``''``.

    Examples
    --------
    >>> binary_mask_problem(np.array([0, 0, 0])), binary_mask_problem(np.array([0, 255]))
    ('', '')
    >>> binary_mask_problem(np.array([0.0, 0.5, 0.7]))
    'is not a binary mask: it holds 2 values besides 0 (0.5, 0.7)'
    """
    values = np.asarray(mask)
    inside = values[values != 0]
    if inside.size == 0 or not np.any(inside != inside.flat[0]):
        return ""
    found = np.unique(inside)
    shown = ", ".join([f"{float(v):.3g}" for v in found[:4]] + ["..."] * (found.size > 4))
    return f"is not a binary mask: it holds {found.size} values besides 0 ({shown})"


def case_brain(healthy: np.ndarray, brain: np.ndarray | None = None) -> np.ndarray:
    """Return the brain mask of a case: ``brain != 0`` when given, else ``healthy > 0``.

    Parameters
    ----------
    healthy : numpy.ndarray
        The healthy original.
    brain : numpy.ndarray, optional
        A brain mask given for every case.

    Returns
    -------
    numpy.ndarray
        Bool mask.

    Examples
    --------
    >>> case_brain(np.array([0.0, 2.0, -1.0])).tolist()
    [False, True, False]
    """
    if brain is not None:
        return np.asarray(brain) != 0
    return np.asarray(healthy) > 0


@dataclass(frozen=True)
class CaseProblem:
    """Why a case cannot give finite metrics: which of its arrays, what, what to do."""

    role: Role
    problem: str
    hint: str


def check_recon_case(
    scan: np.ndarray,
    healthy: np.ndarray,
    recon: np.ndarray,
    *,
    brain: np.ndarray | None = None,
    region: np.ndarray | None = None,
) -> CaseProblem | None:
    """Return the first reason the arrays of one case cannot give finite metrics (None: none).

    The one rule of which cases are measured, checked before any metric:

    1. every voxel of the input, healthy original, reconstruction and region is finite
       (anywhere: SSIM's window, the residual and the score map spread a NaN), and the
       region is a binary mask (:func:`binary_mask_problem`; its nonzero voxels are the
       anomaly);
    2. the brain mask (``brain`` given, else ``healthy > 0``, :func:`case_brain`) has a
       voxel: an all-zero healthy original has none;
    3. the healthy original is not constant inside the brain (its range is the
       ``data_range`` of PSNR and SSIM).

    Parameters
    ----------
    scan : numpy.ndarray
        The input (healthy or with a simulated anomaly).
    healthy : numpy.ndarray
        The healthy original.
    recon : numpy.ndarray
        The method's reconstruction.
    brain : numpy.ndarray, optional
        A brain mask given for every case.
    region : numpy.ndarray, optional
        The anomaly region.

    Returns
    -------
    CaseProblem or None
        Which array fails, how, and what to do; None when the case can be measured.

    Examples
    --------
    >>> ok = np.arange(1.0, 9.0)
    >>> check_recon_case(ok, ok, ok) is None
    True
    >>> check_recon_case(ok, np.zeros(8), ok)
    CaseProblem(role='healthy', problem='is all zero: no brain mask (its voxels above 0)', hint='check it, or give a brain mask')
    """
    arrays: tuple[tuple[Role, np.ndarray | None], ...] = (
        ("input", scan), ("healthy", healthy), ("recon", recon), ("region", region),
    )  # fmt: skip
    for role, data in arrays:
        bad = "" if data is None else non_finite_voxels(data)
        if bad:
            return CaseProblem(role, bad, "no finite metric with it: fix or re-create the file")
    not_binary = "" if region is None else binary_mask_problem(region)
    if not_binary:
        return CaseProblem("region", not_binary, "give the anomaly region as a 0/1 mask")
    inside = case_brain(healthy, brain)
    values = np.asarray(healthy)[inside]
    if values.size == 0:
        return _empty_brain(healthy, given=brain is not None)
    if values.min() == values.max():
        return CaseProblem(
            "healthy",
            f"is constant ({float(values.flat[0]):g}) inside the brain mask",
            "PSNR and SSIM need a healthy original whose values vary",
        )
    return None


def _empty_brain(healthy: np.ndarray, *, given: bool) -> CaseProblem:
    if given:
        return CaseProblem("brain", "is empty: no voxel is nonzero", "give a mask of the brain")
    what = "is all zero" if not np.any(healthy) else "has no voxel above 0"
    return CaseProblem(
        "healthy", f"{what}: no brain mask (its voxels above 0)", "check it, or give a brain mask"
    )


def healthy_data_range(healthy: np.ndarray, brain: np.ndarray) -> float:
    """``max - min`` of the healthy original inside the brain mask (the ``data_range``).

    Parameters
    ----------
    healthy : numpy.ndarray
        The healthy original.
    brain : numpy.ndarray
        The brain mask.

    Returns
    -------
    float
        The range.

    Raises
    ------
    ValueError
        When the mask is empty.

    Examples
    --------
    >>> healthy_data_range(np.array([5.0, 1.0, 3.0]), np.array([False, True, True]))
    2.0
    """
    inside = np.asarray(healthy, dtype=np.float64)[np.asarray(brain, dtype=bool)]
    if inside.size == 0:
        raise ValueError("the brain mask is empty")
    return float(inside.max() - inside.min())


def ssim_map(healthy: np.ndarray, recon: np.ndarray, *, data_range: float) -> np.ndarray:
    """scikit-image's SSIM map of ``recon`` against ``healthy`` (float64, same shape).

    Parameters
    ----------
    healthy, recon : numpy.ndarray
        The healthy original and the reconstruction.
    data_range : float
        The value range of SSIM (:func:`healthy_data_range`).

    Returns
    -------
    numpy.ndarray
        The local SSIM of each voxel.

    Raises
    ------
    ValueError
        When the shapes differ or an axis is shorter than SSIM's window.

    Examples
    --------
    >>> image = np.random.default_rng(0).random((8, 8))
    >>> float(ssim_map(image, image, data_range=1.0).min())
    1.0
    """
    from skimage.metrics import structural_similarity

    a, b = np.asarray(healthy, dtype=np.float64), np.asarray(recon, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} and {b.shape}")
    if min(a.shape) < SSIM_WINDOW:
        raise ValueError(f"SSIM needs at least {SSIM_WINDOW} voxels along each axis, got {a.shape}")
    _, full = structural_similarity(a, b, data_range=float(data_range), full=True)
    return np.asarray(full, dtype=np.float64)


def _inner(shape: tuple[int, ...]) -> np.ndarray:
    """Voxels at least ``SSIM_WINDOW // 2`` from every border (scikit-image's mean)."""
    pad = (SSIM_WINDOW - 1) // 2
    inner = np.zeros(shape, dtype=bool)
    inner[tuple(slice(pad, n - pad) for n in shape)] = True
    return inner


def recon_metrics(
    healthy: np.ndarray,
    recon: np.ndarray,
    mask: np.ndarray,
    *,
    data_range: float,
    ssim: np.ndarray | None = None,
) -> ReconMetrics:
    """MSE, MAE, PSNR and SSIM of ``recon`` against ``healthy`` inside ``mask``.

    Parameters
    ----------
    healthy, recon : ndarray
        The healthy original and the reconstruction (same shape).
    mask : ndarray of bool
        Where to measure (the brain, or the anomaly region). An empty mask gives NaN.
    data_range : float
        The peak of PSNR and SSIM (:func:`healthy_data_range`).
    ssim : ndarray, optional
        A precomputed :func:`ssim_map` of the pair (so two masks share one map).

    Returns
    -------
    ReconMetrics
        MSE, MAE, PSNR, SSIM, the voxel count and the data range.

    Examples
    --------
    >>> healthy, recon = np.zeros((8, 8)), np.full((8, 8), 0.1)
    >>> found = recon_metrics(healthy, recon, np.ones((8, 8), bool), data_range=1.0)
    >>> round(found.mse, 6), round(found.mae, 6), round(found.psnr, 6)
    (0.01, 0.1, 20.0)
    """
    a, b = np.asarray(healthy, dtype=np.float64), np.asarray(recon, dtype=np.float64)
    inside = np.asarray(mask, dtype=bool)
    if not (a.shape == b.shape == inside.shape):
        raise ValueError(f"shapes differ: {a.shape}, {b.shape} and mask {inside.shape}")
    dr = float(data_range)
    count = int(inside.sum())
    if count == 0:
        return ReconMetrics(math.nan, math.nan, math.nan, math.nan, 0, dr)
    diff = b[inside] - a[inside]
    mse, mae = float(np.mean(diff * diff)), float(np.mean(np.abs(diff)))
    if not (dr > 0 and math.isfinite(mse)):
        return ReconMetrics(mse, mae, math.nan, math.nan, count, dr)
    psnr = math.inf if mse == 0 else 10.0 * math.log10(dr * dr / mse)
    full = ssim_map(a, b, data_range=dr) if ssim is None else ssim
    kept = full[inside & _inner(inside.shape)]
    value = float(kept.mean()) if kept.size else math.nan
    return ReconMetrics(mse, mae, psnr, value, count, dr)


def residual_map(scan: np.ndarray, recon: np.ndarray) -> np.ndarray:
    """Return the anomaly map of a reconstruction: ``|scan - recon|`` (float32).

    Parameters
    ----------
    scan : numpy.ndarray
        The input.
    recon : numpy.ndarray
        Its reconstruction.

    Returns
    -------
    numpy.ndarray
        float32 map of the same shape.

    Raises
    ------
    ValueError
        When the shapes differ.
    """
    a, b = np.asarray(scan, dtype=np.float64), np.asarray(recon, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} and {b.shape}")
    return np.abs(a - b).astype(np.float32)


def residual_scale(residual: np.ndarray, brain: np.ndarray) -> float:
    """Return a robust maximum of the residual: its 99.9th percentile inside the brain.

    Parameters
    ----------
    residual : numpy.ndarray
        A residual map.
    brain : numpy.ndarray
        The brain mask.

    Returns
    -------
    float
        The percentile (``RESIDUAL_QUANTILE``), 0.0 for an empty mask.

    Examples
    --------
    >>> residual_scale(np.arange(1001.0), np.ones(1001, bool))
    999.0
    """
    inside = np.asarray(residual, dtype=np.float64)[np.asarray(brain, dtype=bool)]
    return float(np.quantile(inside, RESIDUAL_QUANTILE)) if inside.size else 0.0


def residual_scores(residual: np.ndarray, brain: np.ndarray, *, scale: float) -> np.ndarray:
    """Return a MOOD score map: ``clip(residual / scale, 0, 1)`` in the brain, 0 outside (float32).

    A scale of 0 (nothing differs anywhere) gives a map of zeros.

    Parameters
    ----------
    residual : numpy.ndarray
        A residual map.
    brain : numpy.ndarray
        The brain mask.
    scale : float
        The divisor (non-negative, finite).

    Returns
    -------
    numpy.ndarray
        float32 scores in [0, 1].

    Raises
    ------
    ValueError
        When ``scale`` is negative or not finite.

    Examples
    --------
    >>> residual_scores(np.array([0.5, 1.0, 4.0, 9.0]), np.array([1, 1, 1, 0], bool), scale=2.0).tolist()
    [0.25, 0.5, 1.0, 0.0]
    """
    value = float(scale)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"scale must be a non-negative number, got {scale!r}")
    res = np.asarray(residual, dtype=np.float64)
    if value == 0:
        return np.zeros(res.shape, dtype=np.float32)
    scores = np.clip(res / value, 0.0, 1.0) * np.asarray(brain, dtype=bool)
    return scores.astype(np.float32)
