"""The base of every napari-mood dock panel: session wiring, lifetime and visibility.

A :class:`MoodPanel` owns what every panel needs, in one place:

* the viewer's :class:`~napari_mood._napari.session.MoodSession` (napari's proxy viewer
  unwrapped first) and the panel's :class:`~._kit.Lifetime`;
* the connections to the session's signals (:meth:`MoodPanel.watch_session`), undone
  when the panel is destroyed;
* the rule "a panel out of sight does not recompute": :meth:`MoodPanel.request_update`
  starts the panel's (debounced) :meth:`MoodPanel.update_now` only while it can be seen;
  a panel closed or behind another dock tab marks itself stale instead and computes once
  when its tab comes to the front (:attr:`MoodPanel.stale`);
* a panel opened through napari (the Plugins menu, ``add_plugin_dock_widget``) joins the
  other panels' tabs as ``view`` docks them (:func:`~napari_mood._napari.docking.place_panel`).

Panels whose work shows in the viewer rather than in the panel (the compare grid, the
browser's case) use the wiring only and never call :meth:`MoodPanel.request_update`.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

from qtpy.QtWidgets import QDockWidget, QWidget

from napari_mood._napari._qt_objects import deleted
from napari_mood._napari._soon import call_soon
from napari_mood._napari.docking import place_panel, window_height
from napari_mood._napari.session import MoodSession, get_session
from napari_mood._napari.viewer import unwrap_viewer
from napari_mood._napari.widgets import _kit as kit

__all__ = ["MoodPanel"]


def _place_if_alive(dock: weakref.ref[QDockWidget], height_before: int | None) -> None:
    """Place the dock unless it was closed meanwhile (:func:`place_panel`)."""
    alive = dock()
    if alive is not None and not deleted(alive):
        place_panel(alive, height_before=height_before)


class MoodPanel(QWidget):
    """A dock panel showing the session of ``viewer`` (see the module docstring).

    Subclasses that compute from the session override :meth:`update_now` and call
    :meth:`request_update` whenever their inputs change; :attr:`UPDATE_DELAY_MS`
    debounces bursts of changes (a threshold slider dragged).

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session the panel shows (napari's proxy is unwrapped).
    parent : QWidget, optional
        The Qt parent.
    """

    UPDATE_DELAY_MS = 0

    def __init__(self, viewer: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._viewer = unwrap_viewer(viewer)
        self._session: MoodSession = get_session(self._viewer)
        self._lifetime = kit.Lifetime(self)
        self._stale = False
        self._dock: QDockWidget | None = None
        self._window_height = window_height(self._viewer)  # before napari docks the panel
        self._update_timer = kit.single_shot(self, self.UPDATE_DELAY_MS, self._on_update_due)

    # -- wiring ---------------------------------------------------------------------

    @property
    def session(self) -> MoodSession:
        """The session shown."""
        return self._session

    def watch_session(
        self,
        *,
        methods: Callable[[], None] | None = None,
        threshold: Callable[[str, float], None] | None = None,
        case: Callable[[], None] | None = None,
    ) -> None:
        """Connect the given slots to the session's signals for the panel's lifetime."""
        pairs = (
            (self._session.methods_changed, methods),
            (self._session.threshold_changed, threshold),
            (self._session.case_changed, case),
        )
        for signal, slot in pairs:
            if slot is not None:
                self._lifetime.connect(signal, slot)

    # -- out of sight, out of work ---------------------------------------------------

    @property
    def stale(self) -> bool:
        """Whether an update waits for the panel to be shown (closed, or a tab behind)."""
        return self._stale

    @property
    def update_pending(self) -> bool:
        """Whether an update was asked for and has not started yet (debounce running)."""
        return self._update_timer.isActive()

    def in_sight(self) -> bool:
        """Whether the reader can see the panel (a subclass shown elsewhere too says so)."""
        return kit.is_on_screen(self)

    def request_update(self) -> None:
        """Update soon when the panel can be seen; else mark it stale (updated when shown)."""
        if not self.isVisible() and not self.in_sight():
            self._go_stale()
            return
        self._update_timer.start()  # restarts: one update after the last change

    def update_now(self) -> None:
        """Recompute what the panel shows (the subclass's work; nothing here)."""

    def on_stale(self) -> None:
        """React when the panel goes stale (e.g. to cancel a running job); nothing here."""

    def on_shown(self, visible: bool) -> None:
        """React when the panel's tab comes to the front (True) or goes behind (False)."""

    def _go_stale(self) -> None:
        self._stale = True
        self._update_timer.stop()
        self.on_stale()

    def _on_update_due(self) -> None:
        if not self.in_sight():  # closed, or a tab behind another panel
            self._go_stale()
            return
        self._stale = False
        self.update_now()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Follow the dock's tab; catch up with what changed while hidden.

        In a new dock, the panel joins the other panels' tabs (:func:`place_panel`) once
        napari has finished docking it.
        """
        super().showEvent(event)
        dock = kit.watch_dock(self, self._on_dock_visibility_changed, self._dock)
        if dock is not None and dock is not self._dock:
            call_soon(partial(_place_if_alive, weakref.ref(dock), self._window_height))
        self._dock = dock
        self._on_dock_visibility_changed(True)

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        self.on_shown(visible)
        if visible and self._stale:
            self.request_update()
