"""Export view's colour bars read the scores 0..1, in the overlay view and in the grid (issue 36).

A map's lower contrast limit is its display threshold: at a threshold near 1 (a binary
map at its best threshold) napari's own colour bar of the map read 0.9998-1.0008. The
export's bars read scores 0..1: in the overlay view they sit in a strip under the canvas
(nothing drawn over it), one per shown map; in the grid view each cell keeps its own bar,
once, and none is left behind.
"""

from __future__ import annotations

import pytest
from qtpy.QtWidgets import QFileDialog, QPushButton

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.browser import DatasetBrowserWidget
from napari_mood._napari.widgets.compare import CompareWidget
from napari_mood.core.scores import display_threshold
from tests.napari import ui


def _bars(viewer) -> list[tuple[str, tuple[float, float]]]:
    """(layer, the range its visible colour bar reads) of every bar on the canvas."""
    bars = []
    for layer in viewer.layers:
        if getattr(layer, "colorbar", None) is not None and layer.colorbar.visible:
            bars.append((layer.name, tuple(float(v) for v in layer.contrast_limits)))
        face = getattr(layer, "face_colorbar", None)
        if face is not None and face.visible and layer.visible:
            limits = layer._face.contrast_limits
            bars.append((layer.name, tuple(float(v) for v in limits)))
    return bars


@pytest.fixture
def exporting(make_napari_viewer, mood_dataset, tmp_path, monkeypatch):
    """A viewer on the toy dataset, map ``a`` at threshold 1, the browser's Export view."""
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [mood_dataset])
    session.set_threshold("a", display_threshold(1.0))
    browser = DatasetBrowserWidget(viewer)
    seen: list[list[tuple[str, tuple[float, float]]]] = []
    screenshot = type(viewer).screenshot

    def spy(self, *args, **kwargs):
        seen.append(_bars(self))
        return screenshot(self, *args, **kwargs)

    monkeypatch.setattr(type(viewer), "screenshot", spy)  # a pydantic model: on its class
    out = tmp_path / "view.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: (str(out), "PNG (*.png)"))
    yield viewer, session, browser, seen, out
    browser.deleteLater()


def test_export_colour_bars_read_scores_not_contrast_limits(exporting, monkeypatch):
    import napari_mood._napari.viewer as viewer_module

    viewer, session, browser, seen, out = exporting
    low, high = session.method("a").layer.contrast_limits
    assert high - low < 0.01  # napari's own bar would read about 0.9998 .. 1.0008
    layers_before = list(viewer.layers)
    legends: list[list] = []
    add_legend = viewer_module.add_legend

    def spy(path, entries, **kwargs):
        legends.append(list(entries))
        return add_legend(path, entries, **kwargs)

    monkeypatch.setattr(viewer_module, "add_legend", spy)
    ui.click(ui.control(browser, "Export view...", QPushButton))
    assert out.is_file()
    (on_canvas,) = seen
    assert on_canvas == []  # nothing drawn over the view: the bars are in the strip below
    (entries,) = legends
    assert sorted(e.name for e in entries) == sorted(session.method_names)  # one per shown map
    for entry in entries:  # each bar reads scores 0..1, whatever the contrast limits
        assert entry.ticks[0] == (0.0, "0") and entry.ticks[-1] == (1.0, "1"), entry.ticks
    assert list(viewer.layers) == layers_before
    assert not any(m.layer.colorbar.visible for m in session.methods)


def test_export_in_grid_view_shows_each_cell_bar_once(exporting, qtbot):
    viewer, session, browser, seen, out = exporting
    compare = CompareWidget(viewer)
    compare.show_grid()
    qtbot.wait(100)
    ui.click(ui.control(browser, "Export view...", QPushButton))
    assert out.is_file()
    (bars,) = seen
    assert len(bars) == len(session.methods)  # the cells' own bars, no second one
    assert all(limits == (0.0, 1.0) for _, limits in bars), bars
    compare.show_overlay()
    compare.deleteLater()
