"""The Objects table's centroids are the NIfTI file's voxel i, j, k and RAS millimetres.

Checked against nibabel on the sample case, whose display orientation differs from the
file's (axes reversed, anterior flipped): the table's numbers are those of each
component labelled in the FILE array, placed with nibabel's affine.
"""

from __future__ import annotations

import nibabel as nib
import numpy as np
import pytest
from nibabel.affines import apply_affine
from scipy import ndimage

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.objects import COLUMNS, ObjectsWidget
from napari_mood.services.datasets import sample_data_dir
from tests.napari.widgets.test_objects import _choose, _wait
from tests.napari.widgets.test_review_never_misfires import _shot, _shots_in_tmp_path  # noqa: F401  (autouse: pictures to tmp_path)

pytestmark = pytest.mark.skipif(
    not (sample_data_dir() / "toy").is_dir(), reason="sample_data/ not generated yet"
)
METHOD = "residual"


def _file_components(path, threshold: float) -> np.ndarray:
    """Centres of mass (file voxel i, j, k) of the flagged components, nibabel + scipy."""
    score = np.asarray(nib.load(path).dataobj, dtype=np.float32)
    labels, count = ndimage.label(score >= threshold, structure=np.ones((3, 3, 3)))
    return np.array(ndimage.center_of_mass(np.ones_like(score), labels, range(1, count + 1)))


def _numbers(text: str) -> np.ndarray:
    return np.array([float(v) for v in text.split(",")])


def test_table_centroids_are_file_voxels_and_ras_millimetres(make_napari_viewer, qtbot):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Object matching")
    assert isinstance(widget, ObjectsWidget)
    _wait(qtbot, widget)
    _choose(qtbot, widget, METHOD)
    path = sample_data_dir() / "methods" / METHOD / session.case
    image = nib.load(path)
    transform = session.transform
    assert transform.perm != (0, 1, 2) or any(transform.flip)  # display != file order
    components = _file_components(path, session.method(METHOD).threshold)

    table = widget._table
    voxel_col = 4  # the centroid column, where it always was
    moved = 0
    for row, (_, record) in enumerate(widget.table_records()):
        if record.source != "pred":
            continue  # missed GT objects: the GT file, checked by the same rule
        voxel = _numbers(table.item(row, voxel_col).text())
        nearest = components[np.argmin(np.abs(components - voxel).sum(axis=1))]
        np.testing.assert_array_equal(voxel, np.round(nearest))  # the file's i, j, k
        ras = _numbers(table.item(row, COLUMNS.index("RAS mm")).text())
        np.testing.assert_array_equal(ras, np.round(apply_affine(image.affine, nearest)))
        moved += not np.allclose(voxel, np.round(record.centroid_voxel))
    assert moved > 0  # the displayed index is another number: the table is not it
    header = table.horizontalHeaderItem(voxel_col)
    assert header.text() == "Voxel i, j, k" and "NIfTI file" in header.toolTip()
    viewer.window._qt_window.resize(1400, 900)
    qtbot.wait(100)
    _shot(widget, "objects-table-coordinates.png")
    columns = sum(table.columnWidth(c) for c in range(table.columnCount()))
    assert columns <= table.viewport().width()  # every column fits, RAS too
