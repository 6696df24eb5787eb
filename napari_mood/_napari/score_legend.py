"""A colour bar that reads a map's scores 0..1, whatever its contrast limits.

napari's colour bar of an image layer reads its contrast limits, and a method's lower
contrast limit is its display threshold: a binary map at its best threshold has limits
0.9998-1.0008, and its bar would print those. :class:`ScoreLegend` adds a one-point
layer drawn with opacity 0 whose colour bar reads 0..1 and shows, for each score, the
colour the map draws it in (nothing below the threshold: :func:`legend_colors`); it
follows the map's threshold and colormap. The compare grid shows one per cell, Export
view one per shown map. Qt-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["LEGEND_MIN_SHARE", "ScoreLegend", "legend_colormap", "legend_colors"]

LEGEND_SAMPLES = 256
LEGEND_MIN_SHARE = 0.03
"""Smallest share of the bar coloured: a threshold at the top (a binary map) stays visible."""


def legend_colors(
    colormap: Any, limits: tuple[float, float], *, samples: int = LEGEND_SAMPLES
) -> tuple[np.ndarray, np.ndarray]:
    """Return the controls over 0..1 and the RGBA colours a map shows each score in.

    ``colormap`` is the map's napari colormap stretched over its contrast ``limits``:
    a score below the lower limit (the threshold) is not drawn (transparent), a score
    between the limits gets the colour in between, above them the top colour. At least
    :data:`LEGEND_MIN_SHARE` of the bar is coloured: a threshold near 1 (a binary map at its
    best threshold) has the colours of the scores threshold..1 stretched over that share.

    Examples
    --------
    >>> from napari.utils.colormaps import Colormap
    >>> ramp = Colormap([[0, 0, 0, 0], [1, 0, 0, 1]], controls=[0, 1], name="r")
    >>> controls, colors = legend_colors(ramp, (0.5, 1.0), samples=5)
    >>> controls.tolist(), colors[:, 3].round(2).tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.0, 0.0, 0.5, 1.0])
    """
    low, high = (float(v) for v in limits)
    controls = np.linspace(0.0, 1.0, samples)
    shown = min(low, 1.0 - LEGEND_MIN_SHARE)  # where the coloured part of the bar starts
    # the scores low..1 stretched over shown..1 (the identity unless the threshold is high)
    scores = low + (controls - shown) * (1.0 - low) / max(1.0 - shown, 1e-9)
    share = np.clip((scores - low) / max(high - low, 1e-9), 0.0, 1.0)
    colors = np.asarray(colormap.map(share), dtype=float).reshape(samples, 4)
    colors[controls < shown] = 0.0
    return controls, colors


def legend_colormap(layer: Any) -> Any:
    """Return the colour bar's colormap for a method layer (:func:`legend_colors`)."""
    from napari.utils.colormaps import Colormap

    controls, colors = legend_colors(layer.colormap, tuple(layer.contrast_limits))
    return Colormap(colors=colors, controls=controls, name=f"{layer.colormap.name} legend")


class ScoreLegend:
    """The colour bar of ``layer``'s scores 0..1 in ``viewer`` (module docstring).

    Parameters
    ----------
    viewer : napari.Viewer or ViewerModel
        Where the legend's layer is added (on top).
    layer : napari.layers.Image
        The method's map.
    name : str
        The legend layer's name.
    metadata : Mapping
        The legend layer's metadata (marks it as a helper).
    bar : Mapping, optional
        Settings of its colour bar (``face_colorbar``); napari's defaults otherwise.
    """

    def __init__(
        self,
        viewer: Any,
        layer: Any,
        *,
        name: str,
        metadata: Mapping[str, Any],
        bar: Mapping[str, Any] | None = None,
    ) -> None:
        from napari.layers import Points

        centre = np.asarray(layer.extent.world, dtype=float).mean(axis=0)
        scale = np.asarray(layer.scale, dtype=float)
        translate = np.asarray(layer.translate, dtype=float)
        self.layer = Points(
            np.round((centre - translate) / scale)[None, :],  # a voxel centre of the map
            name=name,
            scale=scale,  # on the map's grid: a 1 mm grid made napari's sliders step by
            translate=translate,  # 1 mm (slider 88 of 188 at slice 44 of 94, 2 mm voxels)
            features={"score": [1.0]},
            face_color="score",
            face_colormap=legend_colormap(layer),
            face_contrast_limits=(0.0, 1.0),
            opacity=0.0,
            size=1e-3,
            units=layer.units,  # as the case's layers: napari drops units that differ
            metadata=dict(metadata),
        )
        self.layer.editable = False
        self.layer.face_colorbar.visible = True
        for key, value in (bar or {}).items():
            setattr(self.layer.face_colorbar, key, value)
        self._viewer, self._map = viewer, layer
        viewer.add_layer(self.layer)
        layer.events.contrast_limits.connect(self._on_map_changed)
        layer.events.colormap.connect(self._on_map_changed)

    def remove(self) -> None:
        """Take the legend out of the viewer (and stop following the map)."""
        self._map.events.contrast_limits.disconnect(self._on_map_changed)
        self._map.events.colormap.disconnect(self._on_map_changed)
        if self.layer in self._viewer.layers:
            self._viewer.layers.remove(self.layer)

    def _on_map_changed(self, event: Any = None) -> None:
        self.layer.face_colormap = legend_colormap(self._map)
