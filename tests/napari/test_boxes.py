"""NOVA-style folders in napari: reader layers, box geometry, the box widget."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari.boxes import get_box_reader, is_box_dataset, rectangles
from napari_mood._napari.layers import BOXES_KEY
from napari_mood.core.boxes import BoxSet

NOVA = Path(__file__).resolve().parents[2] / "sample_data" / "nova"


def _role(layer):
    return layer.metadata[BOXES_KEY]["role"]


def test_reader_claims_box_folders_only(tmp_path):
    assert is_box_dataset(NOVA)
    assert get_box_reader(str(NOVA)) is not None
    assert get_box_reader(str(tmp_path)) is None
    assert get_box_reader(str(NOVA / "boxes.csv")) is None


def test_reader_layers():
    layers = get_box_reader(str(NOVA))(str(NOVA))
    names = [kwargs["name"] for _, kwargs, _ in layers]
    assert names == [
        "nova slices",
        "GT R1",
        "GT R2",
        "GT consensus",
        "oracle_noisy boxes",
        "residual boxes",
    ]
    stack = layers[0][0]
    assert stack.shape == (5, 480, 480)
    data, kwargs, kind = layers[4]
    assert kind == "shapes" and len(data) == 4
    assert kwargs["features"]["outcome"] == ["TP", "TP", "TP", "TP"]


def test_rectangles_sit_on_pixel_edges_of_their_slice():
    boxes = BoxSet.build(["b", "a"], [[0, 0, 1, 1], [2, 3, 5, 7]])
    first, second = rectangles(boxes, ["a", "b"])
    assert first.tolist() == [[1, -0.5, -0.5], [1, -0.5, 0.5], [1, 0.5, 0.5], [1, 0.5, -0.5]]
    assert np.unique(second[:, 0]).tolist() == [0.0]


@pytest.mark.gui
def test_widget_filters_by_confidence_and_sorts_images_by_misses(make_napari_viewer):
    from napari_mood._napari.widgets.boxes import BoxReviewWidget

    viewer = make_napari_viewer(show=True)
    viewer.open(str(NOVA), plugin="napari-mood")
    widget = BoxReviewWidget(viewer)
    viewer.window.add_dock_widget(widget)
    widget.method.setCurrentText("residual")
    layer = next(lay for lay in viewer.layers if lay.name == "residual boxes")
    assert layer.visible
    assert not next(lay for lay in viewer.layers if lay.name == "oracle_noisy boxes").visible
    everything = len(layer.data)
    widget.confidence.setValue(60)
    shown = layer.metadata[BOXES_KEY]["boxes"].scores >= 0.6
    assert len(layer.data) == int(shown.sum()) < everything
    assert (np.asarray(layer.features["confidence"]) >= 0.6).all()
    first = widget.table.item(0, 0).text()
    assert int(widget.table.item(0, 2).text()) == max(
        int(widget.table.item(r, 2).text()) for r in range(widget.table.rowCount())
    )
    widget.table.cellClicked.emit(0, 0)
    images = viewer.layers[0].metadata[BOXES_KEY]["images"]
    assert viewer.dims.current_step[0] == images.index(first)
    widget.confidence.setValue(100)  # only boxes of confidence 1.0
    top = int((layer.metadata[BOXES_KEY]["boxes"].scores >= 1.0).sum())
    assert len(layer.data) == top
    widget.method.setCurrentText("oracle_noisy")  # no box reaches 1.0: an empty layer
    oracle = next(lay for lay in viewer.layers if lay.name == "oracle_noisy boxes")
    assert len(oracle.data) == 0 and "TP 0" in widget.summary.text()
    widget.confidence.setValue(0)
    assert len(oracle.data) == 4
    widget.method.setCurrentText("residual")
    assert len(layer.data) == everything
