"""MoodSession: layers join and leave by their metadata; thresholds change layers instantly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from napari.layers import Layer

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.reader import read_paths
from napari_mood._napari.session import MoodSession, get_session
from napari_mood._napari.viewer import load_into_viewer
from napari_mood.core.scores import threshold_limits
from napari_mood.services.looks import METHOD_COLORS, method_colors, rgb


def _add_read(viewer, path, **kwargs) -> list[Layer]:
    return [viewer.add_layer(Layer.create(*data)) for data in read_paths(path, **kwargs)]


@pytest.fixture
def case_viewer(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [mood_dataset])
    return viewer


def test_dataset_layers_join_the_session(case_viewer, mood_dataset: Path):
    session = get_session(case_viewer)
    assert session.case == "case_1.nii.gz"
    assert session.dataset == mood_dataset
    assert session.scan_layer.name == "case_1"
    assert session.gt_layer.name == "case_1 GT"
    assert session.gt_layer.contour == 1  # drawn as an outline
    assert session.method_names == ("a", "b")
    assert [m.color for m in session.methods] == list(METHOD_COLORS[:2])
    assert session.methods[0].path == mood_dataset / "methods" / "a" / "case_1.nii.gz"


def test_one_session_per_viewer(make_napari_viewer):
    first, second = make_napari_viewer(show=True), make_napari_viewer(show=True)
    assert get_session(first) is get_session(first)
    assert get_session(first) is not get_session(second)


def test_session_created_late_picks_up_existing_layers(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    _add_read(viewer, mood_dataset)
    session = MoodSession(viewer)
    assert session.method_names == ("a", "b")
    assert session.scan_layer is not None
    session.close()


def test_dropped_map_joins_and_removed_layer_leaves(case_viewer, mood_dataset: Path):
    session = get_session(case_viewer)
    changes: list[tuple[str, ...]] = []
    session.methods_changed.connect(lambda: changes.append(session.method_names))
    extra = mood_dataset / "extra" / "c" / "case_1.nii.gz"
    extra.parent.mkdir(parents=True)
    extra.write_bytes((mood_dataset / "methods" / "a" / "case_1.nii.gz").read_bytes())
    (extra.parent / "case_1.nii.gz.txt").write_text("0.5")  # a MOOD method folder
    case_viewer.open(extra, plugin="napari-mood")  # the npe2 reader, as a drop would
    assert session.method_names == ("a", "b", "c")
    assert session.method("c").color == METHOD_COLORS[2]  # recoloured: orange was taken
    assert session.method("c").color == method_colors(["a", "b", "c"])["c"]
    case_viewer.layers.remove(session.method("a").layer)
    assert changes == [("a", "b", "c"), ("b", "c")]


def test_a_method_dropped_in_later_takes_the_colour_figures_give_it(case_viewer, mood_dataset):
    """One rule (method_colors over the session's methods), not the first free colour."""
    session = get_session(case_viewer)
    extra = mood_dataset / "extra" / "0" / "case_1.nii.gz"  # sorts before "a" and "b"
    extra.parent.mkdir(parents=True)
    extra.write_bytes((mood_dataset / "methods" / "a" / "case_1.nii.gz").read_bytes())
    (extra.parent / "case_1.nii.gz.txt").write_text("0.5")
    case_viewer.open(extra, plugin="napari-mood")
    assert session.method_names == ("a", "b", "0")
    rule = method_colors(["0", "a", "b"])
    assert {m.name: m.color for m in session.methods} == rule
    assert session.method("0").layer.colormap.colors[-1][:3] == pytest.approx(rgb(rule["0"]))


def test_layers_without_metadata_are_ignored(case_viewer):
    session = get_session(case_viewer)
    case_viewer.add_image(np.zeros((3, 3, 3)), name="a")
    case_viewer.add_image(np.zeros((3, 3, 3)), name="x", metadata={METADATA_KEY: {"role": "?"}})
    assert session.method_names == ("a", "b")


def test_removing_scan_and_gt_clears_them(case_viewer):
    session = get_session(case_viewer)
    seen: list[bool] = []
    session.case_changed.connect(lambda: seen.append(True))
    case_viewer.layers.remove(session.gt_layer)
    case_viewer.layers.remove(session.scan_layer)
    assert session.gt_layer is None and session.scan_layer is None
    assert len(seen) == 2
    assert session.case == "case_1.nii.gz"  # still known from the methods


def test_set_threshold_changes_limits_without_copying(case_viewer):
    session = get_session(case_viewer)
    layer = session.method("a").layer
    data = layer.data
    seen: list[tuple[str, float]] = []
    session.threshold_changed.connect(lambda name, value: seen.append((name, value)))
    session.set_threshold("a", 0.8)
    assert tuple(layer.contrast_limits) == threshold_limits(0.8)
    assert layer.data is data
    assert session.threshold("a") == pytest.approx(0.8)
    assert session.threshold("b") == pytest.approx(0.5)
    session.set_all_thresholds(0.25)
    assert [m.threshold for m in session.methods] == [0.25, 0.25]
    assert seen == [("a", 0.8), ("a", 0.25), ("b", 0.25)]


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan")])
def test_bad_threshold_is_refused(case_viewer, value):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        get_session(case_viewer).set_threshold("a", value)


def test_unknown_method_names_the_known_ones(case_viewer):
    with pytest.raises(KeyError, match="'a', 'b'"):
        get_session(case_viewer).set_threshold("zzz", 0.5)


def test_threshold_one_hides_everything(case_viewer):
    session = get_session(case_viewer)
    session.set_threshold("a", 1.0)
    low, high = session.method("a").layer.contrast_limits
    assert low == 1.0 and high > low


def test_contrast_limits_changed_in_napari_are_seen(case_viewer):
    session = get_session(case_viewer)
    seen: list[tuple[str, float]] = []
    session.threshold_changed.connect(lambda name, value: seen.append((name, value)))
    session.method("b").layer.contrast_limits = (0.3, 1.0)
    assert seen == [("b", 0.3)]
    assert session.method("b").layer.contrast_limits_range == [0.0, 1.0]


def test_slice_axis_and_index(case_viewer):
    session = get_session(case_viewer)
    assert session.slice_axis == 0
    case_viewer.dims.set_point(0, 4 * session.scan_layer.scale[0])
    assert session.slice_index == 4
    with pytest.warns(UserWarning, match="Contours are not displayed"):  # napari, once
        case_viewer.dims.ndisplay = 3
    assert session.slice_axis is None and session.slice_index is None


def test_gt_outline_in_2d_filled_in_3d(case_viewer):
    gt = get_session(case_viewer).gt_layer
    with pytest.warns(UserWarning, match="Contours are not displayed"):  # napari, once
        case_viewer.dims.ndisplay = 3
    assert gt.contour == 0
    case_viewer.dims.set_point(0, 2.0)  # no more warnings in 3-D
    case_viewer.dims.ndisplay = 2
    assert gt.contour == 1


def test_session_is_shared_through_napari_proxies(make_napari_viewer):
    import gc

    from napari.utils._proxies import PublicOnlyProxy

    from napari_mood._napari.session import get_session

    viewer = make_napari_viewer(show=True)
    first = get_session(PublicOnlyProxy(viewer))
    gc.collect()
    assert get_session(viewer) is first
    assert get_session(PublicOnlyProxy(viewer)) is first
    assert first.viewer is viewer


# ----------------------------------------------------------------------- switching cases
# Headless: a ViewerModel has the layer list and dims the session watches (no display).


def test_replace_case_keeps_each_methods_look(model_session, mood_dataset: Path):
    from napari_mood._napari.reader import read_dataset_case

    viewer, session = model_session
    session.set_threshold("a", 0.7)
    session.method("b").layer.visible = False
    extra = viewer.add_points([[0, 0, 0]], name="my points")
    session.replace_case(read_dataset_case(mood_dataset, "case_0.nii.gz"))
    assert session.case == "case_0.nii.gz" and session.method_names == ("a", "b")
    assert session.threshold("a") == pytest.approx(0.7)
    assert not session.method("b").layer.visible  # visibility kept per role
    assert [m.color for m in session.methods] == list(METHOD_COLORS[:2])
    assert extra in viewer.layers  # other layers stay
    roles = [layer.metadata.get(METADATA_KEY, {}).get("role") for layer in viewer.layers]
    assert roles.count("scan") == 1 and roles.count("gt") == 1 and roles.count("method") == 2
    assert viewer.layers.selection.active is session.method("a").layer


def test_replace_case_remembers_a_method_absent_in_between(model_session, mood_dataset: Path):
    from napari_mood._napari.reader import read_dataset_case

    viewer, session = model_session
    session.set_threshold("b", 0.25)
    without_b = [d for d in read_dataset_case(mood_dataset, "case_0.nii.gz") if d[1]["name"] != "b"]
    session.replace_case(without_b)
    assert session.method_names == ("a",)
    session.replace_case(read_dataset_case(mood_dataset, "case_1.nii.gz"))
    assert session.threshold("b") == pytest.approx(0.25)


def test_replace_case_emits_once_and_keeps_helper_layers_above(model_session, mood_dataset):
    from napari_mood._napari.reader import read_dataset_case

    viewer, session = model_session
    helper = viewer.add_labels(np.zeros((2, 2, 2), np.uint8), name="outlines")
    seen: list[str] = []
    session.case_changed.connect(lambda: seen.append("case"))
    session.methods_changed.connect(lambda: seen.append("methods"))
    session.replace_case(read_dataset_case(mood_dataset, "case_0.nii.gz"))
    assert seen == ["case", "methods"]
    assert viewer.layers[-1] is helper  # helper layers stay on top of the new case
    assert [layer.name for layer in viewer.layers][:4] == ["case_0", "a", "b", "case_0 GT"]


def _names(viewer) -> list[str]:
    return [layer.name for layer in viewer.layers]


def test_dropping_another_case_replaces_the_shown_one(make_napari_viewer, qtbot, mood_dataset):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
    session.set_threshold("a", 0.6)
    session.method("b").layer.visible = False
    scan = session.scan_layer
    helper = viewer.add_labels(
        np.zeros(scan.data.shape, np.uint8), name="outlines", scale=scan.scale, units=scan.units
    )
    viewer.open([str(mood_dataset / "toy" / "case_0.nii.gz")], plugin="napari-mood")
    qtbot.waitUntil(lambda: len(viewer.layers) == 5, timeout=5000)
    assert session.case == "case_0.nii.gz"
    assert _names(viewer) == ["case_0", "a", "b", "case_0 GT", "outlines"]  # no "[1]" copies
    assert viewer.layers[-1] is helper
    assert session.threshold("a") == pytest.approx(0.6)
    assert not session.method("b").layer.visible


def test_the_gt_is_held_once_and_scored_as_one_bool_array(model_session, mood_dataset: Path):
    """The GT layer keeps the reader's mask (no uint8 copy by napari) and every job gets
    the same bool view of it; a new case or a removed layer lets the old one go."""
    from napari_mood._napari.reader import read_dataset_case
    from napari_mood.io.mood import discover_dataset
    from napari_mood.io.nifti import read_label

    viewer, session = model_session
    truth = session.gt_data
    assert truth.dtype == np.bool_ and truth is session.gt_data
    assert session.gt_layer.data.dtype == np.uint8
    assert np.shares_memory(truth, session.gt_layer.data)
    label = discover_dataset(mood_dataset).pixel_labels["case_1.nii.gz"]
    expected = session.transform.to_display(read_label(label).mask)
    np.testing.assert_array_equal(truth, expected)
    assert np.array_equal(np.unique(session.gt_layer.data), [0, 1])

    session.replace_case(read_dataset_case(mood_dataset, "case_0.nii.gz"))
    assert session.gt_data is not truth and not np.shares_memory(session.gt_data, truth)
    viewer.layers.remove(session.gt_layer)
    assert session.gt_data is None and session._truth is None


def test_complete_case_adds_the_maps_under_the_gt_with_one_signal(mood_dataset: Path):
    """The scan and GT shown first, the maps after (as ``build_viewer`` does with slow
    maps): the layers end as one ``replace_case`` leaves them."""
    from napari.components import ViewerModel

    from napari_mood._napari.reader import read_dataset_case

    layers = read_dataset_case(mood_dataset, "case_1.nii.gz")
    grid = [x for x in layers if x[1]["metadata"][METADATA_KEY]["role"] != "method"]
    maps = [x for x in layers if x[1]["metadata"][METADATA_KEY]["role"] == "method"]
    viewer = ViewerModel()
    session = get_session(viewer)
    extra = viewer.add_points([[0, 0, 0]], name="my points")
    session.replace_case(grid)
    signals: list[str] = []
    session.methods_changed.connect(lambda: signals.append("methods"))
    session.case_changed.connect(lambda: signals.append("case"))
    session.complete_case(maps)
    assert signals == ["methods"]
    assert session.method_names == ("a", "b") and session.case == "case_1.nii.gz"
    names = [layer.name for layer in viewer.layers]
    assert names == ["my points", "case_1", "a", "b", "case_1 GT"]  # bottom first
    assert viewer.layers.selection.active is session.method("a").layer
    assert extra in viewer.layers
