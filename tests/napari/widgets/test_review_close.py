"""Closing the viewer during blind review with napari's grid on (issue 37, defect of 36).

napari clears the layer list while closing; the review panel, destroyed with the window,
used to restore the layers' visibility inside that clear, and napari's grid, asked for the
visible layers' overlays of a list being emptied, raised ``IndexError``.
"""

from __future__ import annotations

import pytest
from qtpy.QtWidgets import QDockWidget

from napari_mood._napari.viewer import dock_plugin_widgets, focus_case, load_into_viewer
from napari_mood._napari.widgets.review import ReviewWidget
from napari_mood.services.datasets import sample_data_dir
from tests.napari.widgets.test_review import HAVE_SAMPLE

pytestmark = pytest.mark.skipif(not HAVE_SAMPLE, reason="sample_data/ not generated yet")


def _dock_of(widget) -> QDockWidget:
    parent = widget.parentWidget()
    while not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent


def _wait(qtbot, review, method: str) -> None:
    qtbot.waitUntil(
        lambda: review.method == method and review.regions and not review.busy, timeout=30000
    )


def test_closing_the_viewer_in_blind_review_with_the_grid_on(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    widgets = dock_plugin_widgets(viewer)  # every panel, as `napari-mood view` docks them
    focus_case(viewer, session)
    review = next(w for w in widgets if isinstance(w, ReviewWidget))
    _dock_of(review).raise_()  # its tab clicked
    method = session.method_names[0]
    review.select_method(method)
    _wait(qtbot, review, method)
    review.set_blind(True)
    _wait(qtbot, review, method)
    viewer.canvas.grid.enabled = True  # napari's grid (Ctrl+G)
    qtbot.wait(100)

    viewer.close()  # raised IndexError in napari's _get_ordered_visible_canvas_overlays
