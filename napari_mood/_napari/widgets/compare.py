"""Dock widget: compare methods side by side (grid view) or voxel by voxel (difference).

Grid view (:class:`CompareGrid`, Qt-free): napari's grid (``viewer.canvas.grid``) with one
cell per method. Each cell holds three layers, bottom to top: the scan, the method's map at
its threshold and the ground-truth outline; with ``stride`` = 3 napari puts each
consecutive group of three layers in one cell. The first cell uses the session's own scan
and GT layers; the other cells get helper copies that SHARE the data arrays (no copy)
and are linked to the originals (contrast, colormap, opacity; outline / fill), so a change
made on the original shows in every cell. Every method layer shows its name and a colorbar
in its cell. The grid shares dims and camera: one slice, one zoom. Leaving the grid removes
the helpers and restores the layer order, the visibility of every layer (methods keep the
visibility set by their toggles), the overlays, the grid settings and the selection.

Difference mode: one Labels layer with 1 = flagged by A only, 2 = by B only, 3 = by both
(fixed colours :data:`DIFFERENCE_COLORS`), recomputed in a worker whenever a threshold of
A or B changes (:func:`napari_mood.core.compare.difference`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from qtpy.QtCore import QSignalBlocker, QTimer
from qtpy.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.session import MoodSession, SessionMethod, get_session
from napari_mood._napari.widgets.common import connect_while_alive
from napari_mood._napari.widgets.worker import LatestWorker
from napari_mood.core.compare import A_ONLY, B_ONLY, BOTH, Difference, difference, grid_shape

if TYPE_CHECKING:
    import napari

__all__ = ["COMPARE_KEY", "DIFFERENCE_COLORS", "CompareGrid", "CompareWidget", "unwrap_viewer"]

#: Metadata key of the layers this module adds (the session ignores them).
COMPARE_KEY = "napari_mood_compare"
#: Colours of the difference labels (fixed: independent of the methods' colours).
DIFFERENCE_COLORS: dict[Any, str] = {
    0: "transparent",
    A_ONLY: "#ff3b3b",
    B_ONLY: "#3b8bff",
    BOTH: "#ffd83b",
    None: "transparent",
}
DIFFERENCE_OPACITY = 0.8
SCAN_LINKS = ("contrast_limits", "gamma", "colormap", "opacity")
#: How a method's name and colorbar are shown in its grid cell (restored on leaving).
CELL_OVERLAYS: dict[str, dict[str, Any]] = {
    "name_overlay": {"visible": True, "font_size": 11},
    "colorbar": {"visible": True, "size": (14.0, 90.0), "font_size": 8.0, "tick_length": 3.0},
}
GT_LINKS = ("contour", "opacity")

GRID_TIP = (
    "Show one grid cell per method: the scan, the method's map at its threshold and the "
    "ground-truth outline, with the method's name and colorbar. Slice and zoom are shared."
)
OVERLAY_TIP = "Return to one view with every method overlaid (layer order restored)."
SHOW_TIP = "Show {name} (in the grid: show its cell)."
DIFF_TIP = (
    "Colour the voxels flagged (score >= threshold) by method A only, by method B only "
    "and by both, at their current thresholds."
)
A_TIP = "Method A of the difference."
B_TIP = "Method B of the difference."
NEED_TWO = "Load at least two methods to compare them voxel by voxel."
IN_GRID = "Return to the overlay view to show the difference of two methods."
COUNT_TIPS = {
    A_ONLY: "Voxels flagged by method A only (A >= its threshold, B below its threshold).",
    B_ONLY: "Voxels flagged by method B only.",
    BOTH: "Voxels flagged by both methods.",
}


def unwrap_viewer(viewer: Any) -> Any:
    """The viewer itself rather than napari's ``PublicOnlyProxy`` around it.

    napari hands plugin widgets a proxy whose attributes are proxies too: a layer got
    through it is not ``is``-identical to the same layer in the layer list's events
    (napari/napari#5767), and a session keyed or weakly held by a short-lived proxy would
    be lost. Widgets compare layers by identity, so they keep the viewer itself.
    """
    return getattr(viewer, "__wrapped__", viewer)


def _helper_metadata(role: str, method: str | None = None) -> dict[str, dict[str, Any]]:
    return {COMPARE_KEY: {"role": role, "method": method}}


def _copy_layer(layer: Any, *, name: str, role: str, method: str) -> Any:
    """A layer showing the same array as ``layer`` (no array copy), marked as a helper."""
    from napari.layers import Layer

    data, state, kind = layer.as_layer_data_tuple()
    state.update(name=name, metadata=_helper_metadata(role, method))
    copy = Layer.create(data, state, kind)
    if hasattr(layer, "contour"):
        copy.contour = layer.contour
    return copy


@dataclass
class _SavedView:
    """What entering the grid changes, to put it back exactly."""

    order: list[Any]
    visible: dict[int, bool]
    grid: tuple[bool, tuple[int, int], int]
    overlays: dict[int, dict[str, dict[str, Any]]]
    active: Any


@dataclass(frozen=True)
class _Cell:
    """One grid cell: the method's layer between its scan and GT (either may be absent)."""

    method: str
    layer: Any
    layers: tuple[Any, ...]


class CompareGrid:
    """Napari's grid with one cell per method of a session (no Qt).

    Parameters
    ----------
    viewer : napari.Viewer
    session : MoodSession
        The session whose scan, ground truth and methods are shown.
    """

    def __init__(self, viewer: Any, session: MoodSession) -> None:
        self._viewer = viewer
        self._session = session
        self._cells: list[_Cell] = []
        self._copies: list[Any] = []
        self._links: list[tuple[list[Any], tuple[str, ...]]] = []
        self._saved: _SavedView | None = None
        self._base_visible: dict[int, bool] = {}

    @property
    def enabled(self) -> bool:
        """Whether the grid is shown."""
        return self._saved is not None

    @property
    def cells(self) -> dict[str, tuple[Any, ...]]:
        """Layers of each method's cell, bottom to top (empty when the grid is off)."""
        return {cell.method: cell.layers for cell in self._cells}

    @property
    def helpers(self) -> tuple[Any, ...]:
        """The helper copies of the scan and GT added for the grid."""
        return tuple(self._copies)

    def enter(self) -> None:
        """Show the grid (rebuilt when it is already shown).

        Raises
        ------
        ValueError
            When the session holds no method.
        """
        if self.enabled:
            self.leave()
        if not self._session.methods:
            raise ValueError("no method map is loaded: open a dataset or method maps first")
        layers = self._viewer.layers
        self._saved = _SavedView(
            order=list(layers),
            visible={id(layer): layer.visible for layer in layers},
            grid=self._grid_state(),
            overlays={id(m.layer): _overlay_state(m.layer) for m in self._session.methods},
            active=layers.selection.active,
        )
        self._build_cells()
        self._arrange()
        self._show_grid()
        layers.selection.active = self._cells[0].layer  # not the last helper added

    def leave(self) -> None:
        """Return to the overlay view: helpers removed, order / visibility / grid restored."""
        saved = self._saved
        if saved is None:
            return
        self._viewer.canvas.grid.enabled = False
        for layers, attributes in self._links:
            self._viewer.layers.unlink_layers(layers, attributes)
        method_layers = {id(cell.layer) for cell in self._cells}
        for copy in self._copies:
            if copy in self._viewer.layers:
                self._viewer.layers.remove(copy)
        self._restore(saved, method_layers)
        self._cells, self._copies, self._links, self._saved = [], [], [], None
        self._base_visible = {}

    def set_method_visible(self, name: str, visible: bool) -> None:
        """Show or hide a method (in the grid: its whole cell, and the grid is re-shaped)."""
        layer = self._session.method(name).layer
        cell = next((c for c in self._cells if c.method == name), None)
        if cell is None:
            layer.visible = visible
            return
        self._show_cell(cell, visible)
        self._viewer.canvas.grid.shape = self._shape()

    def _show_cell(self, cell: _Cell, shown: bool) -> None:
        """Show the method and, if they were shown before the grid, its scan and GT."""
        for layer in cell.layers:
            layer.visible = shown and (layer is cell.layer or self._base_visible[id(layer)])

    # -- building -------------------------------------------------------------------

    def _grid_state(self) -> tuple[bool, tuple[int, int], int]:
        grid = self._viewer.canvas.grid
        return grid.enabled, tuple(grid.shape), grid.stride  # type: ignore[return-value]

    def _build_cells(self) -> None:
        scan, gt = self._session.scan_layer, self._session.gt_layer
        scans, gts = [scan] if scan is not None else [], [gt] if gt is not None else []
        originals = scans[:], gts[:]
        for index, method in enumerate(self._session.methods):
            below, above = originals
            if index:
                below = [self._copy(layer, "scan", method.name) for layer in originals[0]]
                above = [self._copy(layer, "gt", method.name) for layer in originals[1]]
                scans.extend(below)
                gts.extend(above)
            self._cells.append(_Cell(method.name, method.layer, (*below, method.layer, *above)))
        for group, attributes in ((scans, SCAN_LINKS), (gts, GT_LINKS)):
            if len(group) > 1:
                self._viewer.layers.link_layers(group, attributes)
                self._links.append((group, attributes))

    def _copy(self, layer: Any, role: str, method: str) -> Any:
        copy = _copy_layer(layer, name=f"{layer.name} [{method}]", role=role, method=method)
        self._viewer.add_layer(copy)
        self._copies.append(copy)
        return copy

    def _arrange(self) -> None:
        """Cells first (bottom of the layer list), every other layer after them, hidden."""
        in_cells = [layer for cell in self._cells for layer in cell.layers]
        ids = {id(layer) for layer in in_cells}
        others = [layer for layer in self._viewer.layers if id(layer) not in ids]
        _reorder(self._viewer.layers, in_cells + others)
        for layer in others:
            layer.visible = False
        self._base_visible = {id(layer): layer.visible for layer in in_cells}  # copies: as orig.
        for cell in self._cells:
            self._show_cell(cell, cell.layer.visible)
            _set_overlays(cell.layer, CELL_OVERLAYS)

    def _show_grid(self) -> None:
        grid = self._viewer.canvas.grid
        grid.stride = len(self._cells[0].layers)
        grid.shape = self._shape()
        grid.enabled = True

    def _shape(self) -> tuple[int, int]:
        shown = sum(1 for cell in self._cells if any(layer.visible for layer in cell.layers))
        return grid_shape(max(shown, 1), canvas=self._canvas_size(), cell=self._cell_size())

    def _canvas_size(self) -> tuple[float, float]:
        height, width = self._viewer.canvas.size
        return float(max(height, 1)), float(max(width, 1))

    def _cell_size(self) -> tuple[float, float]:
        extent = self._viewer.layers.extent.world
        rows, cols = self._viewer.dims.displayed[-2:]
        height = float(extent[1][rows] - extent[0][rows])
        width = float(extent[1][cols] - extent[0][cols])
        return max(height, 1e-6), max(width, 1e-6)

    # -- restoring ------------------------------------------------------------------

    def _restore(self, saved: _SavedView, method_layers: set[int]) -> None:
        layers = self._viewer.layers
        kept = [layer for layer in saved.order if layer in layers]
        kept_ids = {id(layer) for layer in kept}
        _reorder(layers, kept + [layer for layer in layers if id(layer) not in kept_ids])
        for layer in kept:
            if id(layer) not in method_layers:
                layer.visible = saved.visible[id(layer)]
        for layer in kept:
            if id(layer) in saved.overlays:
                _set_overlays(layer, saved.overlays[id(layer)])
        grid = self._viewer.canvas.grid
        grid.shape, grid.stride = saved.grid[1], saved.grid[2]
        grid.enabled = saved.grid[0]
        if saved.active in layers:
            layers.selection.active = saved.active


def _overlay_state(layer: Any) -> dict[str, dict[str, Any]]:
    """The settings of a layer's overlays that :data:`CELL_OVERLAYS` changes."""
    return {
        overlay: {key: getattr(getattr(layer, overlay), key) for key in settings}
        for overlay, settings in CELL_OVERLAYS.items()
    }


def _set_overlays(layer: Any, state: dict[str, dict[str, Any]]) -> None:
    for overlay, settings in state.items():
        for key, value in settings.items():
            setattr(getattr(layer, overlay), key, value)


def _reorder(layers: Any, order: list[Any]) -> None:
    """Move ``layers`` (a napari LayerList) into ``order`` (the same layers)."""
    for target, layer in enumerate(order):
        current = layers.index(layer)
        if current != target:
            layers.move(current, target)


# --------------------------------------------------------------------------- widget


class _MethodToggle:
    """A method's visibility check box in its colour, following the layer's own eye."""

    def __init__(self, method: SessionMethod, parent: QWidget) -> None:
        self.layer = method.layer
        self.box = QCheckBox(method.name, parent)
        self.box.setChecked(method.layer.visible)
        self.box.setToolTip(SHOW_TIP.format(name=method.name))
        self.box.setStyleSheet(
            f"QCheckBox::indicator:checked {{ background-color: {method.color}; }}"
        )
        self.layer.events.visible.connect(self._on_layer_visible)

    def _on_layer_visible(self, event: Any) -> None:
        self.box.setChecked(bool(self.layer.visible))  # emits toggled only on a change

    def close(self) -> None:
        """Stop following the layer and delete the check box."""
        self.disconnect()
        self.box.deleteLater()

    def disconnect(self) -> None:
        """Stop following the layer."""
        self.layer.events.visible.disconnect(self._on_layer_visible)


class _CountRow:
    """Colour swatch, what it means and the number of voxels."""

    def __init__(self, value: int, parent: QWidget) -> None:
        self.swatch = QLabel(parent)
        self.swatch.setFixedSize(12, 12)
        self.swatch.setStyleSheet(
            f"background-color: {DIFFERENCE_COLORS[value]}; border-radius: 2px;"
        )
        self.label = QLabel(parent)
        self.count = QLabel("-", parent)
        for widget in (self.swatch, self.label, self.count):
            widget.setToolTip(COUNT_TIPS[value])


class CompareWidget(QWidget):
    """Grid view with one cell per method, per-method toggles and the difference of two.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is compared.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._viewer = viewer = unwrap_viewer(viewer)
        self._session: MoodSession = get_session(viewer)
        self._grid = CompareGrid(viewer, self._session)
        self._toggles: dict[str, _MethodToggle] = {}
        self._diff_layer: Any = None
        self._diff_result: Difference | None = None
        self._worker = LatestWorker(self._on_worker_result)
        self._rebuild_timer = QTimer(self)  # coalesces layer changes (e.g. a viewer closing)
        self._rebuild_timer.setSingleShot(True)
        self._rebuild_timer.setInterval(0)
        self._build_ui()
        self._connect()
        self._on_session_methods_changed()

    # -- layout ---------------------------------------------------------------------

    def _build_ui(self) -> None:
        self._grid_button = QPushButton("Grid view", self)
        self._grid_button.setToolTip(GRID_TIP)
        self._overlay_button = QPushButton("Overlay view", self)
        self._overlay_button.setToolTip(OVERLAY_TIP)
        self._overlay_button.setEnabled(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self._grid_button)
        buttons.addWidget(self._overlay_button)
        self._toggle_box = QGroupBox("Methods shown", self)
        self._toggle_layout = QVBoxLayout(self._toggle_box)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self._toggle_box)
        layout.addWidget(self._build_difference())
        layout.addStretch(1)

    def _build_difference(self) -> QGroupBox:
        box = QGroupBox("Difference of two methods", self)
        self._diff_check = QCheckBox("Show difference", box)
        self._diff_check.setToolTip(DIFF_TIP)
        self._combo_a, self._combo_b = QComboBox(box), QComboBox(box)
        self._combo_a.setToolTip(A_TIP)
        self._combo_b.setToolTip(B_TIP)
        self._counts = {value: _CountRow(value, box) for value in (A_ONLY, B_ONLY, BOTH)}
        grid = QGridLayout(box)
        grid.addWidget(self._diff_check, 0, 0, 1, 3)
        grid.addWidget(QLabel("A", box), 1, 0)
        grid.addWidget(self._combo_a, 1, 1, 1, 2)
        grid.addWidget(QLabel("B", box), 2, 0)
        grid.addWidget(self._combo_b, 2, 1, 1, 2)
        for row, count in enumerate(self._counts.values(), start=3):
            grid.addWidget(count.swatch, row, 0)
            grid.addWidget(count.label, row, 1)
            grid.addWidget(count.count, row, 2)
        grid.setColumnStretch(1, 1)
        self._diff_box = box
        return box

    def _connect(self) -> None:
        self._rebuild_timer.timeout.connect(self._on_rebuild_timer_timeout)
        self._grid_button.clicked.connect(self._on_grid_clicked)
        self._overlay_button.clicked.connect(self._on_overlay_clicked)
        self._diff_check.toggled.connect(self._on_diff_toggled)
        self._combo_a.currentTextChanged.connect(self._on_combo_changed)
        self._combo_b.currentTextChanged.connect(self._on_combo_changed)
        slots = (
            (self._session.methods_changed, self._on_session_methods_changed),
            (self._session.case_changed, self._on_session_case_changed),
            (self._session.threshold_changed, self._on_session_threshold_changed),
            (self._viewer.layers.events.removed, self._on_layers_removed),
        )
        connect_while_alive(self, slots)
        self.destroyed.connect(partial(_disconnect_toggles, self._toggles))
        self.destroyed.connect(partial(_leave_grid, self._grid))  # no helper left behind
        self.destroyed.connect(partial(_cancel, self._worker))  # drop results still running

    # -- public API -----------------------------------------------------------------

    @property
    def session(self) -> MoodSession:
        """The session compared."""
        return self._session

    @property
    def grid(self) -> CompareGrid:
        """The grid view."""
        return self._grid

    @property
    def difference_layer(self) -> Any:
        """The difference Labels layer, or None."""
        return self._diff_layer

    @property
    def difference_result(self) -> Difference | None:
        """The difference shown (counts and labels), or None."""
        return self._diff_result

    def show_grid(self) -> None:
        """Switch to the grid (one cell per method); a notification says why it cannot."""
        try:
            self._grid.enter()
        except ValueError as exc:
            _notify(f"napari-mood compare: {exc}")
            return
        self._sync_mode()

    def show_overlay(self) -> None:
        """Return to the overlay view."""
        self._grid.leave()
        self._sync_mode()

    def show_difference(self, method_a: str, method_b: str) -> None:
        """Show the difference of two methods (computed in a worker)."""
        with QSignalBlocker(self._combo_a), QSignalBlocker(self._combo_b):
            self._combo_a.setCurrentText(method_a)
            self._combo_b.setCurrentText(method_b)
        self._name_counts()
        if self._diff_check.isChecked():
            self._submit_difference()
        else:
            self._diff_check.setChecked(True)

    # -- handlers -------------------------------------------------------------------

    def _on_grid_clicked(self) -> None:
        self.show_grid()

    def _on_overlay_clicked(self) -> None:
        self.show_overlay()

    def _on_toggle_toggled(self, name: str, checked: bool) -> None:
        self._grid.set_method_visible(name, checked)

    def _on_session_methods_changed(self) -> None:
        self._rebuild_toggles()
        self._rebuild_combos()
        if self._grid.enabled:
            self._rebuild_timer.start()
        self._refresh_difference()

    def _on_session_case_changed(self) -> None:
        if self._grid.enabled:
            self._rebuild_timer.start()
        self._refresh_difference()

    def _on_rebuild_timer_timeout(self) -> None:
        if self._grid.enabled:
            self._rebuild_grid()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        if self._diff_check.isChecked() and name in self._pair():
            self._submit_difference()

    def _on_layers_removed(self, event: Any) -> None:
        if event.value is self._diff_layer:
            self._diff_layer = None
            self._diff_check.setChecked(False)

    def _on_diff_toggled(self, checked: bool) -> None:
        if checked:
            self._submit_difference()
        else:
            self._worker.cancel()
            self._remove_difference()

    def _on_combo_changed(self, _text: str) -> None:
        self._name_counts()
        self._refresh_difference()

    def _on_worker_result(self, result: Difference) -> None:
        if not self._diff_check.isChecked():
            return
        self._diff_result = result
        self._show_difference_layer(result)
        self._show_counts(result)

    # -- grid -----------------------------------------------------------------------

    def _rebuild_grid(self) -> None:
        self._grid.leave()
        if self._session.methods:
            self.show_grid()
        else:
            self._sync_mode()

    def _sync_mode(self) -> None:
        in_grid = self._grid.enabled
        self._grid_button.setEnabled(not in_grid)
        self._overlay_button.setEnabled(in_grid)
        self._update_difference_enabled()

    # -- toggles --------------------------------------------------------------------

    def _rebuild_toggles(self) -> None:
        for toggle in self._toggles.values():
            self._toggle_layout.removeWidget(toggle.box)
            toggle.close()
        self._toggles.clear()
        for method in self._session.methods:
            toggle = _MethodToggle(method, self)
            toggle.box.toggled.connect(partial(self._on_toggle_toggled, method.name))
            self._toggle_layout.addWidget(toggle.box)
            self._toggles[method.name] = toggle
        self._toggle_box.setVisible(bool(self._toggles))
        self._grid_button.setEnabled(bool(self._toggles) and not self._grid.enabled)

    # -- difference -----------------------------------------------------------------

    def _rebuild_combos(self) -> None:
        names = list(self._session.method_names)
        previous = self._pair()
        for combo, index in ((self._combo_a, 0), (self._combo_b, 1)):
            with QSignalBlocker(combo):
                combo.clear()
                combo.addItems(names)
                keep = previous[index] if previous[index] in names else None
                fallback = names[min(index, len(names) - 1)] if names else ""
                combo.setCurrentText(keep or fallback)
        self._name_counts()
        self._update_difference_enabled()

    def _name_counts(self) -> None:
        name_a, name_b = self._pair()
        self._counts[A_ONLY].label.setText(f"{name_a or 'A'} only")
        self._counts[B_ONLY].label.setText(f"{name_b or 'B'} only")
        self._counts[BOTH].label.setText("both")

    def _update_difference_enabled(self) -> None:
        enough = len(self._session.method_names) >= 2
        self._diff_box.setEnabled(enough and not self._grid.enabled)
        self._diff_box.setToolTip(IN_GRID if self._grid.enabled else ("" if enough else NEED_TWO))
        if not enough and self._diff_check.isChecked():
            self._diff_check.setChecked(False)

    def _pair(self) -> tuple[str, str]:
        return self._combo_a.currentText(), self._combo_b.currentText()

    def _refresh_difference(self) -> None:
        if self._diff_check.isChecked():
            self._submit_difference()

    def _submit_difference(self) -> None:
        name_a, name_b = self._pair()
        names = self._session.method_names
        if name_a not in names or name_b not in names:
            return
        a, b = self._session.method(name_a), self._session.method(name_b)
        self._worker.submit(
            difference, a.data, b.data, threshold_a=a.threshold, threshold_b=b.threshold
        )

    def _show_difference_layer(self, result: Difference) -> None:
        name = "difference: {} vs {}".format(*self._pair())
        if self._diff_layer is not None and self._diff_layer in self._viewer.layers:
            self._diff_layer.data = result.labels
            self._diff_layer.name = name
            return
        reference = self._session.method(self._pair()[0]).layer
        self._diff_layer = self._viewer.add_labels(
            result.labels,
            name=name,
            colormap=DIFFERENCE_COLORS,
            opacity=DIFFERENCE_OPACITY,
            blending="translucent",
            scale=reference.scale,
            translate=reference.translate,
            metadata=_helper_metadata("difference"),
        )
        self._diff_layer.editable = False
        gt = self._session.gt_layer
        if gt is not None:  # keep the GT outline on top
            layers = self._viewer.layers
            layers.move(layers.index(self._diff_layer), layers.index(gt))

    def _show_counts(self, result: Difference) -> None:
        for value, count in ((A_ONLY, result.a_only), (B_ONLY, result.b_only), (BOTH, result.both)):
            self._counts[value].count.setText(f"{count:,} voxels")

    def _remove_difference(self) -> None:
        layer, self._diff_layer, self._diff_result = self._diff_layer, None, None
        if layer is not None and layer in self._viewer.layers:
            self._viewer.layers.remove(layer)
        for count in self._counts.values():
            count.count.setText("-")

    @property
    def counts_text(self) -> dict[int, str]:
        """The count labels shown, by difference value."""
        return {value: row.count.text() for value, row in self._counts.items()}


def _notify(message: str) -> None:
    from napari.utils.notifications import show_warning

    show_warning(message)


def _cancel(worker: LatestWorker, *_: object) -> None:
    worker.cancel()


def _leave_grid(grid: CompareGrid, *_: object) -> None:
    grid.leave()


def _disconnect_toggles(toggles: dict[str, _MethodToggle], *_: object) -> None:
    for toggle in toggles.values():
        toggle.disconnect()
