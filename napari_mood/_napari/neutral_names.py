"""Neutral layer names for a blind review: no method's name reaches napari.

napari shows layer names in many places: the layer list, the status bar (in grid mode,
or with several layers selected, its plain-text status lists every visible layer's
name), each grid cell's name overlay, the side views' copies. Rather than rewriting
each of them, :class:`NeutralNames` renames the layers while a blind review is on:
every layer whose name holds a method's name (the map itself, its objects layer, the
compare grid's copies and colour bar) shows the neutral name instead ("Method A",
"brain_001 [Method A]"). A layer that comes in meanwhile (another case) or is renamed
(a case switch refills a layer under the new case's name) is renamed at once. Turned
off, every layer gets its real name back. Qt-free.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NeutralNames", "neutral_name"]


def neutral_name(name: str, names: Mapping[str, str]) -> str:
    """``name`` with every method name in it (a whole word) replaced by its neutral name.

    Examples
    --------
    >>> names = {"binary": "Method B", "residual": "Method A"}
    >>> neutral_name("binary", names), neutral_name("brain_001 [residual]", names)
    ('Method B', 'brain_001 [Method A]')
    >>> neutral_name("binary_v2 objects", names)  # another word: left alone
    'binary_v2 objects'
    """
    if not names:
        return name
    words = sorted(names, key=len, reverse=True)  # "a_b" before "a"
    pattern = r"(?<![\w-])(" + "|".join(map(re.escape, words)) + r")(?![\w-])"
    return re.sub(pattern, lambda match: names[match.group(1)], name)


@dataclass
class _Renamed:
    layer: Any
    real: str
    shown: str


class NeutralNames:
    """Show neutral layer names in ``viewer`` while :meth:`show` is on (module docstring).

    Parameters
    ----------
    viewer : napari.Viewer or ViewerModel
    """

    def __init__(self, viewer: Any) -> None:
        self._viewer = viewer
        self._names: dict[str, str] = {}
        self._renamed: dict[int, _Renamed] = {}

    @property
    def names(self) -> dict[str, str]:
        """Method name -> neutral name shown ({}: off)."""
        return dict(self._names)

    def show(self, names: Mapping[str, str]) -> None:
        """Rename every layer naming a method (``names``: method -> neutral name)."""
        if dict(names) == self._names:
            return
        self.restore()
        self._names = dict(names)
        if not self._names:
            return
        self._viewer.layers.events.inserted.connect(self._on_layers_inserted)
        for layer in list(self._viewer.layers):
            self._rename(layer)

    def restore(self) -> None:
        """Give every layer renamed its real name back (those still in the viewer)."""
        if self._names:
            self._viewer.layers.events.inserted.disconnect(self._on_layers_inserted)
        self._names = {}
        renamed, self._renamed = self._renamed, {}
        for entry in renamed.values():
            entry.layer.events.name.disconnect(self._on_layer_name)
            if entry.layer.name == entry.shown:
                entry.layer.name = entry.real

    def _on_layers_inserted(self, event: Any) -> None:
        self._rename(event.value)

    def _rename(self, layer: Any) -> None:
        shown = neutral_name(layer.name, self._names)
        if shown == layer.name:
            return
        if id(layer) not in self._renamed:
            layer.events.name.connect(self._on_layer_name)
        entry = self._renamed[id(layer)] = _Renamed(layer, layer.name, shown)
        layer.name = shown
        entry.shown = layer.name  # napari may have made it unique ("Method A [1]")

    def _on_layer_name(self, event: Any) -> None:
        """Hide a real name again when a layer is renamed while blind (a neutral one is kept)."""
        layer = event.source
        entry = self._renamed.get(id(layer))
        if entry is None or layer.name == entry.shown:
            return
        if neutral_name(layer.name, self._names) == layer.name:
            entry.shown = layer.name  # napari or the user chose a name naming no method
            return
        self._rename(layer)
