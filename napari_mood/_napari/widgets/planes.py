"""Three planes dock: coronal and sagittal views next to napari's (axial) canvas.

The views are napari's own canvases (``napari.qt.QtViewer`` on a ``ViewerModel``), each
with its slider; :class:`~napari_mood._napari.planes.LinkedPlanes` keeps them on one
point with the main canvas. The controls: the radiological / neurological convention
(remembered between sessions) and the crosshair. The status bar shows the cursor in
scanner RAS millimetres and file voxels in all three views
(:class:`~napari_mood._napari.status.ScannerStatus`).
"""

from __future__ import annotations

import weakref
from typing import Any

from qtpy.QtCore import QSettings, Qt
from qtpy.QtWidgets import QCheckBox, QSplitter, QVBoxLayout, QWidget

from napari_mood._napari._soon import call_soon
from napari_mood._napari.planes import SIDE_PLANES, LinkedPlanes
from napari_mood._napari.session import MoodSession, get_session
from napari_mood._napari.status import ScannerStatus
from napari_mood._napari.viewer import unwrap_viewer
from napari_mood._napari.widgets import _kit as kit
from napari_mood.core.orientation import Convention

__all__ = ["CONVENTION_KEY", "PlanesWidget", "saved_convention"]

SETTINGS = ("napari-mood", "napari-mood")
CONVENTION_KEY = "viewer/convention"
RADIOLOGICAL_TIP = (
    "Radiological convention: the patient's right on the screen's left (axial, coronal),\n"
    "as if facing the patient. Off: neurological (the patient's left on the left)."
)
CROSSHAIR_TIP = "Show the crosshair at the shared point in all three views."
HELP = "Click a view to move the point there; drag to pan, scroll to zoom, sliders page."


def saved_convention() -> Convention:
    """The convention last chosen on this machine (radiological the first time)."""
    value = QSettings(*SETTINGS).value(CONVENTION_KEY, "radiological")
    return "neurological" if value == "neurological" else "radiological"


SIDE_VIEW_MIN = (120, 120)
"""Smallest size of a side view (napari's own hint, 271 px wide, widens the window)."""


class PlanesWidget(QWidget):
    """Coronal and sagittal views of the case, linked to napari's axial canvas.

    Parameters
    ----------
    napari_viewer : napari.Viewer
        Injected by napari.
    """

    def __init__(self, napari_viewer: Any) -> None:
        from napari.qt import QtViewer

        super().__init__()
        self._viewer = unwrap_viewer(napari_viewer)
        self._session: MoodSession = get_session(self._viewer)
        self._lifetime = kit.Lifetime(self)
        self.planes = LinkedPlanes(self._viewer, convention=saved_convention())
        self._status = ScannerStatus(self._viewer, self._session)
        self._qt_views = {
            plane: QtViewer(self.planes.models[plane], show_welcome_screen=False)
            for plane in SIDE_PLANES
        }
        for model in self.planes.models.values():
            self._status.follow(model)
        for view in self._qt_views.values():
            view.setMinimumSize(*SIDE_VIEW_MIN)  # the window must fit 1280 px with every panel
        self._build()
        self._lifetime.connect(self._session.case_changed, self._on_session_case_changed)
        self._lifetime.at_end(self._close)

    def _build(self) -> None:
        self._radiological = QCheckBox("Radiological", self)
        self._radiological.setChecked(self.planes.convention == "radiological")
        self._radiological.setToolTip(RADIOLOGICAL_TIP)
        self._radiological.toggled.connect(self._on_radiological_toggled)
        self._crosshair = QCheckBox("Crosshair", self)
        self._crosshair.setChecked(True)
        self._crosshair.setToolTip(CROSSHAIR_TIP)
        self._crosshair.toggled.connect(self._on_crosshair_toggled)
        controls = QVBoxLayout()  # stacked: the panel stays narrow
        for widget in (self._radiological, self._crosshair):
            controls.addWidget(widget)
        self.setToolTip(HELP)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        for view in self._qt_views.values():
            splitter.addWidget(view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(controls)
        layout.addWidget(splitter, 1)

    # -- public ---------------------------------------------------------------------

    @property
    def convention(self) -> Convention:
        """The convention shown."""
        return self.planes.convention

    def set_radiological(self, radiological: bool) -> None:
        """Switch the convention (and remember it for the next session)."""
        self._radiological.setChecked(radiological)

    def canvas(self, plane: str) -> Any:
        """The Qt canvas widget of a side view (for tests and screenshots)."""
        return self._qt_views[plane].canvas.native  # type: ignore[index]

    # -- events ---------------------------------------------------------------------

    def _on_radiological_toggled(self, checked: bool) -> None:
        convention: Convention = "radiological" if checked else "neurological"
        QSettings(*SETTINGS).setValue(CONVENTION_KEY, convention)
        self.planes.set_convention(convention)

    def _on_crosshair_toggled(self, checked: bool) -> None:
        self.planes.set_crosshair_visible(checked)

    def _on_session_case_changed(self) -> None:
        self._reset_soon()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Fit the side views once they have their size."""
        super().showEvent(event)
        self._reset_soon()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Fit the side views again when the panel changes size (docked, moved, resized)."""
        super().resizeEvent(event)
        self._reset_soon()

    def _reset_soon(self) -> None:
        """Fit the side views on the next event-loop turn (a pending call keeps no view)."""
        planes = weakref.ref(self.planes)

        def reset() -> None:
            linked = planes()
            if linked is not None and not linked.closed:
                linked.reset_views()

        call_soon(reset)

    def _close(self) -> None:
        self._status.close()
        self.planes.close()
        for view in self._qt_views.values():
            view.close()
