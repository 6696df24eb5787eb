"""Dock widget: compare methods side by side (grid view) or voxel by voxel (difference).

Grid view: :class:`napari_mood._napari.grid.CompareGrid` (one grid cell per method: scan,
map at its threshold, GT outline; helper copies share the arrays), with per-method toggles.

Difference mode: one Labels layer with 1 = flagged by A only, 2 = by B only, 3 = by both
(fixed colours :data:`DIFFERENCE_COLORS`), recomputed in a worker whenever a threshold of
A or B changes (:func:`napari_mood.core.compare.difference`).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from qtpy.QtCore import QSignalBlocker
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

from napari_mood._napari.grid import CompareGrid, helper_metadata
from napari_mood._napari.helper_layers import add_helper_labels, set_helper_data, shown_with
from napari_mood._napari.looks import DIFFERENCE_COLORS as LOOK_DIFFERENCE
from napari_mood._napari.session import SessionMethod
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood.services.comparison import A_ONLY, B_ONLY, BOTH, Difference, difference

if TYPE_CHECKING:
    import napari

__all__ = ["DIFFERENCE_COLORS", "CompareWidget"]

#: Colours of the difference labels (_napari.looks: never a method's or the GT's colour).
DIFFERENCE_COLORS: dict[Any, str] = {
    0: "transparent",
    A_ONLY: dict(LOOK_DIFFERENCE)["A only"],
    B_ONLY: dict(LOOK_DIFFERENCE)["B only"],
    BOTH: dict(LOOK_DIFFERENCE)["both"],
    None: "transparent",
}
DIFFERENCE_OPACITY = 0.8
_DIFFERENCE_SHOWN = shown_with(difference, lambda result: result.labels)  # the worker job
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
# Accessible names: what a screen reader says for controls without a telling text of their own.
SHOW_NAME = "Show {name}"
A_NAME = "Method A of the difference"
B_NAME = "Method B of the difference"
COUNT_NAMES = {
    A_ONLY: "Voxels flagged by A only",
    B_ONLY: "Voxels flagged by B only",
    BOTH: "Voxels flagged by both",
}
COUNT_TIPS = {
    A_ONLY: "Voxels flagged by method A only (A >= its threshold, B below its threshold).",
    B_ONLY: "Voxels flagged by method B only.",
    BOTH: "Voxels flagged by both methods.",
}


class _MethodToggle:
    """A method's visibility check box in its colour, following the layer's own eye."""

    def __init__(self, method: SessionMethod, parent: QWidget) -> None:
        self.layer = method.layer
        self.box = QCheckBox(method.name, parent)
        self.box.setChecked(method.layer.visible)
        self.box.setToolTip(SHOW_TIP.format(name=method.name))
        self.box.setAccessibleName(SHOW_NAME.format(name=method.name))
        self.box.setStyleSheet(
            f"QCheckBox::indicator:checked {{ background-color: {method.color}; }}"
        )
        self.layer.events.visible.connect(self._on_layer_visible)

    def _on_layer_visible(self, event: Any) -> None:
        self.box.setChecked(bool(self.layer.visible))  # emits toggled only on a change

    def close(self) -> None:
        """Stop following the layer and delete the check box."""
        self.disconnect()
        kit.discard(self.box)

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
        self.count.setAccessibleName(COUNT_NAMES[value])


class CompareWidget(MoodPanel):
    """Grid view with one cell per method, per-method toggles and the difference of two.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is compared.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._grid = CompareGrid(self._viewer, self._session)
        self._toggles: dict[str, _MethodToggle] = {}
        self._diff_layer: Any = None
        self._diff_result: Difference | None = None
        self._worker = self._lifetime.worker(self._on_worker_result)
        # coalesces layer changes (e.g. a viewer closing)
        self._rebuild_timer = kit.single_shot(self, 0, self._on_rebuild_timer_timeout)
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
        self._combo_a.setAccessibleName(A_NAME)
        self._combo_b.setAccessibleName(B_NAME)
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
        self._grid_button.clicked.connect(self._on_grid_clicked)
        self._overlay_button.clicked.connect(self._on_overlay_clicked)
        self._diff_check.toggled.connect(self._on_diff_toggled)
        self._combo_a.currentTextChanged.connect(self._on_combo_changed)
        self._combo_b.currentTextChanged.connect(self._on_combo_changed)
        self.watch_session(  # the grid and the difference are in the viewer: always followed
            methods=self._on_session_methods_changed,
            case=self._on_session_case_changed,
            threshold=self._on_session_threshold_changed,
        )
        self._lifetime.connect(self._viewer.layers.events.removed, self._on_layers_removed)
        self._lifetime.at_end(partial(_disconnect_toggles, self._toggles))
        self._lifetime.at_end(self._grid.leave)  # no helper left behind

    # -- public API -----------------------------------------------------------------

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

    @property
    def busy(self) -> bool:
        """Whether a difference is being computed."""
        return self._worker.busy

    def show_grid(self) -> None:
        """Switch to the grid (one cell per method); a notification says why it cannot."""
        try:
            self._grid.enter()
        except ValueError as exc:
            kit.notify("warning", f"napari-mood compare: {exc}")
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

    def _on_worker_result(self, outcome: tuple[Difference, Any]) -> None:
        if not self._diff_check.isChecked():
            return
        result, levels = outcome
        self._diff_result = result
        self._show_difference_layer(result, levels)
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
        pair = _pair_of(names, self._pair())
        for combo, name in zip((self._combo_a, self._combo_b), pair, strict=True):
            with QSignalBlocker(combo):
                combo.clear()
                combo.addItems(names)
                combo.setCurrentText(name)
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
            _DIFFERENCE_SHOWN, a.data, b.data, threshold_a=a.threshold, threshold_b=b.threshold
        )

    def _show_difference_layer(self, result: Difference, levels: Any) -> None:
        name = "difference: {} vs {}".format(*self._pair())
        if self._diff_layer is not None and self._diff_layer in self._viewer.layers:
            set_helper_data(self._diff_layer, result.labels, levels=levels)
            self._diff_layer.name = name
            return
        self._diff_layer = add_helper_labels(
            self._viewer,
            result.labels,
            name=name,
            reference=self._session.method(self._pair()[0]).layer,
            colormap=DIFFERENCE_COLORS,
            metadata=helper_metadata("difference"),
            opacity=DIFFERENCE_OPACITY,
            levels=levels,
        )
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


def _disconnect_toggles(toggles: dict[str, _MethodToggle]) -> None:
    for toggle in toggles.values():
        toggle.disconnect()


def _pair_of(names: list[str], previous: tuple[str, str]) -> tuple[str, str]:
    """Return methods A and B of the difference: the reader's choices while they are shown.

    A new A is the first method; B is never A while another method is shown (the methods
    of a case arrive one by one: the first alone would have been both).

    Examples
    --------
    >>> _pair_of(["binary", "residual"], ("binary", "binary"))
    ('binary', 'residual')
    >>> _pair_of(["a", "b", "c"], ("c", "a"))
    ('c', 'a')
    >>> _pair_of(["a"], ("", ""))
    ('a', 'a')
    """
    if not names:
        return "", ""
    a = previous[0] if previous[0] in names else names[0]
    others = [name for name in names if name != a] or [a]
    b = previous[1] if previous[1] in others else others[0]
    return a, b
