"""The difference of two methods (Compare panel) is drawn in the coronal and sagittal
views too, in its own colours, and leaves them with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget


def test_the_difference_is_drawn_in_every_plane(make_napari_viewer, qtbot, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    _, planes_widget = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    assert isinstance(planes_widget, PlanesWidget)
    session = load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
    _, compare = viewer.window.add_plugin_dock_widget("napari-mood", "Compare methods")
    planes = planes_widget.planes
    session.set_threshold("b", 0.7)  # b scores 0.6 on the lesion: flagged by a only
    compare.show_difference("a", "b")
    qtbot.waitUntil(lambda: compare.difference_layer is not None, timeout=60_000)
    layer = compare.difference_layer
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=60_000)
    for model in planes.models.values():
        copies = [x for x in model.layers if x.name == layer.name]
        assert len(copies) == 1, [x.name for x in model.layers]
        assert copies[0].data is layer.data  # the same labels, not a copy
        for value in np.unique(layer.data[layer.data > 0]):
            np.testing.assert_allclose(copies[0].colormap.map(value), layer.colormap.map(value))
    compare._diff_check.setChecked(False)  # the box a user unticks
    qtbot.waitUntil(lambda: compare.difference_layer is None, timeout=60_000)
    for model in planes.models.values():
        assert not [x for x in model.layers if x.name == layer.name]
