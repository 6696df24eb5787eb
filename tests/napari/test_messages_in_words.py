"""Panels say what to do in the GUI's words; a command is named in words, never as a flag."""

from __future__ import annotations

import numpy as np
import pytest
from qtpy.QtCore import QEvent
from qtpy.QtGui import QHelpEvent
from qtpy.QtWidgets import QApplication, QLabel, QWidget

from napari_mood._napari.box_viewer import build_box_viewer
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.browser import DatasetBrowserWidget
from napari_mood._napari.widgets.recon import ReconViewWidget
from napari_mood.io.errors import MoodInputError
from napari_mood.services.datasets import sample_data_dir


def _hover(widget: QWidget, qtbot) -> QLabel:
    """Rest the pointer on ``widget`` as a user does; return the tooltip Qt shows."""
    qtbot.waitExposed(widget.window())
    centre = widget.rect().center()
    event = QHelpEvent(QEvent.Type.ToolTip, centre, widget.mapToGlobal(centre))
    QApplication.sendEvent(widget, event)

    def shown() -> QLabel | None:
        return next(
            (
                w
                for w in QApplication.topLevelWidgets()
                if w.objectName() == "qtooltip_label" and w.isVisible()
            ),
            None,
        )

    qtbot.waitUntil(lambda: shown() is not None)
    tip = shown()
    assert isinstance(tip, QLabel)
    return tip


def test_the_region_button_names_the_simulation_in_words(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    widget = ReconViewWidget(viewer)
    viewer.window.add_dock_widget(widget, name="Reconstructions")
    button = next(b for b in widget.findChildren(QWidget) if b.toolTip().startswith("Save the"))
    tip = _hover(button, qtbot)
    assert "the simulate command's PET mask" in tip.text()
    assert "--" not in tip.text()


def test_the_figure_width_names_the_figure_command_in_words(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    widget = DatasetBrowserWidget(viewer)
    viewer.window.add_dock_widget(widget, name="Browser")
    width = next(w for w in widget.findChildren(QWidget) if "Printed width" in w.toolTip())
    width.window().raise_()
    tip = _hover(width, qtbot)
    assert "the figure command's widths" in tip.text()
    assert "--" not in tip.text()


def _region_panel(make_napari_viewer) -> ReconViewWidget:
    """The reconstruction panel over a sample case with a drawn region layer."""
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir() / "toy" / "brain_000.nii.gz"])
    drawn = np.zeros(session.transform.display_shape, np.uint8)
    drawn[40:44, 50:53, 60:62] = 1
    scan = session.scan_layer
    viewer.add_labels(drawn, scale=scan.scale, translate=scan.translate, name="region")
    widget = ReconViewWidget(viewer)
    viewer.window.add_dock_widget(widget, name="Reconstructions")
    return widget


def test_a_saved_region_is_announced_without_a_flag(make_napari_viewer, tmp_path, notes):
    widget = _region_panel(make_napari_viewer)

    assert widget.save_drawn_region(tmp_path / "region.nii.gz") is not None

    infos = [text for severity, text in notes if severity == "info"]
    assert infos and "region saved to" in infos[-1]
    assert "the simulate command's PET mask" in infos[-1]
    assert "--" not in infos[-1]


def test_a_refused_region_file_is_explained_without_flags(make_napari_viewer, tmp_path, notes):
    widget = _region_panel(make_napari_viewer)
    (tmp_path / "region.nii.gz").write_bytes(b"kept")

    assert widget.save_drawn_region(tmp_path / "region.nii.gz") is None

    errors = [text for severity, text in notes if severity == "error"]
    assert errors and "exists already (allow replacing it, or choose another path)" in errors[-1]
    assert "--force" not in errors[-1]
    assert (tmp_path / "region.nii.gz").read_bytes() == b"kept"


def test_score_maps_for_a_box_dataset_are_refused_in_words(tmp_path):
    with pytest.raises(MoodInputError) as info:
        build_box_viewer(tmp_path, preds={"m": tmp_path / "m"})
    assert "a method folder adds MOOD score maps" in str(info.value)
    assert "--" not in str(info.value)
    assert str(info.value.args[0]).count("--pred") == 1  # the command line prints the flag
