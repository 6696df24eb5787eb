"""A reading session stays quick and small: the side views slice a switched case once,
3-D starts from a coarse level and then shows full resolution, and no array of an old case
outlives a switch.

Driven as a reader drives it: the dataset browser opens one case after another with the
Three planes panel docked; volumes are made pyramids by lowering the size rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood._napari import layers as layer_rules
from napari_mood._napari.layers import layer_info
from napari_mood._napari.planes import planes_of
from napari_mood._napari.session import get_session


@pytest.fixture
def pyramids(monkeypatch):
    monkeypatch.setattr(layer_rules, "PYRAMID_MIN_VOXELS", 0)
    monkeypatch.setattr(layer_rules, "PYRAMID_SMALLEST_EDGE", 4)


def _browser_with_planes(viewer, qtbot, dataset: Path):
    viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    _, browser = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    browser.evaluate(dataset)
    qtbot.waitUntil(lambda: browser.evaluation is not None and not browser.busy, timeout=60_000)
    return browser


def _open(browser, viewer, qtbot, case: str) -> None:
    browser.open_case(case)
    qtbot.waitUntil(lambda: get_session(viewer).case == case, timeout=30_000)
    qtbot.waitUntil(lambda: all(p.pending == 0 for p in planes_of(viewer)), timeout=30_000)
    qtbot.wait(50)


def _side_copies(viewer) -> list:
    return [
        layer
        for planes in planes_of(viewer)
        for model in planes.models.values()
        for layer in model.layers
        if layer_info(layer) is not None
    ]


def _count_slices(layers) -> dict[int, int]:
    """How often each layer is sliced from now on (napari's ``set_data`` event), by id."""
    sliced = dict.fromkeys(map(id, layers), 0)

    def counter(key: int):
        return lambda event: sliced.__setitem__(key, sliced[key] + 1)

    for layer in layers:
        layer.events.set_data.connect(counter(id(layer)))
    return sliced


def test_a_side_view_copy_is_sliced_once_per_switch(
    pyramids, make_napari_viewer, qtbot, mood_dataset
):
    viewer = make_napari_viewer(show=True)
    browser = _browser_with_planes(viewer, qtbot, mood_dataset)
    _open(browser, viewer, qtbot, "case_1.nii.gz")
    copies = _side_copies(viewer)
    assert copies and all(copy.multiscale for copy in copies)
    sliced = _count_slices([*_case_layers(viewer), *copies])
    _open(browser, viewer, qtbot, "case_0.nii.gz")
    assert _side_copies(viewer) == copies  # the same copies took the new case
    assert sorted(set(sliced.values())) == [
        1
    ]  # each once (a copy's scale, translate, the GT's contour sliced again)


def _case_layers(viewer) -> list:
    return [layer for layer in viewer.layers if layer_info(layer) is not None]


def test_3d_draws_a_coarse_level_first_then_full_resolution(
    pyramids, make_napari_viewer, qtbot, mood_dataset
):
    viewer = make_napari_viewer(show=True)
    browser = _browser_with_planes(viewer, qtbot, mood_dataset)
    _open(browser, viewer, qtbot, "case_1.nii.gz")
    layers = _case_layers(viewer)
    assert layers and all(layer.multiscale and len(layer.data) > 1 for layer in layers)
    drawn: list[list[int]] = []  # the case layers' levels at each draw of the main canvas
    canvas = viewer.window._qt_viewer.canvas
    record = lambda event: drawn.append([layer.data_level for layer in layers])  # noqa: E731
    canvas._scene_canvas.events.draw.connect(record)
    viewer.window._qt_viewer.viewerButtons.ndisplayButton.click()  # the 2-D/3-D button
    assert viewer.dims.ndisplay == 3
    qtbot.waitUntil(lambda: all(layer.data_level == 0 for layer in layers), timeout=30_000)
    qtbot.waitUntil(lambda: bool(drawn) and drawn[-1] == [0] * len(layers), timeout=30_000)
    coarsest = [len(layer.data) - 1 for layer in layers]
    assert drawn[0] == coarsest  # the first 3-D frame: every layer from its coarsest level
    assert viewer.screenshot(canvas_only=True, flash=False)[..., :3].std() > 1

    sliced = _count_slices(layers)
    _open(browser, viewer, qtbot, "case_0.nii.gz")  # the next case, still in 3-D
    assert [layer.data_level for layer in layers] == [0] * len(layers)
    names = {layer.name: sliced[id(layer)] for layer in layers}
    assert sorted(set(sliced.values())) == [1], names  # at full resolution at once, once

    viewer.window._qt_viewer.viewerButtons.ndisplayButton.click()  # back to 2-D
    qtbot.wait(100)
    assert all(layer.locked_data_level is None for layer in layers)  # the view picks again
    assert get_session(viewer).gt_layer.contour == 1


def test_no_array_of_an_old_case_outlives_a_switch(make_napari_viewer, qtbot, mood_dataset):
    import gc
    import weakref

    from napari_mood._napari.docking import dock_plugin_widgets
    from napari_mood._napari.prefetch import prefetch_for
    from napari_mood._napari.widgets.browser import DatasetBrowserWidget
    from napari_mood._napari.widgets.worker import all_idle

    viewer = make_napari_viewer(show=True)
    widgets = dock_plugin_widgets(viewer)  # every panel, as napari-mood view docks them
    browser = next(w for w in widgets if isinstance(w, DatasetBrowserWidget))
    browser.evaluate(mood_dataset)
    qtbot.waitUntil(lambda: browser.evaluation is not None and not browser.busy, timeout=60_000)
    _open(browser, viewer, qtbot, "case_1.nii.gz")
    qtbot.waitUntil(all_idle, timeout=60_000)
    session = get_session(viewer)
    old = [session.scan_data, session.gt_data, *(m.data for m in session.methods)]
    refs = [weakref.ref(np_base(array)) for array in old]
    del old
    _open(browser, viewer, qtbot, "case_0.nii.gz")
    qtbot.waitUntil(all_idle, timeout=60_000)
    prefetch_for(session).drop()  # the next case read ahead may be the old one: not kept
    qtbot.wait(100)
    gc.collect()
    alive = [ref() is not None for ref in refs]
    assert not any(alive), alive  # scan, GT, maps of case_1


def np_base(array):
    """The array that owns ``array``'s memory (views keep it alive)."""
    while getattr(array, "base", None) is not None and hasattr(array.base, "base"):
        array = array.base
    return array
