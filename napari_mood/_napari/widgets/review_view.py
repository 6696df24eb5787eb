"""What the viewer shows during a review.

What the viewer shows during a review: the regions' outlines, only the reviewed method,
and blind review.

* **Only this method**: the other methods' maps are hidden (their visibility is restored
  when the option is turned off, the review closes or another method is chosen).
* **Blind review**: also the ground truth is hidden, the reviewed map is drawn with a
  neutral colour map (each method's own colour would name it), the layer list, the layer
  controls and the other napari-mood panels are hidden (they name the methods), the scan
  is the selected layer (napari's own status bar names the selected layer), the status
  bar shows no other layer name (:attr:`MoodSession.blind`) and every layer naming a
  method is renamed ("Method A", the name the review panel shows;
  :class:`~napari_mood._napari.neutral_names.NeutralNames`), so no method's name reaches
  napari: status bar, grid cells, side views. Everything comes back when blind review is
  turned off.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from qtpy.QtWidgets import QDockWidget, QWidget

from napari_mood._napari.helper_layers import add_helper_labels, helper_layers, set_helper_data
from napari_mood._napari.layers import METADATA_KEY, layer_info
from napari_mood._napari.neutral_names import NeutralNames
from napari_mood._napari.session import MoodSession
from napari_mood._napari.widgets.review_texts import (
    REVIEW_COLOR,
    REVIEW_CONTOUR,
    REVIEW_LAYER_NAME,
    REVIEW_ROLE,
)
from napari_mood.services.looks import method_colormap
from napari_mood.services.review_regions import FoundRegions

__all__ = ["BLIND_COLOR", "ReviewView", "review_layer", "show_region_labels"]

BLIND_COLOR = "#ffcc66"
"""The colour of the reviewed map in blind review (light amber: the same for every method,
transparent below the threshold like every map)."""
NAPARI_DOCKS = ("layer list", "layer controls")


class ReviewView:
    """Hide and restore layers and panels for "only this method" and blind review.

    Parameters
    ----------
    session : MoodSession
        The case shown.
    panel : QWidget
        The review panel (its dock and the three-plane dock stay visible in blind review).
    """

    def __init__(self, session: MoodSession, panel: QWidget) -> None:
        self._session = session
        self._panel = panel
        self._hidden: dict[int, tuple[Any, bool]] = {}  # id(layer) -> (layer, visible before)
        self._docks: list[tuple[QDockWidget, bool]] = []
        self._recoloured: Any = None
        self._selected: Any = None  # the layer selected before blind review
        self._names = NeutralNames(session.viewer)
        self.method: str | None = None
        self.only = False
        self.blind = False

    def show(
        self,
        method: str | None,
        *,
        only: bool,
        blind: bool,
        names: Mapping[str, str] | None = None,
    ) -> None:
        """Show ``method`` alone, optionally in blind review.

        Show ``method`` alone (``only`` or ``blind``), blind or not; in blind review the
        layers naming a method show the neutral ``names`` (method -> "Method A").
        """
        self.restore(keep_names=blind)
        self.method, self.only, self.blind = method, only, blind
        self._session.blind = blind
        self._names.show(names if blind and names else {})
        if method is None or method not in self._session.method_names:
            return
        if only or blind:
            others = [m.layer for m in self._session.methods if m.name != method]
            for layer in others + ([self._session.gt_layer] if blind else []):
                self._hide(layer)
            self._show(self._session.method(method).layer)
        if blind:
            layer = self._session.method(method).layer
            layer.colormap = method_colormap(BLIND_COLOR)
            self._recoloured = layer
            self._hide_docks()
            self._select_scan()

    def restore(self, *, closing: bool = False, keep_names: bool = False) -> None:
        """Undo what :meth:`show` hid or renamed.

        Put back what :meth:`show` hid or changed (``closing``: the panel is gone;
        ``keep_names``: the layers keep their neutral names, blind review goes on).
        """
        if not keep_names:
            self._names.restore()
        for layer, visible in self._hidden.values():
            if layer in self._session.viewer.layers:
                layer.visible = visible
        if self.only or self.blind:  # layers of a case opened meanwhile came in hidden
            for layer in self._hideable():
                if id(layer) not in self._hidden:
                    layer.visible = True
        self._hidden.clear()
        layer, self._recoloured = self._recoloured, None
        info = layer_info(layer) if layer is not None else None
        if info is not None and info.get("color") and layer in self._session.viewer.layers:
            layer.colormap = method_colormap(info["color"])
        if not closing:
            for dock, visible in self._docks:
                dock.setVisible(visible)
            mine = self._dock_of(self._panel)
            if self._docks and mine is not None:
                mine.raise_()  # the review stays in front of the panels that come back
        self._docks.clear()
        self._restore_selection()
        self._session.blind = False

    def _select_scan(self) -> None:
        """Select the scan: napari's status bar names the selected layer (never the method)."""
        selection = self._session.viewer.layers.selection
        self._selected = selection.active
        selection.active = self._session.scan_layer  # None (no scan): nothing selected

    def _restore_selection(self) -> None:
        layer, self._selected = self._selected, None
        layers = self._session.viewer.layers
        if layer is not None and layer in layers and layers.selection.active is not layer:
            layers.selection.active = layer

    def _hideable(self) -> list[Any]:
        gt = self._session.gt_layer
        return [m.layer for m in self._session.methods] + ([gt] if gt is not None else [])

    def _hide(self, layer: Any) -> None:
        if layer is None:
            return
        self._hidden.setdefault(id(layer), (layer, bool(layer.visible)))
        layer.visible = False

    def _show(self, layer: Any) -> None:
        self._hidden.setdefault(id(layer), (layer, bool(layer.visible)))
        layer.visible = True

    def _hide_docks(self) -> None:
        window = self._panel.window()
        if window is None:
            return
        mine = self._dock_of(self._panel)
        for dock in window.findChildren(QDockWidget):
            action = dock.toggleViewAction()
            is_open = action is not None and action.isChecked()  # also a tab behind another
            if dock is mine or not is_open or not _names_methods(dock):
                continue
            self._docks.append((dock, True))
            dock.setVisible(False)
        if mine is not None:
            mine.raise_()

    @staticmethod
    def _dock_of(widget: QWidget) -> QWidget | None:
        parent = widget.parentWidget()
        while parent is not None and not isinstance(parent, QDockWidget):
            parent = parent.parentWidget()
        return parent


def _names_methods(dock: QDockWidget) -> bool:
    """Return napari's layer list and controls, and every napari-mood panel but the planes'."""
    if dock.objectName() in NAPARI_DOCKS:
        return True
    modules = {type(w).__module__ for w in dock.findChildren(QWidget)}  # napari wraps panels
    ours = {m for m in modules if m.startswith("napari_mood")}
    return bool(ours) and not any(m.endswith("widgets.planes") for m in ours)


def review_layer(viewer: Any) -> Any:
    """Return the outline layer of the regions under review (None when not shown)."""
    return next(helper_layers(viewer, REVIEW_ROLE), None)


def show_region_labels(session: MoodSession, found: FoundRegions, levels: Any) -> None:
    """Outline ``found``'s regions (layer :data:`REVIEW_LAYER_NAME`, made or updated)."""
    layer = review_layer(session.viewer)
    if layer is None:
        layer = add_helper_labels(
            session.viewer,
            found.labels,
            name=REVIEW_LAYER_NAME,
            reference=session.method(found.method).layer,
            colormap={0: "transparent", None: REVIEW_COLOR},
            metadata={METADATA_KEY: {"role": REVIEW_ROLE, "case": found.case}},
            contour=REVIEW_CONTOUR,
            levels=levels,
        )
    else:
        set_helper_data(layer, found.labels, levels=levels)
    layer.metadata[METADATA_KEY].update(method=found.method, case=found.case)
    layer.show_selected_label = True
