"""A NOVA-style folder opens like a MOOD one: ``view``, a drop and File > Open."""

from __future__ import annotations

import pytest

from napari_mood._napari.box_viewer import BOX_PANEL
from napari_mood._napari.viewer import build_viewer
from napari_mood.io.errors import MoodInputError
from napari_mood.services.datasets import sample_data_dir

NOVA = sample_data_dir() / "nova"


def test_view_opens_a_nova_folder_with_the_box_panel_alone():
    opened = build_viewer([NOVA])
    try:
        names = [layer.name for layer in opened.viewer.layers]
        assert "nova slices" in names and "GT consensus" in names
        assert [type(w).__name__ for w in opened.widgets] == ["BoxReviewWidget"]
        docks = opened.viewer.window.dock_widgets  # no three planes on a stack of 2-D slices
        assert [name for name in docks if "Three planes" in name] == []
        assert [name for name in docks if BOX_PANEL in name]
    finally:
        opened.viewer.close()


def test_view_refuses_mood_maps_on_a_nova_folder(tmp_path):
    with pytest.raises(MoodInputError, match="predictions/"):
        build_viewer([NOVA], preds={"m": tmp_path})


def test_the_drop_dialog_preselects_napari_mood(make_napari_viewer):
    from napari._qt.dialogs.qt_reader_dialog import QtReaderDialog, prepare_remaining_readers

    viewer = make_napari_viewer(show=True)
    readers = prepare_remaining_readers([str(NOVA)])
    assert len(readers) > 1  # napari's builtins take folders too: the dialog is shown
    dialog = QtReaderDialog(parent=viewer.window._qt_viewer, pth=str(NOVA), readers=readers)
    chosen = dialog._get_plugin_choice()
    assert chosen == "MOOD anomaly detection"  # napari-mood's display name
    dialog.close()


def test_the_preselected_reader_opens_the_folder(make_napari_viewer):
    viewer = make_napari_viewer(show=True)
    viewer.open(NOVA, plugin="napari-mood")  # what OK in that dialog does
    assert "nova slices" in [layer.name for layer in viewer.layers]
