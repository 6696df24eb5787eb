"""Dock widget: a per-slice score of every method along the slicing axis, as a plot.

For each method (in its colour) the plot shows one of AP, Dice at the method's display
threshold or flagged voxels, slice by slice along the axis on the slider
(:attr:`napari_mood._napari.session.MoodSession.slice_axis`). Slices holding ground-truth voxels
are shaded in the GT colour, a vertical line marks the slice shown, and clicking the plot
shows the slice clicked.

Scores come from :func:`napari_mood.core.metrics.slice_scores`, computed in a
:class:`~napari_mood._napari.widgets.worker.LatestWorker` a moment after the axis, a threshold,
the methods or the case change. Changing the metric only redraws; moving through slices
only moves the marker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from qtpy.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.session import MoodSession
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets._panel import MoodPanel
from napari_mood.services.looks import GT_COLOR
from napari_mood.services.slice_curves import (
    METRICS,
    NEEDS_GT,
    SliceCurves,
    compute_slice_curves,
    gt_runs,
)

if TYPE_CHECKING:
    import napari

__all__ = ["SliceScoresWidget"]

UPDATE_DELAY_MS = 150
CANVAS_MIN_HEIGHT = 220
FONT_SIZE = 8
GT_SHADE_ALPHA = 0.18
MARGINS = {"left": 0.17, "right": 0.97, "bottom": 0.16, "top": 0.96}
"""Fixed plot margins (figure fractions): cheaper to draw than a constrained layout."""
METRIC_TIP = (
    "Score plotted per slice: AP of the slice's voxels, Dice at each method's display "
    "threshold, or the number of voxels flagged at that threshold."
)
CANVAS_TIP = (
    "Per-slice score of each method (its colour) along the slider axis. Shaded: slices "
    "with ground-truth voxels. Dashed line: the slice shown. Click to show a slice."
)


METRIC_NAME = "Per-slice metric"
CAPTION_NAME = "Per-slice plot caption"
PLOT_NAME = "Per-slice scores plot"
MARKER_LABEL = "_shown slice"
"""The marker's artist label (a leading underscore keeps it out of the legend)."""


class SliceScoresWidget(MoodPanel):
    """Per-slice AP / Dice / flagged voxels of every method, with a slice marker.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is shown.
    """

    UPDATE_DELAY_MS = UPDATE_DELAY_MS

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(viewer, parent)
        self._curves: SliceCurves | None = None
        self._marker: Any = None
        self._background: Any = None  # the plot without the marker, for blitting
        # a panel behind another tab neither computes nor renders: it catches up when shown
        self._unrendered = False
        self._colors = _theme_colors(viewer)
        self._metric = QComboBox(self)
        for key, label in METRICS.items():
            self._metric.addItem(label, key)
        self._metric.setToolTip(METRIC_TIP)
        self._metric.setAccessibleName(METRIC_NAME)
        self._status = QLabel("", self)
        self._status.setWordWrap(True)
        self._status.setToolTip("What the plot shows, or why it is empty.")
        self._status.setAccessibleName(CAPTION_NAME)
        # fixed height: a new caption never resizes (and so never redraws) the plot
        self._status.setFixedHeight(2 * self._status.fontMetrics().lineSpacing() + 4)
        # the plot (matplotlib: 0.6 s to import) is made on the panel's first paint, so a
        # panel opened behind another tab costs the window's opening nothing
        self._figure: Any = None
        self._canvas: Any = None
        self._ax: Any = None
        self._placeholder: _FirstPaint | None = _FirstPaint(self._on_first_paint, self)
        self._placeholder.setMinimumHeight(CANVAS_MIN_HEIGHT)
        self._plot_timer = kit.single_shot(self, 0, self._make_plot)
        self._worker = self._lifetime.worker(self._on_curves_returned, on_busy=self._on_busy)
        # the marker moves after napari's own handlers: a repaint inside a dims event
        # (for example while a case's layers are being removed) crashes the GL canvas
        self._marker_timer = kit.single_shot(self, 0, self._move_marker)
        self._lay_out()
        # the plot takes the dock's height (napari adds no stretch below expanding widgets)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self._connect(self._viewer)
        self._schedule()
        self._draw()

    def _lay_out(self) -> None:
        top = QHBoxLayout()
        metric_label = QLabel("Metric", self)
        metric_label.setToolTip(METRIC_TIP)
        top.addWidget(metric_label)
        top.addWidget(self._metric, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self._placeholder, 1)
        layout.addWidget(self._status)

    def _on_first_paint(self) -> None:
        """Make the plot in place of the placeholder (on the next turn: not in a paint)."""
        self._plot_timer.start()

    def _make_plot(self) -> None:
        if self._placeholder is None:
            return
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
        from matplotlib.figure import Figure

        self._figure = Figure(figsize=(3.2, 2.4))
        self._figure.subplots_adjust(**MARGINS)
        self._figure.set_facecolor(self._colors["background"])
        self._canvas = FigureCanvasQTAgg(self._figure)
        self._canvas.setMinimumHeight(CANVAS_MIN_HEIGHT)
        self._canvas.setToolTip(CANVAS_TIP)
        self._canvas.setAccessibleName(PLOT_NAME)
        self._ax = self._figure.add_subplot()
        self._canvas.mpl_connect("button_press_event", self._on_canvas_button_press)
        self._canvas.mpl_connect("draw_event", self._on_canvas_draw)
        kit.present(self.layout(), "layout").replaceWidget(self._placeholder, self._canvas)
        kit.discard(self._placeholder)
        self._placeholder = None
        self._draw(force=True)

    def _connect(self, viewer: napari.viewer.Viewer) -> None:
        self._metric.currentIndexChanged.connect(self._on_metric_index_changed)
        self.watch_session(
            methods=self._on_session_changed,
            threshold=self._on_session_changed,
            case=self._on_session_changed,
        )
        connect = self._lifetime.connect
        connect(viewer.dims.events.order, self._on_dims_axis)
        connect(viewer.dims.events.ndisplay, self._on_dims_axis)
        connect(viewer.dims.events.point, self._on_dims_point)

    # -- public ---------------------------------------------------------------------

    @property
    def curves(self) -> SliceCurves | None:
        """The latest per-slice scores (None until computed, or in a 3-D view)."""
        return self._curves

    @property
    def metric_key(self) -> str:
        """Key of the metric plotted (a :data:`METRICS` key)."""
        return str(self._metric.currentData())

    @property
    def busy(self) -> bool:
        """Whether a computation is pending (not while the panel is hidden: it waits)."""
        return self.update_pending or self._worker.busy

    @property
    def plot_ready(self) -> bool:
        """Whether the plot has been made (on the panel's first paint)."""
        return self._ax is not None

    def on_shown(self, visible: bool) -> None:
        """Shown: "Computing..." when stale (the update follows), or render the plot."""
        if not visible:
            return
        if self.stale:
            self._unrendered = False
            self._draw(force=True)  # "Computing..." until the curves come
        elif self._unrendered and self._canvas is not None:
            self._unrendered = False
            self._canvas.draw_idle()

    def set_metric(self, key: str) -> None:
        """Plot ``key`` (one of :data:`METRICS`)."""
        index = self._metric.findData(key)
        if index < 0:
            raise ValueError(f"metric must be one of {', '.join(METRICS)}; got {key!r}")
        self._metric.setCurrentIndex(index)

    def plotted(self) -> dict[str, np.ndarray]:
        """Return the y values of each method's line as drawn (for checks and export)."""
        if self._ax is None:
            return {}
        return {
            str(line.get_label()): np.asarray(line.get_ydata(), dtype=float)
            for line in self._ax.get_lines()
            if line is not self._marker
        }

    def show_slice(self, index: int) -> None:
        """Move the viewer to slice ``index`` along the plotted axis."""
        curves, viewer = self._curves, self._session.viewer
        reference = _reference_layer(self._session)
        if curves is None or viewer is None or reference is None:
            return
        index = int(np.clip(index, 0, max(curves.n_slices - 1, 0)))
        position = np.zeros(reference.ndim)
        position[curves.axis] = index
        world = reference.data_to_world(position)
        viewer.dims.set_point(curves.axis, float(world[curves.axis]))

    # -- inputs -> computation ------------------------------------------------------

    def _on_session_changed(self, *_: object) -> None:
        self._schedule()

    def _on_dims_axis(self, *_: object) -> None:
        self._schedule()

    def _schedule(self) -> None:
        self.request_update()

    def on_stale(self) -> None:
        """Out of sight: no job runs, and curves of an older case or threshold are dropped."""
        self._worker.cancel()
        self._curves = None

    def update_now(self) -> None:
        """Compute the per-slice scores of every method in a worker."""
        axis = self._session.slice_axis
        maps = tuple(m.snapshot() for m in self._session.methods)
        if axis is None or not maps:
            self._worker.cancel()
            self._curves = None
            self._draw()
            return
        gt = self._session.gt_data
        gt_data = None if gt is None else np.asarray(gt)
        self._worker.submit(compute_slice_curves, maps, gt_data, axis=axis)

    def _on_curves_returned(self, curves: SliceCurves) -> None:
        self._curves = curves
        self._draw()

    def _on_busy(self, busy: bool) -> None:
        self._status.setText("Computing per-slice scores\u2026" if busy else self._caption())

    # -- drawing --------------------------------------------------------------------

    def _on_metric_index_changed(self, _: int) -> None:
        self._draw()

    def _on_dims_point(self, *_: object) -> None:
        self._marker_timer.start()

    def _move_marker(self) -> None:
        """Move the marker only: restore the saved plot, draw the marker, blit."""
        self._place_marker()
        if self._canvas is None or not kit.is_on_screen(self):
            return
        if self._background is not None and self._marker is not None:
            self._canvas.restore_region(self._background)
            self._ax.draw_artist(self._marker)
            self._canvas.blit(self._figure.bbox)
        self._status.setText(self._caption())

    def _on_canvas_draw(self, _: object) -> None:
        self._background = self._canvas.copy_from_bbox(self._figure.bbox)
        if self._marker is not None:
            self._ax.draw_artist(self._marker)

    def _draw(self, *, force: bool = False) -> None:
        ax, curves = self._ax, self._curves
        self._marker = self._background = None
        if ax is None:  # not painted yet: drawn when the plot is made
            self._status.setText(self._caption())
            return
        ax.clear()
        _style_axes(ax, self._colors)
        message = self._empty_message()
        if message or curves is None:
            ax.text(
                0.5,
                0.5,
                message,
                ha="center",
                va="center",
                wrap=True,
                transform=ax.transAxes,
                color=self._colors["text"],
                fontsize=FONT_SIZE,
            )
            ax.set_xticks([])
            ax.set_yticks([])
        else:
            self._plot(ax, curves)
        self._status.setText(self._caption())
        if force or kit.is_on_screen(self):
            self._canvas.draw_idle()
        else:  # rendering text and lines takes 0.3-0.4 s of the main thread: when shown
            self._unrendered = True

    def _empty_message(self) -> str:
        if not self._session.methods:
            return "No score map loaded."
        if self._session.slice_axis is None:
            return "Per-slice scores need a 2-D view\n(switch napari to 2-D)."
        if self._curves is None:
            return "Computing\u2026"
        if self.metric_key in NEEDS_GT and not self._curves.has_gt:
            return f"{METRICS[self.metric_key]} needs a ground truth:\nchoose Flagged voxels."
        return ""

    def _plot(self, ax: Any, curves: SliceCurves) -> None:
        x = np.arange(curves.n_slices)
        for start, stop in gt_runs(curves.gt_voxels):
            ax.axvspan(start - 0.5, stop - 0.5, color=GT_COLOR, alpha=GT_SHADE_ALPHA, lw=0)
        for name, scores in curves.scores.items():
            y = np.asarray(getattr(scores, self.metric_key), dtype=float)
            few = np.count_nonzero(np.isfinite(y)) < 20
            ax.plot(
                x,
                y,
                color=curves.colors[name],
                label=name,
                lw=1.4,
                marker="o" if few else None,
                ms=2.5,
            )
        ax.set_xlim(-0.5, curves.n_slices - 0.5)
        if self.metric_key in NEEDS_GT:
            ax.set_ylim(-0.02, 1.02)
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel(f"{_axis_label(self._session, curves.axis)} slice", fontsize=FONT_SIZE)
        ax.set_ylabel(METRICS[self.metric_key], fontsize=FONT_SIZE)
        legend = ax.legend(
            fontsize=FONT_SIZE - 1,
            loc="upper left",
            frameon=False,
            labelcolor=self._colors["text"],
            handlelength=1.2,
        )
        legend.set_draggable(False)
        self._place_marker()

    def _place_marker(self) -> None:
        index = self._session.slice_index
        if self._ax is None or self._curves is None or index is None or self._empty_message():
            return
        if self._marker is None:
            self._marker = self._ax.axvline(
                index, color=self._colors["text"], lw=1, ls="--", animated=True, label=MARKER_LABEL
            )
        else:
            self._marker.set_xdata([index, index])

    def _caption(self) -> str:
        curves = self._curves
        if curves is None or self._empty_message():
            return ""
        index = self._session.slice_index
        shown = "" if index is None else f" Slice shown: {index}."
        gt = " Shaded: slices with GT." if curves.has_gt else " No ground truth."
        return f"{METRICS[self.metric_key]} per slice.{gt}{shown} Click to go to a slice."

    # -- plot -> viewer -------------------------------------------------------------

    def _on_canvas_button_press(self, event: Any) -> None:
        if event.inaxes is not self._ax or event.xdata is None or self._empty_message():
            return
        self.show_slice(int(round(event.xdata)))


class _FirstPaint(QWidget):
    """An empty widget that calls ``painted()`` on its first paint (it is on screen)."""

    def __init__(self, painted: Callable[[], None], parent: QWidget) -> None:
        super().__init__(parent)
        self._painted: Callable[[], None] | None = painted

    def paintEvent(self, event: Any) -> None:  # noqa: N802 - Qt override
        super().paintEvent(event)
        if self._painted is not None:
            painted, self._painted = self._painted, None
            painted()


def _reference_layer(session: MoodSession) -> Any:
    methods = session.methods
    return session.scan_layer or session.gt_layer or (methods[0].layer if methods else None)


def _axis_label(session: MoodSession, axis: int) -> str:
    viewer = session.viewer
    labels = () if viewer is None else tuple(viewer.dims.axis_labels)
    return str(labels[axis]) if axis < len(labels) else f"axis {axis}"


def _theme_colors(viewer: Any) -> dict[str, str]:
    from napari.utils.theme import get_theme

    theme = get_theme(viewer.theme)
    return {
        "background": theme.background.as_hex(),
        "text": theme.text.as_hex(),
        "grid": theme.primary.as_hex(),
    }


def _style_axes(ax: Any, colors: Mapping[str, str]) -> None:
    ax.set_facecolor(colors["background"])
    ax.tick_params(colors=colors["text"], labelsize=FONT_SIZE, length=3)
    ax.xaxis.label.set_color(colors["text"])
    ax.yaxis.label.set_color(colors["text"])
    for spine in ax.spines.values():
        spine.set_color(colors["grid"])
    ax.grid(True, color=colors["grid"], lw=0.5, alpha=0.6)
