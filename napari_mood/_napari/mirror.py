"""Show a viewer's layers in another napari model: same arrays, looks kept in step.

A :class:`LayerMirror` copies each layer of a source layer list into a target
``ViewerModel`` (``Layer.create(*layer.as_layer_data_tuple())``: the copy shares the data
array, nothing is duplicated) and keeps the copies in step one way, source -> copy:
layers added, removed and reordered, and the display properties of :data:`SYNCED`.
Copies are never editable (the side views only navigate). Qt-free: it uses napari's
models only.

Making a copy is cheap, showing it is not: the target's Qt view builds a vispy visual
for it (0.05-0.3 s per layer). With a ``schedule`` every copy, of the layers already
there too, waits for the step ``schedule`` runs later (for example after the main
canvas's repaint), where the waiting layers are copied together (one redraw of the
target, not one per layer), so a case's layers reach the main canvas first;
:attr:`LayerMirror.pending` counts the layers still waiting and
:meth:`LayerMirror.when_done` runs a callable once there are none. A copy's new data (the
next case's arrays refilled into the same layers) waits for that step too: re-slicing and
uploading a case's layers in the side views costs more than the main canvas's own
update, so the case shows there first; the copy takes its layer's data and looks in the
step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from napari_mood._napari.layer_refill import set_layer_data

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
    schedule : callable, optional
        ``schedule(step)``: call ``step()`` later (for example on the next event-loop
        turn). Given, the layers (those already in ``source`` too) are copied together
        in such a step, in the source's order; omitted, at once.
    on_copy : callable, optional
        ``on_copy(copy)``: called after each copy joined ``target``.
    """

    def __init__(
        self,
        source: Any,
        target: Any,
        *,
        include: Callable[[Any], bool] | None = None,
        schedule: Callable[[Callable[[], None]], None] | None = None,
        on_copy: Callable[[Any], None] | None = None,
    ) -> None:
        self._source = source
        self._target = target
        self._include = include or (lambda layer: True)
        self._schedule = schedule
        self._on_copy = on_copy or (lambda copy: None)
        self._copies: dict[int, tuple[Any, Any, list[tuple[Any, Callable[..., None]]]]] = {}
        self._pending: list[Any] = []
        self._stale: list[Any] = []  # copied layers whose new data waits for the step
        self._stepping = False
        self._waiting: list[Callable[[], None]] = []
        self._closed = False
        source.events.inserted.connect(self._on_source_inserted)
        source.events.removed.connect(self._on_source_removed)
        source.events.reordered.connect(self._on_source_reordered)
        for layer in list(source):
            if schedule is None:
                self._add(layer)
            elif self._include(layer):
                self._pending.append(layer)
        self._reorder()
        if self._pending:
            self._step_later()

    def copy_of(self, layer: Any) -> Any | None:
        """Return the copy of a source layer, or None."""
        entry = self._copies.get(id(layer))
        return None if entry is None else entry[1]

    @property
    def pending(self) -> int:
        """How many source layers wait for their copy (or for their copy's new data)."""
        return len(self._pending) + len(self._stale)

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once no layer waits for its copy (now, when none does)."""
        if not self.pending:
            callback()
        else:
            self._waiting.append(callback)

    def flush(self) -> None:
        """Make every waiting copy now, in the order the layers came."""
        while self._stale and not self._closed:
            self._refill(self._stale.pop(0))
        while self._pending and not self._closed:
            layer = self._pending.pop(0)
            if layer in self._source:  # not removed meanwhile
                self._add(layer)
                self._reorder()
        self._finish_if_done()

    def close(self) -> None:
        """Stop following the source and remove every copy from the target."""
        self._closed = True
        self._pending.clear()
        self._stale.clear()
        self._waiting.clear()
        self._source.events.inserted.disconnect(self._on_source_inserted)
        self._source.events.removed.disconnect(self._on_source_removed)
        self._source.events.reordered.disconnect(self._on_source_reordered)
        for key in list(self._copies):
            self._drop(key)

    # -- source events --------------------------------------------------------------

    def _on_source_inserted(self, event: Any) -> None:
        if self._schedule is None:
            self._add(event.value)
            self._reorder()
            return
        if self._include(event.value):
            self._pending.append(event.value)
            self._step_later()

    def _on_source_removed(self, event: Any) -> None:
        self._pending = [layer for layer in self._pending if layer is not event.value]
        self._stale = [layer for layer in self._stale if layer is not event.value]
        self._drop(id(event.value))
        self._finish_if_done()

    def _on_source_reordered(self, event: Any = None) -> None:
        self._reorder()

    # -- waiting copies -------------------------------------------------------------

    def _step_later(self) -> None:
        if not self._stepping and self._schedule is not None:
            self._stepping = True
            self._schedule(self._scheduled_step)

    def _scheduled_step(self) -> None:
        self._stepping = False
        self.flush()

    def _finish_if_done(self) -> None:
        if self.pending:
            return
        waiting, self._waiting = self._waiting, []
        for callback in waiting:
            callback()

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
            handler = self._copier(layer, copy, name)
            handler()  # as_layer_data_tuple leaves some out (a Labels' contour)
            emitter.connect(handler)
            links.append((emitter, handler))
        self._copies[id(layer)] = (layer, copy, links)
        self._target.layers.append(copy)
        self._on_copy(copy)

    def _copier(self, layer: Any, copy: Any, name: str) -> Callable[..., None]:
        """Return the handler that copies ``layer``'s property ``name`` to ``copy``.

        Scheduled, new data waits for the step (:meth:`_refill`), and so does every
        change of a copy whose new data waits (it would re-slice the old data).
        """
        copy_now = _copier(layer, copy, name, self._target)
        if self._schedule is None:
            return copy_now

        def copy_property(event: Any = None) -> None:
            if any(layer is x for x in self._stale):
                return
            if name == "data" and event is not None:
                self._stale.append(layer)
                self._step_later()
                return
            copy_now(event)

        return copy_property

    def _refill(self, layer: Any) -> None:
        """Give a copy its layer's new data, then its layer's looks (what changed)."""
        entry = self._copies.get(id(layer))
        if entry is None:
            return
        for _, handler in entry[2]:
            handler()

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
        """Put the copies in the source's order, below the target's own layers."""
        layers = self._target.layers
        copies = [entry[1] for layer in self._source if (entry := self._copies.get(id(layer)))]
        own = [layer for layer in layers if not any(layer is c for c in copies)]
        wanted = copies + own
        for target_index, layer in enumerate(wanted):
            current = layers.index(layer)
            if current != target_index:
                layers.move(current, target_index)


def _copier(source: Any, copy: Any, name: str, target: Any) -> Callable[..., None]:
    def copy_property(event: Any = None) -> None:
        value = getattr(source, name)
        if name == "data":
            if _level0(source, value) is not _level0(copy, copy.data):  # not the same arrays
                set_layer_data(copy, value, model=target)
        elif name == "name" or not _same(getattr(copy, name), value):
            setattr(copy, name, value)

    return copy_property


def _level0(layer: Any, data: Any) -> Any:
    return data[0] if getattr(layer, "multiscale", False) else data


def _same(a: Any, b: Any) -> bool:
    """Return whether a copy's property already has the source's value.

    Setting it again would slice the copy again: a vector such as ``scale`` must compare
    equal, not ambiguous.
    """
    if a is b:
        return True
    if _is_data(a) or _is_data(b):
        return False  # another array is new data (comparing voxels would read the whole volume)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _same_vector(a, b)
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # sequences of arrays: elementwise is ambiguous
        return False


def _same_vector(a: Any, b: Any) -> bool:
    """Equal small vectors (``scale``, ``translate``, ``contrast_limits``)."""
    try:
        left, right = np.asarray(a), np.asarray(b)
    except (ValueError, TypeError):
        return False
    if left.dtype == object or right.dtype == object:
        return False
    return left.shape == right.shape and bool(np.array_equal(left, right))


def _is_data(value: Any) -> bool:
    """Whether ``value`` is layer data (an array or a pyramid), not a small vector."""
    if isinstance(value, list | tuple) and value:
        value = value[0]
    return len(getattr(value, "shape", ())) > 1
