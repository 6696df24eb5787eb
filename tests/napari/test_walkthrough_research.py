"""Issue 36's acceptance walk as the researcher and figure author: what it found broken.

* Grid view (Compare methods > *Grid view*) on 2 mm voxels: the axial slider read 88 of 188
  where the status bar, the per-slice plot and figures say slice 44 of 94 (the cells'
  colour bars are one-point layers on a 1 mm grid, and napari's sliders step by the
  finest layer grid); Export view added the same layers for its colour bars.
* The walk typed reviewer names in the review panel; napari-mood remembers the last one
  (QSettings) and the adjudication test then failed: tests read and wrote the machine's
  own settings (~/.config/napari-mood). Each test now has settings of its own.

Driven as a user: the panel comes from napari's plugin menu, its button is clicked with
QTest, the slider is read as napari's window shows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qtpy.QtCore import Qt
from qtpy.QtTest import QTest

from napari_mood._napari.viewer import load_into_viewer
from napari_mood.services.datasets import sample_data_dir

SAMPLE = sample_data_dir()
AXIAL_SLICES = 95  # brain_001: 99 x 117 x 95 voxels of 2 mm
SLICE = 44  # the sphere's slice (the figures' "axial 44")


def _axial_slider(viewer):
    """napari's slider of the axial axis (the one not displayed), as the window shows it."""
    axis = viewer.dims.not_displayed[0]
    return viewer.window._qt_viewer.dims.slider_widgets[axis].slider


@pytest.fixture
def brain_001(make_napari_viewer):
    """brain_001 with its three methods, on its sphere's slice."""

    def load():
        viewer = make_napari_viewer(show=True)
        session = load_into_viewer(viewer, [SAMPLE / "toy" / "brain_001.nii.gz"])
        axis = viewer.dims.not_displayed[0]
        viewer.dims.set_current_step(axis, SLICE)
        return viewer, session

    return load


def test_grid_view_keeps_slider_numbers_slice_numbers(brain_001, qtbot, tmp_path: Path):
    viewer, _ = brain_001()
    slider = _axial_slider(viewer)
    assert (slider.maximum(), slider.value()) == (AXIAL_SLICES - 1, SLICE)
    _, compare = viewer.window.add_plugin_dock_widget("napari-mood", "Compare methods")
    QTest.mouseClick(compare._grid_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: viewer.canvas.grid.enabled, timeout=30_000)
    viewer.window._qt_window.grab().save(str(tmp_path / "grid.png"))
    assert (slider.maximum(), slider.value()) == (AXIAL_SLICES - 1, SLICE)
    QTest.mouseClick(compare._overlay_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not viewer.canvas.grid.enabled, timeout=30_000)
    assert (slider.maximum(), slider.value()) == (AXIAL_SLICES - 1, SLICE)


def test_export_view_keeps_slider_numbers_slice_numbers(brain_001, tmp_path: Path):
    from napari_mood._napari.viewer import export_view

    viewer, session = brain_001()
    slider = _axial_slider(viewer)
    seen: list[tuple[int, int]] = []
    slider.valueChanged.connect(lambda value: seen.append((slider.maximum(), value)))
    export_view(viewer, tmp_path / "view.png", [m.layer for m in session.methods])
    assert (slider.maximum(), slider.value()) == (AXIAL_SLICES - 1, SLICE)
    assert all(shown == (AXIAL_SLICES - 1, SLICE) for shown in seen), seen


def test_settings_are_the_tests_own(tmp_path_factory: pytest.TempPathFactory):
    from qtpy.QtCore import QSettings

    from napari_mood._napari.widgets.review_texts import REVIEWER_SETTING, SETTINGS

    settings = QSettings(*SETTINGS)
    assert Path(settings.fileName()).is_relative_to(tmp_path_factory.getbasetemp())
    assert settings.value(REVIEWER_SETTING) is None  # nothing remembered from elsewhere
