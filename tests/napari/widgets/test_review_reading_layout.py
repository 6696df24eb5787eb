"""Review in the 2 x 2 reading layout (issue 46, item 2): its panels are hidden, the review
shows a strip under the four panes, and the review keys work from a pane's canvas.

Driven as a reader does, every panel docked at Xvfb's default screen: Ctrl+Shift+L on the
canvas, a click on the canvas, the GT (a Labels layer) selected, then the keys.
"""

from __future__ import annotations

from qtpy.QtCore import QPoint, QRect, Qt
from qtpy.QtWidgets import QApplication, QLabel, QToolBar

from napari_mood._napari.docking import dock_plugin_widgets
from napari_mood._napari.reading_layout import STRIPS_OBJECT_NAME, pane_sizes_equal
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood._napari.widgets.review import ReviewWidget
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.review_store import read_reviews
from tests.napari.widgets.test_review import needs_sample

pytestmark = needs_sample


def _in_window(widget) -> QRect:
    """The widget's rectangle in its window's coordinates."""
    return QRect(widget.mapTo(widget.window(), QPoint(0, 0)), widget.size())


def _settled(widget: ReviewWidget) -> bool:
    return widget.method == "residual" and not widget.busy and not widget.update_pending


def test_review_keys_and_strip_work_in_the_reading_layout_without_covering_a_pane(
    make_napari_viewer, qtbot, review_dir
):
    viewer = make_napari_viewer(show=True)
    window = viewer.window._qt_window
    viewer.window.resize(1280, 1024)
    widgets = dock_plugin_widgets(viewer)
    planes = next(w for w in widgets if isinstance(w, PlanesWidget))
    review = next(w for w in widgets if isinstance(w, ReviewWidget))
    session = load_into_viewer(viewer, [sample_data_dir()])
    review.select_method("residual")
    qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=30_000)
    canvas = viewer.window._qt_viewer.canvas.native
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    qtbot.keyClick(
        canvas,
        Qt.Key.Key_L,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert planes.reading_layout
    assert not review.isVisible()  # the panel is hidden with the others
    strips = window.findChild(QToolBar, STRIPS_OBJECT_NAME)
    assert strips is not None
    qtbot.waitUntil(lambda: strips.isVisible(), timeout=5_000)
    qtbot.waitUntil(lambda: _settled(review) and len(review.regions) > 2, timeout=30_000)
    qtbot.waitUntil(
        lambda: not planes._layout.sizing and pane_sizes_equal(planes._panes()), timeout=60_000
    )
    position = strips.findChild(QLabel, "review-strip-position")
    assert f"Region 1 of {len(review.regions)}" in position.text()
    assert "residual" in position.text()

    gt = session.gt_layer
    viewer.layers.selection.active = gt  # napari's bare letters are paint tools here
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    qtbot.keyClick(canvas, Qt.Key.Key_T)
    qtbot.waitUntil(lambda: len(read_reviews(review.review_path)) == 1, timeout=5_000)
    assert read_reviews(review.review_path)[0].verdict == "true finding"
    assert review.current_index == 1
    assert f"Region 2 of {len(review.regions)}" in position.text()
    assert "Reviewed 1 of" in strips.findChild(QLabel, "review-strip-progress").text()
    qtbot.keyClick(canvas, Qt.Key.Key_N)
    assert review.current_index == 2
    qtbot.keyClick(canvas, Qt.Key.Key_P)
    assert review.current_index == 1
    qtbot.keyClick(canvas, Qt.Key.Key_Z)
    assert review.current_index == 0 and read_reviews(review.review_path) == ()
    assert gt.mode == "pan_zoom"

    assert window.width() <= 1280  # the strip never widens the window
    panes = planes._panes()
    assert pane_sizes_equal(panes)  # the strip took its height from the four panes alike
    row = _in_window(strips)
    for pane in panes.values():
        assert not row.intersects(_in_window(pane))  # no pane covered, nor its centre
        centre = _in_window(pane).center()
        assert window.childAt(centre) is pane or pane.isAncestorOf(window.childAt(centre))

    review.set_blind(True)
    qtbot.waitUntil(lambda: not review.busy and not review.update_pending, timeout=30_000)
    qtbot.waitUntil(lambda: "Method " in position.text(), timeout=5_000)
    assert "residual" not in position.text()

    planes._reading.setChecked(False)  # back to the compact layout: the panel again
    qtbot.waitUntil(lambda: review.isVisible() or review._dock is not None, timeout=5_000)
    assert window.findChild(QToolBar, STRIPS_OBJECT_NAME) is None or not strips.isVisible()
