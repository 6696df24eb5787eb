"""Window/level presets of a scan: the modality, the preset table and the limits (pure).

A *preset* turns a scan into display limits ``(low, high)``:

- for MRI (arbitrary intensity units) a **percentile** window: the values between two
  percentiles of the scan's finite voxels ("1-99 %", "0.5-99.5 %") or its full range;
- for CT (Hounsfield units) a standard **level/width** window: ``low = level - width/2``,
  ``high = level + width/2``.

The CT table (level / width, HU) is Radiopaedia's "Windowing (CT)" article
(https://radiopaedia.org/articles/windowing-ct, the common values):

=====================  =====  =====
preset                 level  width
=====================  =====  =====
brain                     40     80
subdural                  75    215
stroke                    40     40
soft tissue / abdomen     40    400
liver                     30    150
mediastinum               50    350
lung                    -600   1500
bone                     400   1800
=====================  =====  =====

**Modality guess** (:func:`guess_modality`): a scan is CT when its values are in
Hounsfield units, i.e. its smallest finite value is at or below ``-500`` (air is about
-1000 HU, and every CT of a body has air around or inside it); anything else is MRI
(MOOD's brain and abdomen MRI come normalised to [0, 1]). A CT cropped to tissue only
(no air) reads as MRI and gets percentile windows, which still show it.

Percentiles are computed on at most about :data:`PERCENTILE_SAMPLE` voxels (a regular
stride along every axis, the same voxels each time), so a preset costs milliseconds on a 512^3
case; NaN and infinite values are ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from napari_mood.core._checks import check_choice

__all__ = [
    "CT_PRESETS",
    "CT_THRESHOLD_HU",
    "MRI_PRESETS",
    "Modality",
    "PERCENTILE_SAMPLE",
    "WindowPreset",
    "guess_modality",
    "preset_limits",
    "presets_for",
]

Modality = Literal["CT", "MRI"]
CT_THRESHOLD_HU = -500.0
"""A scan whose smallest value is at or below this is read as CT (Hounsfield units)."""
PERCENTILE_SAMPLE = 2_000_000
"""At most this many voxels (a regular stride) enter a percentile window."""


@dataclass(frozen=True)
class WindowPreset:
    """One window/level preset.

    Attributes
    ----------
    name : str
        What the reader sees ("brain", "1-99 %").
    kind : {"percentile", "window"}
        ``"percentile"``: ``a``, ``b`` are percentiles in [0, 100] of the scan's values;
        ``"window"``: ``a`` is the level and ``b`` the width (in the scan's units, HU).
    a, b : float
    """

    name: str
    kind: Literal["percentile", "window"]
    a: float
    b: float


MRI_PRESETS: tuple[WindowPreset, ...] = (
    WindowPreset("1-99 %", "percentile", 1.0, 99.0),
    WindowPreset("0.5-99.5 %", "percentile", 0.5, 99.5),
    WindowPreset("2-98 %", "percentile", 2.0, 98.0),
    WindowPreset("full range", "percentile", 0.0, 100.0),
)
CT_PRESETS: tuple[WindowPreset, ...] = (
    WindowPreset("brain", "window", 40.0, 80.0),
    WindowPreset("subdural", "window", 75.0, 215.0),
    WindowPreset("stroke", "window", 40.0, 40.0),
    WindowPreset("soft tissue", "window", 40.0, 400.0),
    WindowPreset("liver", "window", 30.0, 150.0),
    WindowPreset("mediastinum", "window", 50.0, 350.0),
    WindowPreset("lung", "window", -600.0, 1500.0),
    WindowPreset("bone", "window", 400.0, 1800.0),
    WindowPreset("full range", "percentile", 0.0, 100.0),
)


def presets_for(modality: Modality) -> tuple[WindowPreset, ...]:
    """Return the presets offered for a modality, the default first.

    Examples
    --------
    >>> [p.name for p in presets_for("MRI")][:2]
    ['1-99 %', '0.5-99.5 %']
    >>> presets_for("CT")[0]
    WindowPreset(name='brain', kind='window', a=40.0, b=80.0)
    """
    check_choice("modality", modality, get_args(Modality))
    return CT_PRESETS if modality == "CT" else MRI_PRESETS


def _sample(data: np.ndarray) -> np.ndarray:
    """Return about :data:`PERCENTILE_SAMPLE` finite values of ``data`` (a regular stride).

    The stride is taken along every axis, so only the sample is copied (a display-ordered
    view of a large scan is never flattened whole).
    """
    array = np.asarray(data)
    if array.size > PERCENTILE_SAMPLE and array.ndim:
        step = math.ceil((array.size / PERCENTILE_SAMPLE) ** (1 / array.ndim))
        array = array[(slice(None, None, step),) * array.ndim]
    values = array.reshape(-1)
    if values.dtype.kind == "f":
        values = values[np.isfinite(values)]
    return values


def guess_modality(data: np.ndarray) -> Modality:
    """Return ``"CT"`` when ``data`` is in Hounsfield units, else ``"MRI"`` (module docstring).

    Examples
    --------
    >>> guess_modality(np.array([-1024.0, 0.0, 40.0, 1200.0]))
    'CT'
    >>> guess_modality(np.array([0.0, 0.3, 1.0])), guess_modality(np.array([np.nan]))
    ('MRI', 'MRI')
    """
    values = _sample(data)
    if values.size == 0:
        return "MRI"
    return "CT" if float(values.min()) <= CT_THRESHOLD_HU else "MRI"


def preset_limits(data: np.ndarray, preset: WindowPreset) -> tuple[float, float]:
    """Return the display limits ``(low, high)`` of ``preset`` on the scan ``data``.

    A window preset ignores ``data``. Edge cases of a percentile preset (napari needs
    ``low < high``): two percentiles on the same value give the full range instead; a
    constant scan ``c`` gives ``(c - 0.5, c + 0.5)``; a scan with no finite value gives
    ``(0.0, 1.0)``.

    Parameters
    ----------
    data : ndarray
        The scan (any shape).
    preset : WindowPreset

    Returns
    -------
    tuple of float

    Examples
    --------
    >>> preset_limits(np.zeros(3), CT_PRESETS[0])  # brain: level 40, width 80
    (0.0, 80.0)
    >>> preset_limits(np.arange(101.0), MRI_PRESETS[0])
    (1.0, 99.0)
    """
    check_choice("preset kind", preset.kind, ("percentile", "window"))
    if preset.kind == "window":
        if not preset.b > 0:
            raise ValueError(f"a window's width must be > 0; got {preset.b}")
        return preset.a - preset.b / 2, preset.a + preset.b / 2
    if not 0 <= preset.a < preset.b <= 100:
        raise ValueError(
            f"percentiles must satisfy 0 <= low < high <= 100; got {preset.a, preset.b}"
        )
    values = _sample(data)
    if values.size == 0:
        return 0.0, 1.0
    low, high = (float(v) for v in np.percentile(values, [preset.a, preset.b]))
    if high <= low:  # most voxels share one value (a background): the full range instead
        low, high = float(values.min()), float(values.max())
    if high <= low:  # a constant scan
        return low - 0.5, low + 0.5
    return low, high
