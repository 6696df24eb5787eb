"""The window title and the panels name the case shown, whoever opened it (or none)."""

from __future__ import annotations

from napari_mood._napari.docking import PLUGIN_NAME
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.browser import NO_CASE_SHOWN
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


def test_a_box_dataset_in_place_of_the_case_empties_the_objects_and_the_browser(
    make_napari_viewer, qtbot
):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [SAMPLE])
    objects_dock, objects = viewer.window.add_plugin_dock_widget("napari-mood", "Object matching")
    qtbot.waitUntil(lambda: bool(objects.table_records()) and not objects.busy, timeout=30_000)
    _, browser = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    assert browser._status.text() == f"Showing {session.case.removesuffix('.nii.gz')}."
    viewer.open(str(SAMPLE / "nova"), plugin="napari-mood")  # as a drop reads it
    qtbot.waitUntil(lambda: session.case is None, timeout=10_000)
    objects_dock.raise_()  # the reader looks at the objects again
    qtbot.waitUntil(lambda: not objects.visibleRegion().isEmpty(), timeout=10_000)
    qtbot.waitUntil(lambda: not (objects.busy or objects.update_pending), timeout=10_000)
    assert objects.table_records() == [] and objects.results == ()
    assert browser._status.text() == NO_CASE_SHOWN
