"""Reading tools dock: window/level presets, a ruler in mm and ROI statistics.

* **Window/level**: the presets of the scan's modality
  (:func:`~napari_mood.services.reading_tools.scan_windows`: CT when its values are in
  Hounsfield units, else MRI): standard CT windows, percentile windows for MRI. The choice
  is remembered per modality (napari-mood's ``QSettings``, as the radiological convention)
  and applied to the next case of that modality. Shift+W (over napari's canvas or a side
  view) picks the next preset.
* **Ruler**: drag a line in the chosen pane (axial = napari's canvas, coronal, sagittal);
  its length in mm (the scan's voxel spacing) is written beside it.
* **ROI box / ellipse**: drag a box or an ellipse in the chosen pane; the table shows
  the mean and max of the scan and of each map inside it, and the voxels each map flags at
  its display threshold, with the ROI's area on the slice (mm^2) and its volume (the
  voxels on that one slice, mm^3). Computed in a worker; recomputed when a threshold moves.

In the reading layout (its panels hidden) the panel's strip
(:meth:`ReadingToolsWidget.reading_strip`, :mod:`.reading_tools_strip`) offers the preset,
the tools and the ROI's statistics in one line under the panes.

Each tool is a Shapes layer of the pane (:mod:`napari_mood._napari.measure_layers`),
editable only while its button is down; the layer's shapes are cleared when another case
opens (a measurement belongs to one patient).
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial
from typing import Any

from qtpy.QtCore import QSettings, Qt
from qtpy.QtWidgets import (
    QGroupBox,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.measure_layers import (
    MeasureKind,
    label_ruler,
    make_measure_layer,
    spacing_of,
)
from napari_mood._napari.planes import SIDE_PLANES, planes_of
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood._napari.widgets.reading_tools_strip import ReadingToolsStrip
from napari_mood.services.reading_tools import (
    RoiResult,
    ScanWindows,
    roi_job,
    scan_windows,
    window_limits,
)

__all__ = ["PRESET_KEY", "ReadingToolsWidget", "saved_preset"]

SETTINGS = ("napari-mood", "napari-mood")
PRESET_KEY = "viewer/window_preset/{modality}"
PRESET_SHORTCUT = "Shift-W"
AXIAL = "axial"
MODES = {"ruler": "add_line", "box": "add_rectangle", "ellipse": "add_ellipse"}
PRESET_TIP = (
    "Window/level preset of the scan. CT (values in Hounsfield units, down to air at\n"
    "-1000): standard windows, level/width in HU. MRI: the values between two\n"
    "percentiles. Remembered per modality for the next case. Shift+W: next preset."
)
PANE_TIP = "Where the ruler and the ROI are drawn: napari's canvas (axial) or a side view."
RULER_TIP = "Ruler: drag a line; its length in mm is written beside it."
BOX_TIP = "ROI box: drag a box; mean, max and flagged voxels of the scan and maps inside."
ELLIPSE_TIP = "ROI ellipse: drag an ellipse; mean, max and flagged voxels inside."
CLEAR_TIP = "Remove every ruler and ROI drawn."
COLUMNS = ("layer", "mean", "max", "flagged")
NO_ROI = "Draw a box or an ellipse (ROI buttons) to measure it."
NO_ROI_LINE = "No ROI"


def saved_preset(modality: str) -> str | None:
    """Return the preset last chosen for ``modality`` on this machine (None: none yet)."""
    value = QSettings(*SETTINGS).value(PRESET_KEY.format(modality=modality), None)
    return None if value is None else str(value)


class ReadingToolsWidget(MoodPanel):
    """Window/level presets, a ruler and ROI statistics (see the module docstring).

    Parameters
    ----------
    napari_viewer : napari.Viewer
        Injected by napari.
    """

    def __init__(self, napari_viewer: Any) -> None:
        super().__init__(napari_viewer)
        self._windows: ScanWindows | None = None
        self._layers: dict[tuple[str, str], Any] = {}  # (kind, pane) -> Shapes layer
        self._active: tuple[str, Any, Any] | None = None  # (tool, layer, previous selection)
        self._roi: tuple[Any, int, str] | None = None  # layer, shape index, pane
        self._filling = False
        self._strip: ReadingToolsStrip | None = None
        self._roi_shown: RoiResult | None = None
        self._build()
        self._limits_worker = self._lifetime.worker(self._on_limits_result)
        self._roi_worker = self._lifetime.worker(self._on_roi_result)
        self.watch_session(case=self._on_session_case, threshold=self._on_session_threshold)
        self._viewer.bind_key(PRESET_SHORTCUT, self._on_preset_key, overwrite=True)
        self._lifetime.at_end(self._close)
        self._on_session_case()

    # -- building -------------------------------------------------------------------

    def _build(self) -> None:
        self._modality = QLabel("", self)
        self._preset = kit.combo(self, PRESET_TIP)
        self._preset.setAccessibleName("Window/level preset")
        self._preset.activated.connect(self._on_preset_activated)
        window = QGroupBox("Window / level", self)
        box = QVBoxLayout(window)
        box.addLayout(kit.row(self._modality, self._preset, stretch=True))
        self._pane = kit.combo(self, PANE_TIP, [AXIAL, *SIDE_PLANES])
        self._pane.setAccessibleName("Pane to draw in")
        self._pane.currentTextChanged.connect(self._on_pane_changed)
        self._buttons = {
            "ruler": self._tool_button("Ruler", RULER_TIP),
            "box": self._tool_button("ROI box", BOX_TIP),
            "ellipse": self._tool_button("ROI ellipse", ELLIPSE_TIP),
        }
        for tool, button in self._buttons.items():
            button.toggled.connect(lambda checked, t=tool: self._on_tool_toggled(t, checked))
            button.toggled.connect(self._show_strip)
        self._preset.currentIndexChanged.connect(self._show_strip)
        self._clear = kit.button(self, "Clear", CLEAR_TIP)
        self._clear.clicked.connect(self._on_clear_clicked)
        measure = QGroupBox("Measure", self)
        column = QVBoxLayout(measure)
        column.addLayout(kit.row(QLabel("Draw in", self), self._pane, stretch=True))
        column.addLayout(kit.row(*self._buttons.values(), self._clear, stretch=True))
        self._size = QLabel(NO_ROI, self)
        self._size.setWordWrap(True)
        self._table = QTableWidget(0, len(COLUMNS), self)
        self._table.setHorizontalHeaderLabels(list(COLUMNS))
        horizontal, vertical = kit.headers(self._table)
        vertical.hide()
        horizontal.setStretchLastSection(True)
        column.addWidget(self._size)
        column.addWidget(self._table, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(window)
        layout.addWidget(measure, 1)

    def _tool_button(self, text: str, tip: str) -> QPushButton:
        button = kit.button(self, text, tip)
        button.setCheckable(True)
        return button

    # -- the reading layout's strip ---------------------------------------------------

    def reading_strip(self, parent: QWidget) -> ReadingToolsStrip:
        """Make the tools' strip for the reading layout (see :mod:`.reading_tools_strip`).

        Its controls are this panel's: a preset or a tool chosen there is chosen here.
        """
        strip = ReadingToolsStrip(parent)
        strip.preset.activated.connect(self._on_strip_preset_activated)
        for tool, button in strip.tool_buttons.items():
            button.clicked.connect(partial(self._on_strip_tool_clicked, tool))
        strip.destroyed.connect(self._on_strip_destroyed)
        self._strip = strip
        self._show_strip()
        return strip

    def _on_strip_preset_activated(self, index: int) -> None:
        if 0 <= index < self._preset.count():
            self.choose_preset(self._preset.itemText(index))

    def _on_strip_tool_clicked(self, tool: str, checked: bool) -> None:
        self._buttons[tool].setChecked(checked)
        self._show_strip()  # a tool refused (no case) shows off there too

    def _on_strip_destroyed(self, *_: object) -> None:
        self._strip = None

    def _show_strip(self, *_: object) -> None:
        strip = self._strip
        if strip is None or self._filling:
            return
        strip.show_state(
            self.presets,
            self._preset.currentIndex(),
            {tool: button.isChecked() for tool, button in self._buttons.items()},
            _roi_summary(self._roi_shown),
        )

    # -- public (tests, scripts) ----------------------------------------------------

    @property
    def modality(self) -> str | None:
        """The modality read from the scan ("CT" or "MRI"), None without a scan."""
        return None if self._windows is None else self._windows.modality

    @property
    def presets(self) -> list[str]:
        """The presets offered for the case shown."""
        return [self._preset.itemText(i) for i in range(self._preset.count())]

    def choose_preset(self, name: str) -> None:
        """Apply the preset called ``name`` (as choosing it in the list does)."""
        index = self._preset.findText(name)
        if index < 0:
            raise ValueError(f"no preset {name!r}; have {self.presets}")
        self._preset.setCurrentIndex(index)
        self._on_preset_activated(index)

    def start(self, tool: str, pane: str = AXIAL) -> Any:
        """Turn a tool on (``"ruler"``, ``"box"``, ``"ellipse"``) in ``pane``; return its layer."""
        self._pane.setCurrentText(pane)
        self._buttons[tool].setChecked(True)
        return None if self._active is None else self._active[1]

    def stop(self) -> None:
        """Turn the active tool off."""
        for button in self._buttons.values():
            button.setChecked(False)

    def layer(self, kind: MeasureKind, pane: str = AXIAL) -> Any:
        """Return a tool's layer in a pane (None before the tool was used there)."""
        return self._layers.get((kind, pane))

    @property
    def roi_rows(self) -> list[tuple[str, ...]]:
        """The ROI table's rows as shown."""
        rows = []
        for r in range(self._table.rowCount()):
            rows.append(tuple(kit.cell(self._table, r, c).text() for c in range(len(COLUMNS))))
        return rows

    @property
    def roi_size(self) -> str:
        """The ROI's size as shown (voxels, area, volume)."""
        return self._size.text()

    @property
    def busy(self) -> bool:
        """Whether a preset or ROI job runs."""
        return self._roi_worker.busy or self._limits_worker.busy

    # -- window / level -------------------------------------------------------------

    def _on_session_case(self) -> None:
        self._clear_shapes()
        scan = self._session.scan_data
        self._windows = None if scan is None else scan_windows(scan)
        self._fill_presets()
        if self._windows is None:
            return
        remembered = saved_preset(self._windows.modality)
        if remembered is not None and remembered in self.presets:
            self._apply(self._windows.named(remembered).name)

    def _fill_presets(self) -> None:
        self._filling = True
        self._preset.clear()
        windows = self._windows
        if windows is not None:
            self._preset.addItems([p.name for p in windows.presets])
            remembered = saved_preset(windows.modality)
            if remembered in self.presets:
                self._preset.setCurrentText(remembered)
        self._modality.setText("" if windows is None else _modality_text(windows.modality))
        self._preset.setEnabled(windows is not None)
        self._filling = False
        self._show_strip()

    def _on_preset_activated(self, index: int) -> None:
        if self._filling or self._windows is None or index < 0:
            return
        name = self._preset.itemText(index)
        QSettings(*SETTINGS).setValue(PRESET_KEY.format(modality=self._windows.modality), name)
        self._apply(name)

    def _on_preset_key(self, viewer: Any = None) -> None:
        count = self._preset.count()
        if count:
            self.choose_preset(self._preset.itemText((self._preset.currentIndex() + 1) % count))

    def _apply(self, name: str) -> None:
        scan, windows = self._session.scan_layer, self._windows
        if scan is None or windows is None:
            return
        self._limits_worker.submit(_limits_job, self._session.scan_data, windows.named(name), scan)

    def _on_limits_result(self, result: tuple[tuple[float, float], Any]) -> None:
        limits, scan = result
        if scan is not self._session.scan_layer:
            return  # another case came meanwhile
        low, high = limits
        current = scan.contrast_limits_range
        scan.contrast_limits_range = (min(low, current[0]), max(high, current[1]))
        scan.contrast_limits = limits

    # -- tools ----------------------------------------------------------------------

    def _model(self, pane: str) -> Any:
        """Return the view a pane shows (napari's viewer for the axial pane)."""
        if pane == AXIAL:
            return self._viewer
        planes = planes_of(self._viewer)
        return planes[0].models.get(pane) if planes else None

    def _tool_layer(self, kind: MeasureKind, pane: str) -> Any:
        model, reference = self._model(pane), self._session.scan_layer
        if model is None or reference is None:
            return None
        layer = self._layers.get((kind, pane))
        if layer is None or layer not in model.layers:  # first use, or a new side view
            layer = make_measure_layer(model, reference, kind, pane=pane)
            self._layers[(kind, pane)] = layer
            layer.events.data.connect(lambda event, lay=layer: self._on_shapes_data(lay, event))
            layer.events.editable.connect(lambda event, lay=layer: self._on_layer_editable(lay))
        return layer

    def _on_layer_editable(self, layer: Any) -> None:
        """Keep a tool's layer read-only while its tool is off (napari re-enables on new data)."""
        if layer.editable and (self._active is None or self._active[1] is not layer):
            layer.editable = False

    def _on_tool_toggled(self, tool: str, checked: bool) -> None:
        if not checked:
            if self._active is not None and self._active[0] == tool:
                self._end_tool()
            return
        for other, button in self._buttons.items():
            if other != tool and button.isChecked():
                button.setChecked(False)  # one tool at a time
        self._end_tool()
        kind: MeasureKind = "ruler" if tool == "ruler" else "roi"
        layer = self._tool_layer(kind, self._pane.currentText())
        if layer is None:
            kit.notify("info", "Open a case first: the tools measure on the scan's grid.")
            self._buttons[tool].setChecked(False)
            return
        model = self._model(self._pane.currentText())
        previous = model.layers.selection.active
        # active first: making the layer editable again must not be undone as a stray edit
        self._active = (tool, layer, previous)
        layer.editable = True
        model.layers.selection.active = layer
        layer.mode = MODES[tool]

    def _end_tool(self) -> None:
        active, self._active = self._active, None
        if active is None:
            return
        _, layer, previous = active
        layer.mode = "pan_zoom"
        layer.editable = False  # a click navigates again, no key edits it
        model = self._model(str(layer.metadata.get("napari_mood", {}).get("pane", AXIAL)))
        if model is not None and previous is not None and previous in model.layers:
            model.layers.selection.active = previous

    def _on_pane_changed(self, pane: str) -> None:
        tool = None if self._active is None else self._active[0]
        if tool is not None:
            self._buttons[tool].setChecked(False)
            self._buttons[tool].setChecked(True)  # the same tool, in the new pane

    def _on_clear_clicked(self) -> None:
        self.stop()
        self._clear_shapes()

    def _clear_shapes(self) -> None:
        for layer in self._layers.values():
            if len(layer.data):
                layer.data = []
            self._on_layer_editable(layer)
        self._roi = None
        self._roi_worker.cancel()
        self._show_roi(None)

    def _on_shapes_data(self, layer: Any, event: Any) -> None:
        if getattr(event, "action", "added") not in ("added", "changed", "removed"):
            return  # mid-drag: measured when the shape is done
        info = layer.metadata.get("napari_mood", {})
        if info.get("kind") == "ruler":
            label_ruler(layer)
            return
        if not len(layer.data):
            self._roi = None
            self._show_roi(None)
            return
        self._roi = (layer, len(layer.data) - 1, str(info.get("pane", AXIAL)))
        self._measure_roi()

    def _on_session_threshold(self, name: str, value: float) -> None:
        if self._roi is not None:
            self._measure_roi()

    def _measure_roi(self) -> None:
        if self._roi is None:
            return
        layer, index, pane = self._roi
        model, scan = self._model(pane), self._session.scan_layer
        if model is None or scan is None or index >= len(layer.data):
            return
        corners = layer.data[index]
        kind = layer.shape_type[index]
        if kind not in ("rectangle", "ellipse") or len(corners) != 4:
            return
        maps = [dataclasses.replace(m.snapshot(), name=m.layer.name) for m in self._session.methods]
        self._roi_worker.submit(
            roi_job,
            (scan.name, self._session.scan_data),
            maps,
            corners,
            kind=kind,
            plane_axes=tuple(model.dims.displayed[-2:]),
            spacing=spacing_of(scan),
        )

    def _on_roi_result(self, result: RoiResult) -> None:
        if self._roi is None:
            return
        self._show_roi(result)

    def _show_roi(self, result: RoiResult | None) -> None:
        self._roi_shown = result
        self._show_strip()
        self._table.setRowCount(0)
        if result is None:
            self._size.setText(NO_ROI)
            return
        self._size.setText(_size_text(result))
        stats = result.stats
        self._table.setRowCount(len(stats.values))
        for r, value in enumerate(stats.values):
            digits = ".4g" if value.flagged is None else ".3f"
            texts = (
                value.name,
                _number(value.mean, digits),
                _number(value.max, digits),
                "" if value.flagged is None else str(value.flagged),
            )
            for c, text in enumerate(texts):
                item = QTableWidgetItem(text)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self._table.setItem(r, c, item)
        self._table.resizeColumnsToContents()

    def _close(self) -> None:
        if self._viewer.keymap.get(PRESET_SHORTCUT) is not None:
            self._viewer.bind_key(PRESET_SHORTCUT, None)
        for layer in list(self._layers.values()):
            for model in (
                self._viewer,
                *(p for ps in planes_of(self._viewer) for p in ps.models.values()),
            ):
                if layer in model.layers:
                    model.layers.remove(layer)
        self._layers.clear()


def _limits_job(data: Any, preset: Any, scan: Any) -> tuple[tuple[float, float], Any]:
    return window_limits(data, preset), scan


def _modality_text(modality: str) -> str:
    return "CT (HU)" if modality == "CT" else "MRI"


def _number(value: float, digits: str) -> str:
    return "-" if math.isnan(value) else format(value, digits)


def _size_text(result: RoiResult) -> str:
    """``"n voxels on the slice: area mm^2, volume mm^3 (one slice thick)"`` and skipped maps."""
    stats = result.stats
    text = f"{stats.n_voxels} voxels"
    if stats.area_mm2 is not None and stats.volume_mm3 is not None:
        text += (
            f" on the slice: {stats.area_mm2:.1f} mm² ({stats.volume_mm3:.1f} mm³, one slice thick)"
        )
    if result.skipped:
        text += f"\nLeft out (another grid): {', '.join(result.skipped)}"
    return text


def _roi_summary(result: RoiResult | None) -> tuple[str, str]:
    """Return the ROI's line for the strip and its tip (the size and every row)."""
    if result is None:
        return NO_ROI_LINE, NO_ROI
    stats = result.stats
    parts = [f"ROI {stats.n_voxels} voxels"]
    if stats.area_mm2 is not None:
        parts[0] += f", {stats.area_mm2:.1f} mm²"
    rows = []
    for value in stats.values:
        if value.flagged is None:  # the scan
            parts.append(f"{value.name} mean {_number(value.mean, '.4g')}")
            rows.append(
                f"{value.name}: mean {_number(value.mean, '.4g')}, max {_number(value.max, '.4g')}"
            )
        else:
            parts.append(f"{value.name} max {_number(value.max, '.3f')} ({value.flagged} flagged)")
            rows.append(
                f"{value.name}: mean {_number(value.mean, '.3f')}, max {_number(value.max, '.3f')},"
                f" {value.flagged} flagged"
            )
    return "  ·  ".join(parts), "\n".join([_size_text(result), *rows])
