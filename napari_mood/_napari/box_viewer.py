"""A window on a NOVA-style box dataset (``napari-mood view NOVA_FOLDER``).

The slices, the readers' boxes, the ground truth and each method's boxes come from the
box reader (:func:`~napari_mood._napari.boxes.box_layers`); the Boxes panel is docked
alone (the MOOD panels and the three planes are for 3-D volumes, not for a stack of 2-D
slices). napari is imported inside the functions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from napari_mood._napari.boxes import box_layers, is_box_dataset
from napari_mood._napari.docking import PLUGIN_NAME
from napari_mood._napari.session import MoodSession, get_session
from napari_mood.io.boxes import discover_box_dataset
from napari_mood.io.errors import MoodInputError, option

__all__ = ["BOX_PANEL", "build_box_viewer", "opens_box_dataset"]

BOX_PANEL = "Boxes (NOVA-style)"
"""The manifest's display name of the panel docked with a box dataset."""


def opens_box_dataset(paths: Sequence[str | os.PathLike[str]]) -> bool:
    """Whether ``paths`` is one NOVA-style folder (slices and ``boxes.csv``)."""
    return len(paths) == 1 and is_box_dataset(paths[0])


def build_box_viewer(
    path: str | os.PathLike[str],
    *,
    preds: Mapping[str, Any] | None = None,
    dock_widgets: bool = True,
) -> tuple[Any, MoodSession, list[Any]]:
    """Open a napari window on the box dataset at ``path``: (viewer, session, panels).

    Raises
    ------
    MoodInputError
        When method maps are given (a box dataset brings its methods in
        ``predictions/``), or the folder cannot be read (the window is closed again).
    """
    from napari.layers import Layer
    from napari.viewer import Viewer

    root = Path(path)
    if preds:
        raise MoodInputError(
            root, f"{option('--pred', 'a method folder')} adds MOOD score maps; a NOVA box "
            "dataset has none",
            "put the methods' box files in its predictions/ folder",
        )  # fmt: skip
    layers = box_layers(discover_box_dataset(root))
    viewer = Viewer(title=f"{PLUGIN_NAME}: {root.name}", show=True)
    session = get_session(viewer)
    for data, kwargs, kind in layers:
        viewer.layers.append(Layer.create(data, kwargs, kind))
    widgets = []
    if dock_widgets:
        _, widget = viewer.window.add_plugin_dock_widget(PLUGIN_NAME, BOX_PANEL)
        widgets.append(widget)
    viewer.reset_view()
    return viewer, session, widgets
