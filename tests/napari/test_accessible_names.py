"""Every control of every napari-mood panel has a name a screen reader (and a test) can say."""

from __future__ import annotations

import pytest
import yaml
from qtpy.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QSlider,
    QWidget,
)

from napari_mood._napari.docking import PLUGIN_NAME
from napari_mood.services.datasets import sample_data_dir

pytestmark = pytest.mark.gui

KINDS = (QAbstractButton, QSlider, QAbstractSpinBox, QComboBox, QLineEdit)


def _panel_names() -> list[str]:
    from importlib.resources import files

    manifest = yaml.safe_load((files("napari_mood") / "napari.yaml").read_text())
    return [w["display_name"] for w in manifest["contributions"]["widgets"]]


def _inside_napari_widget(control: QWidget, panel: QWidget) -> bool:
    """Whether ``control`` is part of a napari widget the panel hosts (a side view's dims)."""
    widget: QWidget | None = control
    while widget is not None and widget is not panel:
        if type(widget).__module__.startswith("napari."):
            return True
        widget = widget.parentWidget()
    return False


def _unnamed(panel: QWidget) -> list[str]:
    controls = [c for kind in KINDS for c in panel.findChildren(kind)]
    # a spin box's line edit and a combo box's items belong to their box, which is named
    controls = [c for c in controls if not isinstance(c.parent(), (QAbstractSpinBox, QComboBox))]
    controls = [c for c in controls if not c.objectName().startswith("qt_")]  # Qt's own parts
    controls = [c for c in controls if not _inside_napari_widget(c, panel)]
    return [
        f"{type(c).__name__} {c.objectName() or c.toolTip()[:40]!r}"
        for c in controls
        if not (c.accessibleName() or (isinstance(c, QAbstractButton) and c.text()))
    ]


@pytest.mark.parametrize("name", _panel_names())
def test_every_control_of_the_panel_is_named(make_napari_viewer, name: str):
    from napari_mood._napari.viewer import load_into_viewer

    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [sample_data_dir()])
    _, panel = viewer.window.add_plugin_dock_widget(PLUGIN_NAME, name)
    unnamed = _unnamed(panel)
    assert not unnamed, "\n".join(unnamed)
