"""Float16 codes of clipped scores computed on the bit patterns (private to ``scores``).

:func:`float_codes` returns, for every voxel, the uint16 bit pattern of
``clip(float16(x), 0, 1)`` with ``-0.0`` read as ``+0.0``: bit for bit what
``x.astype(np.float16)`` followed by a clip gives (the official scorer's reading), for
float32 and float64 input, without any full-size temporary.

How: the input is walked in memory order in chunks of :data:`CHUNK` voxels, so every
temporary fits in the CPU cache. In a chunk the IEEE bit pattern is read as a signed
integer, whose order is the order of the values for non-negative numbers and which is
negative for negative numbers (``-0.0`` and ``-inf`` included): clipping the integer
to ``[0, bits(1.0)]`` is clipping the value to [0, 1]. The float16 pattern of a value in
[0, 1] is then

* a float16 *normal* (value >= 2**-14): drop the extra mantissa bits, rounding to the
  nearest, ties to even, on the integer: ``(w + half - 1 + lsb) >> shift`` minus the
  exponent rebias; a carry out of the mantissa rightly increments the exponent;
* a float16 *subnormal* (value < 2**-14): the code is ``round_half_even(x * 2**24)``,
  obtained exactly by one float32 addition of 0.5 (whose unit in the last place is
  2**-24) and subtracting its pattern.

Float64 is first rounded to float32 by numpy's SIMD cast; the rare voxels where that
double rounding could differ from rounding once are redone by numpy's own cast (see
:func:`_float64_chunk_codes`). NaN is never a score: the caller is told how many there are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

CHUNK = 1 << 18
"""Voxels per step: the few temporaries of one chunk stay in the L2 cache."""
F16_ONE = 0x3C00  # float16 pattern of 1.0
F32_ONE = 0x3F800000  # float32 pattern of 1.0


@dataclass(frozen=True)
class _Layout:
    """Bit layout of one IEEE binary format, as the conversion needs it."""

    signed: type[np.signedinteger]
    one: int  # pattern of 1.0
    shift: int  # mantissa bits dropped to reach float16's 10
    rebias: int  # pattern offset between the format's and float16's exponents
    normal_limit: int  # pattern of 2**-14: at and above it the float16 is normal
    magic: float  # power of two whose ulp is 2**-24 (float16 subnormal step)

    @property
    def round_base(self) -> int:
        """Added before the shift: half an output ulp minus one, minus the rebias."""
        return (1 << (self.shift - 1)) - 1 - self.rebias


_LAYOUTS = {4: _Layout(np.int32, F32_ONE, 13, 112 << 23, 113 << 23, 0.5)}  # float32


def memory_order_axes(arr: np.ndarray) -> tuple[int, ...]:
    """Axes of ``arr`` ordered from largest to smallest stride.

    Axes of ``arr`` from largest to smallest stride: ``arr.transpose(axes)`` is C-ordered
    when ``arr`` is contiguous in any axis order (e.g. Fortran-ordered NIfTI data).
    """
    return tuple(int(a) for a in np.argsort([-abs(st) for st in arr.strides], kind="stable"))


def memory_walk(arr: np.ndarray) -> tuple[tuple[int, ...], tuple[slice, ...]]:
    """Axis order and steps that walk ``arr`` in memory order.

    How to view ``arr`` in memory order: ``arr.transpose(axes)[steps]`` runs forward
    along every axis, largest stride first, so it is C-contiguous whenever ``arr`` is
    contiguous in some axis order and direction (a Fortran-ordered NIfTI volume, or its
    display view with flipped axes). Apply the same walk to arrays of the same shape
    (:func:`walked`) to visit their voxels in the same order.
    """
    axes = memory_order_axes(arr)
    strides = arr.transpose(axes).strides
    return axes, tuple(slice(None, None, -1) if st < 0 else slice(None) for st in strides)


def walked(arr: np.ndarray, walk: tuple[tuple[int, ...], tuple[slice, ...]]) -> np.ndarray:
    """``arr`` viewed along ``walk`` (:func:`memory_walk`), without a copy."""
    axes, steps = walk
    index: tuple[Any, ...] = (Ellipsis, *steps)  # a 0-d array stays an array
    return arr.transpose(axes)[index]


def unwalked(arr: np.ndarray, walk: tuple[tuple[int, ...], tuple[slice, ...]]) -> np.ndarray:
    """Undo :func:`walked`: an array laid out along ``walk`` seen in the original axes."""
    axes, steps = walk
    index: tuple[Any, ...] = (Ellipsis, *steps)
    return arr[index].transpose(tuple(int(a) for a in np.argsort(axes)))


class _Buffers:
    """Chunk-sized work arrays, allocated once per call."""

    def __init__(self, layout: _Layout, dtype: np.dtype, size: int) -> None:
        self.clipped = np.empty(size, dtype=layout.signed)
        self.normal = np.empty(size, dtype=layout.signed)
        self.subnormal = np.empty(size, dtype=dtype)
        self.is_subnormal = np.empty(size, dtype=bool)
        self.single = np.empty(size, dtype=np.float32)


def _chunk_codes(x: np.ndarray, out: np.ndarray, layout: _Layout, buf: _Buffers) -> None:
    """Write the clipped float16 codes of the native float32 chunk ``x`` into ``out``."""
    w = buf.clipped[: x.size]
    np.clip(x.view(layout.signed), 0, layout.one, out=w)
    _codes_from_clipped(w, out, layout, buf)


def _codes_from_clipped(w: np.ndarray, out: np.ndarray, layout: _Layout, buf: _Buffers) -> None:
    """Float16 codes of the float32 patterns ``w``, all in [0, 1] (``w`` is overwritten)."""
    n = w.size
    t = buf.normal[:n]
    np.right_shift(w, layout.shift, out=t)  # round half to even: add the kept lsb
    np.bitwise_and(t, 1, out=t)
    np.add(t, w, out=t)
    np.add(t, layout.round_base, out=t)
    np.right_shift(t, layout.shift, out=t)
    sub = buf.subnormal[:n]
    np.add(w.view(sub.dtype), sub.dtype.type(layout.magic), out=sub)
    sub_bits = sub.view(layout.signed)
    magic_bits = np.array(layout.magic, dtype=sub.dtype).view(layout.signed)
    np.subtract(sub_bits, magic_bits, out=sub_bits)
    mask = buf.is_subnormal[:n]
    np.less(w, layout.normal_limit, out=mask)
    np.copyto(t, sub_bits, where=mask)
    np.copyto(out, t, casting="unsafe")  # values are in [0, F16_ONE]


_TIE_BITS = 0x0FFF  # a float32 at a float16 tie has these bits zero (normal or subnormal)


def _cast_codes(x: np.ndarray) -> np.ndarray:
    """Clipped float16 codes by numpy's own cast (a few voxels only)."""
    with np.errstate(over="ignore"):
        as16 = x.astype(np.float16)
    signed = as16.view(np.int16)
    np.clip(signed, 0, F16_ONE, out=signed)
    return signed.view(np.uint16)


def _float64_chunk_codes(x: np.ndarray, out: np.ndarray, buf: _Buffers) -> None:
    """Float64 codes: round to float32 (one SIMD cast), then the float32 route.

    Rounding twice can differ from rounding once only where the float32 lands exactly on
    a float16 tie although the float64 was not there. Such a float32 has its 12 lowest
    mantissa bits zero (float16 normals keep 10 of float32's 23, subnormals fewer): those
    few voxels (about 1 in 4096 of arbitrary values) are compared with the float64 and,
    where the cast was inexact, converted by numpy's own float64 -> float16 cast.
    """
    n = x.size
    single = buf.single[:n]
    with np.errstate(over="ignore"):  # beyond the float32 range: +-inf, clipped below
        np.copyto(single, x, casting="same_kind")  # round half to even
    w = buf.clipped[:n]
    np.clip(single.view(np.int32), 0, F32_ONE, out=w)
    _codes_from_clipped(w, out, _LAYOUTS[4], buf)
    low, candidate = buf.normal[:n], buf.is_subnormal[:n]
    np.bitwise_and(w, _TIE_BITS, out=low)
    np.equal(low, 0, out=candidate)
    np.logical_and(candidate, w, out=candidate)  # 0.0 is exact or rounds to 0 anyway
    if not candidate.any():
        return
    index = np.flatnonzero(candidate)
    index = index[single[index] != x[index]]
    out[index] = _cast_codes(x[index])


def _nan_count(flat: np.ndarray) -> int:
    return sum(
        int(np.count_nonzero(np.isnan(flat[i : i + CHUNK]))) for i in range(0, flat.size, CHUNK)
    )


class ChunkCoder:
    """Convert float chunks to float16 codes with reused work arrays.

    Float16 codes of native float32 / float64 chunks of at most ``size`` voxels,
    reusing one set of work arrays (for readers that decode a file chunk by chunk).
    """

    def __init__(self, size: int = CHUNK) -> None:
        self._buffers = _Buffers(_LAYOUTS[4], np.dtype(np.float32), size)

    def codes(self, chunk: np.ndarray, out: np.ndarray) -> None:
        """Write the clipped codes of the 1-D native, NaN-free ``chunk`` into ``out``."""
        if chunk.dtype.itemsize == 8:
            _float64_chunk_codes(chunk, out, self._buffers)
        else:
            _chunk_codes(chunk, out, _LAYOUTS[4], self._buffers)


def float_codes(arr: np.ndarray) -> tuple[np.ndarray, int]:
    """Return ``(codes, n_nan)`` for a float32 / float64 array (codes are garbage if NaN).

    ``codes`` has the shape and memory order of ``arr``; NaN is detected chunk by chunk
    and counted over the whole array only when present.
    """
    walk = memory_walk(arr)
    src = walked(arr, walk)
    if not src.flags.c_contiguous:
        src = np.ascontiguousarray(src)
    flat = src.reshape(-1)
    out = np.empty(src.shape, dtype=np.uint16)
    out_flat = out.reshape(-1)
    native = flat.dtype.newbyteorder("=")
    coder = ChunkCoder(min(CHUNK, flat.size))
    for start in range(0, flat.size, CHUNK):
        chunk = flat[start : start + CHUNK]
        if not chunk.dtype.isnative:
            chunk = chunk.astype(native)
        if np.isnan(chunk).any():
            return out, _nan_count(flat)
        coder.codes(chunk, out_flat[start : start + CHUNK])
    return unwalked(out, walk), 0


def integer_codes(arr: np.ndarray) -> np.ndarray:
    """Codes of integer or bool scores: 1.0 for values >= 1, else 0.0 (no float copy)."""
    flagged = arr if arr.dtype == np.bool_ else arr >= 1
    return np.multiply(flagged, F16_ONE, dtype=np.uint16)
