"""Blind review names no method anywhere napari shows a layer name (issue 36).

With every panel docked, blind review on: the pointer moved over napari's canvas, the
coronal and sagittal views, the cells of napari's own grid (whose plain-text status lists
every visible layer's name) and of the compare grid (a name overlay per cell); nothing
shown names a method: status bar, help, tooltip, title, the layers' names (layer list,
grid cells, side views), also after the review opened the next case. Turned off, every
layer has its real name back.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qtpy.QtCore import QPoint
from qtpy.QtWidgets import QDockWidget

from napari_mood._napari.layers import layer_info
from napari_mood._napari.viewer import dock_plugin_widgets, focus_case, load_into_viewer
from napari_mood._napari.widgets.compare import CompareWidget
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood._napari.widgets.review import ReviewWidget
from napari_mood.services.datasets import sample_data_dir
from tests.napari.widgets.test_review import HAVE_SAMPLE, _wait

POINTS = (0.2, 0.35, 0.5, 0.65, 0.8)
"""Where the pointer goes on each canvas (shares of its width and height: every grid cell)."""

pytestmark = pytest.mark.skipif(not HAVE_SAMPLE, reason="sample_data/ not generated yet")


def _open_blind(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    widgets = dock_plugin_widgets(viewer)
    focus_case(viewer, session)
    review = next(w for w in widgets if isinstance(w, ReviewWidget))
    _dock_of(review).raise_()  # its tab clicked: the review runs when on screen
    method = session.method_names[0]
    review.select_method(method)
    _wait(qtbot, review, method)
    return viewer, widgets, review


def _dock_of(widget):
    parent = widget.parentWidget()
    while not isinstance(parent, QDockWidget):
        parent = parent.parentWidget()
    return parent


def _shown_texts(viewer, planes: PlanesWidget) -> list[str]:
    texts = [str(viewer.status), str(viewer.help), str(viewer.tooltip.text), str(viewer.title)]
    texts += [layer.name for layer in viewer.layers]  # the layer list, grid cells' overlays
    for model in planes.planes.models.values():
        texts += [layer.name for layer in model.layers]
    return texts


def _hover_everywhere(viewer, planes: PlanesWidget, qtbot, names) -> None:
    canvases = [viewer.window._qt_viewer.canvas.native]
    canvases += [planes.canvas(plane) for plane in ("coronal", "sagittal")]
    for canvas in canvases:
        for share in POINTS:
            point = QPoint(int(canvas.width() * share), int(canvas.height() * (1 - share)))
            qtbot.mouseMove(canvas, point)
            qtbot.wait(150)  # napari's own status thread answers a moment later
            texts = _shown_texts(viewer, planes)
            leaks = [(n, t) for n in names for t in texts if n in t]
            assert not leaks, (canvas.objectName(), share, leaks)


def test_blind_review_names_no_method_in_any_view(make_napari_viewer, qtbot, tmp_path: Path):
    viewer, widgets, review = _open_blind(make_napari_viewer, qtbot)
    planes = next(w for w in widgets if isinstance(w, PlanesWidget))
    names = review.session.method_names
    review.set_blind(True)
    _wait(qtbot, review, names[0])
    _hover_everywhere(viewer, planes, qtbot, names)

    viewer.canvas.grid.enabled = True  # napari's own grid (Ctrl+G): one layer per cell
    viewer.layers.selection.clear()  # napari's plain-text status: every visible layer named
    qtbot.wait(300)
    _hover_everywhere(viewer, planes, qtbot, names)
    viewer.window._qt_window.grab().save(str(tmp_path / "blind-napari-grid.png"))
    viewer.canvas.grid.enabled = False

    case = review.session.case  # the next case: its layers come in (or are refilled) named
    # the blind queue is shuffled (a seed per reviewer): the shown case may be the last one
    assert review.step_case(1) or review.step_case(-1)
    qtbot.waitUntil(lambda: review.session.case != case, timeout=60000)
    _wait(qtbot, review, names[0])
    _hover_everywhere(viewer, planes, qtbot, names)

    review.set_blind(False)
    _wait(qtbot, review, names[0])
    methods = {layer_info(m.layer)["method"]: m.layer.name for m in review.session.methods}
    assert methods == {name: name for name in names}  # the real names are back


def test_blind_review_over_the_compare_grid_names_no_method(
    make_napari_viewer, qtbot, tmp_path: Path
):
    viewer, widgets, review = _open_blind(make_napari_viewer, qtbot)
    planes = next(w for w in widgets if isinstance(w, PlanesWidget))
    compare = next(w for w in widgets if isinstance(w, CompareWidget))
    names = review.session.method_names
    compare.show_grid()
    qtbot.wait(300)
    before = sorted(layer.name for layer in viewer.layers)
    review.set_blind(True)
    _wait(qtbot, review, names[0])
    _hover_everywhere(viewer, planes, qtbot, names)
    viewer.window._qt_window.grab().save(str(tmp_path / "blind-compare-grid.png"))

    review.set_blind(False)
    _wait(qtbot, review, names[0])
    assert sorted(layer.name for layer in viewer.layers) == before
