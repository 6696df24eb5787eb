"""What a score, a ground-truth voxel and a threshold are: the one owner of these rules.

Scores
    The official MOOD scorer reads every score map with ``get_fdata(dtype=np.float16)``
    and clips it to [0, 1] (``mode="mood"``). For non-negative float16 values the 16-bit
    pattern, read as an unsigned integer (the *code*), increases with the value, so codes
    are exact histogram bins and ordered *keys*: ``0`` is 0.0 and :data:`ONE_CODE`
    (0x3C00) is 1.0, :data:`N_CODES` bins in all. ``mode="exact"`` reads scores as
    float32 clipped to [0, 1] instead (the keys are those float32 values). ``-0.0`` is
    ``+0.0``; NaN is never a score: every function here refuses it (the caller decides
    the NaN policy first, e.g. :func:`napari_mood.services.case_scoring` replaces it by 0 on
    request).

Ground truth
    A voxel is anomalous when its value is ``> 0.5`` (bool masks as they are). For every
    real value this equals the official ``clip(rint(value), 0, 1) == 1`` (``rint`` rounds
    half to even, so 0.5 is normal and 1.5 anomalous). Arrays handed to the metric
    functions as *labels* must moreover be binary (0/1 or bool): ``strict=True``.

Thresholds
    A threshold is a finite number in [0, 1] (:func:`check_threshold`); it is compared as
    float64 with the scores as read and never rounded: a voxel is *flagged* when its
    score is ``>= threshold`` (:func:`flag`). :func:`threshold_code` / :func:`key_threshold`
    turn a threshold into the smallest key that is flagged, so ``keys >= key`` is exactly
    ``value >= threshold``. A viewer shows a map above a lower contrast limit, i.e. with
    ``>``: :func:`display_threshold` gives the value that flags the same scores with both
    comparisons and :func:`threshold_limits` the contrast limits that show them.
"""

from __future__ import annotations

import math
from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_array, check_choice
from napari_mood.core._float16 import float_codes, integer_codes

__all__ = [
    "N_CODES",
    "ONE_CODE",
    "SCORE_MODES",
    "ScoreMode",
    "check_mode",
    "check_no_nan",
    "check_threshold",
    "code_values",
    "display_threshold",
    "flag",
    "gt_mask",
    "key_threshold",
    "key_values",
    "nan_error",
    "score_keys",
    "threshold_code",
    "threshold_limits",
    "to_exact_values",
    "to_mood_codes",
    "to_mood_scores",
]

ScoreMode = Literal["mood", "exact"]
SCORE_MODES: tuple[ScoreMode, ...] = get_args(ScoreMode)
ONE_CODE: int = int(np.array(1.0, dtype=np.float16).view(np.uint16))
N_CODES: int = ONE_CODE + 1
_CODE_VALUES = np.arange(N_CODES, dtype=np.uint16).view(np.float16).astype(np.float64)
_CODE_VALUES.flags.writeable = False
_F16_EXPONENT = 0x7C00  # a float16 whose bits without the sign exceed this is NaN
_TOP_MARGIN = 1e-3  # upper contrast limit above a threshold of 1


def check_mode(mode: str) -> None:
    """Raise a ValueError naming the valid modes unless ``mode`` is one of them.

    Parameters
    ----------
    mode : str
        The score mode given.

    Raises
    ------
    ValueError
        When ``mode`` is not ``"mood"`` or ``"exact"``.
    """
    check_choice("mode", mode, SCORE_MODES)


def check_threshold(threshold: float | str, *, name: str = "threshold") -> float:
    """Return ``threshold`` as a float; ValueError unless it is a finite number in [0, 1].

    ``-0.0`` is returned as ``0.0`` (it would print as "-0.00").

    Parameters
    ----------
    threshold : float or str
        The threshold given (a string is parsed as a float).
    name : str
        The option's name, for the message.

    Returns
    -------
    float
        The threshold, in [0, 1].

    Raises
    ------
    ValueError
        When it is not a number, is NaN or lies outside [0, 1].

    Examples
    --------
    >>> check_threshold(1)
    1.0
    >>> check_threshold("-0")
    0.0
    >>> check_threshold(1.5)
    Traceback (most recent call last):
    ...
    ValueError: threshold must be a number in [0, 1]; got 1.5
    """
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1]; got {threshold!r}") from None
    if math.isnan(value):
        raise ValueError(f"{name} is NaN; give a number in [0, 1]")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1]; got {threshold!r}")
    return value + 0.0  # -0.0 -> 0.0


def code_values() -> np.ndarray:
    """Return the float64 value of every code ``0 .. ONE_CODE`` (read-only).

    Returns
    -------
    numpy.ndarray
        ``ONE_CODE + 1`` float64 values, ascending; index = code.
    """
    return _CODE_VALUES


def _check_real(scores: np.ndarray) -> None:
    if scores.dtype.kind not in "biuf":
        raise TypeError(
            f"scores must hold real numbers (a numeric dtype), got dtype {scores.dtype}"
        )


def nan_error(n_nan: int) -> ValueError:
    """Return the error of scores holding ``n_nan`` NaN values (one text wherever they are found)."""
    return ValueError(
        f"scores contain {n_nan} NaN value(s); decide the NaN policy "
        "(e.g. replace NaN by 0) before scoring"
    )


def check_no_nan(scores: np.ndarray) -> None:
    """Raise a ValueError naming the NaN count if float ``scores`` contain NaN.

    Parameters
    ----------
    scores : numpy.ndarray
        Scores of any dtype (only floats can hold NaN).

    Raises
    ------
    ValueError
        When a score is NaN.
    """
    arr = np.asarray(scores)
    if arr.dtype.kind == "f":
        n_nan = int(np.count_nonzero(np.isnan(arr)))
        if n_nan:
            raise nan_error(n_nan)


def _f16_nan_count(codes: np.ndarray) -> int:
    return int(np.count_nonzero((codes & 0x7FFF) > _F16_EXPONENT))


def to_mood_codes(scores: np.ndarray) -> np.ndarray:
    """Return the float16 codes (uint16) of ``scores`` as the MOOD scorer sees them.

    Bit for bit the pattern of ``clip(scores.astype(float16), 0, 1)`` (``-0.0`` read as
    ``+0.0``; values beyond the float16 range clip to 0 or 1), computed without any
    full-size float temporary:

    * float16 already in [0, 1] is returned as a view (no copy); other float16 is
      copied and clipped on its int16 view, which orders like the values and is
      negative for negative numbers and -0.0;
    * float32 / float64 are converted in cache-sized chunks on their integer bit
      patterns (clip, then round to nearest even; see :mod:`napari_mood.core._float16`);
    * integers and bools are 1.0 where ``>= 1``, else 0.0;
    * other floats (long double) are cast once, then clipped on the bit pattern.

    The codes keep the memory order of ``scores``. NaN raises ValueError.

    Parameters
    ----------
    scores : numpy.ndarray
        Real scores of any dtype and shape.

    Returns
    -------
    numpy.ndarray
        uint16 codes in ``0 .. ONE_CODE``, of ``scores``' shape.

    Raises
    ------
    ValueError
        When a score is NaN.
    TypeError
        When ``scores`` is not real (complex, object, strings).

    Examples
    --------
    >>> to_mood_codes(np.array([-1.0, 0.5, 2.0])).tolist()
    [0, 14336, 15360]
    """
    arr = np.asarray(scores)
    _check_real(arr)
    if arr.dtype.kind in "biu":
        return integer_codes(arr)
    if arr.dtype.itemsize in (4, 8):
        codes, n_nan = float_codes(arr)
        if n_nan:
            raise nan_error(n_nan)
        return codes
    if arr.dtype == np.float16:
        codes = arr.view(np.uint16)
        if codes.size == 0 or int(codes.max()) <= ONE_CODE:  # NaN and negatives are above
            return codes
        as16 = arr.copy()
    else:
        with np.errstate(over="ignore"):  # beyond the float16 range: +-inf, clipped below
            as16 = arr.astype(np.float16)
    codes = as16.view(np.uint16)
    n_nan = _f16_nan_count(codes)
    if n_nan:
        raise nan_error(n_nan)
    signed = as16.view(np.int16)
    np.clip(signed, 0, ONE_CODE, out=signed)
    return codes


def to_mood_scores(scores: np.ndarray) -> np.ndarray:
    """Return ``scores`` as the MOOD scorer reads them: float16 clipped to [0, 1].

    A view of :func:`to_mood_codes` (no copy for float16 input already in [0, 1]).

    Parameters
    ----------
    scores : numpy.ndarray
        Real scores of any dtype and shape (NaN raises ValueError).

    Returns
    -------
    numpy.ndarray
        float16 scores in [0, 1], of ``scores``' shape.

    Examples
    --------
    >>> to_mood_scores(np.array([0.3, 7.0])).tolist()
    [0.300048828125, 1.0]
    """
    return to_mood_codes(scores).view(np.float16)


def to_exact_values(scores: np.ndarray) -> np.ndarray:
    """Return ``scores`` as a new float32 array clipped to [0, 1] (``-0.0`` -> ``+0.0``).

    NaN raises ValueError.

    Parameters
    ----------
    scores : numpy.ndarray
        Real scores of any dtype and shape.

    Returns
    -------
    numpy.ndarray
        float32 scores in [0, 1].

    Examples
    --------
    >>> to_exact_values(np.array([-0.5, 0.25, 3.0])).tolist()
    [0.0, 0.25, 1.0]
    """
    arr = np.asarray(scores)
    _check_real(arr)
    check_no_nan(arr)
    with np.errstate(over="ignore"):  # beyond the float32 range: +-inf, clipped below
        as32 = arr.astype(np.float32, copy=True)
    np.clip(as32, 0.0, 1.0, out=as32)
    as32 += np.float32(0.0)
    return as32


def score_keys(scores: np.ndarray, *, mode: ScoreMode = "mood") -> np.ndarray:
    """Return scores as ordered keys: float16 codes (``mood``) or clipped float32 (``exact``).

    Parameters
    ----------
    scores : numpy.ndarray
        Real scores of any dtype and shape (NaN raises ValueError).
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    numpy.ndarray
        Keys that order like the scores as read: uint16 codes or float32 values.

    Examples
    --------
    >>> score_keys(np.array([0.25, 1.5]), mode="exact").tolist()
    [0.25, 1.0]
    """
    check_mode(mode)
    return to_mood_codes(scores) if mode == "mood" else to_exact_values(scores)


def threshold_code(threshold: float) -> int:
    """Return the smallest code whose float16 value is ``>= threshold``.

    Parameters
    ----------
    threshold : float
        A threshold in [0, 1].

    Returns
    -------
    int
        The code: ``codes >= threshold_code(t)`` flags exactly the scores ``>= t``.

    Examples
    --------
    >>> threshold_code(0.0)
    0
    >>> threshold_code(1.0) == ONE_CODE
    True
    """
    value = check_threshold(threshold)
    return int(np.searchsorted(_CODE_VALUES, value, side="left"))


def key_threshold(threshold: float, *, mode: ScoreMode = "mood") -> int | np.float32:
    """Return the smallest key ``k`` with ``keys >= k`` exactly ``value >= threshold``.

    Parameters
    ----------
    threshold : float
        A threshold in [0, 1].
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    int or numpy.float32
        A float16 code (``mood``) or a float32 value (``exact``).

    Examples
    --------
    >>> float(key_threshold(0.1, mode="exact")) >= 0.1
    True
    """
    check_mode(mode)
    if mode == "mood":
        return threshold_code(threshold)
    value = check_threshold(threshold)
    as32 = np.float32(value)
    return np.nextafter(as32, np.float32(np.inf)) if float(as32) < value else as32


def key_values(keys: np.ndarray, *, mode: ScoreMode = "mood") -> np.ndarray:
    """Return the float64 score values of keys (the inverse of :func:`score_keys`).

    Parameters
    ----------
    keys : numpy.ndarray
        Keys from :func:`score_keys`.
    mode : {"mood", "exact"}
        The mode the keys were made in.

    Returns
    -------
    numpy.ndarray
        float64 score values.
    """
    if mode == "mood":
        return _CODE_VALUES[keys]
    return np.asarray(keys, dtype=np.float64)


def flag(scores: np.ndarray, threshold: float, *, mode: ScoreMode = "mood") -> np.ndarray:
    """Return the bool mask of the voxels flagged at ``threshold`` (score ``>= threshold``).

    Scores are read as the pixel task reads them (``mode``); the threshold is never
    rounded to the score dtype.

    Parameters
    ----------
    scores : numpy.ndarray
        A score map (NaN raises ValueError).
    threshold : float
        A threshold in [0, 1].
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    numpy.ndarray
        Bool mask of ``scores``' shape.

    Examples
    --------
    >>> flag(np.array([0.2998, 0.3]), 0.3).tolist()  # as float16: 0.29980..., 0.30004...
    [False, True]
    """
    return score_keys(scores, mode=mode) >= key_threshold(threshold, mode=mode)


def gt_mask(values: np.ndarray, *, strict: bool = False) -> np.ndarray:
    """Return the anomalous voxels of a ground truth: value ``> 0.5`` (bool as it is).

    Equal to the official ``clip(rint(value), 0, 1) == 1`` for every real value.
    ``strict=True`` (labels handed to metric functions) refuses values other than 0
    and 1. Integer masks are compared without a float copy.

    Parameters
    ----------
    values : numpy.ndarray
        A ground-truth volume (bool, integer or float).
    strict : bool
        Whether values other than 0 and 1 are refused.

    Returns
    -------
    numpy.ndarray
        Bool mask of ``values``' shape (``values`` itself when it is bool).

    Raises
    ------
    TypeError
        When ``values`` is neither bool nor numbers.
    ValueError
        With ``strict``, when a value is neither 0 nor 1.

    Examples
    --------
    >>> gt_mask(np.array([0, 1, 2])).tolist()
    [False, True, True]
    >>> gt_mask(np.array([0.5, 0.51, 1.5])).tolist()
    [False, True, True]
    """
    arr = check_array("labels", values)
    if not isinstance(strict, bool | np.bool_):
        raise TypeError(f"strict must be True or False; got {strict!r}")
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind not in "iuf":  # pragma: no cover - check_array refused it
        raise TypeError(f"labels must be bool or numbers, got dtype {arr.dtype}")
    mask = arr >= 1 if arr.dtype.kind in "iu" else arr > 0.5
    if strict and not np.all((arr == 0) | (arr == 1)):
        raise ValueError("labels must contain only 0 and 1 (or be a bool array)")
    return mask


def display_threshold(threshold: float) -> float:
    """Return a threshold that flags the same float16 scores and shows them all.

    A viewer draws the voxels scoring strictly above a layer's lower contrast limit, but
    a threshold flags ``score >= threshold``: with ``threshold`` equal to a stored value
    (a best threshold always is, e.g. 1.0 for a binary map) those voxels are counted yet
    transparent. The midpoint between the smallest float16 value ``>= threshold`` and the
    float16 value below it flags exactly the same scores with ``>=`` and with ``>``.
    A threshold of 0, or one that is no float16 value, is returned unchanged.

    Parameters
    ----------
    threshold : float
        A threshold in [0, 1].

    Returns
    -------
    float
        The threshold to give the viewer as its lower contrast limit.

    Examples
    --------
    >>> display_threshold(1.0)
    0.999755859375
    >>> display_threshold(0.3)  # no float16 value equals 0.3
    0.3
    """
    value = check_threshold(threshold)
    code = threshold_code(value)
    if code == 0 or _CODE_VALUES[code] != value:
        return value  # no stored value equals it: ">" and ">=" already agree
    return float((_CODE_VALUES[code - 1] + _CODE_VALUES[code]) / 2)


def threshold_limits(threshold: float) -> tuple[float, float]:
    """Return the contrast limits that show the scores above ``threshold`` in a viewer.

    Parameters
    ----------
    threshold : float
        A threshold in [0, 1].

    Returns
    -------
    tuple of float
        ``(low, high)`` with ``high > low`` (above 1 when the threshold is 1).

    Examples
    --------
    >>> threshold_limits(0.5)
    (0.5, 1.0)
    >>> threshold_limits(1.0)
    (1.0, 1.001)
    """
    value = check_threshold(threshold)
    return value, max(1.0, value + _TOP_MARGIN)
