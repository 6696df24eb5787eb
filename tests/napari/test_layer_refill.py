"""A case switch fills the shown layers with the next case (napari keeps ~2 MB per removed layer)."""

from __future__ import annotations

import weakref
from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari.layers import METADATA_KEY, scored_data
from napari_mood._napari.reader import read_dataset_case
from napari_mood._napari.session import get_session
from tests.conftest import write_nifti
from tests.napari.conftest import AFFINE


def test_the_next_case_fills_the_same_layers(model_session, mood_dataset: Path):
    viewer, session = model_session
    before = list(viewer.layers)
    session.set_threshold("a", 0.7)
    session.replace_case(read_dataset_case(mood_dataset, "case_0.nii.gz"))
    assert list(viewer.layers) == before  # the very same layer objects, in order
    assert session.case == "case_0.nii.gz"
    assert [layer.name for layer in viewer.layers] == ["case_0", "a", "b", "case_0 GT"]
    assert not session.gt_data.any()  # case_0 is healthy: its GT, not case_1's
    assert session.threshold("a") == pytest.approx(0.7)  # the look stays
    infos = [layer.metadata[METADATA_KEY] for layer in viewer.layers]
    assert {info["case"] for info in infos} == {"case_0.nii.gz"}
    scan = scored_data(session.scan_layer)
    assert tuple(session.scan_layer.contrast_limits) == pytest.approx(
        (float(np.nanmin(scan)), float(np.nanmax(scan))), rel=0.05
    )


def test_a_method_missing_from_the_next_case_leaves_and_comes_back(model_session, mood_dataset):
    viewer, session = model_session
    without_b = [d for d in read_dataset_case(mood_dataset, "case_0.nii.gz") if d[1]["name"] != "b"]
    session.replace_case(without_b)
    assert session.method_names == ("a",)
    session.replace_case(read_dataset_case(mood_dataset, "case_1.nii.gz"))
    assert session.method_names == ("a", "b")
    assert [layer.name for layer in viewer.layers] == ["case_1", "a", "b", "case_1 GT"]


def test_a_case_of_another_shape_and_grid_is_shown_in_the_same_layers(model_session, tmp_path):
    viewer, session = model_session
    root = tmp_path / "other"
    shape, affine = (9, 7, 5), np.diag([1.0, 1.0, 1.0, 1.0])
    mask = np.zeros(shape, np.uint8)
    mask[2:4, 2:4, 1:3] = 1
    write_nifti(root / "toy" / "c.nii.gz", np.ones(shape, np.float32), affine)
    write_nifti(root / "toy_label" / "pixel" / "c.nii.gz", mask, affine)
    for method in ("a", "b"):
        write_nifti(root / "methods" / method / "c.nii.gz", mask.astype(np.float32), affine)
    session.replace_case(read_dataset_case(root, "c.nii.gz"))
    assert session.gt_data.sum() == mask.sum()
    assert all(tuple(layer.scale) == (1.0, 1.0, 1.0) for layer in viewer.layers)
    assert AFFINE[0, 0] != 1.0  # the first case's grid was another


def test_twenty_switches_through_the_browser_make_no_new_layer(
    make_napari_viewer, qtbot, mood_dataset
):
    viewer = make_napari_viewer(show=True)
    _, browser = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    browser.evaluate(mood_dataset)
    qtbot.waitUntil(lambda: browser.evaluation is not None and not browser.busy, timeout=60_000)
    made: list[weakref.ref] = []
    viewer.layers.events.inserted.connect(lambda event: made.append(weakref.ref(event.value)))
    for switch in range(20):
        case = f"case_{switch % 2}.nii.gz"
        browser.open_case(case)
        qtbot.waitUntil(lambda case=case: get_session(viewer).case == case, timeout=30_000)
    assert len(made) <= 4  # the first case's layers; every later case fills them
