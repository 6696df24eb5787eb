"""A panel shows a job's refusal in words, never a command-line flag."""

from __future__ import annotations

import numpy as np

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.recon import ReconViewWidget
from napari_mood.services.datasets import sample_data_dir


def test_a_refused_region_file_is_explained_without_flags(make_napari_viewer, tmp_path, notes):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir() / "toy" / "brain_000.nii.gz"])
    drawn = np.zeros(session.transform.display_shape, np.uint8)
    drawn[40:44, 50:53, 60:62] = 1
    scan = session.scan_layer
    viewer.add_labels(drawn, scale=scan.scale, translate=scan.translate, name="region")
    widget = ReconViewWidget(viewer)
    viewer.window.add_dock_widget(widget, name="Reconstructions")
    (tmp_path / "region.nii.gz").write_bytes(b"kept")

    assert widget.save_drawn_region(tmp_path / "region.nii.gz") is None

    errors = [text for severity, text in notes if severity == "error"]
    assert errors and "exists already (allow replacing it, or choose another path)" in errors[-1]
    assert "--force" not in errors[-1]
    assert (tmp_path / "region.nii.gz").read_bytes() == b"kept"
