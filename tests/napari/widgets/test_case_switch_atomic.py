"""A case switch is atomic to the eye (issue 46, item 1): the previous patient never shows
under the next patient's name.

Two cases differ visibly (a checker and its inverse; same grid, same lesion, same maps, so
every view keeps its camera): each pane's canvas is rendered after every event-loop turn of
a switch from the review queue, and no frame rendered once the title names the next case
may look like the previous case. The review panel never describes the previous case's
regions under the next case, and verdicts are refused while the next case is not shown.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from qtpy.QtWidgets import QApplication

from napari_mood._napari.planes import planes_of
from napari_mood._napari.prefetch import prefetch_for
from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.planes import PlanesWidget
from napari_mood._napari.widgets.review import ReviewWidget
from napari_mood._napari.widgets.worker import all_idle
from tests.conftest import write_nifti

SIZE = 20
CASES = ("case_0.nii.gz", "case_1.nii.gz")
PANES = ("axial", "coronal", "sagittal")


@pytest.fixture
def two_cases(tmp_path: Path) -> Path:
    """Case 0's scan is a checker of 5-voxel blocks, case 1's its inverse; one lesion, one map."""
    root = tmp_path / "data"
    grid = np.indices((SIZE,) * 3) // 5
    checker = (grid.sum(axis=0) % 2).astype(np.float32)
    mask = np.zeros((SIZE,) * 3, np.uint8)
    mask[8:12, 8:12, 8:12] = 1
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    for case, scan in zip(CASES, (checker, 1 - checker), strict=True):
        write_nifti(root / "toy" / case, scan, affine)
        write_nifti(root / "toy_label" / "pixel" / case, mask, affine)
        write_nifti(root / "methods" / "a" / case, (mask * 0.9).astype(np.float32), affine)
    return root


def _reading_room(make_napari_viewer, qtbot, root: Path):
    viewer = make_napari_viewer(show=True, title="napari-mood")  # the title names the case
    _, planes_widget = viewer.window.add_plugin_dock_widget("napari-mood", "Three planes")
    assert isinstance(planes_widget, PlanesWidget)
    load_into_viewer(viewer, [root])
    _, review = viewer.window.add_plugin_dock_widget("napari-mood", "Review flagged regions")
    assert isinstance(review, ReviewWidget)
    # room above the docks' least height: a label filling in must not resize the panes
    qtbot.waitUntil(lambda: not planes_widget.visibleRegion().isEmpty(), timeout=10_000)
    viewer.window.resize(1200, 900)
    review.select_method("a")
    scenes = {"axial": viewer.window._qt_viewer.canvas._scene_canvas}
    for plane in PANES[1:]:
        scenes[plane] = planes_widget.view(plane).canvas._scene_canvas
    return viewer, review, scenes


def _settled(viewer, review: ReviewWidget, case: str) -> bool:
    (planes,) = planes_of(viewer)
    return (
        review.session.case == case
        and review.regions_case == case
        and review.current_region is not None
        and review.opening is None
        and planes.pending == 0
        and all_idle()
    )


def _frames(scenes) -> dict[str, np.ndarray]:
    """Each pane as it would be drawn now: grey levels of its centre (docks may resize it)."""
    return {pane: _centre(scene.render()[..., :3].mean(axis=-1)) for pane, scene in scenes.items()}


def _centre(picture: np.ndarray, half: int = 60) -> np.ndarray:
    rows, cols = (n // 2 for n in picture.shape)
    return picture[rows - half : rows + half, cols - half : cols + half]


def _switch(qtbot, viewer, review, scenes, step, new: str) -> list[tuple[str, dict]]:
    """Run ``step`` and render every pane after each event-loop turn until ``new`` is settled.

    Return the frames rendered while the title named ``new``, with the review panel's
    case at that moment; checks the panel never describes another case meanwhile.
    """
    app = QApplication.instance()
    seen: list[tuple[str, dict]] = []
    step()
    for _ in range(2000):
        app.processEvents()
        if new in str(viewer.title):
            assert review.regions_case in (None, new), "old regions under the new case"
            seen.append((new, _frames(scenes)))
        if _settled(viewer, review, new):
            break
        qtbot.wait(1)
    qtbot.waitUntil(lambda: _settled(viewer, review, new), timeout=60_000)
    return seen


def _looks_like(frame: np.ndarray, wanted: np.ndarray, other: np.ndarray) -> bool:
    """Whether ``frame`` is nearer the ``wanted`` picture than the ``other`` one."""
    return float(np.abs(frame - wanted).mean()) < float(np.abs(frame - other).mean())


def test_no_pane_draws_the_previous_case_once_the_title_names_the_next(
    make_napari_viewer, qtbot, review_dir, two_cases: Path
):
    viewer, review, scenes = _reading_room(make_napari_viewer, qtbot, two_cases)
    first, second = CASES
    qtbot.waitUntil(lambda: _settled(viewer, review, first), timeout=60_000)
    pictures = {first: _frames(scenes)}
    # not read ahead: the queue reads the next case in a worker
    during = _switch(qtbot, viewer, review, scenes, lambda: review.step_case(1), second)
    pictures[second] = _frames(scenes)
    for pane in PANES:  # the two cases look different in every pane
        assert np.abs(pictures[second][pane] - pictures[first][pane]).mean() > 10, pane
    # read ahead: handed over at once, in the same event-loop turn as the step
    prefetch = prefetch_for(review.session)
    prefetch.start(review.queue.dataset, first, review.queue.methods)
    qtbot.waitUntil(lambda: prefetch.ready, timeout=60_000)
    during += _switch(qtbot, viewer, review, scenes, lambda: review.step_case(-1), first)
    assert during
    for case, frames in during:
        previous = second if case == first else first
        for pane in PANES:
            mixed = _looks_like(frames[pane], pictures[previous][pane], pictures[case][pane])
            assert not mixed, f"{pane} showed {previous} under the title {case}"


def test_verdicts_wait_until_the_next_case_is_shown(
    make_napari_viewer, qtbot, review_dir, two_cases: Path
):
    viewer, review, _ = _reading_room(make_napari_viewer, qtbot, two_cases)
    first, second = CASES
    qtbot.waitUntil(lambda: _settled(viewer, review, first), timeout=60_000)
    assert review.step_case(1)
    assert review.opening == second
    assert not review.set_verdict("true finding")
    assert viewer.status == f"No verdict recorded: {second} is still opening."
    assert not review.verdicts
    qtbot.waitUntil(lambda: _settled(viewer, review, second), timeout=60_000)
    assert review.set_verdict("true finding")
    assert review.regions_case == second and len(review.verdicts) == 1


def test_a_step_while_a_case_opens_skips_it(make_napari_viewer, qtbot, review_dir, tmp_path):
    """Reading faster than cases are read: the case being read is dropped, not shown."""
    root = tmp_path / "three"
    grid = np.indices((SIZE,) * 3) // 5
    mask = np.zeros((SIZE,) * 3, np.uint8)
    mask[8:12, 8:12, 8:12] = 1
    for index in range(3):
        case = f"case_{index}.nii.gz"
        write_nifti(root / "toy" / case, (grid.sum(axis=0) % (index + 2)).astype(np.float32))
        write_nifti(root / "toy_label" / "pixel" / case, mask)
        write_nifti(root / "methods" / "a" / case, (mask * 0.9).astype(np.float32))
    viewer, review, _ = _reading_room(make_napari_viewer, qtbot, root)
    qtbot.waitUntil(lambda: _settled(viewer, review, "case_0.nii.gz"), timeout=60_000)
    shown: list[str | None] = []
    review.session.case_changed.connect(lambda: shown.append(review.session.case))
    assert review.step_case(1)  # case_1 is being read ...
    review.step(1)  # ... and N again: case_2 (the worker drops case_1)
    assert review.opening == "case_2.nii.gz"
    qtbot.waitUntil(lambda: _settled(viewer, review, "case_2.nii.gz"), timeout=60_000)
    assert "case_1.nii.gz" not in shown


def test_next_while_a_verdict_opens_the_next_case_does_not_skip_it(
    make_napari_viewer, qtbot, review_dir, tmp_path
):
    """T on the last region (auto-advance) opens case_1; N pressed meanwhile lands there
    too (it skipped case_1 unseen: the reader pressed N out of habit, not to skip)."""
    from qtpy.QtCore import QPoint, Qt

    root = tmp_path / "three"
    grid = np.indices((SIZE,) * 3) // 5
    mask = np.zeros((SIZE,) * 3, np.uint8)
    mask[8:12, 8:12, 8:12] = 1
    for index in range(3):
        case = f"case_{index}.nii.gz"
        write_nifti(root / "toy" / case, (grid.sum(axis=0) % (index + 2)).astype(np.float32))
        write_nifti(root / "toy_label" / "pixel" / case, mask)
        write_nifti(root / "methods" / "a" / case, (mask * 0.9).astype(np.float32))
    viewer, review, scenes = _reading_room(make_napari_viewer, qtbot, root)
    qtbot.waitUntil(lambda: _settled(viewer, review, "case_0.nii.gz"), timeout=60_000)
    review.go_to(len(review.regions) - 1)
    prefetch_for(review.session).drop()  # case_1 is read after T, as when read ahead too late
    canvas = viewer.window._qt_viewer.canvas.native
    window = viewer.window._qt_window
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))  # the canvas has keys
    qtbot.keyClick(canvas, Qt.Key.Key_T)  # the last region's verdict: on to case_1
    assert review.opening == "case_1.nii.gz"
    qtbot.keyClick(canvas, Qt.Key.Key_N)  # N while it opens
    qtbot.waitUntil(lambda: _settled(viewer, review, review.session.case), timeout=60_000)
    assert review.session.case == "case_1.nii.gz"
    assert len(review.verdicts) == 0  # case_1's regions, none judged yet
