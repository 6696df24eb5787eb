"""Issue 36, defect 12 (reconstruction view): each grid cell says what it shows, the
slider names its plane and counts the volume's slices, and the cells hold their own
image and outline also when a case of napari-mood is open (hidden) in the same viewer.

The panel is docked from napari's plugin menu (a proxy viewer), the case chosen in its
combo box; screenshots are saved in each test's tmp_path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari.layers import AXIS_LABELS_3D
from napari_mood._napari.recon import CELL_LABELS, RECON_KEY
from napari_mood._napari.viewer import load_into_viewer
from napari_mood.services.datasets import sample_data_dir
from tests.conftest import write_nifti

SHAPE = (12, 13, 14)
SPACING = 3.0
AFFINE = np.diag([SPACING, SPACING, SPACING, 1.0])
SHOTS = Path()  # the running test's tmp_path: set by _shots_in_tmp_path


@pytest.fixture(autouse=True)
def _shots_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Screenshots go to the test's own tmp_path, never to a shared folder."""
    monkeypatch.setitem(globals(), "SHOTS", tmp_path)


TIMEOUT_MS = 20_000


@pytest.fixture
def recon_set(tmp_path: Path) -> tuple[Path, Path]:
    """A simulated dataset (toy/, healthy/, region/) and a folder of reconstructions."""
    rng = np.random.default_rng(1)
    healthy = (0.2 + 0.8 * rng.random(SHAPE)).astype(np.float32)
    region = np.zeros(SHAPE, np.uint8)
    region[4:8, 4:9, 5:10] = 1
    name = "s_ad_deg50.nii.gz"
    write_nifti(tmp_path / "sim" / "toy" / name, healthy * (1 - 0.5 * region), AFFINE)
    write_nifti(tmp_path / "sim" / "healthy" / name, healthy, AFFINE)
    write_nifti(tmp_path / "sim" / "region" / name, region, AFFINE)
    write_nifti(tmp_path / "recon" / name, healthy * 0.98, AFFINE)
    return tmp_path / "sim", tmp_path / "recon"


@pytest.fixture
def recon_shown(make_napari_viewer, qtbot, recon_set):
    """Dock the panel from the plugin menu and show the case; called inside the test."""

    def show(*, with_session: bool = False):
        viewer = make_napari_viewer(show=True)
        viewer.window.resize(1400, 700)
        if with_session:  # a MOOD case (five layers, 2 mm voxels) open first
            load_into_viewer(viewer, [sample_data_dir() / "toy" / "brain_001.nii.gz"])
        _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Reconstruction view")
        widget.set_folders(*recon_set)
        qtbot.waitUntil(lambda: widget.view is not None, timeout=TIMEOUT_MS)
        qtbot.wait(100)
        return viewer, widget

    return show


def _ours(viewer) -> list:
    return [layer for layer in viewer.layers if RECON_KEY in layer.metadata]


def _cells(viewer) -> dict[tuple[int, int], list[str]]:
    """Roles of the layers drawn in each grid cell."""
    grid, layers = viewer.canvas.grid, viewer.layers
    cells: dict[tuple[int, int], list[str]] = {}
    for index, layer in enumerate(layers):
        position = grid.position(index, layers)
        if position != (-1, -1):
            cells.setdefault(position, []).append(layer.metadata[RECON_KEY]["role"])
    return cells


def _cell(shot: np.ndarray, cell: tuple[int, int], shape: tuple[int, int]) -> np.ndarray:
    """Grid cell ``cell`` (row, column) of a screenshot of a ``shape`` grid."""
    height, width = shot.shape[0] // shape[0], shot.shape[1] // shape[1]
    row, column = cell
    return shot[row * height : (row + 1) * height, column * width : (column + 1) * width, :3]


def _label_strip(shot: np.ndarray, cell: tuple[int, int], shape: tuple[int, int]) -> np.ndarray:
    """The top-left corner of one grid cell of a screenshot."""
    part = _cell(shot, cell, shape)
    return part[: part.shape[0] // 8, : part.shape[1] // 8].astype(int)


@pytest.mark.parametrize("with_session", [False, True])
def test_every_cell_says_what_it_shows(recon_shown, qtbot, with_session):
    viewer, widget = recon_shown(with_session=with_session)
    cells = _cells(viewer)
    order = sorted(cells)  # row by row, whatever shape fits the canvas best
    shape = (max(r for r, _ in order) + 1, max(c for _, c in order) + 1)
    assert len(order) == 4 and shape[0] * shape[1] == 4, order
    roles = ["input", "reconstruction", "residual", "healthy"]
    assert [cells[cell] for cell in order] == [[role, "region"] for role in roles]
    images = [layer for layer in _ours(viewer) if layer.metadata[RECON_KEY]["role"] != "region"]
    assert [layer.name for layer in images] == [CELL_LABELS[role] for role in roles]
    assert all(layer.name_overlay.visible for layer in images)
    labelled = viewer.screenshot(canvas_only=True, flash=False)
    SHOTS.mkdir(parents=True, exist_ok=True)
    suffix = "_session" if with_session else ""
    viewer.window._qt_window.grab().save(str(SHOTS / f"recon_view{suffix}.png"))
    for layer in images:
        layer.name_overlay.visible = False
    qtbot.wait(50)
    bare = viewer.screenshot(canvas_only=True, flash=False)
    for cell in order:  # the label is drawn in the corner of its own cell
        drawn = np.abs(_label_strip(labelled, cell, shape) - _label_strip(bare, cell, shape))
        assert (drawn.sum(axis=-1) > 100).sum() > 20, cell
        part = _cell(bare, cell, shape)
        h, w = part.shape[:2]
        middle = part[h // 3 : 2 * h // 3, w // 4 : 3 * w // 4]
        shown = (middle.max(axis=-1) > 40).sum()  # the volume, not a black cell
        assert shown > 200, f"cell {cell} is empty"


def test_the_slider_names_its_plane_and_counts_slices(recon_shown, qtbot):
    viewer, widget = recon_shown()
    assert tuple(viewer.dims.axis_labels) == AXIS_LABELS_3D
    sliders = [w for w in viewer.window._qt_viewer.dims.slider_widgets if w.isVisibleTo(w.parent())]
    assert [w.axis_label.text() for w in sliders] == ["axial"]  # never -3 / -2 / -1
    assert all(not w.axis_label.text().lstrip("-").isdigit() for w in sliders)
    slider = sliders[0].slider
    slices = widget.view.scan.shape[0]  # display order: superior-inferior first
    assert (slider.minimum(), slider.maximum()) == (0, slices - 1)  # one step per slice
    viewer.dims.set_current_step(0, 7)
    qtbot.wait(50)
    assert slider.value() == 7
    input_layer = _ours(viewer)[0]
    assert input_layer.world_to_data(viewer.dims.point)[0] == pytest.approx(7)
    assert set(viewer.dims.axis_labels) <= set(AXIS_LABELS_3D)
    assert all(tuple(str(u) for u in layer.units) == ("millimeter",) * 3 for layer in _ours(viewer))


def test_in_a_session_the_slider_keeps_the_planes_names(recon_shown):
    viewer, widget = recon_shown(with_session=True)
    sliders = [w for w in viewer.window._qt_viewer.dims.slider_widgets if w.isVisibleTo(w.parent())]
    assert [w.axis_label.text() for w in sliders] == ["axial"]
