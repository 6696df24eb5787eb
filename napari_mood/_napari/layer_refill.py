"""A shown case's layers take the next case's arrays in place (no layer made or removed).

napari keeps about 2 MB of native memory for every layer removed from a window (its
controls and vispy visuals; a 256^3 case of five layers: +11 MB per switch in bare
napari, see ``benchmarks/bench_switch.py``), and building a layer's controls, visuals
and side-view copies is most of a case switch. A case that replaces another one of the
same kinds of layers therefore fills the old layers with its data
(:func:`refill_layer`); :func:`pair_layers` says which old layer takes which new one.
:class:`SharpLevels` shows a 3-D view's pyramids from their coarsest level first, then
from the sharper levels :func:`~napari_mood._napari.layers.sharp_3d_levels` chooses: the
one owner of those steps for napari's canvas (the session's) and for the reading
layout's 3-D pane (the linked planes'), which share one :class:`SharpBudget` per session.
Nothing here imports Qt.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Any

import numpy as np

from napari_mood._napari import layers as layer_rules
from napari_mood._napari._soon import call_after_paint
from napari_mood._napari.layers import METADATA_KEY, LayerData, layer_info, sharp_3d_levels

__all__ = [
    "SharpBudget",
    "SharpLevels",
    "after_next_draw",
    "lock_level",
    "pair_layers",
    "refill_layer",
    "release_level",
    "set_layer_data",
]

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


def refill_layer(layer: Any, item: LayerData, *, model: Any = None) -> None:
    """Give ``layer`` the new case's data, grid, name and metadata.

    The look stays (colour, opacity, visibility, a method's threshold); a scan takes
    the new case's contrast limits (its intensities are another case's). ``model``:
    the viewer holding the layer (see :func:`set_layer_data`).
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
    set_layer_data(layer, data, model=model)
    if info.get("role") == "scan" and "contrast_limits" in kwargs:
        limits = tuple(kwargs["contrast_limits"])
    if limits is not None:
        layer.contrast_limits_range = limits if info.get("role") == "scan" else (0.0, 1.0)
        layer.contrast_limits = limits
    if layer.name != kwargs.get("name", layer.name):
        layer.name = kwargs["name"]


def set_layer_data(layer: Any, data: Any, *, model: Any = None) -> None:
    """Give ``layer`` new data, sliced once.

    ``layer.data = data``, sliced once: a pyramid of the same level shapes keeps the
    level and the region the view chose. Given ``model`` (the napari viewer or
    ``ViewerModel`` holding the layer), that model does not work out its dims again for
    such a pyramid: its extent is the old one (about a third of a case switch's time,
    each layer in each view recomputing every layer's range, units and labels).

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
    same_extent = _same_extent_blocker(layer, model)
    with layer._block_refresh(), same_extent:  # napari's own guards: nothing sliced or redone
        layer.data = data  # napari's setter drops a locked level (a sharp 3-D view's)
        if locked is not None:
            layer.locked_data_level = locked
    layer._data_level = level  # napari has no public setter that keeps the auto level
    layer.corner_pixels = corners
    layer.refresh()


def _same_extent_blocker(layer: Any, model: Any) -> Any:
    """Hold ``model``'s own update of its dims on ``layer``'s data event (same extent)."""
    on_change = getattr(model, "_on_layers_change", None)  # napari's, connected per layer
    if on_change is None:
        return nullcontext()
    return layer.events.data.blocker(on_change)


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


def after_next_draw(scene: Any | None, callback: Callable[[], None]) -> None:
    """Call ``callback`` on the event-loop turn after the vispy canvas ``scene`` next drew.

    Its draw event (napari has no public draw event); without a canvas (a headless
    model), after a repaint.
    """
    if scene is None:
        call_after_paint(callback)
        return

    def on_draw(event: Any = None) -> None:
        scene.events.draw.disconnect(on_draw)
        call_after_paint(callback)

    scene.events.draw.connect(on_draw, position="last")


class SharpBudget:
    """One memory budget for the sharp 3-D levels of every 3-D view of a session.

    napari's canvas and the reading layout's 3-D pane draw the same case; each
    :class:`SharpLevels` asks what the others left (:meth:`left_for`) and says what it
    takes (:meth:`spend`). A view that gives its levels back (2-D again) lets the others
    sharpen with what it freed.

    Parameters
    ----------
    voxels : int, optional
        The budget in voxels; default
        :data:`~napari_mood._napari.layers.SHARP_3D_BUDGET_VOXELS`, read when asked.

    Examples
    --------
    >>> budget = SharpBudget(100)
    >>> canvas, pane = (SharpLevels(lambda: None, first=tuple, budget=budget) for _ in "ab")
    >>> budget.spend(canvas, 60)
    >>> budget.left_for(pane), budget.left_for(canvas)
    (40, 100)
    """

    def __init__(self, voxels: int | None = None) -> None:
        self._voxels = voxels
        self._spent: weakref.WeakKeyDictionary[SharpLevels, int] = weakref.WeakKeyDictionary()

    @property
    def voxels(self) -> int:
        """The whole budget, in voxels."""
        return layer_rules.SHARP_3D_BUDGET_VOXELS if self._voxels is None else self._voxels

    def left_for(self, user: SharpLevels) -> int:
        """Return the voxels ``user`` may take: the budget less what the others hold."""
        held = sum(voxels for other, voxels in self._spent.items() if other is not user)
        return max(self.voxels - held, 0)

    def spend(self, user: SharpLevels, voxels: int) -> None:
        """Record that ``user`` holds ``voxels``; when it frees some, the others sharpen again."""
        before = self._spent.get(user, 0)
        self._spent[user] = voxels
        if voxels < before:
            for other in list(self._spent):
                if other is not user:
                    other.resharpen()


class SharpLevels:
    """A 3-D view's pyramids: the coarsest level first, then sharper, one layer per frame.

    napari draws a pyramid in 3-D from its coarsest level: the first 3-D frame comes
    quickly (128^3 textures at 256^3). :meth:`later` then locks each shown pyramid at
    the level :func:`~napari_mood._napari.layers.sharp_3d_levels` chooses (the layers of
    ``first``, then the others, within a memory budget), one layer per drawn frame, so
    the window answers between two; in 2-D it gives the levels back to the view. A newer
    call (2-D again, a new layer) drops the steps of an older one. A level locked by
    someone else (the user) stays theirs.

    Parameters
    ----------
    model : callable
        Returns the view's model (``napari.Viewer`` or ``ViewerModel``), None once gone.
    first : callable
        Returns the layers to sharpen first, most wanted first (the scan, the GT).
    scene : callable, optional
        Returns the vispy canvas drawing the view (None: steps wait for a repaint).
    budget : SharpBudget, optional
        Shared with the session's other 3-D views (default: one of its own).

    A layer shown again (made visible) in 3-D is sharpened too: the view's layer list is
    watched for it.
    """

    def __init__(
        self,
        model: Callable[[], Any | None],
        *,
        first: Callable[[], Sequence[Any | None]],
        scene: Callable[[], Any | None] = lambda: None,
        budget: SharpBudget | None = None,
    ) -> None:
        self._model = model
        self._first = first
        self.scene = scene
        self.budget = SharpBudget() if budget is None else budget
        self._generation = 0
        self._sharpened: weakref.WeakSet[Any] = weakref.WeakSet()  # levels locked here
        self._sharpening = False
        shown = model()
        if shown is not None:  # napari re-emits each layer's events on its list's group
            shown.layers.events.connect(self._on_layers_event)

    @property
    def sharpening(self) -> bool:
        """Whether the 3-D view still waits for sharper levels of its layers."""
        return self._sharpening

    def later(self) -> None:
        """Sharpen the 3-D view once its next frame is drawn; in 2-D, unlock the levels."""
        model = self._model()
        self._generation += 1
        if model is None:
            self._sharpening = False
            return
        if model.dims.ndisplay != 3:
            self.release()
            return
        generation = self._generation
        self._sharpening = True
        after_next_draw(self.scene(), lambda: self._next(generation))

    def resharpen(self) -> None:
        """Sharpen again if the view is in 3-D (a layer shown again, budget freed)."""
        model = self._model()
        if model is not None and model.dims.ndisplay == 3:
            self.later()

    def release(self) -> None:
        """Give every level locked here back to its view (and drop the pending steps)."""
        self._generation += 1
        model = self._model()
        for layer in [] if model is None else list(model.layers):
            if layer in self._sharpened:
                release_level(layer)
        self._sharpened.clear()
        self._sharpening = False
        self.budget.spend(self, 0)

    def _on_layers_event(self, event: Any) -> None:
        """Sharpen a layer shown again (the list re-emits its event; its first source)."""
        if getattr(event, "type", None) != "visible":
            return
        layer = event.sources[0] if event.sources else None
        if getattr(layer, "visible", False):
            self.resharpen()

    def _next(self, generation: int) -> None:
        model = self._model()
        if generation != self._generation or model is None or model.dims.ndisplay != 3:
            return
        layers = self._order(model)
        shapes = [layer.level_shapes for layer in layers]
        levels = sharp_3d_levels(shapes, budget=self.budget.left_for(self))
        self.budget.spend(self, _sharp_size(shapes, levels))
        todo = [
            (x, level) for x, level in zip(layers, levels, strict=True) if x.data_level != level
        ]
        if not todo:
            self._sharpening = False
            return
        layer, level = todo[0]
        self._sharpened.add(layer)
        lock_level(layer, level)
        after_next_draw(self.scene(), lambda: self._next(generation))

    def _order(self, model: Any) -> list[Any]:
        """Return the shown pyramids to sharpen, those of ``first`` first."""
        first = [x for x in self._first() if x is not None and x in model.layers]
        layers = first + [x for x in model.layers if not any(x is f for f in first)]
        return [
            x
            for x in layers
            if getattr(x, "multiscale", False)
            and hasattr(x, "locked_data_level")
            and x.visible
            and (x.locked_data_level is None or x in self._sharpened)
        ]


def _sharp_size(shapes: Sequence[Sequence[Sequence[int]]], levels: Sequence[int]) -> int:
    """Voxels of the chosen levels finer than each pyramid's coarsest (drawn anyway)."""
    return sum(
        int(np.prod(layer[level]))
        for layer, level in zip(shapes, levels, strict=True)
        if level != len(layer) - 1
    )
