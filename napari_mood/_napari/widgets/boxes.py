"""The box widget: confidence threshold, IoU, TP/FP/FN colours, images sorted by misses.

Works on the layers of :mod:`napari_mood._napari.boxes` (recognised by their
``metadata["napari_mood_boxes"]``). Numbers come from
:func:`napari_mood.services.box_view.box_view`; the widget only reads its inputs, asks for a
view and applies it to the layers (fast: no worker needed for box counts).
"""

from __future__ import annotations

from typing import Any

from qtpy.QtCore import Qt
from qtpy.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from napari_mood._napari.boxes import rectangles, view_styles
from napari_mood._napari.layers import BOXES_KEY
from napari_mood._napari.widgets._kit import combo, tipped
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood.services.box_view import BoxView, box_view
from napari_mood.services.boxes import BoxSet

__all__ = ["BoxReviewWidget"]

SLIDER_STEPS = 100


def _role(layer: Any) -> str | None:
    entry = getattr(layer, "metadata", {}).get(BOXES_KEY)
    return None if entry is None else str(entry.get("role"))


class BoxReviewWidget(MoodPanel):
    """Pick a method, a confidence threshold and an IoU; browse images by misses.

    Parameters
    ----------
    napari_viewer : napari.Viewer
        Injected by napari.
    """

    def __init__(self, napari_viewer: Any) -> None:
        super().__init__(napari_viewer)
        self.viewer = self._viewer
        self.method = combo(self, "the method whose boxes are shown and counted")
        self.confidence = QSlider(Qt.Orientation.Horizontal)
        self.confidence.setRange(0, SLIDER_STEPS)
        tipped(self.confidence, "show and count only predictions with confidence >= this")
        self.confidence_label = QLabel("0.00")
        self.iou = QDoubleSpinBox()
        self.iou.setRange(0.05, 0.95)
        self.iou.setSingleStep(0.05)
        self.iou.setValue(0.3)
        tipped(self.iou, "IoU a prediction needs to count as finding a GT box (NOVA: 0.3)")
        self.method.setAccessibleName("Method of the boxes")
        self.confidence.setAccessibleName("Minimum confidence")
        self.iou.setAccessibleName("IoU to count a finding")
        self.summary = QLabel("")
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["image", "GT", "missed", "FP"])
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        tipped(self.table, "images with the most missed GT boxes first; click to go there")
        form = QFormLayout()
        form.addRow("method", self.method)
        form.addRow("min confidence", self.confidence)
        form.addRow("", self.confidence_label)
        form.addRow("IoU", self.iou)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.table)
        self.method.currentTextChanged.connect(self._on_method_changed)
        self.confidence.valueChanged.connect(self._on_confidence_changed)
        self.iou.valueChanged.connect(self._on_iou_changed)
        self.table.cellClicked.connect(self._on_table_clicked)
        self._lifetime.connect(self.viewer.layers.events.inserted, self._on_layers_changed)
        self._lifetime.connect(self.viewer.layers.events.removed, self._on_layers_changed)
        self._on_layers_changed()

    # ------------------------------------------------------------------ layers

    def _layers(self, role: str) -> list[Any]:
        return [layer for layer in self.viewer.layers if _role(layer) == role]

    def _pred_layer(self) -> Any | None:
        name = self.method.currentText()
        for layer in self._layers("pred"):
            if layer.metadata[BOXES_KEY]["method"] == name:
                return layer
        return None

    def _order(self) -> list[str]:
        slices = self._layers("slices")
        return list(slices[0].metadata[BOXES_KEY]["images"]) if slices else []

    # ------------------------------------------------------------------ handlers

    def _on_layers_changed(self, *_: object) -> None:
        names = [layer.metadata[BOXES_KEY]["method"] for layer in self._layers("pred")]
        current = self.method.currentText()
        self.method.blockSignals(True)
        self.method.clear()
        self.method.addItems(names)
        if current in names:
            self.method.setCurrentText(current)
        self.method.blockSignals(False)
        self.refresh()

    def _on_method_changed(self, _: str) -> None:
        for layer in self._layers("pred"):
            layer.visible = layer.metadata[BOXES_KEY]["method"] == self.method.currentText()
        self.refresh()

    def _on_confidence_changed(self, value: int) -> None:
        self.confidence_label.setText(f"{value / SLIDER_STEPS:.2f}")
        self.refresh()

    def _on_iou_changed(self, _: float) -> None:
        self.refresh()

    def _on_table_clicked(self, row: int, _: int) -> None:
        item = self.table.item(row, 0)
        order = self._order()
        if item is not None and item.text() in order:
            step = list(self.viewer.dims.current_step)
            step[0] = order.index(item.text())
            self.viewer.dims.current_step = tuple(step)

    # ------------------------------------------------------------------ applying

    def refresh(self) -> None:
        """Recompute the view of the chosen method and apply it to the layers and table."""
        layer = self._pred_layer()
        order = self._order()
        if layer is None or not order:
            self.table.setRowCount(0)
            self.summary.setText("open a NOVA-style folder (boxes.csv + PNG slices)")
            return
        meta = layer.metadata[BOXES_KEY]
        boxes, gt = meta["boxes"], meta["gt"]
        view = box_view(
            gt, boxes, min_confidence=self.confidence.value() / SLIDER_STEPS, iou=self.iou.value()
        )
        self._apply(layer, boxes, view, order)
        self._fill_table(view, gt, order)

    def _apply(self, layer: Any, boxes: BoxSet, view: BoxView, order: list[str]) -> None:
        gt_colors, colors, outcome = view_styles(view)
        shown = boxes.take(view.pred_shown)
        layer.data = rectangles(shown, order)
        if len(shown):
            layer.edge_color = colors
            layer.features = {
                "confidence": shown.scores.tolist(), "outcome": outcome, "image": list(shown.images)
            }  # fmt: skip
        for gt_layer in self._layers("gt"):
            if len(gt_layer.data):
                gt_layer.edge_color = gt_colors
        tp = int(view.pred_tp.sum())
        self.summary.setText(
            f"TP {tp}  FP {len(shown) - tp}  FN {int((~view.gt_detected).sum())}  "
            f"({len(shown)} of {len(boxes)} boxes shown)"
        )

    def _fill_table(self, view: BoxView, gt: BoxSet, order: list[str]) -> None:
        counts = {image: 0 for image in order}
        for image in gt.images:
            counts[image] += 1
        ranked = view.images_by_misses(order)
        self.table.setRowCount(len(ranked))
        for row, image in enumerate(ranked):
            values = (
                image,
                counts[image],
                view.misses.get(image, 0),
                view.false_positives.get(image, 0),
            )
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(str(value)))
        self.table.resizeColumnsToContents()
