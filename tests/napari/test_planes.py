"""Three linked planes: copies of the case in the side views, crosshair, letters, one point.

The side views get a case's layers after the main canvas (one scheduled step), so the
window shows the scan and maps first; these tests check what the side views show once
they are filled, and that they do fill.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.mirror import LayerMirror
from napari_mood._napari.plane_marks import LETTER_POSITIONS
from napari_mood._napari.planes import LinkedPlanes, planes_of
from napari_mood._napari.viewer import dock_plugin_widgets, focus_case, load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from tests.napari.conftest import SHAPE

CASE_ROLES = ["scan", "method", "method", "gt"]


# --------------------------------------------------------------------------- mirror


class ManualSchedule:
    """A ``schedule`` for :class:`LayerMirror` that runs the steps when told."""

    def __init__(self) -> None:
        self.steps: list[Callable[[], None]] = []

    def __call__(self, step: Callable[[], None]) -> None:
        self.steps.append(step)

    def run(self) -> None:
        steps, self.steps = self.steps, []
        for step in steps:
            step()


def _models():
    from napari.components import ViewerModel

    return ViewerModel(), ViewerModel()


def test_mirror_without_schedule_copies_at_once_and_keeps_looks_in_step():
    source, target = _models()
    image = source.add_image(np.zeros((4, 5, 6), np.float32), name="scan")
    mirror = LayerMirror(source.layers, target)
    method = source.add_image(np.ones((4, 5, 6), np.float32), name="map", opacity=0.5)
    assert [layer.name for layer in target.layers] == ["scan", "map"]
    copy = mirror.copy_of(method)
    assert copy.data is method.data  # shared, not duplicated
    assert not copy.editable
    method.opacity = 0.25
    method.contrast_limits = (0.3, 1.0)
    assert copy.opacity == 0.25 and tuple(copy.contrast_limits) == (0.3, 1.0)
    source.layers.move(source.layers.index(method), 0)
    assert [layer.name for layer in target.layers] == ["map", "scan"]
    source.layers.remove(image)
    assert [layer.name for layer in target.layers] == ["map"]
    mirror.close()
    assert len(target.layers) == 0


def test_scheduled_mirror_copies_later_in_one_step_in_source_order():
    source, target = _models()
    schedule = ManualSchedule()
    mirror = LayerMirror(source.layers, target, schedule=schedule)
    done: list[int] = []
    for name in ("scan", "a", "b"):
        source.add_image(np.zeros((3, 3, 3), np.float32), name=name)
    assert mirror.pending == 3 and len(target.layers) == 0
    assert len(schedule.steps) == 1  # one step for the whole case
    mirror.when_done(lambda: done.append(len(target.layers)))
    assert done == []
    schedule.run()
    assert [layer.name for layer in target.layers] == ["scan", "a", "b"]
    assert mirror.pending == 0 and done == [3]
    mirror.when_done(lambda: done.append(-1))  # nothing waits: at once
    assert done == [3, -1]


def test_scheduled_mirror_also_waits_to_copy_the_layers_already_there():
    source, target = _models()
    for name in ("scan", "gt"):
        source.add_image(np.zeros((3, 3, 3), np.float32), name=name)
    schedule = ManualSchedule()
    mirror = LayerMirror(source.layers, target, schedule=schedule)
    assert mirror.pending == 2 and len(target.layers) == 0 and len(schedule.steps) == 1
    schedule.run()
    assert [layer.name for layer in target.layers] == ["scan", "gt"]
    source.layers.move(1, 0)
    assert [layer.name for layer in target.layers] == ["gt", "scan"]


def test_a_layer_removed_before_its_copy_is_never_copied():
    source, target = _models()
    schedule = ManualSchedule()
    copied: list[str] = []
    mirror = LayerMirror(
        source.layers, target, schedule=schedule, on_copy=lambda c: copied.append(c.name)
    )
    keep = source.add_image(np.zeros((3, 3), np.float32), name="keep")
    gone = source.add_image(np.zeros((3, 3), np.float32), name="gone")
    source.layers.remove(gone)
    assert mirror.pending == 1
    schedule.run()
    assert copied == ["keep"] and mirror.copy_of(keep) is not None
    assert mirror.copy_of(gone) is None


def test_flush_copies_now_and_close_drops_what_waits():
    source, target = _models()
    schedule = ManualSchedule()
    mirror = LayerMirror(source.layers, target, schedule=schedule)
    source.add_image(np.zeros((3, 3), np.float32), name="a")
    mirror.flush()
    assert [layer.name for layer in target.layers] == ["a"]
    source.add_image(np.zeros((3, 3), np.float32), name="b")
    mirror.close()
    schedule.run()  # the step of a closed mirror does nothing
    assert len(target.layers) == 0 and mirror.pending == 0


# --------------------------------------------------------------------------- planes


def _letters(model) -> tuple[str, ...]:
    overlays = model.canvas.overlays
    return tuple(overlays[f"napari_mood_letter_{p}"].text for p in LETTER_POSITIONS)


def _roles(model) -> list[str]:
    return [layer.metadata[METADATA_KEY]["role"] for layer in model.layers]


@pytest.fixture
def planes_with_case(make_napari_viewer, qtbot, mood_dataset: Path):
    """Load case_1 into a shown viewer whose planes are docked first (as ``view`` does).

    Called inside the test: pytest-qt processes events between a fixture and the test,
    which would fill the side views before the test looks.
    """

    def load():
        viewer = make_napari_viewer(show=True)
        dock, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
        assert isinstance(widget, PlanesWidget)
        widget.set_radiological(True)
        session = load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
        return viewer, session, widget.planes, qtbot

    return load


def test_side_views_fill_after_the_main_canvas(planes_with_case):
    viewer, session, planes, qtbot = planes_with_case()
    assert [r for r in _roles(viewer) if r != "crosshair"] == CASE_ROLES
    assert planes.pending == 2 * len(CASE_ROLES)  # not yet: the main canvas draws first
    assert all(len(m.layers) == 0 for m in planes.models.values())
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    for model in planes.models.values():
        assert _roles(model) == [*CASE_ROLES, "crosshair"]  # the crosshair on top
        scan = model.layers[0]
        assert scan.data is viewer.layers[0].data  # same array, no copy


def test_side_views_get_their_copies_one_view_a_turn(planes_with_case):
    """The coronal view's copies, then (a turn later, once it could draw) the sagittal's:
    the window answers between the two."""
    viewer, session, planes, qtbot = planes_with_case()
    coronal, sagittal = planes.models["coronal"], planes.models["sagittal"]
    seen = []
    while planes.pending:
        seen.append((len(coronal.layers), len(sagittal.layers)))
        qtbot.wait(1)
    done = len(CASE_ROLES) + 1  # and the crosshair
    assert (done, 0) in seen, seen  # the coronal view filled, the sagittal not yet
    assert len(coronal.layers) == len(sagittal.layers) == done


def test_each_view_slices_its_own_axis_and_the_point_is_shared(planes_with_case):
    viewer, session, planes, qtbot = planes_with_case()
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    coronal, sagittal = planes.models["coronal"], planes.models["sagittal"]
    assert viewer.dims.not_displayed == (0,)  # axial: display axis 0 is S
    assert coronal.dims.not_displayed == (1,) and tuple(coronal.dims.displayed) == (0, 2)
    assert sagittal.dims.not_displayed == (2,) and tuple(sagittal.dims.displayed) == (0, 1)
    scan = session.scan_layer  # a point on the voxel grid (the sliders step by slices)
    point = tuple(np.asarray(scan.translate) + np.asarray(scan.scale) * (2, 3, 1))
    coronal.dims.point = point  # moving any view moves all three
    for model in planes.views:
        assert tuple(model.dims.point) == pytest.approx(point)


def test_crosshair_lines_cross_at_the_point_in_every_view(planes_with_case):
    viewer, session, planes, qtbot = planes_with_case()
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    focus_case(viewer, session)
    qtbot.wait(50)
    for model in planes.views:
        crosshair = next(x for x in model.layers if _roles_of(x) == "crosshair")
        assert crosshair.visible
        lines = np.asarray(crosshair.data)  # (line, start/span, axis), in data coordinates
        assert lines.shape == (2, 2, 3)
        scale, translate = np.asarray(crosshair.scale), np.asarray(crosshair.translate)
        lines = np.stack([lines[:, 0] * scale + translate, lines[:, 1] * scale], axis=1)
        point = np.asarray(model.dims.point)
        for axis, (start, span) in zip(model.dims.displayed, lines, strict=True):
            low, high, _ = model.dims.range[axis]
            assert start[axis] == pytest.approx(low) and span[axis] == pytest.approx(high - low)
            others = [a for a in range(3) if a != axis]
            assert start[others] == pytest.approx(point[others])
            assert not span[others].any()
    planes.set_crosshair_visible(False)
    assert not any(x.visible for m in planes.views for x in m.layers if _roles_of(x) == "crosshair")


def test_sliders_step_one_slice_on_anisotropic_voxels(planes_with_case):
    """The crosshair is on the case's grid: with 2 x 1.5 x 3 mm voxels the sliders count
    slices (a helper layer on a 1 mm grid made them step by 1 mm: 2-3 steps a slice)."""
    viewer, session, planes, qtbot = planes_with_case()
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    scan = session.scan_layer
    for model in planes.views:
        crosshair = next(x for x in model.layers if _roles_of(x) == "crosshair")
        assert tuple(crosshair.scale) == tuple(scan.scale)
        assert tuple(model.dims.nsteps) == tuple(scan.level_shapes[0])
    viewer.dims.set_current_step(0, 3)
    assert viewer.dims.current_step[0] == 3


def _roles_of(layer) -> str:
    return layer.metadata[METADATA_KEY]["role"]


def test_edge_letters_follow_the_convention(planes_with_case):
    viewer, session, planes, qtbot = planes_with_case()
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    coronal, sagittal = planes.models["coronal"], planes.models["sagittal"]
    # (top, bottom, left, right); radiological: the patient's right on the screen's left
    assert _letters(viewer) == ("A", "P", "R", "L")
    assert _letters(coronal) == ("S", "I", "R", "L")
    assert _letters(sagittal) == ("S", "I", "A", "P")
    assert tuple(map(str, viewer.scene.camera.orientation2d)) == ("down", "left")
    planes.set_convention("neurological")
    assert _letters(viewer) == ("A", "P", "L", "R")
    assert _letters(coronal) == ("S", "I", "L", "R")
    assert _letters(sagittal) == ("S", "I", "A", "P")


def test_side_views_are_fitted_once_their_layers_are_in(planes_with_case):
    viewer, session, planes, qtbot = planes_with_case()
    planes.reset_views()  # asked before the copies arrive: runs when they do
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    qtbot.wait(50)
    coronal = planes.models["coronal"]
    centre = coronal.scene.camera.center[-2:]
    low = [coronal.dims.range[a][0] for a in coronal.dims.displayed]
    high = [coronal.dims.range[a][1] for a in coronal.dims.displayed]
    assert centre == pytest.approx([(lo + hi) / 2 for lo, hi in zip(low, high, strict=True)])


def test_filling_the_side_views_keeps_the_point(planes_with_case):
    """A side view's first layer centres its sliders; the shared point must not follow."""
    viewer, session, planes, qtbot = planes_with_case()
    assert planes.pending
    point = tuple(float(lo) for lo, _, _ in viewer.dims.range)  # a corner, not the centre
    viewer.dims.point = point
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    for model in planes.views:
        assert tuple(model.dims.point) == pytest.approx(point)
    session.replace_case(list(session_layers(viewer)))  # the same case again
    viewer.dims.point = point  # as focus_case does after a new case
    planes.flush()  # what a screenshot does
    for model in planes.views:
        assert tuple(model.dims.point) == pytest.approx(point)


def session_layers(viewer):
    """The shown case's layers as layer data (to show the same case again)."""
    return [x.as_layer_data_tuple() for x in viewer.layers if _roles_of(x) != "crosshair"]


def test_switching_cases_replaces_the_copies(planes_with_case, mood_dataset: Path):
    from napari_mood._napari.reader import read_paths

    viewer, session, planes, qtbot = planes_with_case()
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    session.replace_case(read_paths([mood_dataset / "toy" / "case_0.nii.gz"]))
    qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
    for model in planes.models.values():
        scans = [x for x in model.layers if _roles_of(x) == "scan"]
        assert [x.name for x in scans] == ["case_0"]
        assert _roles(model) == [*CASE_ROLES, "crosshair"]


def test_planes_docked_after_the_case_copy_it_on_the_next_turns(
    make_napari_viewer, qtbot, mood_dataset: Path
):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
    planes = LinkedPlanes(viewer)
    try:
        assert planes.pending == 2 * len(CASE_ROLES)  # made on the next turns
        qtbot.waitUntil(lambda: planes.pending == 0, timeout=10_000)
        for model in planes.models.values():
            assert _roles(model) == [*CASE_ROLES, "crosshair"]
            assert model.dims.ndim == len(SHAPE)
        assert session.case is not None
    finally:
        planes.close()
    assert planes not in planes_of(viewer)
    assert all(_roles_of(x) != "crosshair" for x in viewer.layers)


def test_window_screenshot_shows_the_side_views_filled(make_napari_viewer, mood_dataset: Path):
    viewer = make_napari_viewer(show=True)
    dock_plugin_widgets(viewer)
    load_into_viewer(viewer, [mood_dataset / "toy" / "case_1.nii.gz"])
    (planes,) = planes_of(viewer)
    assert planes.pending
    planes.flush()  # what a screenshot does first
    assert planes.pending == 0
    assert all(len(m.layers) == len(CASE_ROLES) + 1 for m in planes.models.values())
