"""Show a viewer's layers in another napari model: same arrays, looks kept in step.

A :class:`LayerMirror` copies each layer of a source layer list into a target
``ViewerModel`` (``Layer.create(*layer.as_layer_data_tuple())``: the copy shares the data
array, nothing is duplicated) and keeps the copies in step one way, source -> copy:
layers added, removed and reordered, and the display properties of :data:`SYNCED`.
Copies are never editable (the side views only navigate). Qt-free: it uses napari's
models only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["SYNCED", "LayerMirror"]

SYNCED: tuple[str, ...] = (
    "data",
    "name",
    "visible",
    "opacity",
    "blending",
    "colormap",
    "contrast_limits",
    "gamma",
    "contour",
    "selected_label",
    "show_selected_label",
    "interpolation2d",
    "scale",
    "translate",
    "units",
)
"""Properties copied from a source layer to its copies whenever they change."""


class LayerMirror:
    """Keep ``target``'s layers a copy of the ``source`` layers that ``include`` accepts.

    Parameters
    ----------
    source : napari LayerList
        The layers to show (for example ``viewer.layers``).
    target : napari.components.ViewerModel
        Where the copies live. Layers of ``target`` that are not copies (a crosshair)
        stay on top.
    include : callable, optional
        ``include(layer) -> bool``: which source layers are shown (default: all).
    """

    def __init__(
        self, source: Any, target: Any, *, include: Callable[[Any], bool] | None = None
    ) -> None:
        self._source = source
        self._target = target
        self._include = include or (lambda layer: True)
        self._copies: dict[int, tuple[Any, Any, list[tuple[Any, Callable[..., None]]]]] = {}
        source.events.inserted.connect(self._on_source_inserted)
        source.events.removed.connect(self._on_source_removed)
        source.events.reordered.connect(self._on_source_reordered)
        for layer in list(source):
            self._add(layer)
        self._reorder()

    def copy_of(self, layer: Any) -> Any | None:
        """The copy of a source layer, or None."""
        entry = self._copies.get(id(layer))
        return None if entry is None else entry[1]

    def close(self) -> None:
        """Stop following the source and remove every copy from the target."""
        self._source.events.inserted.disconnect(self._on_source_inserted)
        self._source.events.removed.disconnect(self._on_source_removed)
        self._source.events.reordered.disconnect(self._on_source_reordered)
        for key in list(self._copies):
            self._drop(key)

    # -- source events --------------------------------------------------------------

    def _on_source_inserted(self, event: Any) -> None:
        self._add(event.value)
        self._reorder()

    def _on_source_removed(self, event: Any) -> None:
        self._drop(id(event.value))

    def _on_source_reordered(self, event: Any = None) -> None:
        self._reorder()

    # -- copies ---------------------------------------------------------------------

    def _add(self, layer: Any) -> None:
        from napari.layers import Layer

        if id(layer) in self._copies or not self._include(layer):
            return
        copy = Layer.create(*layer.as_layer_data_tuple())
        copy.editable = False
        links = []
        for name in SYNCED:
            emitter = getattr(layer.events, name, None)
            if emitter is None or not hasattr(copy, name):
                continue
            handler = _copier(layer, copy, name)
            handler()  # as_layer_data_tuple leaves some out (a Labels' contour)
            emitter.connect(handler)
            links.append((emitter, handler))
        self._copies[id(layer)] = (layer, copy, links)
        self._target.layers.append(copy)

    def _drop(self, key: int) -> None:
        entry = self._copies.pop(key, None)
        if entry is None:
            return
        _, copy, links = entry
        for emitter, handler in links:
            emitter.disconnect(handler)
        if copy in self._target.layers:
            self._target.layers.remove(copy)

    def _reorder(self) -> None:
        """Copies in the source's order, below the target's own layers."""
        layers = self._target.layers
        copies = [entry[1] for layer in self._source if (entry := self._copies.get(id(layer)))]
        own = [layer for layer in layers if not any(layer is c for c in copies)]
        wanted = copies + own
        for target_index, layer in enumerate(wanted):
            current = layers.index(layer)
            if current != target_index:
                layers.move(current, target_index)


def _copier(source: Any, copy: Any, name: str) -> Callable[..., None]:
    def copy_property(event: Any = None) -> None:
        value = getattr(source, name)
        if name == "name" or not _same(getattr(copy, name), value):
            setattr(copy, name, value)

    return copy_property


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # arrays: elementwise comparison is ambiguous
        return False
