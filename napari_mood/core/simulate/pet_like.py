"""A PET-like scan and a coarse lobe atlas made from a T1 MRI: *simulated* data for demos.

Nothing here is a real FDG-PET scan or a real atlas. :func:`pet_like_scan` turns a
T1-weighted brain MRI with intensities in [0, 1] (the bundled sample, MNI template
derived) into an image whose contrast resembles FDG uptake (grey matter brightest, white
matter about a third of it, CSF dark), blurred to PET resolution; :func:`box_atlas` cuts
the brain into coarse lobe-like boxes by MNI coordinates. They let the reconstruction
framework (simulation, reconstruction metrics, statistics) run end to end on the package's
own data, in tests and demos.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy import ndimage as ndi

from napari_mood.core.simulate.hypometabolism import fwhm_to_sigma
from napari_mood.core.simulate.placement import Seed

__all__ = [
    "ATLAS_LABELS",
    "PET_FWHM_MM",
    "box_atlas",
    "pet_like_scan",
    "template_brain",
    "template_problem",
    "template_reconstruction",
]

T1_TO_UPTAKE = (
    (0.0, 0.30, 0.55, 0.72, 0.85, 1.0),  # T1 intensity (sample data: CSF < 0.3, GM ~0.7, WM ~0.9)
    (0.0, 0.10, 0.60, 1.00, 0.45, 0.35),  # relative uptake
)
"""Piecewise-linear map from T1 intensity to PET-like uptake."""

PET_FWHM_MM = 6.0
"""Resolution the PET-like scan is blurred to (a typical reconstructed brain PET)."""

ATLAS_LABELS: Mapping[int, str] = {
    1: "left frontal",
    2: "right frontal",
    3: "left parietal",
    4: "right parietal",
    5: "left temporal",
    6: "right temporal",
    7: "left occipital",
    8: "right occipital",
    9: "cerebellum and deep",
}
"""Labels of :func:`box_atlas` (coarse boxes in MNI space, not anatomy)."""


def pet_like_scan(
    t1: np.ndarray,
    spacing: tuple[float, ...],
    *,
    fwhm_mm: float = PET_FWHM_MM,
    noise: float = 0.02,
    gain: float = 1.0,
    seed: Seed = None,
) -> np.ndarray:
    """Return a simulated PET-like scan (float32 in [0, 1]) from a T1 MRI in [0, 1].

    Uptake is :data:`T1_TO_UPTAKE` of the T1 intensity, times ``gain`` (a subject's global
    metabolism), blurred with a Gaussian of ``fwhm_mm``; Gaussian noise of standard
    deviation ``noise`` is added inside the brain (``t1 > 0``), the outside stays 0, and
    values are clipped to [0, 1].

    Parameters
    ----------
    t1 : numpy.ndarray
        A T1 MRI in [0, 1], 0 outside the brain.
    spacing : tuple of float
        Voxel size in mm.
    fwhm_mm : float
        Resolution of the simulated scanner.
    noise : float
        Standard deviation of the noise.
    gain : float
        Global uptake factor.
    seed : int or numpy.random.Generator, optional
        Seed of the noise.

    Returns
    -------
    numpy.ndarray
        float32 scan in [0, 1].

    Examples
    --------
    >>> t1 = np.zeros((20, 20, 20))
    >>> t1[5:15, 5:15, 5:15] = 0.72  # "grey matter"
    >>> pet = pet_like_scan(t1, (2.0, 2.0, 2.0), noise=0.0)
    >>> round(float(pet[10, 10, 10]), 2), float(pet[0, 0, 0])
    (1.0, 0.0)
    """
    image = np.asarray(t1, dtype=np.float64)
    brain = image > 0
    uptake = np.interp(image, *T1_TO_UPTAKE) * float(gain)
    blurred = ndi.gaussian_filter(uptake, fwhm_to_sigma(fwhm_mm, spacing), mode="constant")
    rng = np.random.default_rng(seed)
    noisy = blurred + rng.normal(0.0, float(noise), image.shape) * brain
    return np.clip(np.where(brain, noisy, 0.0), 0.0, 1.0).astype(np.float32)


def _world(shape: tuple[int, ...], affine: np.ndarray) -> list[np.ndarray]:
    grid = np.indices(shape, dtype=np.float64).reshape(len(shape), -1)
    world = affine[:3, : len(shape)] @ grid + affine[:3, 3:4]
    return [axis.reshape(shape) for axis in world]


def box_atlas(brain: np.ndarray, affine: np.ndarray) -> np.ndarray:
    """Coarse lobe-like labels (:data:`ATLAS_LABELS`) of a brain mask in MNI space.

    Boxes by world coordinates (mm, RAS): occipital ``y < -70``; cerebellum and deep
    ``z < -25`` and ``y < -40``, or ``|x| < 15`` and ``-40 <= y < 10`` and ``z < 25``;
    temporal ``|x| > 25``, ``-70 <= y < 10`` and ``z < 5``; parietal ``-70 <= y < -20``;
    frontal the rest. Left is ``x < 0``. 0 outside ``brain``. Simulated data only: these
    are boxes, not anatomy.

    Parameters
    ----------
    brain : numpy.ndarray
        A bool brain mask.
    affine : numpy.ndarray
        Its voxel-to-MNI affine.

    Returns
    -------
    numpy.ndarray
        Integer labels of ``brain``'s shape.

    Examples
    --------
    >>> affine = np.diag([10.0, 10.0, 10.0, 1.0])
    >>> affine[:3, 3] = (-50, -100, -30)
    >>> atlas = box_atlas(np.ones((11, 16, 10), bool), affine)
    >>> sorted(np.unique(atlas).tolist())
    [1, 2, 3, 4, 5, 6, 7, 8, 9]
    """
    mask = np.asarray(brain, dtype=bool)
    x, y, z = _world(mask.shape, np.asarray(affine, dtype=np.float64))
    right = (x >= 0).astype(np.int16)
    atlas = 1 + right  # frontal
    atlas = np.where((y >= -70) & (y < -20), 3 + right, atlas)
    atlas = np.where((np.abs(x) > 25) & (y >= -70) & (y < 10) & (z < 5), 5 + right, atlas)
    atlas = np.where(y < -70, 7 + right, atlas)
    deep = ((z < -25) & (y < -40)) | ((np.abs(x) < 15) & (y >= -40) & (y < 10) & (z < 25))
    atlas = np.where(deep, 9, atlas)
    return np.where(mask, atlas, 0).astype(np.int16)


def template_reconstruction(
    scan: np.ndarray, template: np.ndarray, *, brain: np.ndarray | None = None
) -> np.ndarray:
    """Return a toy "pseudo-healthy reconstruction": the healthy template scaled to the scan.

    ``template * mean(scan[brain]) / mean(template[brain])`` (``brain`` defaults to
    ``template > 0``): whatever the input, the output is a healthy-looking image of the
    input's overall intensity. A stand-in for a trained model in tests and demos.

    Parameters
    ----------
    scan : numpy.ndarray
        The input.
    template : numpy.ndarray
        A healthy template on the same grid.
    brain : numpy.ndarray, optional
        Where the means are taken.

    Returns
    -------
    numpy.ndarray
        The scaled template.

    Examples
    --------
    >>> template = np.array([0.0, 1.0, 2.0])
    >>> template_reconstruction(np.array([0.0, 2.0, 2.0]), template).tolist()
    [0.0, 1.3333333333333333, 2.6666666666666665]
    """
    image, model = np.asarray(scan, dtype=np.float64), np.asarray(template, dtype=np.float64)
    if image.shape != model.shape:
        raise ValueError(f"scan shape {image.shape} differs from template shape {model.shape}")
    inside = template_brain(model) if brain is None else np.asarray(brain, dtype=bool)
    reference = float(model[inside].mean()) if inside.any() else 0.0
    if reference == 0.0:
        raise ValueError("the template is 0 everywhere in the brain mask")
    return model * (float(image[inside].mean()) / reference)


def template_brain(template: np.ndarray) -> np.ndarray:
    """Return the default brain of :func:`template_reconstruction`: the template's voxels above 0.

    Parameters
    ----------
    template : numpy.ndarray
        The template.

    Returns
    -------
    numpy.ndarray
        Bool mask.
    """
    return np.asarray(template) > 0


def template_problem(template: np.ndarray) -> str | None:
    """Why ``template`` cannot serve :func:`template_reconstruction` (None when it can).

    A NaN or infinite voxel would be copied into every reconstruction; without a voxel
    above 0 there is no brain to scale.

    Parameters
    ----------
    template : numpy.ndarray
        The template.

    Returns
    -------
    str or None
        The problem in words.

    Examples
    --------
    >>> template_problem(np.array([0.0, 1.0])) is None
    True
    >>> template_problem(np.zeros(3))
    'is 0 everywhere (no voxel above 0: no brain to scale)'
    """
    model = np.asarray(template)
    bad = int(np.count_nonzero(~np.isfinite(model)))
    if bad:
        return (
            f"has {bad:,} NaN or infinite voxels (they would be copied into every reconstruction)"
        )
    if not template_brain(model).any():
        return "is 0 everywhere (no voxel above 0: no brain to scale)"
    return None
