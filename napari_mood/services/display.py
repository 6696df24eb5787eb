"""Display data for a viewer: small copies of scans and maps, and multiscale pyramids.

A viewer needs far less than 4 bytes per voxel to *show* a volume, while scoring needs the
exact values. These building blocks make the shown data small and leave the exact arrays
untouched (the caller keeps them for scoring):

:func:`display_copy`
    ``"float16"`` (default): a map becomes exactly its MOOD reading (float16 clipped to
    [0, 1], :func:`~napari_mood.core.scores.to_mood_scores`), so a contrast limit from
    :func:`~napari_mood.core.scores.display_threshold` shows exactly the flagged voxels;
    a scan becomes float16 saturated at +-65504. ``"uint8"`` / ``"uint16"``: the values
    are mapped linearly from ``limits`` (maps: [0, 1]; scans: their finite min and max)
    to the integer range, rounded; :meth:`DisplayCopy.to_value` maps back. Integer
    display is an approximation of the values, for scans or when memory is tight.
    NaN is shown as 0 (displays never fail on NaN; scoring decides the NaN policy).

:func:`build_pyramid`
    Levels downsampled by 2 along every axis until the largest edge is at most
    ``min_size``: ``"max"`` pooling for maps and masks (a one-voxel hot spot or lesion
    stays visible at every level), ``"mean"`` for scans (smooth intensities). Level 0 is
    the input itself (no copy); odd edges keep their last voxel. At 512^3 the levels are
    512, 256, 128, 64 (1 + 1/8 + 1/64 + ... of level 0: the pyramid costs 14 % more than
    the data), and a 3-D view can use the level picked by :func:`level_for_volume`.

Work is done in slabs along the slowest axis in memory (the last of a Fortran-ordered
NIfTI volume), so no full-size float32/float64 temporary is made at any level and each
slab is one contiguous block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_choice
from napari_mood.core.curves import memory_order_axes
from napari_mood.core.orientation import (
    DisplayTransform,
    edge_letters,
    facing_letters,
    plane_view,
    screen_flips,
)
from napari_mood.core.scores import to_mood_scores
from napari_mood.io._pages import empty_kept

__all__ = [
    "DisplayTransform",
    "edge_letters",
    "facing_letters",
    "plane_view",
    "screen_flips",
    "DisplayCopy",
    "DisplayDtype",
    "DisplayKind",
    "PoolMethod",
    "build_pyramid",
    "display_copy",
    "display_range",
    "level_for_volume",
]

DisplayKind = Literal["map", "scan"]
DisplayDtype = Literal["float16", "uint8", "uint16"]
PoolMethod = Literal["max", "mean"]
_SLAB_VOXELS = 1 << 20  # voxels converted per step: bounds the temporaries
_F16_MAX = float(np.finfo(np.float16).max)


@dataclass(frozen=True, eq=False)
class DisplayCopy:
    """A display array and how its values relate to the exact ones.

    ``value = offset + step * data`` (``offset=0, step=1`` for float16 data).
    ``contrast_limits`` are in display units and show the whole ``limits`` range.
    """

    data: np.ndarray
    offset: float
    step: float
    limits: tuple[float, float]

    @property
    def contrast_limits(self) -> tuple[float, float]:
        """Contrast limits (display units) spanning ``limits``."""
        return self.to_display(self.limits[0]), self.to_display(self.limits[1])

    def to_display(self, value: float) -> float:
        """Return a value (e.g. a threshold) in display units.

        Parameters
        ----------
        value : float
            A value in the data's units.

        Returns
        -------
        float
            The value in display units.
        """
        return (float(value) - self.offset) / self.step

    def to_value(self, shown: float) -> float:
        """Return a display value back in the data's units.

        Parameters
        ----------
        shown : float
            A value in display units.

        Returns
        -------
        float
            The value in the data's units.
        """
        return self.offset + self.step * float(shown)


def _slabs(shape: tuple[int, ...]) -> list[slice]:
    if not shape:
        return [slice(None)]
    per_row = max(1, int(np.prod(shape[1:], dtype=np.int64)))
    rows = max(1, _SLAB_VOXELS // per_row)
    return [slice(i, i + rows) for i in range(0, shape[0], rows)] or [slice(0, 0)]


def display_range(data: np.ndarray) -> tuple[float, float]:
    """Return the finite minimum and maximum of ``data``: the range a scan opens with.

    NaN and +-inf are skipped; all-non-finite (or empty) data gives ``(0, 1)``, constant
    data ``(v, v + 1)``, so the range can always be drawn. Read slab by slab in memory
    order (no full-size temporary); float16 data is compared on its bit patterns, made
    order-preserving as int16, which numpy compares far faster than float16.

    Parameters
    ----------
    data : numpy.ndarray
        A scan or map of any real type.

    Returns
    -------
    tuple of float
        ``(low, high)`` with ``low < high``.

    Examples
    --------
    >>> display_range(np.array([np.nan, -2.0, np.inf, 3.5], np.float16))
    (-2.0, 3.5)
    >>> display_range(np.full(4, 7.0)), display_range(np.array([np.nan]))
    ((7.0, 8.0), (0.0, 1.0))
    """
    arr = np.asarray(data)
    src = arr.transpose(memory_order_axes(arr)) if arr.ndim else arr.reshape(1)
    lo, hi = np.inf, -np.inf
    for rows in _slabs(src.shape):
        part_lo, part_hi = _slab_range(np.asarray(src[rows]))
        lo, hi = min(lo, part_lo), max(hi, part_hi)
    if lo > hi:
        return 0.0, 1.0
    return (lo, hi) if hi > lo else (lo, lo + 1.0)


_F16_FINITE_KEYS = (-0x7C00, 0x7BFF)  # order keys of -65504 and +65504 (see _float16_keys)


def _slab_range(part: np.ndarray) -> tuple[float, float]:
    """Finite min and max of one slab; ``(inf, -inf)`` if it has no finite value."""
    if not part.size:
        return np.inf, -np.inf
    if part.dtype == np.float16:
        keys = _float16_keys(part)
        low, high = int(keys.min()), int(keys.max())
        if low < _F16_FINITE_KEYS[0] or high > _F16_FINITE_KEYS[1]:  # +-inf or NaN: skip
            keys = keys[(keys >= _F16_FINITE_KEYS[0]) & (keys <= _F16_FINITE_KEYS[1])]
            if not keys.size:
                return np.inf, -np.inf
            low, high = int(keys.min()), int(keys.max())
        return _float16_value(low), _float16_value(high)
    if part.dtype.kind == "f":
        part = part[np.isfinite(part)]
    if not part.size:
        return np.inf, -np.inf
    return float(part.min()), float(part.max())


def _float16_keys(part: np.ndarray) -> np.ndarray:
    """float16 bit patterns as int16 keys ordered like the values (negatives flipped)."""
    bits = np.ascontiguousarray(part).view(np.int16)
    keys = bits >> 15  # -1 where negative, else 0
    keys &= np.int16(0x7FFF)
    keys ^= bits
    return keys


def _float16_value(key: int) -> float:
    bits = key ^ 0x7FFF if key < 0 else key
    return float(np.array(bits, np.int16).view(np.float16))


def _float16_slab(part: np.ndarray, kind: DisplayKind) -> np.ndarray:
    if part.dtype.kind == "f" and np.isnan(part).any():
        part = np.nan_to_num(part, nan=0.0)
    if kind == "map":
        return to_mood_scores(part)
    return np.clip(part, -_F16_MAX, _F16_MAX).astype(np.float16)


def _integer_slab(part: np.ndarray, dtype: np.dtype, lo: float, step: float) -> np.ndarray:
    top = np.iinfo(dtype).max
    scaled = (np.nan_to_num(part.astype(np.float64), nan=lo) - lo) / step  # a slab: bounded
    return np.clip(np.rint(scaled), 0, top).astype(dtype)


def display_copy(
    data: np.ndarray,
    *,
    kind: DisplayKind = "map",
    dtype: DisplayDtype = "float16",
    limits: tuple[float, float] | None = None,
) -> DisplayCopy:
    """Return a small copy of ``data`` to show (see the module docstring).

    Parameters
    ----------
    data : ndarray
        A score map or a scan (any real dtype); never modified.
    kind : {"map", "scan"}
        Maps are clipped to [0, 1] as MOOD reads them; scans keep their range.
    dtype : {"float16", "uint8", "uint16"}
        Display dtype.
    limits : (float, float), optional
        Value range of integer display (default: [0, 1] for maps, the finite min/max
        of a scan). Ignored for float16.

    Returns
    -------
    DisplayCopy
        The copy and how its values map back to the data's.

    Examples
    --------
    >>> shown = display_copy(np.array([0.3, 2.0, -1.0]))
    >>> shown.data.dtype, shown.data.tolist()
    (dtype('float16'), [0.300048828125, 1.0, 0.0])
    >>> small = display_copy(np.array([0.0, 0.5, 1.0]), dtype="uint8")
    >>> small.data.tolist(), small.to_value(small.data[1])
    ([0, 128, 255], 0.5019607843137255)
    """
    check_choice("kind", kind, get_args(DisplayKind))
    check_choice("dtype", dtype, get_args(DisplayDtype))
    arr = np.asarray(data)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"display data must hold real numbers, got dtype {arr.dtype}")
    order = memory_order_axes(arr)  # slabs along the slowest axis in memory (F-ordered NIfTI)
    src = arr.transpose(order)
    out_t = np.empty(src.shape, dtype=np.dtype(dtype))
    out = out_t.transpose(np.argsort(order))  # the input's axes and memory order
    if dtype == "float16":
        for rows in _slabs(src.shape):
            out_t[rows] = _float16_slab(np.asarray(src[rows]), kind)
        return DisplayCopy(out, 0.0, 1.0, (0.0, 1.0) if kind == "map" else display_range(src))
    lo, hi = limits if limits is not None else (0.0, 1.0) if kind == "map" else display_range(src)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        lo, hi = (lo, lo + 1.0) if np.isfinite(lo) else (0.0, 1.0)  # constant data
    step = (float(hi) - float(lo)) / np.iinfo(out.dtype).max
    for rows in _slabs(src.shape):
        out_t[rows] = _integer_slab(np.asarray(src[rows]), out.dtype, float(lo), step)
    return DisplayCopy(out, float(lo), step, (float(lo), float(hi)))


def _pairs(arr: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Even and odd entries along ``axis`` (same length) and the unpaired last one."""
    n = arr.shape[axis]
    index: list[slice | int] = [slice(None)] * arr.ndim

    def take(s: slice | int) -> np.ndarray:
        index[axis] = s
        return arr[tuple(index)]

    last = np.expand_dims(take(n - 1), axis) if n % 2 else None
    return take(slice(0, n - 1, 2)), take(slice(1, n, 2)), last


def _pool_axis(arr: np.ndarray, axis: int, method: PoolMethod) -> np.ndarray:
    even, odd, last = _pairs(arr, axis)
    if method == "max":
        pooled = np.maximum(even, odd)
    else:
        pooled = (even.astype(np.float32) + odd) * np.float32(0.5)
    if last is not None:
        pooled = np.concatenate([pooled, last.astype(pooled.dtype)], axis=axis)
    return pooled


def _downsample(arr: np.ndarray, method: PoolMethod) -> np.ndarray:
    """One pyramid step: pool pairs along every axis, slab by slab in memory order.

    The slabs run along the slowest axis in memory (a Fortran-ordered NIfTI volume's last),
    so each is one contiguous block, and that axis is pooled first (whole planes paired):
    the strided pairs of the fastest axis are only an eighth of the data by then. The
    result has the input's memory order; pairs are always counted from index 0 of each
    axis, whatever its direction in memory, so level ``k``'s voxel ``i`` covers level 0's
    voxels ``2^k i ... 2^k (i + 1) - 1`` (an odd edge keeps its last voxel alone).
    """
    axes = memory_order_axes(arr)
    src = arr.transpose(axes)
    out = empty_kept(tuple((n + 1) // 2 for n in src.shape), arr.dtype)  # kept: a level
    rows = max(2, 2 * (_slabs(src.shape)[0].stop // 2))  # even: slabs start on a pair
    for start in range(0, max(1, src.shape[0]), rows):
        pooled = _pool_slab(np.asarray(src[start : start + rows]), method)
        out[start // 2 : start // 2 + pooled.shape[0]] = pooled
    return out.transpose(np.argsort(axes))


def _pool_slab(part: np.ndarray, method: PoolMethod) -> np.ndarray:
    as_codes = method == "max" and part.dtype == np.float16 and _non_negative(part)
    work = part.view(np.uint16) if as_codes else part  # float16 max is slow in numpy
    for axis in range(work.ndim):
        if work.shape[axis] > 1:
            work = _pool_axis(work, axis, method)
    if as_codes:
        return work.view(np.float16)
    if part.dtype.kind in "biu" and work.dtype.kind == "f":
        work = np.rint(work)
    return work.astype(part.dtype, copy=False)


def _non_negative(part: np.ndarray) -> bool:
    """Return whether float16 data has no negative value or NaN (uint16 order = value order)."""
    return part.size == 0 or int(part.view(np.uint16).max()) <= 0x7C00


def build_pyramid(
    data: np.ndarray, *, method: PoolMethod = "max", min_size: int = 64
) -> list[np.ndarray]:
    """Return ``[data, data/2, data/4, ...]`` until the largest edge is ``<= min_size``.

    Parameters
    ----------
    data : ndarray
        2-D or 3-D array (the display copy of a map, a scan or a mask).
    method : {"max", "mean"}
        ``"max"`` for maps and masks (small hot spots stay visible), ``"mean"`` for scans.
    min_size : int
        Stop once the largest edge is at most this (>= 1).

    Returns
    -------
    list of numpy.ndarray
        The levels, finest first (``data`` itself first).

    Examples
    --------
    >>> spot = np.zeros((8, 8), dtype=np.float16); spot[5, 6] = 0.9
    >>> levels = build_pyramid(spot, min_size=2)
    >>> [lv.shape for lv in levels], float(levels[-1].max())
    ([(8, 8), (4, 4), (2, 2)], 0.89990234375)
    """
    check_choice("method", method, get_args(PoolMethod))
    if min_size < 1:
        raise ValueError(f"min_size must be >= 1; got {min_size}")
    arr = np.asarray(data)
    levels = [arr]
    while max(levels[-1].shape, default=0) > min_size:
        levels.append(_downsample(levels[-1], method))
    return levels


def level_for_volume(levels: list[np.ndarray], *, max_voxels: int = 256**3) -> int:
    """Index of the finest level with at most ``max_voxels`` voxels (the last if none).

    Parameters
    ----------
    levels : list of numpy.ndarray
        A pyramid, finest first.
    max_voxels : int
        The largest level size wanted.

    Returns
    -------
    int
        The level's index.

    Examples
    --------
    >>> levels = build_pyramid(np.zeros((64, 64, 64), np.uint8), min_size=8)
    >>> [lv.shape[0] for lv in levels], level_for_volume(levels, max_voxels=16**3)
    ([64, 32, 16, 8], 2)
    """
    for index, level in enumerate(levels):
        if level.size <= max_voxels:
            return index
    return len(levels) - 1
