"""The reconstruction view: four linked grid cells, the residual as a thresholded heatmap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari.recon import (
    RECON_KEY,
    grid_fit,
    grid_stride,
    recon_layer_data,
    show_reconstruction,
)
from napari_mood._napari.widgets.recon import ReconViewWidget
from napari_mood.core.scores import threshold_limits
from napari_mood.io.recon import ReconFolders
from napari_mood.services.recon import load_recon_view
from tests.conftest import write_nifti

SHAPE = (12, 13, 14)
AFFINE = np.diag([2.0, 2.0, 2.0, 1.0])


def _healthy() -> np.ndarray:
    return (0.2 + 0.8 * np.random.default_rng(1).random(SHAPE)).astype(np.float32)


@pytest.fixture
def recon_set(tmp_path: Path) -> tuple[Path, Path]:
    healthy = _healthy()
    region = np.zeros(SHAPE, np.uint8)
    region[4:8, 4:9, 5:10] = 1
    for degree, name in ((0.0, "s_ad_deg00"), (0.5, "s_ad_deg50")):
        scan = healthy * (1 - degree * region)
        write_nifti(tmp_path / "sim" / "toy" / f"{name}.nii.gz", scan, AFFINE)
        write_nifti(tmp_path / "sim" / "healthy" / f"{name}.nii.gz", healthy, AFFINE)
        write_nifti(tmp_path / "sim" / "region" / f"{name}.nii.gz", region, AFFINE)
        write_nifti(tmp_path / "recon" / f"{name}.nii.gz", healthy * 0.98, AFFINE)
    return tmp_path / "sim", tmp_path / "recon"


def test_view_and_layer_data_without_a_viewer(recon_set):
    sim, recon = recon_set
    view = load_recon_view(ReconFolders.of_dataset(sim, recon), "s_ad_deg50.nii.gz")
    assert view.spacing == (2.0, 2.0, 2.0)
    # deg50: scan = 0.5 h in the region, h elsewhere; recon = 0.98 h -> |scan - recon| is
    # 0.48 h in the region and 0.02 h elsewhere (h > 0 everywhere: the brain is every voxel)
    region = np.zeros(SHAPE, bool)
    region[4:8, 4:9, 5:10] = True
    residual = np.where(region, 0.48, 0.02) * _healthy().astype(np.float64)
    # the scale is the 99.9th percentile: linear between order statistics 2180 and 2181
    order = np.sort(residual.ravel())
    position = (order.size - 1) * 0.999
    low = int(position)
    scale = order[low] + (position - low) * (order[low + 1] - order[low])
    assert view.scale == pytest.approx(scale, rel=1e-5)
    expected = np.clip(residual / scale, 0, 1)
    np.testing.assert_allclose(np.sort(view.scores.ravel()), np.sort(expected.ravel()), atol=1e-5)
    assert np.count_nonzero(view.scores == 1.0) == 3  # the 3 residuals above the percentile
    # voxel by voxel in display order, from the view's own region and healthy original
    shown = np.where(view.gt > 0, 0.48, 0.02) * view.healthy.astype(np.float64) / scale
    np.testing.assert_allclose(view.scores, np.clip(shown, 0, 1), atol=1e-5)
    layers = recon_layer_data(view, threshold=0.3)
    assert grid_stride(view) == 2 and len(layers) == 8
    assert [state["name"] for _, state, _ in layers[::2]] == [
        "input",
        "reconstruction",
        "residual map",
        "healthy original",
    ]  # fmt: skip  (what each cell shows; the case is the panel's)
    assert all(state["axis_labels"] == ("axial", "coronal", "sagittal") for _, state, _ in layers)
    assert layers[4][1]["contrast_limits"] == threshold_limits(0.3)
    assert all(data is layers[1][0] for data, _, kind in layers if kind == "labels")  # one array


def test_widget_shows_the_grid_and_moves_the_threshold(
    make_napari_viewer, qtbot, recon_set, tmp_path
):
    viewer = make_napari_viewer(show=True)
    widget = ReconViewWidget(viewer)
    viewer.window.add_dock_widget(widget)
    sim, recon = recon_set
    assert widget.set_folders(sim, recon) == ["s_ad_deg00.nii.gz", "s_ad_deg50.nii.gz"]
    qtbot.waitUntil(
        lambda: widget.view is not None and widget.view.case == "s_ad_deg00.nii.gz", timeout=10000
    )
    widget._case.setCurrentText("s_ad_deg50.nii.gz")
    qtbot.waitUntil(lambda: widget.view.case == "s_ad_deg50.nii.gz", timeout=10000)
    ours = [layer for layer in viewer.layers if RECON_KEY in layer.metadata]
    assert len(ours) == len(viewer.layers) == 8  # the previous case's layers were replaced
    assert viewer.canvas.grid.enabled and viewer.canvas.grid.stride == 2
    assert viewer.canvas.grid.shape in {(1, 4), (2, 2), (4, 1)}  # whichever fills the canvas
    residual = next(layer for layer in ours if layer.metadata[RECON_KEY]["role"] == "residual")
    widget._threshold.setValue(0.2)
    assert tuple(residual.contrast_limits) == threshold_limits(0.2)
    cells = {viewer.canvas.grid.position(i, viewer.layers) for i in range(len(viewer.layers))}
    assert len(cells) == 4  # one cell per image (and its outline)
    viewer.dims.set_current_step(0, 7)
    viewer.window.resize(1400, 700)
    qtbot.wait(50)
    viewer.reset_view()
    shot = viewer.screenshot(canvas_only=True, flash=False)
    assert shot.std() > 0
    from skimage.io import imsave

    imsave(tmp_path / "recon_view.png", shot, check_contrast=False)


def test_show_reconstruction_hides_other_layers(make_napari_viewer, recon_set):
    viewer = make_napari_viewer(show=True)
    other = viewer.add_image(np.zeros((3, 3)))
    sim, recon = recon_set
    view = load_recon_view(ReconFolders.of_dataset(sim, recon), "s_ad_deg00.nii.gz")
    added = show_reconstruction(viewer, view)
    assert not other.visible and len(added) == 8


def test_a_region_drawn_over_the_scan_is_saved_as_a_mask(make_napari_viewer, tmp_path: Path):
    import gzip

    import nibabel as nib

    from napari_mood._napari.viewer import load_into_viewer
    from napari_mood.services.datasets import sample_data_dir

    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir() / "toy" / "brain_000.nii.gz"])
    transform = session.transform
    drawn = np.zeros(transform.display_shape, np.uint8)
    drawn[40:44, 50:53, 60:62] = 3  # a drawn block, in display order
    scan = session.scan_layer
    viewer.add_labels(drawn, scale=scan.scale, translate=scan.translate, name="region")
    widget = ReconViewWidget(viewer)
    out = widget.save_drawn_region(tmp_path / "region.nii.gz")
    assert out is not None
    image = nib.Nifti1Image.from_bytes(gzip.decompress(out.read_bytes()))
    np.testing.assert_array_equal(np.asarray(image.dataobj), transform.to_file(drawn))
    np.testing.assert_allclose(image.affine, transform.affine)
    assert widget.save_drawn_region(tmp_path / "region.nii.gz") is None  # never replaced
    viewer.layers.selection.active = scan  # not a Labels layer: nothing written
    assert widget.save_drawn_region(tmp_path / "other.nii.gz") is None
    assert not (tmp_path / "other.nii.gz").exists()
    widget.deleteLater()


@pytest.mark.parametrize(
    ("canvas", "shape"), [((929, 544), (2, 2)), ((400, 1600), (1, 4)), ((1600, 300), (4, 1))]
)
def test_the_grid_takes_the_shape_that_shows_the_slice_largest(canvas, shape):
    fit = grid_fit(canvas, (100.0, 80.0))
    assert fit.shape == shape
    rows, cols = shape
    cell_h, cell_w = canvas[0] / rows, canvas[1] / cols
    assert fit.zoom * 80.0 <= cell_w and fit.zoom * 100.0 + fit.title_px <= cell_h
    assert max(fit.zoom * 80.0 / cell_w, (fit.zoom * 100.0 + fit.title_px) / cell_h) > 0.9
    assert fit.title_pt * 0.95 * len("healthy original") <= cell_w  # the title fits its cell


def test_the_grid_fills_the_canvas_and_the_outlines_stay_read_only(make_napari_viewer, recon_set):
    viewer = make_napari_viewer(show=True)
    sim, recon = recon_set
    view = load_recon_view(ReconFolders.of_dataset(sim, recon), "s_ad_deg50.nii.gz")
    added = show_reconstruction(viewer, view)
    height, width = viewer.canvas.size
    fit = grid_fit((height, width), (SHAPE[1] * 2.0, SHAPE[2] * 2.0))
    rows, cols = viewer.canvas.grid.shape
    assert (rows, cols) == fit.shape
    shown = viewer.scene.camera.zoom * np.array([SHAPE[1] * 2.0, SHAPE[2] * 2.0])  # px
    room = np.array([height / rows - fit.title_px, width / cols])
    assert (shown <= room + 1).all() and (shown / room).max() > 0.9  # the slice fills its cell
    outlines = [layer for layer in added if layer.metadata[RECON_KEY]["role"] == "region"]
    assert len(outlines) == 4
    assert viewer.layers.selection.active.metadata[RECON_KEY]["role"] == "residual"
    viewer.dims.ndisplay = 3  # napari turns editing back on at a 2-D/3-D switch
    viewer.dims.ndisplay = 2
    for layer in outlines:
        layer.editable = True
        assert not layer.editable and layer.mode == "pan_zoom", layer.name
