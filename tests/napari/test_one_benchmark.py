"""A box dataset and a MOOD case never share a viewer: a drop of one retires the other."""

from __future__ import annotations

import pytest

from napari_mood._napari.layers import is_box_layer, layer_info
from napari_mood._napari.session import get_session
from napari_mood._napari.viewer import load_into_viewer
from napari_mood.services.datasets import sample_data_dir

pytestmark = pytest.mark.gui


def _kinds(viewer) -> tuple[int, int]:
    """(MOOD case layers, box dataset layers) in the viewer."""
    layers = list(viewer.layers)
    return sum(layer_info(x) is not None for x in layers), sum(is_box_layer(x) for x in layers)


def test_a_box_dataset_dropped_on_a_case_replaces_it(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    assert session.case is not None and _kinds(viewer)[0] > 0
    viewer.open(str(sample_data_dir() / "nova"), plugin="napari-mood")  # as a drop reads it
    qtbot.waitUntil(lambda: _kinds(viewer)[0] == 0, timeout=10000)
    moods, boxes = _kinds(viewer)
    assert boxes > 0 and session.case is None and session.methods == ()
    assert viewer.dims.nsteps[0] == len(viewer.layers[0].data)  # the slider walks the images


def test_a_case_dropped_on_a_box_dataset_replaces_it(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    viewer.open(str(sample_data_dir() / "nova"), plugin="napari-mood")
    session = get_session(viewer)
    assert _kinds(viewer)[1] > 0
    viewer.open(str(sample_data_dir()), plugin="napari-mood")
    qtbot.waitUntil(lambda: _kinds(viewer)[1] == 0, timeout=10000)
    assert session.case is not None and _kinds(viewer)[0] > 0
