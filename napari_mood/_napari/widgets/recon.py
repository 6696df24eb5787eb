"""Dock widget: a reconstruction case side by side (input, reconstruction, residual, healthy).

Pick a simulated dataset (``simulate --kind pet --mask``) and a folder of
reconstructions, then a case: the case is read in a worker
(:func:`napari_mood.services.recon.load_recon_view`) and shown in napari's grid
(:func:`napari_mood._napari.recon.show_reconstruction`). The residual's display
threshold is its lower contrast limit (as for every method map).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from napari.layers import Labels
from qtpy.QtWidgets import (
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.recon import RECON_KEY, show_reconstruction
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood.io.errors import MoodInputError
from napari_mood.io.recon import ReconFolders, find_recon_cases
from napari_mood.services.options import threshold_limits
from napari_mood.services.recon import ReconView, load_recon_view
from napari_mood.services.writers import write_drawn_region

if TYPE_CHECKING:
    import napari

__all__ = ["ReconViewWidget"]

DATASET_TIP = "Simulated dataset: holds toy/ (inputs), healthy/ and region/."
RECON_TIP = "Folder of the method's reconstructions, one CASE.nii.gz per input."
CASES_TIP = "List the inputs of the dataset."
CASE_TIP = "Case shown: input | reconstruction | residual | healthy, slices linked."
REGION_TIP = (
    "Save the selected Labels layer, drawn over a scan opened with napari-mood, as a NIfTI "
    "label image on the scan's grid (file voxel order, scan affine, label values kept): "
    "the region a PET hypometabolism simulation lowers (the simulate command's PET mask)."
)
THRESHOLD_TIP = "Residual scores at or below this are transparent (score = residual / the case's 99.9th percentile)."


class ReconViewWidget(MoodPanel):
    """Show one reconstructed case per grid cell; slices and zoom are shared.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._worker = self._lifetime.worker(self._on_worker_result, on_error=self._on_worker_error)
        self._folders: ReconFolders | None = None
        self._view: ReconView | None = None
        self._build_ui()
        self._connect()

    def _build_ui(self) -> None:
        self._dataset = kit.line_edit(self, "simulated dataset folder", DATASET_TIP)
        self._recon = kit.line_edit(self, "reconstructions folder", RECON_TIP)
        self._list_button = kit.button(self, "List cases", CASES_TIP)
        self._case = kit.combo(self, CASE_TIP)
        self._threshold = QDoubleSpinBox(self)
        self._threshold.setRange(0.0, 1.0)
        self._threshold.setSingleStep(0.05)
        self._threshold.setKeyboardTracking(False)  # a typed value applies at Enter
        self._threshold.setValue(0.5)
        self._threshold.setToolTip(THRESHOLD_TIP)
        for control, name in (
            (self._dataset, "Simulated dataset folder"),
            (self._recon, "Reconstructions folder"),
            (self._case, "Case shown"),
            (self._threshold, "Threshold of the residual"),
        ):
            control.setAccessibleName(name)
        self._status = QLabel("", self)
        self._save_region = kit.button(self, "Save drawn region as mask…", REGION_TIP)
        form = QFormLayout()
        form.addRow("Dataset", self._dataset)
        form.addRow("Reconstructions", self._recon)
        form.addRow(self._list_button)
        form.addRow("Case", self._case)
        form.addRow("Residual threshold", self._threshold)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self._status)
        layout.addWidget(self._save_region)
        layout.addStretch(1)

    def _connect(self) -> None:
        self._list_button.clicked.connect(self._on_list_button_clicked)
        self._case.currentTextChanged.connect(self._on_case_changed)
        self._threshold.valueChanged.connect(self._on_threshold_changed)
        self._save_region.clicked.connect(self._on_save_region_clicked)

    # -- public API -----------------------------------------------------------------

    def set_folders(self, dataset: str | Path, recon: str | Path) -> list[str]:
        """Use these folders and list their cases (the first is shown); returns the cases."""
        self._dataset.setText(str(dataset))
        self._recon.setText(str(recon))
        return self._list_cases()

    def show_case(self, case: str) -> None:
        """Read ``case`` in a worker and show it when read."""
        if self._folders is None or not case:
            return
        self._status.setText(f"reading {case} ...")
        self._worker.submit(load_recon_view, self._folders, case)

    @property
    def view(self) -> ReconView | None:
        """The case shown (None before the first one)."""
        return self._view

    # -- handlers -------------------------------------------------------------------

    def _list_cases(self) -> list[str]:
        folders = ReconFolders.of_dataset(self._dataset.text(), self._recon.text())
        try:
            cases = find_recon_cases(folders)
        except MoodInputError as exc:
            kit.notify("error", f"napari-mood: {exc}")
            return []
        self._folders = folders
        self._case.clear()
        self._case.addItems(cases)  # shows the first through currentTextChanged
        return cases

    def _on_list_button_clicked(self) -> None:
        self._list_cases()

    def _on_case_changed(self, case: str) -> None:
        self.show_case(case)

    def _on_threshold_changed(self, value: float) -> None:
        for layer in self._viewer.layers:
            if layer.metadata.get(RECON_KEY, {}).get("role") == "residual":
                layer.contrast_limits = threshold_limits(value)

    def _on_worker_result(self, view: ReconView) -> None:
        self._view = view
        show_reconstruction(self._viewer, view, threshold=self._threshold.value())
        self._status.setText(f"{view.case}: residual / {view.scale:.4g}")

    def _on_worker_error(self, exc: BaseException) -> None:
        self._status.setText("")
        kit.notify("error", f"napari-mood: {exc}")

    def save_drawn_region(self, path: str | Path) -> Path | None:
        """Write the selected Labels layer as a NIfTI mask on the scan's grid (or say why not)."""
        session = self._session
        layer = self._viewer.layers.selection.active
        if session.transform is None or not isinstance(layer, Labels):
            kit.notify(
                "warning",
                "napari-mood: select a Labels layer drawn over a scan opened with napari-mood "
                "(Layers > New Labels Layer with the scan selected), then save.",
            )
            return None
        try:
            out = write_drawn_region(
                path, np.asarray(layer.data), session.transform, inputs=session.inputs()
            )
        except (ValueError, MoodInputError, OSError) as error:
            kit.notify("error", f"napari-mood: the region was not saved: {error}")
            return None
        kit.notify("info", f"napari-mood: region saved to {out} (the simulate command's PET mask)")
        return out

    def _on_save_region_clicked(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save drawn region", "region.nii.gz", "NIfTI (*.nii.gz)"
        )
        if path:
            self.save_drawn_region(path)
