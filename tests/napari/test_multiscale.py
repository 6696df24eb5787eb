"""Large volumes are shown multiscale: panels score level 0, a 3-D view draws the coarsest.

The sample cases are small, so the size rule is lowered here to make every volume a
pyramid; the panels must then give exactly the numbers of the full-resolution arrays.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from napari_mood._napari import helper_layers as helper_layers_module
from napari_mood._napari import layers as layer_rules
from napari_mood._napari.layers import display_levels, layer_info, scored_data
from napari_mood._napari.viewer import dock_plugin_widgets, focus_case, load_into_viewer
from napari_mood._napari.widgets.objects import ObjectsWidget, objects_layer_name
from napari_mood._napari.widgets.review import REVIEW_LAYER_NAME
from napari_mood._napari.widgets.threshold import ThresholdWidget
from napari_mood.core.readout import threshold_readout
from napari_mood.io.case import load_case
from napari_mood.io.mood import discover_dataset
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.display import display_range
from napari_mood.services.object_views import compute_method_objects
from napari_mood.services.snapshots import MapSnapshot

pytestmark = pytest.mark.skipif(
    not (sample_data_dir() / "toy").is_dir(), reason="sample_data/ not generated yet"
)


@pytest.fixture
def pyramids(monkeypatch):
    monkeypatch.setattr(layer_rules, "PYRAMID_MIN_VOXELS", 0)
    monkeypatch.setattr(layer_rules, "PYRAMID_SMALLEST_EDGE", 16)


def test_display_levels_keeps_small_volumes_and_level_zero():
    small = np.zeros((8, 8, 8), np.float16)
    assert display_levels(small, pool="max") is small
    big = np.zeros((200, 180, 170), np.float16)
    big[3, 5, 7] = 0.9
    levels = display_levels(big, pool="max")
    assert levels[0] is big and max(levels[-1].shape) <= layer_rules.PYRAMID_SMALLEST_EDGE
    assert all(float(level.max()) == pytest.approx(0.9, abs=1e-3) for level in levels)


def test_panels_score_level_zero_and_3d_draws_the_coarsest(pyramids, make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    widgets = dock_plugin_widgets(viewer)
    focus_case(viewer, session)
    case_layers = [layer for layer in viewer.layers if layer_info(layer) is not None]
    assert case_layers and all(layer.multiscale for layer in case_layers)
    shape = session.transform.display_shape
    for method in session.methods:
        assert method.data is method.layer.data[0] and method.data.shape == shape
    scan = scored_data(session.scan_layer)  # a large scan is read small (scaled uint8: floats)
    exact = load_case(discover_dataset(sample_data_dir()), session.case).scan
    assert scan.dtype == np.float16 and exact is not None and exact.data.dtype == np.float32
    np.testing.assert_array_equal(scan, session.transform.to_display(exact.data).astype(np.float16))
    level0 = scored_data(session.gt_layer)
    assert session.gt_data.dtype == bool and np.shares_memory(session.gt_data, level0)
    assert session.gt_data.shape == shape and session.gt_data is session.gt_data

    thresholds = next(w for w in widgets if isinstance(w, ThresholdWidget))
    session.set_all_thresholds(0.4)
    qtbot.waitUntil(
        lambda: (
            not thresholds.busy
            and all(
                r.objects is not None and r.threshold == 0.4 for r in thresholds.readouts.values()
            )
            and len(thresholds.readouts) == len(session.methods)
        ),
        timeout=60000,
    )
    for method in session.methods:
        spacing = tuple(abs(float(s)) for s in method.layer.scale)
        expected = threshold_readout(
            method.data, session.gt_data, threshold=0.4, voxel_volume=float(np.prod(spacing))
        )
        assert thresholds.readouts[method.name] == expected

    objects = next(w for w in widgets if isinstance(w, ObjectsWidget))
    objects.run()
    qtbot.waitUntil(lambda: bool(objects.results) and not objects.busy, timeout=60000)
    for result in objects.results:
        snapshot = session.method(result.method).snapshot()
        alone = compute_method_objects(
            MapSnapshot(snapshot.name, np.array(snapshot.data), 0.4, spacing=snapshot.spacing),
            np.array(session.gt_data),
        )
        assert result.match == alone.match
        layer = viewer.layers[objects_layer_name(result.method)]
        assert layer.multiscale
        np.testing.assert_array_equal(scored_data(layer), alone.image)

    viewer.dims.ndisplay = 3
    for layer in case_layers:  # the first 3-D frame: the coarsest level (then sharper ones,
        assert layer.data_level == len(layer.data) - 1  # tests/napari/test_session_speed.py)
    qtbot.waitUntil(lambda: not session.sharpening, timeout=30_000)
    shot = viewer.screenshot(canvas_only=True, flash=False)
    assert shot[..., :3].std() > 1  # something is drawn
    viewer.dims.ndisplay = 2
    qtbot.wait(200)
    assert session.gt_layer.contour == 1


def test_a_pyramid_scan_opens_with_level_zero_range(pyramids, make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    scan = session.scan_layer
    assert scan.multiscale
    expected = display_range(scored_data(scan))
    assert tuple(scan.contrast_limits) == pytest.approx(expected)
    assert tuple(scan.contrast_limits_range) == pytest.approx(expected)
    viewer.dims.set_point(0, scan.data[0].shape[0] // 2)
    qtbot.wait(200)  # napari's own guess (from a drawn coarsest slice) would be [0, 0.37]
    assert tuple(scan.contrast_limits) == pytest.approx(expected)  # kept once sliced and drawn


def test_helper_pyramids_are_built_in_the_workers(pyramids, make_napari_viewer, qtbot, monkeypatch):
    """Objects, review regions and the difference: the GUI thread only adds their layers."""
    built_on: list[str] = []
    build = helper_layers_module.display_levels

    def display_levels(data, *, pool):
        built_on.append(threading.current_thread().name)
        return build(data, pool=pool)

    monkeypatch.setattr(helper_layers_module, "display_levels", display_levels)
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    widgets = {type(w).__name__: w for w in dock_plugin_widgets(viewer)}
    objects, review, compare = (
        widgets[n] for n in ("ObjectsWidget", "ReviewWidget", "CompareWidget")
    )
    objects.run()
    qtbot.waitUntil(lambda: bool(objects.results) and not objects.busy, timeout=60000)
    review.run()
    qtbot.waitUntil(lambda: bool(review.regions) and not review.busy, timeout=60000)
    first, second = session.method_names[:2]
    compare.show_difference(first, second)
    qtbot.waitUntil(lambda: compare.difference_layer is not None, timeout=60000)
    helpers = [
        *(viewer.layers[objects_layer_name(r.method)] for r in objects.results),
        viewer.layers[REVIEW_LAYER_NAME],
        compare.difference_layer,
    ]
    assert all(layer.multiscale for layer in helpers)
    assert len(built_on) == len(helpers)
    assert threading.main_thread().name not in built_on, built_on
