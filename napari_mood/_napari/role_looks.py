"""How each role of a case is drawn, and how it keeps its look across case switches (Qt-free).

A case's layers come and go with each switch, but a reader's choices belong to the role,
not to the layer: :class:`RoleLooks` remembers, per role (the scan, the GT, each method by
name), the colour, display threshold, visibility and opacity a leaving layer had, and gives
them to the next layer of that role (also across a case without that method).

The role's drawing rules follow the display: :func:`outline_gt` draws a ground truth as
an outline in 2-D and filled in 3-D (napari draws no 3-D contours); :func:`render_scan`
draws the scan in 3-D as an attenuated MIP.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from napari_mood._napari.layers import GT_FILL_OPACITY, METADATA_KEY, layer_info
from napari_mood.services.looks import method_colormap
from napari_mood.services.options import threshold_limits

__all__ = ["SCAN_ATTENUATION", "SCAN_RENDERING", "RoleLooks", "outline_gt", "render_scan"]

SCAN_RENDERING = "attenuated_mip"
"""The scan in 3-D: attenuated MIP, which shows the outer surface of MRI and CT instead of
the white blob a plain MIP makes of a T1 (the maps stay MIP; GT and object labels are
drawn as surfaces, napari's ``iso_categorical``)."""
SCAN_ATTENUATION = 0.05


@dataclass(frozen=True)
class _Look:
    """How a role (scan, GT, a method) was shown, carried to the next case."""

    color: str | None
    threshold: float | None
    visible: bool
    opacity: float


class RoleLooks:
    """The look each role had when its last layer left, for the next layer of that role."""

    def __init__(self) -> None:
        self._looks: dict[tuple[str, str | None], _Look] = {}  # (role, method) -> look

    def remember(self, layer: Any) -> None:
        """Keep how a napari-mood layer is shown, for the next layer of its role.

        Parameters
        ----------
        layer : napari.layers.Layer
            A scan, GT or method layer (any other layer is ignored).
        """
        info = layer_info(layer)
        if info is None:
            return
        threshold = float(layer.contrast_limits[0]) if info["role"] == "method" else None
        self._looks[_role_key(info)] = _Look(
            info.get("color"), threshold, bool(layer.visible), float(layer.opacity)
        )

    def apply(self, layer: Any) -> None:
        """Give a newly joined layer the look its role had (colour, threshold, shown).

        Parameters
        ----------
        layer : napari.layers.Layer
            A napari-mood layer joining the session.
        """
        info = layer.metadata[METADATA_KEY]
        look = self._looks.get(_role_key(info))
        if look is None:
            return
        if info["role"] == "method":  # each change redraws every view: only what differs
            if look.color and look.color != info.get("color"):
                info["color"] = look.color
                layer.colormap = method_colormap(look.color)
            limits = None if look.threshold is None else threshold_limits(look.threshold)
            if limits is not None and tuple(layer.contrast_limits) != tuple(limits):
                layer.contrast_limits = limits
        if layer.visible != look.visible:
            layer.visible = look.visible
        if info["role"] != "gt" and layer.opacity != look.opacity:  # GT's follows 2-D / 3-D
            layer.opacity = look.opacity


def _role_key(info: Mapping[str, Any] | None) -> tuple[str, str | None]:
    info = info or {}
    return info.get("role", ""), info.get("method")


def outline_gt(layer: Any, viewer: Any) -> None:
    """Draw a ground truth as an outline in 2-D; filled in 3-D (napari draws no 3-D contours).

    Parameters
    ----------
    layer : napari.layers.Labels
        The ground truth (a layer without ``contour`` is left alone).
    viewer : napari.components.ViewerModel or None
        Its viewer; None counts as 2-D.
    """
    if not hasattr(layer, "contour"):
        return
    flat = viewer is None or viewer.dims.ndisplay == 2
    if layer.contour != (contour := 1 if flat else 0):  # napari slices again on any set
        layer.contour = contour
    layer.opacity = 1.0 if flat else GT_FILL_OPACITY


def render_scan(layer: Any) -> None:
    """Draw the scan in 3-D as an attenuated MIP (:data:`SCAN_RENDERING`).

    Parameters
    ----------
    layer : napari.layers.Image
        The scan (a layer without ``attenuation`` is left alone).
    """
    if getattr(layer, "rendering", None) != SCAN_RENDERING and hasattr(layer, "attenuation"):
        layer.rendering = SCAN_RENDERING
        layer.attenuation = SCAN_ATTENUATION


warnings.filterwarnings(
    "ignore", message="Contours are not displayed during 3D rendering", category=UserWarning
)
"""napari re-slices every layer on a switch to 3-D before any plugin callback runs (its
own callbacks always come first), so an outline's ``contour`` is still set for that one
slicing; the session then sets it to 0 (the outline is filled in 3-D). The warning napari
gives for that moment says nothing the user can act on."""
