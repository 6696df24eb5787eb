"""The status bar under the pointer: every view, napari's own status format.

The pointer is moved with real Qt mouse events over the main canvas and each side view,
so napari's status bar (``QtViewerStatusBar``) reads what napari-mood wrote: a status
missing a key napari reads raised ``KeyError: 'layer_base'`` on every move.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.neutral_names import NeutralNames
from napari_mood._napari.reader import read_paths
from napari_mood._napari.status import SEPARATOR, status_info
from napari_mood._napari.viewer import focus_case, load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget

NAPARI_KEYS = set(status_info(""))


def _hover(qtbot, widget) -> None:
    from qtpy.QtCore import QPoint

    centre = QPoint(widget.width() // 2, widget.height() // 2)
    for dx in (0, 3, 6):  # several moves: napari updates the status on a move
        qtbot.mouseMove(widget, centre + QPoint(dx, dx))
        qtbot.wait(30)


@pytest.fixture
def shown_case(make_napari_viewer, qtbot, mood_dataset: Path):
    """Open case_1 with the planes docked; called inside the test (no viewer kept by a
    fixture value, which napari's leak check would count)."""

    def load():
        viewer = make_napari_viewer(show=True)
        _, planes = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
        assert isinstance(planes, PlanesWidget)
        session = load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
        qtbot.waitUntil(lambda: planes.planes.pending == 0, timeout=20_000)
        return viewer, session, planes, qtbot

    return load


@pytest.mark.parametrize("view", ["main", "coronal", "sagittal"])
def test_hovering_a_view_writes_napari_status_with_scanner_coordinates(shown_case, view):
    viewer, session, planes, qtbot = shown_case()
    canvas = viewer.window._qt_viewer.canvas.native if view == "main" else planes.canvas(view)
    _hover(qtbot, canvas)
    status = viewer.status
    assert isinstance(status, dict) and NAPARI_KEYS <= set(status), status
    assert "RAS" in status["coordinates"] and "voxel" in status["coordinates"], status


def test_blind_review_status_names_no_layer(shown_case):
    viewer, session, planes, qtbot = shown_case()
    viewer.layers.selection.active = next(
        layer for layer in viewer.layers if layer.name in session.method_names
    )
    session.blind = True
    for canvas in (viewer.window._qt_viewer.canvas.native, planes.canvas("coronal")):
        _hover(qtbot, canvas)
        status = viewer.status
        assert NAPARI_KEYS <= set(status), status
        assert status["layer_name"] == status["layer_base"] == session.scan_layer.name
        assert not any(f"  {name}:" in status["coordinates"] for name in session.method_names)
    session.blind = False
    _hover(qtbot, viewer.window._qt_viewer.canvas.native)
    selected = viewer.layers.selection.active.name  # not blind: the selected map's value too
    assert f"  {selected}:" in viewer.status["coordinates"], viewer.status


def _readout(status) -> list[str]:
    """The labels of the readout after the scan's value: ``["GT", "a", "b"]``."""
    return [part.split(":")[0] for part in status["coordinates"].split(SEPARATOR)[1:]]


@pytest.mark.parametrize("view", ["main", "coronal", "sagittal"])
def test_every_view_reads_out_the_gt_and_every_visible_map(shown_case, view):
    viewer, session, planes, qtbot = shown_case()
    viewer.layers.selection.active = session.scan_layer  # no map selected
    canvas = viewer.window._qt_viewer.canvas.native if view == "main" else planes.canvas(view)
    _hover(qtbot, canvas)
    assert _readout(viewer.status) == ["GT", "a", "b"], viewer.status
    session.method("b").layer.visible = False
    _hover(qtbot, canvas)
    assert _readout(viewer.status) == ["GT", "a"], viewer.status


def test_the_readout_shows_each_map_value_under_the_pointer(shown_case):
    viewer, session, planes, qtbot = shown_case()
    canvas = viewer.window._qt_viewer.canvas.native
    _hover(qtbot, canvas)
    position = viewer.cursor.position
    for name in ("a", "b"):
        value = session.method(name).layer.get_value(position, world=True)
        assert f"{SEPARATOR}{name}: {value:.3f}" in viewer.status["coordinates"], viewer.status
    gt = session.gt_layer.get_value(position, world=True)
    assert f"{SEPARATOR}GT: {gt}" in viewer.status["coordinates"]


def test_blind_review_reads_out_maps_by_neutral_name_without_the_gt(shown_case):
    viewer, session, planes, qtbot = shown_case()
    names = NeutralNames(viewer)
    names.show({"a": "Method B", "b": "Method A"})
    session.blind = True
    for canvas in (viewer.window._qt_viewer.canvas.native, planes.canvas("sagittal")):
        _hover(qtbot, canvas)
        assert _readout(viewer.status) == ["Method A", "Method B"], viewer.status
    names.restore()


@pytest.mark.parametrize("view", ["main", "coronal"])
def test_a_case_switch_reads_out_the_next_case_under_a_resting_pointer(
    shown_case, mood_dataset, view
):
    """Never the previous patient's values under the next patient's name (issue 46)."""
    viewer, session, planes, qtbot = shown_case()
    canvas = viewer.window._qt_viewer.canvas.native if view == "main" else planes.canvas(view)
    _hover(qtbot, canvas)
    assert viewer.status["layer_base"] == "case_1"
    pointed = viewer if view == "main" else planes.planes.models[view]
    load_into_viewer(viewer, [mood_dataset / "toy" / "case_0.nii.gz"])  # the pointer rests
    focus_case(viewer, session)  # as the browser and the queue do: another slice, fitted

    def reads_the_next_case() -> bool:
        status, position = viewer.status, pointed.cursor.position
        if not isinstance(status, dict) or status.get("layer_base") != "case_0":
            return False
        scan = session.scan_layer.get_value(position, world=True)
        maps = [
            f"{SEPARATOR}{name}: {session.method(name).layer.get_value(position, world=True):.3f}"
            for name in ("a", "b")
        ]
        text = status["coordinates"]
        axial = round(float(session.scan_layer.world_to_data(position)[0]))
        shown = f" slice {axial} " in text and f": {scan:.3g}" in text
        return shown and all(m in text for m in maps)

    qtbot.waitUntil(lambda: session.case == "case_0.nii.gz", timeout=20_000)
    qtbot.waitUntil(reads_the_next_case, timeout=20_000)


def test_maps_read_after_the_case_join_the_readout_under_a_resting_pointer(
    shown_case, mood_dataset
):
    """A switch shows the scan and GT first, the maps when read: the readout lists them."""
    viewer, session, planes, qtbot = shown_case()
    _hover(qtbot, viewer.window._qt_viewer.canvas.native)
    layers = read_paths([mood_dataset / "toy" / "case_0.nii.gz"])
    maps = [x for x in layers if x[1]["metadata"][METADATA_KEY]["role"] == "method"]
    session.replace_case([x for x in layers if not any(x is m for m in maps)])
    session.expect_maps()
    qtbot.waitUntil(lambda: viewer.status.get("layer_base") == "case_0", timeout=20_000)
    assert SEPARATOR + "a:" not in viewer.status["coordinates"]  # the maps are being read
    session.complete_case(maps)
    position = viewer.cursor.position
    expected = [
        f"{SEPARATOR}{name}: {session.method(name).layer.get_value(position, world=True):.3f}"
        for name in ("a", "b")
    ]
    qtbot.waitUntil(
        lambda: all(e in viewer.status["coordinates"] for e in expected), timeout=20_000
    )
