"""A case switch slices each refilled layer once, in every view (the next case at once).

napari's data setter puts a multiscale layer back to its coarsest level; the next draw
picks the finest level and slices again. A refill keeps the level and region the view
had (:func:`~napari_mood._napari.layer_refill.set_layer_data`), and the side views take
a new case's data after the main canvas has shown it (:class:`LayerMirror`).
"""

from __future__ import annotations

import numpy as np

from napari_mood._napari.layer_refill import set_layer_data
from napari_mood._napari.mirror import LayerMirror
from tests.napari.test_planes import ManualSchedule


def _pyramid(value: float) -> list[np.ndarray]:
    full = np.full((8, 64, 64), value, dtype=np.float32)
    return [full, full[::2, ::2, ::2].copy()]


def _slices(layer) -> list[int]:
    seen: list[int] = []
    layer.events.set_data.connect(lambda event: seen.append(layer.data_level))
    return seen


def test_a_refilled_pyramid_is_sliced_once_at_the_level_shown(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    layer = viewer.add_image(_pyramid(1.0), multiscale=True)
    viewer.screenshot(canvas_only=True, flash=False)  # the view picks its level
    assert layer.data_level == 0
    sliced = _slices(layer)
    set_layer_data(layer, _pyramid(2.0))
    viewer.screenshot(canvas_only=True, flash=False)
    assert sliced == [0]  # once, at level 0 (napari alone: the coarsest level, then 0)
    assert layer.data_level == 0
    assert np.all(np.asarray(layer._slice.image.view) == 2.0)


def test_a_pyramid_of_other_shapes_is_set_as_napari_sets_it(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    layer = viewer.add_image(_pyramid(1.0), multiscale=True)
    viewer.screenshot(canvas_only=True, flash=False)
    bigger = [np.full((8, 128, 128), 3.0, np.float32), np.full((4, 64, 64), 3.0, np.float32)]
    set_layer_data(layer, bigger)
    viewer.screenshot(canvas_only=True, flash=False)
    assert layer.level_shapes[0].tolist() == [8, 128, 128]
    assert np.all(np.asarray(layer._slice.image.view) == 3.0)


def test_a_copy_takes_new_data_in_the_scheduled_step(make_napari_viewer):
    from napari.components import ViewerModel

    viewer = make_napari_viewer(show=True)
    layer = viewer.add_image(_pyramid(1.0), multiscale=True, name="scan")
    target, schedule = ViewerModel(), ManualSchedule()
    mirror = LayerMirror(viewer.layers, target, schedule=schedule)
    schedule.run()
    copy = mirror.copy_of(layer)
    done: list[bool] = []
    layer.data = _pyramid(2.0)  # the next case, refilled in the main viewer
    layer.opacity = 0.5
    mirror.when_done(lambda: done.append(True))
    assert mirror.pending == 1 and copy.data[0][0, 0, 0] == 1.0 and copy.opacity == 1.0
    assert not done
    schedule.run()
    assert mirror.pending == 0 and done == [True]
    assert copy.data[0] is layer.data[0] and copy.opacity == 0.5
    mirror.close()


def test_a_refilled_pyramid_of_the_same_shapes_leaves_the_viewers_dims_alone(
    make_napari_viewer, monkeypatch
):
    """The viewer does not work its dims out again for each layer of each view (same extent)."""
    from napari.components import ViewerModel

    viewer = make_napari_viewer(show=True)
    layer = viewer.add_image(_pyramid(1.0), multiscale=True)
    ranges = viewer.dims.range
    calls: list[object] = []
    original = ViewerModel._on_layers_change

    def counted(self) -> None:
        calls.append(self)
        original(self)

    monkeypatch.setattr(ViewerModel, "_on_layers_change", counted)
    set_layer_data(layer, _pyramid(2.0), model=viewer)
    assert calls == [] and viewer.dims.range == ranges
    bigger = [np.full((8, 128, 128), 3.0, np.float32), np.full((4, 64, 64), 3.0, np.float32)]
    set_layer_data(layer, bigger, model=viewer)  # another extent: the dims follow it
    assert calls and viewer.dims.range != ranges
