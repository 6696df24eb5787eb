"""Size and contrast sweeps (the MOOD paper's Fig. 4): one sphere at a fixed position.

A *size* sweep puts a sphere of each radius (``radii``) with one intensity at one centre;
a *contrast* sweep a sphere of one radius with each intensity (``intensities``). Each value
gives one case; its ground truth is the sphere. Pure: the cases are yielded one at a time
(a 256^3 scan times 17 radii never sits in memory at once) and written elsewhere.

Policies
--------
- Radius in voxels, Euclidean (:func:`~napari_mood.core.simulate.make_region_mask`):
  radius 0 is the centre voxel alone; a sphere reaching past the volume is cut there (its
  ground truth is what remains inside).
- The centre is by default the centre of mass of the body (``scan > 0``), rounded to the
  nearest voxel; a given centre is used as is.
- The intensity replaces the scan's values inside the sphere (as ``simulate``'s spheres).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import ndimage as ndi

from napari_mood.core._checks import check_choice
from napari_mood.core.simulate import make_region_mask
from napari_mood.core.simulate.placement import as_scan, check_center, check_unit

__all__ = [
    "PRESETS",
    "SWEEP_KINDS",
    "SweepCase",
    "SweepKind",
    "SweepPreset",
    "MAX_RADIUS",
    "MAX_VALUES",
    "body_centre",
    "check_values",
    "default_values",
    "parse_values",
    "sweep_cases",
]

SweepKind = Literal["size", "contrast"]
SWEEP_KINDS: tuple[SweepKind, ...] = ("size", "contrast")


@dataclass(frozen=True)
class SweepPreset:
    """Default sweep values of a body region (MOOD paper: brain 0-80, abdomen 0-160 voxels)."""

    max_radius: int
    radius_step: int
    contrast_radius: int


PRESETS: dict[str, SweepPreset] = {
    "brain": SweepPreset(max_radius=80, radius_step=5, contrast_radius=20),
    "abdomen": SweepPreset(max_radius=160, radius_step=10, contrast_radius=40),
}
INTENSITY_STEP = 0.05
SIZE_INTENSITY = 1.0
MAX_VALUES = 1_000
"""The most values a sweep takes (each value is one case written)."""
MAX_RADIUS = 1_000.0
"""The largest sphere radius, in voxels (beyond any scan: every voxel would be anomalous)."""


@dataclass(frozen=True)
class SweepCase:
    """One case of a sweep: its name, the sphere's parameters and its voxel count."""

    name: str
    kind: SweepKind
    radius: float
    intensity: float
    center: tuple[int, ...]
    voxels: int

    @property
    def value(self) -> float:
        """The swept parameter: the radius (size) or the intensity (contrast)."""
        return self.radius if self.kind == "size" else self.intensity


def parse_values(text: str) -> tuple[float, ...]:
    """``"0,5,10"`` or ``"0:80:5"`` (start:stop:step, stop included) as sorted values.

    At most :data:`MAX_VALUES` values (each is a case): a range is counted before it is
    built, so ``0:1e12:1`` is refused at once. A listed value given twice (two identical
    cases) and an empty item (``5,,6``) are refused.

    Parameters
    ----------
    text : str
        A list or range of values.

    Returns
    -------
    tuple of float
        The values, ascending.

    Raises
    ------
    ValueError
        When the text does not parse, a value repeats, or there are too many values.

    Examples
    --------
    >>> parse_values("0:20:5"), parse_values("0.5,0.1")
    ((0.0, 5.0, 10.0, 15.0, 20.0), (0.1, 0.5))
    >>> parse_values("5,5")
    Traceback (most recent call last):
    ...
    ValueError: value 5 given twice in '5,5': give each value once
    >>> parse_values("0:80:1e-300")
    Traceback (most recent call last):
    ...
    ValueError: '0:80:1e-300' gives more than 1,000 values (one case each): use a larger STEP
    """
    text = text.strip()
    values = _range_values(text) if ":" in text else _listed_values(text)
    if not values or not all(math.isfinite(v) for v in values):
        raise ValueError(f"expected finite numbers, got {text!r}")
    found = tuple(sorted(set(values)))
    if len(found) < len(values):
        twice = next(v for v in found if values.count(v) > 1)
        raise ValueError(f"value {twice:g} given twice in {text!r}: give each value once")
    if len(found) > MAX_VALUES:
        raise ValueError(f"{len(found):,} values given, at most {MAX_VALUES:,} (one case each)")
    return found


def _range_values(text: str) -> list[float]:
    try:
        start, stop, step = (float(p) for p in text.split(":"))
    except ValueError as exc:
        raise ValueError(f"expected START:STOP:STEP, got {text!r}") from exc
    if not all(math.isfinite(v) for v in (start, stop, step)):
        raise ValueError(f"expected finite numbers, got {text!r}")
    if not (step > 0 and stop >= start):
        raise ValueError(f"need STEP > 0 and STOP >= START, got {text!r}")
    steps = (stop - start) / step
    if not steps < MAX_VALUES:  # also inf
        raise ValueError(
            f"{text!r} gives more than {MAX_VALUES:,} values (one case each): use a larger STEP"
        )
    count = int(math.floor(steps + 1e-9)) + 1
    return [round(start + i * step, 10) for i in range(count)]


def _listed_values(text: str) -> list[float]:
    items = text.split(",")
    if len(items) > 1 and not all(p.strip() for p in items):
        raise ValueError(f"an empty item in {text!r} (a comma too many?): give numbers only")
    try:
        return [float(p) for p in items]
    except ValueError as exc:
        raise ValueError(f"expected numbers separated by commas, got {text!r}") from exc


def default_values(kind: SweepKind, preset: str = "brain") -> tuple[float, ...]:
    """Radii ``0, step, ..., max`` (size) or intensities ``0.0, 0.05, ..., 1.0`` (contrast).

    Parameters
    ----------
    kind : {"size", "contrast"}
        The sweep.
    preset : str
        The body part, which sets the radii (``PRESETS``).

    Returns
    -------
    tuple of float
        The values.

    Examples
    --------
    >>> len(default_values("size")), default_values("size", "abdomen")[-1]
    (17, 160.0)
    >>> default_values("contrast")[:3], len(default_values("contrast"))
    ((0.0, 0.05, 0.1), 21)
    """
    check_choice("kind", kind, SWEEP_KINDS)
    check_choice("preset", preset, tuple(PRESETS))
    if kind == "contrast":
        return tuple(round(i * INTENSITY_STEP, 10) for i in range(round(1 / INTENSITY_STEP) + 1))
    p = PRESETS[preset]
    return tuple(float(r) for r in range(0, p.max_radius + 1, p.radius_step))


def body_centre(scan: np.ndarray) -> tuple[int, ...]:
    """Return the voxel at the centre of mass of ``scan > 0`` (the volume's centre if empty).

    Parameters
    ----------
    scan : numpy.ndarray
        The scan.

    Returns
    -------
    tuple of int
        The centre voxel.

    Examples
    --------
    >>> scan = np.zeros((5, 7)); scan[1:4, 4:7] = 1
    >>> body_centre(scan)
    (2, 5)
    """
    body = np.asarray(scan) > 0
    if not body.any():
        return tuple(n // 2 for n in body.shape)
    centre = ndi.center_of_mass(body)
    return tuple(int(np.clip(round(c), 0, n - 1)) for c, n in zip(centre, body.shape, strict=True))


def check_values(kind: SweepKind, values: Sequence[float]) -> tuple[float, ...]:
    """Radii (``size``: 0 .. :data:`MAX_RADIUS` voxels) or intensities (``contrast``: in [0, 1]).

    Parameters
    ----------
    kind : {"size", "contrast"}
        The sweep.
    values : sequence of float
        The radii or intensities.

    Returns
    -------
    tuple of float
        The values.

    Raises
    ------
    ValueError
        When there is no value or one is out of range.

    Examples
    --------
    >>> check_values("contrast", [1.5])
    Traceback (most recent call last):
    ...
    ValueError: intensity must lie in [0, 1], got 1.5
    """
    if not values:
        raise ValueError("a sweep needs at least one value")
    for v in values:
        if kind == "size" and not (math.isfinite(v) and 0 <= v <= MAX_RADIUS):
            raise ValueError(f"radii must be >= 0 and <= {MAX_RADIUS:,g} voxels, got {v:g}")
        if kind == "contrast":
            check_unit("intensity", v)
    return tuple(float(v) for v in values)


def sweep_cases(
    scan: np.ndarray,
    values: Sequence[float],
    *,
    kind: SweepKind,
    center: Sequence[int] | None = None,
    radius: float = 20.0,
    intensity: float = SIZE_INTENSITY,
    prefix: str | None = None,
) -> Iterator[tuple[SweepCase, np.ndarray, np.ndarray]]:
    """Yield ``(case, scan, mask)`` for each sweep value, in the order of ``values``.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D scan with values in [0, 1]. Not modified.
    values : sequence of float
        Radii in voxels (``kind="size"``) or intensities in [0, 1] (``"contrast"``).
    kind : {"size", "contrast"}
    center : sequence of int, optional
        Voxel index of the sphere's centre (default :func:`body_centre`).
    radius : float
        Radius of the contrast sweep's sphere.
    intensity : float
        Intensity of the size sweep's sphere.
    prefix : str, optional
        Start of the case names (default: the kind): ``size_000``, ``size_001``, ...

    Yields
    ------
    tuple
        ``(SweepCase, scan, mask)``: the case, the scan with its sphere, and the sphere.

    Examples
    --------
    >>> scan = np.full((9, 9, 9), 0.5)
    >>> [(c.radius, c.voxels) for c, _, _ in sweep_cases(scan, [0, 1, 2], kind="size")]
    [(0.0, 1), (1.0, 7), (2.0, 33)]
    """
    check_choice("kind", kind, SWEEP_KINDS)
    arr = as_scan(scan)
    checked = check_values(kind, values)
    point = body_centre(arr) if center is None else check_center(center, arr.shape)
    fixed_intensity = check_unit("intensity", intensity)
    if not (math.isfinite(radius) and radius >= 0):
        raise ValueError(f"radius must be >= 0 voxels, got {radius!r}")
    for index, value in enumerate(checked):
        r, v = (value, fixed_intensity) if kind == "size" else (float(radius), value)
        mask = make_region_mask(arr.shape, point, r, region="sphere")
        out = arr.copy()
        out[mask] = v
        name = f"{prefix or kind}_{index:03d}"
        yield SweepCase(name, kind, r, v, point, int(mask.sum())), out, mask
