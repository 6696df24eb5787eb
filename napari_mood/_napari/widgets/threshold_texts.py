"""What the thresholds panel shows: the readout of each method and the best thresholds found.

The numbers come from the jobs of :mod:`napari_mood.services.readouts`.
"""

from __future__ import annotations

import math

from napari_mood.services.evaluation import ThresholdChoice
from napari_mood.services.readouts import Readout

__all__ = ["CRITERION_TEXT", "best_text", "readout_text"]

CRITERION_TEXT = {"dice": "Dice", "object_f1": "object F1"}


def _number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def readout_text(readout: Readout) -> str:
    """Two short lines: what is flagged, then (with a GT) Dice and object counts.

    A voxel readout (objects not counted yet) says so on the second line.

    Parameters
    ----------
    readout : Readout
        A map's readout.

    Returns
    -------
    str
        The two lines.

    Examples
    --------
    >>> import numpy as np
    >>> from napari_mood.services.readouts import compute_readouts
    >>> from napari_mood.services.snapshots import MapSnapshot
    >>> gt = np.zeros((4, 4), bool); gt[1, 1] = True
    >>> print(readout_text(compute_readouts([MapSnapshot("m", gt * 0.9, 0.5)], None)["m"]))
    1 voxels · 6.25 %
    no ground truth: counts only
    """
    parts = [f"{readout.flagged:,} voxels", f"{readout.flagged_percent:.2f} %"]
    if readout.flagged_mm3 is not None:
        parts.append(f"{readout.flagged_mm3:,.0f} mm\u00b3")
    text = " \u00b7 ".join(parts)
    if readout.dice is None:
        return f"{text}\nno ground truth: counts only"
    objects = readout.objects
    if objects is None:
        return f"{text}\nDice {_number(readout.dice)} \u00b7 objects: counting\u2026"
    return (
        f"{text}\nDice {_number(readout.dice)} \u00b7 objects TP {objects.tp} "
        f"\u00b7 FP {objects.fp} \u00b7 FN {objects.fn}"
    )


def best_text(result: ThresholdChoice) -> str:
    """One line per method found, then the methods left out.

    Parameters
    ----------
    result : ThresholdChoice
        The thresholds chosen.

    Returns
    -------
    str
        The lines.
    """
    lines = [f"On {result.source}:"]
    lines += [
        f"{name}: {b.threshold:.3f} ({CRITERION_TEXT[b.criterion]} {_number(b.value)})"
        for name, b in result.best.items()
    ]
    if result.missing:
        lines.append(
            f"No folder for {', '.join(result.missing)} under methods/ "
            f"(has {', '.join(result.available)}): left unchanged."
        )
    if result.problems:
        count = len(result.problems)
        lines.append(f"{count} input problem{'s' if count > 1 else ''}: {result.problems[0]}")
    return "\n".join(lines)
