"""What a background job needs of one method's map, taken on the main thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["MapSnapshot"]


@dataclass(frozen=True)
class MapSnapshot:
    """One method's map as shown when the job was asked for (the array is not copied).

    Attributes
    ----------
    name : str
        Method name.
    data : array-like
        The displayed map (display-ordered; read-only to jobs).
    threshold : float
        The method's display threshold at request time.
    color : str
        The method's colour (``#rrggbb``), for plots.
    spacing : tuple of float
        Voxel size along the data axes (mm), empty when unknown.
    source : str or None
        The map's file, for messages.
    """

    name: str
    data: Any
    threshold: float
    color: str = ""
    spacing: tuple[float, ...] = ()
    source: str | None = None

    @property
    def voxel_volume(self) -> float | None:
        """Volume of one voxel in mm^3 for 3-D maps with a known spacing, else None."""
        if len(self.spacing) != 3:
            return None
        x, y, z = self.spacing
        return float(x * y * z)

    def describe(self) -> str:
        """``name (file)`` for messages.

        Returns
        -------
        str
            The text.
        """
        return self.name if self.source is None else f"{self.name} ({self.source})"
