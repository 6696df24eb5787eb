"""The window title and the dataset browser name the case shown, whoever opened it."""

from __future__ import annotations

from napari_mood._napari.docking import PLUGIN_NAME
from napari_mood._napari.viewer import load_into_viewer
from napari_mood.services.datasets import sample_data_dir

SAMPLE = sample_data_dir()


def _cases() -> list[str]:
    return sorted(p.name for p in (SAMPLE / "toy").glob("*.nii.gz"))


def test_a_dropped_case_renames_the_window_and_the_browser(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True, title=PLUGIN_NAME)
    _, browser = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    first, second = _cases()[:2]
    load_into_viewer(viewer, [SAMPLE / "toy" / first])
    assert viewer.title == f"{PLUGIN_NAME}: {first}"
    load_into_viewer(viewer, [SAMPLE / "toy" / second])  # what a drop does
    qtbot.waitUntil(lambda: viewer.title == f"{PLUGIN_NAME}: {second}", timeout=10_000)
    stem = second.removesuffix(".nii.gz")
    assert browser._status.text() == f"Showing {stem}."


def test_a_plain_napari_window_keeps_its_title(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    title = viewer.title
    load_into_viewer(viewer, [SAMPLE / "toy" / _cases()[0]])
    assert viewer.title == title
