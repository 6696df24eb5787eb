"""The dataset browser's Export group: a figure of the shown case, or the canvas as a PNG.

* **Make figure...** draws :func:`napari_mood.services.figures.write_view_figure` of the
  shown case at the current slice and thresholds, in a worker, in the planes' convention;
  *Methods* chooses the method columns, the width a journal's column or page.
* **Export view...** saves the canvas with a scale bar and the methods' colour bars
  (:func:`napari_mood._napari.viewer.export_view`).

The group is one part of :class:`~.browser.DatasetBrowserWidget`, which places it under its
table and passes its public ``make_figure_file`` / ``export_view`` on.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from qtpy.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QMenu,
    QPushButton,
    QSpinBox,
    QWidget,
)

from napari_mood._napari.planes import planes_of
from napari_mood._napari.session import MoodSession
from napari_mood._napari.viewer import export_view
from napari_mood._napari.widgets import _kit as kit
from napari_mood._napari.widgets.worker import LatestWorker
from napari_mood.io.errors import MoodInputError
from napari_mood.io.mood import case_stem
from napari_mood.services.options import Convention
from napari_mood.services.output import check_output_file
from napari_mood.services.paper import WIDTH_PRESETS

if TYPE_CHECKING:
    import napari

    from napari_mood.services.figures import ViewFigure

__all__ = ["FigureExportWidget"]

FIGURE_FILTER = "PDF (*.pdf);;PNG (*.png);;SVG (*.svg)"
DEFAULT_DPI = 300
FREE_WIDTH = "any width"
WIDTH_TIP = (
    "Printed width of the figure: a journal column (89 mm), LNCS text (122 mm) or a page "
    "(183 mm), text 7 pt: the figure command's widths; 'any width': 1.8-inch cells."
)

TIPS = {
    "figure": "Save a figure (scan, ground truth, each method) of the shown case at the current "
    "slice and thresholds, as PDF, PNG or SVG.",
    "export": "Save the canvas as a PNG with a scale bar and the methods' colour bars.",
    "dpi": "Resolution of figures (dots per inch).",
    "annotate": "Write each method's case AP and Dice (at its threshold) in the figure.",
    "figure_methods": "Methods drawn as columns of 'Make figure...': untick one to leave it "
    "out (e.g. to fit a journal column).",
}

NAMES = {  # accessible names: what a screen reader says for controls without their own text
    "dpi": "Figure resolution",
    "width": "Figure width",
    "figure_methods": "Methods in the figure",
}


class FigureExportWidget(QGroupBox):
    """The Export group: *Make figure...* and *Export view...* of the shown case.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose canvas is exported (napari's proxy already unwrapped).
    session : MoodSession
        The viewer's session: the shown case, its layers and inputs.
    lifetime : Lifetime
        The owning panel's lifetime (the session connection ends with it).
    parent : QWidget
        The owning panel.
    """

    def __init__(
        self,
        viewer: napari.viewer.Viewer,
        session: MoodSession,
        lifetime: kit.Lifetime,
        parent: QWidget,
    ) -> None:
        super().__init__("Export", parent)
        self._viewer = viewer
        self._session = session
        self._figure_maker = LatestWorker(  # may finish after closing
            _notify_figure_saved, on_error=_notify_figure_failed
        )
        self._build()
        lifetime.connect(session.case_changed, self._figure_methods.refresh)
        self._figure_button.clicked.connect(self._on_figure_button_clicked)
        self._export_button.clicked.connect(self._on_export_button_clicked)

    def _build(self) -> None:
        self._figure_button = kit.button(self, "Make figure...", TIPS["figure"])
        self._export_button = kit.button(self, "Export view...", TIPS["export"])
        self._dpi = QSpinBox(self)
        self._dpi.setRange(50, 1200)
        self._dpi.setValue(DEFAULT_DPI)
        self._dpi.setSuffix(" dpi")
        self._dpi.setToolTip(TIPS["dpi"])
        self._annotate = QCheckBox("Annotate", self)
        self._annotate.setToolTip(TIPS["annotate"])
        self._width = kit.combo(self, WIDTH_TIP, [FREE_WIDTH, *WIDTH_PRESETS])
        self._figure_methods = _FigureMethodsButton(self._session, self)
        named: tuple[tuple[QWidget, str], ...] = (
            (self._dpi, "dpi"),
            (self._width, "width"),
            (self._figure_methods, "figure_methods"),
        )
        for widget, key in named:
            widget.setAccessibleName(NAMES[key])
        grid = QGridLayout(self)
        rows = (
            (self._figure_button, self._figure_methods, self._export_button),
            (self._width, self._dpi, self._annotate),
        )
        for row, widgets in enumerate(rows):
            for column, widget in enumerate(widgets):
                grid.addWidget(widget, row, column)

    # -- public API -------------------------------------------------------------------

    def make_figure_file(self, path: str | Path) -> None:
        """Write a figure of the shown case (current slice and thresholds) in the background."""
        request = self._figure_request(Path(path))
        if request is not None:
            from napari_mood.services.figures import write_view_figure

            self._figure_maker.submit(write_view_figure, request)

    def export_view(self, path: str | Path) -> Path:
        """Save the canvas as a PNG with a scale bar and the methods' colour bars.

        Raises
        ------
        MoodInputError
            When the path is among the inputs or cannot be written (nothing is written).
        """
        asked = Path(path)
        target = check_output_file(
            asked.with_suffix(".png"),
            inputs=self._session.inputs(),
            force=asked.suffix.lower() == ".png",  # the save dialog confirmed this very name
            what="the view",
        )
        return export_view(self._viewer, target, [m.layer for m in self._session.methods])

    # -- buttons ----------------------------------------------------------------------

    def _on_figure_button_clicked(self) -> None:
        stem = case_stem(self._session.case or "figure")
        path, _ = QFileDialog.getSaveFileName(
            self, "Save figure", f"{stem}_figure.pdf", FIGURE_FILTER
        )
        if path:
            self.make_figure_file(path)

    def _on_export_button_clicked(self) -> None:
        stem = case_stem(self._session.case or "view")
        path, _ = QFileDialog.getSaveFileName(
            self, "Export view", f"{stem}_view.png", "PNG (*.png)"
        )
        if not path:
            return
        try:
            out = self.export_view(path)
        except (OSError, MoodInputError) as exc:
            kit.notify("error", f"Export view: {exc}")
            return
        kit.notify("info", f"View saved to {out}")

    def _figure_request(self, path: Path) -> ViewFigure | None:
        session = self._session
        if session.scan_layer is None and not session.methods:
            kit.notify("warning", "Make figure: nothing to draw; open a case first.")
            return None
        if path.suffix.lower() not in (".png", ".svg", ".pdf"):
            kit.notify(
                "warning",
                f"Make figure: {path} must end in .pdf, .png or .svg; choose another name.",
            )
            return None
        reference = session.scan_layer or session.methods[0].layer
        drawn = [m for m in session.methods if m.name in self._figure_methods.chosen()]
        # matplotlib (0.6 s to import) is loaded by the first figure, not with the panel
        from napari_mood.services.figures import ViewFigure

        return ViewFigure(
            path=path,
            name=case_stem(session.case or "case"),
            scan=session.scan_data,
            gt=session.gt_data,
            maps={m.name: m.data for m in drawn},
            spacing=tuple(float(s) for s in reference.scale),
            index=session.slice_index,
            thresholds={m.name: m.threshold for m in drawn},
            colors={m.name: m.color for m in drawn},
            annotate=self._annotate.isChecked(),
            dpi=self._dpi.value(),
            inputs=session.inputs(),
            convention=_convention_shown(self._viewer),
            width=None if self._width.currentText() == FREE_WIDTH else self._width.currentText(),
        )


def _convention_shown(viewer: object) -> Convention:
    """Return the convention of the three planes (the figure shows what the reader sees)."""
    linked = planes_of(viewer)
    return linked[0].convention if linked else "radiological"


def _notify_figure_saved(path: Path) -> None:
    kit.notify("info", f"Figure saved to {path}")


def _notify_figure_failed(exc: BaseException) -> None:
    from napari_mood.services.figure_layout import FigureTooNarrow

    narrow = isinstance(exc, FigureTooNarrow)
    hint = " Untick methods under 'Methods', or choose a wider width." if narrow else ""
    kit.notify("error", f"Make figure: {exc}.{hint}")


class _FigureMethodsButton(QPushButton):
    """Which methods *Make figure...* draws: a menu of the shown methods, each ticked.

    All are ticked at first; a method unticked stays out for the next cases too.
    """

    def __init__(self, session: MoodSession, parent: QWidget) -> None:
        super().__init__(parent)
        self._session = session
        self._left_out: set[str] = set()
        self.setToolTip(TIPS["figure_methods"])
        menu = QMenu(self)
        menu.aboutToShow.connect(self._on_menu_about_to_show)
        self.setMenu(menu)
        self.refresh()

    def chosen(self) -> list[str]:
        """Return the methods to draw, in the session's order."""
        return [m.name for m in self._session.methods if m.name not in self._left_out]

    def refresh(self) -> None:
        """Say how many of the shown methods are drawn."""
        self.setText(f"Methods ({len(self.chosen())} of {len(self._session.methods)})")

    def _on_menu_about_to_show(self) -> None:
        menu = self.menu()
        assert menu is not None
        menu.clear()
        for method in self._session.methods:
            action = menu.addAction(method.name)
            assert action is not None
            action.setCheckable(True)
            action.setChecked(method.name not in self._left_out)
            action.toggled.connect(partial(self._on_action_toggled, method.name))

    def _on_action_toggled(self, name: str, checked: bool) -> None:
        if checked:
            self._left_out.discard(name)
        else:
            self._left_out.add(name)
        self.refresh()
