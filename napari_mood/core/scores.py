"""Float16 score codes: the quantisation the official MOOD scorer applies.

The official scorer reads every score map with ``get_fdata(dtype=np.float16)`` and clips
it to [0, 1]. For non-negative float16 values the 16-bit pattern, read as an unsigned
integer (the *code*), increases with the value, so codes are exact histogram bins:
``0`` is 0.0 and ``ONE_CODE`` (0x3C00) is 1.0, ``N_CODES`` bins in all.

Thresholds are real numbers (float64) and are never rounded to float16: a voxel is
flagged when its float16 *value* is ``>= threshold``. :func:`threshold_code` turns a
threshold into the smallest code whose value is ``>= threshold``, so that
``codes >= threshold_code(t)`` is exactly ``values >= t``.
"""

from __future__ import annotations

import numpy as np

ONE_CODE: int = int(np.array(1.0, dtype=np.float16).view(np.uint16))
N_CODES: int = ONE_CODE + 1
_CODE_VALUES = np.arange(N_CODES, dtype=np.uint16).view(np.float16).astype(np.float64)


def code_values() -> np.ndarray:
    """Return the float64 value of every code ``0 .. ONE_CODE`` (read-only view)."""
    view = _CODE_VALUES.view()
    view.flags.writeable = False
    return view


def clip_float16(scores: np.ndarray) -> np.ndarray:
    """Return ``scores`` as float16 clipped to [0, 1], as the official scorer does.

    The input is not modified. ``-0.0`` becomes ``+0.0``. NaN stays NaN: callers decide
    the NaN policy before calling this.
    """
    with np.errstate(over="ignore"):  # beyond float16 range -> inf, clipped to 1 below
        as16 = np.asarray(scores).astype(np.float16, copy=True)
    np.clip(as16, 0.0, 1.0, out=as16)
    as16 += np.float16(0.0)  # -0.0 + 0.0 == +0.0, so codes of zero are all 0
    return as16


def to_codes(scores16: np.ndarray) -> np.ndarray:
    """Return the uint16 codes of float16 scores already clipped to [0, 1] (a view)."""
    arr = np.asarray(scores16)
    if arr.dtype != np.float16:
        raise TypeError(f"expected float16 scores, got {arr.dtype}")
    return arr.view(np.uint16)


def threshold_code(threshold: float) -> int:
    """Return the smallest code whose float16 value is ``>= threshold``.

    Returns ``N_CODES`` when no value in [0, 1] reaches the threshold (threshold > 1),
    and 0 when every value does (threshold <= 0).

    Examples
    --------
    >>> threshold_code(0.0)
    0
    >>> threshold_code(1.0) == ONE_CODE
    True
    """
    if np.isnan(threshold):
        raise ValueError("threshold is NaN")
    return int(np.searchsorted(_CODE_VALUES, float(threshold), side="left"))


def flag(scores16: np.ndarray, threshold: float) -> np.ndarray:
    """Return the boolean mask ``value >= threshold`` of clipped float16 scores."""
    return to_codes(scores16) >= threshold_code(threshold)
