"""Issue 36, defect 11 in the GUI: the Dataset browser's *Make figure...*.

* at a journal column (89 mm) with *Annotate* and three methods the figure is written
  (it was refused: "cannot hold 5 columns");
* the *Methods* menu chooses the method columns (there was no way to drop one);
* the figure follows the three planes' convention (it was always radiological: napari
  hands panels a proxy viewer).

Driven as a user: the panels come from napari's plugin menu (proxy viewers), buttons
and the menu are clicked with QTest, the save dialog answers a file name.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from qtpy.QtCore import QPoint, Qt, QTimer
from qtpy.QtTest import QTest
from qtpy.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QMenu,
    QPushButton,
    QSpinBox,
)

from napari_mood._napari.viewer import load_into_viewer
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui

SAMPLE = sample_data_dir()
TIMEOUT_MS = 60_000
DPI = 50
SHOTS = Path()  # the running test's tmp_path: set by _shots_in_tmp_path


@pytest.fixture(autouse=True)
def _shots_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Screenshots go to the test's own tmp_path, never to a shared folder."""
    monkeypatch.setitem(globals(), "SHOTS", tmp_path)


@pytest.fixture
def shown(make_napari_viewer):
    """Show brain_001 (three methods) with the browser docked from the menu; called inside
    the test (a viewer kept by a fixture value would count as leaked for napari)."""

    def load():
        viewer = make_napari_viewer(show=True)
        load_into_viewer(viewer, [SAMPLE / "toy" / "brain_001.nii.gz"])
        _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
        ui.type_into(ui.control(widget, "Figure resolution", QSpinBox), str(DPI))
        return viewer, widget

    return load


def _save_as(monkeypatch, path: Path) -> None:
    answer = (str(path), "PNG (*.png)")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: answer)


def _make_figure(qtbot, widget, notes, monkeypatch, path: Path) -> None:
    _save_as(monkeypatch, path)
    before = len(notes)
    ui.click(ui.control(widget, "Make figure...", QPushButton))
    qtbot.waitUntil(lambda: len(notes) > before, timeout=TIMEOUT_MS)
    severity, message = notes[-1]
    assert "Figure saved" in message, (severity, message)


def _png_width(path: Path) -> int:
    return int.from_bytes(path.read_bytes()[16:20], "big")


def _png_pixels(path: Path) -> np.ndarray:
    from imageio.v3 import imread  # napari's own dependency

    return np.asarray(imread(path))


def _untick(qtbot, button, name: str) -> None:
    """Open the button's menu with a click and click the entry ``name`` (as a user)."""

    def click_entry() -> None:
        menu = QApplication.activePopupWidget()
        assert isinstance(menu, QMenu)
        action = next(a for a in menu.actions() if a.text() == name)
        SHOTS.mkdir(parents=True, exist_ok=True)
        menu.grab().save(str(SHOTS / "browser_methods_menu_open.png"))
        QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
        if menu.isVisible():  # a checkable entry may keep the menu open
            menu.close()

    QTimer.singleShot(300, click_entry)
    QTest.mouseClick(button, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=10_000)


def test_column_width_with_annotations_and_three_methods_is_written(
    shown, qtbot, notes, monkeypatch, tmp_path
):
    viewer, widget = shown()
    ui.choose(ui.control(widget, "Figure width", QComboBox), "column")
    annotate = ui.control(widget, "Annotate", QCheckBox)
    ui.click(annotate)
    assert annotate.isChecked()
    out = tmp_path / "column.png"
    _make_figure(qtbot, widget, notes, monkeypatch, out)
    assert _png_width(out) == math.floor(89 / 25.4 * DPI)
    assert not any(severity == "error" for severity, _ in notes)


def test_the_methods_menu_chooses_the_figure_columns(
    shown, qtbot, notes, monkeypatch, tmp_path, figure_requests
):
    viewer, widget = shown()
    all_five = tmp_path / "five.png"
    _make_figure(qtbot, widget, notes, monkeypatch, all_five)
    assert list(figure_requests[-1].maps) == METHODS_ALL
    button = ui.control(widget, "Methods in the figure", QPushButton)
    assert button.text() == "Methods (3 of 3)"
    _untick(qtbot, button, "binary")
    assert button.text() == "Methods (2 of 3)"
    four = tmp_path / "four.png"
    _make_figure(qtbot, widget, notes, monkeypatch, four)
    request = figure_requests[-1]
    assert list(request.maps) == ["oracle_noisy", "residual"]
    assert set(request.thresholds) == set(request.colors) == {"oracle_noisy", "residual"}
    cell = 1.8 * DPI  # "any width": 1.8-inch columns
    assert _png_width(all_five) - _png_width(four) == pytest.approx(cell, abs=0.1 * cell)
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / "browser_methods_menu.png"))
    _untick(qtbot, button, "binary")  # ticked again
    assert button.text() == "Methods (3 of 3)"
    _make_figure(qtbot, widget, notes, monkeypatch, tmp_path / "again.png")
    assert list(figure_requests[-1].maps) == METHODS_ALL


METHODS_ALL = ["binary", "oracle_noisy", "residual"]


def test_make_figure_follows_the_planes_convention(
    shown, qtbot, notes, monkeypatch, tmp_path, figure_requests
):
    from napari_mood.services.figures import write_view_figure

    viewer, widget = shown()
    _, planes = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    planes.set_radiological(True)
    try:
        radiological = tmp_path / "radiological.png"
        _make_figure(qtbot, widget, notes, monkeypatch, radiological)
        box = ui.control(planes, "Radiological", QCheckBox)  # a click on its tick box
        QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(6, box.height() // 2))
        assert planes.convention == "neurological"
        neurological = tmp_path / "neurological.png"
        _make_figure(qtbot, widget, notes, monkeypatch, neurological)
        request = dataclasses.replace(figure_requests[-1], path=tmp_path / "expected.png")
    finally:
        planes.set_radiological(True)  # the convention is remembered on this machine
    assert request.convention == "neurological"
    a, b = _png_pixels(radiological), _png_pixels(neurological)
    assert a.shape == b.shape and not np.array_equal(a, b)
    expected = write_view_figure(request)  # the service draws neurological as mirrored
    np.testing.assert_array_equal(b, _png_pixels(expected))
