"""A shown case's layers take the next case's arrays in place (no layer made or removed).

napari keeps about 2 MB of native memory for every layer removed from a window (its
controls and vispy visuals; a 256^3 case of five layers: +11 MB per switch in bare
napari, see ``benchmarks/bench_switch.py``), and building a layer's controls, visuals
and side-view copies is most of a case switch. A case that replaces another one of the
same kinds of layers therefore fills the old layers with its data
(:func:`refill_layer`); :func:`pair_layers` says which old layer takes which new one.
Nothing here imports Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from napari_mood._napari.layers import METADATA_KEY, LayerData, layer_info

__all__ = ["lock_level", "pair_layers", "refill_layer", "release_level", "set_layer_data"]

_GRID_KEYS = ("scale", "translate", "units", "axis_labels")


def _key(kind: str, info: Any) -> tuple[str, str, str]:
    return kind, str(info.get("role")), str(info.get("method") or "")


def _level0(data: Any) -> Any:
    return data[0] if isinstance(data, list | tuple) else data


def _fits(layer: Any, data: Any) -> bool:
    """Whether ``layer`` can show ``data`` as it is: same multiscale-ness, ndim and dtype."""
    multiscale = isinstance(data, list | tuple)
    if bool(getattr(layer, "multiscale", False)) != multiscale:
        return False
    if multiscale and len(layer.data) != len(data):
        return False
    old, new = _level0(layer.data), _level0(data)
    return bool(np.ndim(old) == np.ndim(new) and np.dtype(old.dtype) == np.dtype(new.dtype))


def pair_layers(old: Sequence[Any], new: Sequence[LayerData]) -> list[tuple[Any | None, LayerData]]:
    """Each new layer's tuple with the old layer that takes it (None: a layer to make).

    An old layer takes a new one of the same kind, role and method whose arrays it can
    show as they are (:func:`_fits`); each old layer takes at most one.
    """
    free: dict[tuple[str, str, str], Any] = {}
    for layer in old:
        info = layer_info(layer)
        if info is not None:
            free.setdefault(_key(layer._type_string, info), layer)
    pairs: list[tuple[Any | None, LayerData]] = []
    for item in new:
        data, kwargs, kind = item
        key = _key(kind, kwargs.get("metadata", {}).get(METADATA_KEY, {}))
        layer = free.get(key)
        if layer is not None and _fits(layer, data):
            del free[key]
            pairs.append((layer, item))
        else:
            pairs.append((None, item))
    return pairs


def _same(current: Any, wanted: Any) -> bool:
    try:
        return bool(np.array_equal(np.asarray(current), np.asarray(wanted)))
    except (TypeError, ValueError):
        return False


def refill_layer(layer: Any, item: LayerData) -> None:
    """Give ``layer`` the new case's data, grid, name and metadata.

    The look stays (colour, opacity, visibility, a method's threshold); a scan takes
    the new case's contrast limits (its intensities are another case's).
    """
    data, kwargs, kind = item
    info = dict(kwargs["metadata"][METADATA_KEY])
    old = layer_info(layer) or {}
    if info.get("role") == "method" and old.get("color"):
        info["color"] = old["color"]  # its colour stays (and its colormap)
    limits = None if kind != "image" else tuple(layer.contrast_limits)
    layer.metadata = {**kwargs["metadata"], METADATA_KEY: info}
    for key in _GRID_KEYS:  # each change redraws every view: only what differs
        if key in kwargs and not _same(getattr(layer, key), kwargs[key]):
            setattr(layer, key, kwargs[key])
    set_layer_data(layer, data)
    if info.get("role") == "scan" and "contrast_limits" in kwargs:
        limits = tuple(kwargs["contrast_limits"])
    if limits is not None:
        layer.contrast_limits_range = limits if info.get("role") == "scan" else (0.0, 1.0)
        layer.contrast_limits = limits
    if layer.name != kwargs.get("name", layer.name):
        layer.name = kwargs["name"]


def set_layer_data(layer: Any, data: Any) -> None:
    """Give ``layer`` new data, sliced once.

    ``layer.data = data``, sliced once: a pyramid of the same level shapes keeps the
    level and the region the view chose.

    napari's data setter puts a multiscale layer back to its coarsest level and slices
    it; the next draw picks the finest level again and slices it again: every layer would
    be sliced and uploaded twice per case switch, in each view. When the new
    pyramid's levels have the old ones' shapes, the setter's slicing is held and the
    layer is sliced once, at the level and region it had.
    """
    same = bool(getattr(layer, "multiscale", False)) and _level_shapes(layer.data) == (
        _level_shapes(data)
    )
    if not same or not hasattr(layer, "_block_refresh"):
        layer.data = data
        return
    level, corners = layer.data_level, np.array(layer.corner_pixels)
    locked = getattr(layer, "locked_data_level", None)
    with layer._block_refresh():  # napari's own guard: the setter slices nothing
        layer.data = data  # napari's setter drops a locked level (a sharp 3-D view's)
        if locked is not None:
            layer.locked_data_level = locked
    layer._data_level = level  # napari has no public setter that keeps the auto level
    layer.corner_pixels = corners
    layer.refresh()


def _level_shapes(data: Any) -> list[tuple[int, ...]]:
    return [tuple(np.shape(level)) for level in data]


def lock_level(layer: Any, level: int) -> None:
    """Show ``layer`` (multiscale) from pyramid ``level`` whatever the view.

    napari's ``locked_data_level``; the layer is sliced once.
    """
    if layer.locked_data_level != level:
        layer.locked_data_level = level


def release_level(layer: Any) -> None:
    """Give the choice of ``layer``'s level back to the view, without slicing it again.

    napari's setter puts the layer at its coarsest level and slices it; the next draw
    picks the finest level again and slices again. The slice the locked level made stays
    until the view asks for another level.
    """
    if getattr(layer, "locked_data_level", None) is None:
        return
    level, corners = layer.data_level, np.array(layer.corner_pixels)
    with layer._block_refresh():
        layer.locked_data_level = None
    layer._data_level = level
    layer.corner_pixels = corners
