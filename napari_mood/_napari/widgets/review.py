"""Dock widget "Review flagged regions": judge a method's flagged regions one at a time.

The regions, their ranking, the review file and the rule that brings verdicts back are in
:mod:`napari_mood.services.review` (Qt-free); this widget only wires controls to it:

* the regions of the chosen method at its display threshold are found in a
  :class:`~napari_mood._napari.widgets.worker.LatestWorker` (again whenever the threshold, the
  methods or the case change), ranked by max score;
* the current region is outlined in a Labels layer ``"Review: current region"`` (metadata
  role ``"review"``, ignored by the session), the slider moves to its centroid and the
  camera centres and zooms on it;
* verdict buttons (keys T / F / U), a free-text note and Previous / Next (keys P / N)
  while the dock has keyboard focus; after a verdict the next region is shown (optional);
* every verdict is written at once to the review file (atomic rewrite); a note edited
  after the verdict is saved when editing ends (Enter, leaving the field, another region)
  or half a second after the last keystroke;
* the review resumes at the first region without a verdict; "Export summary…" writes the
  verdict counts per method and the judged regions.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qtpy.QtCore import Qt
from qtpy.QtGui import QKeySequence
from qtpy.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDockWidget,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QShortcut,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.helper_layers import add_helper_labels, helper_layers, set_helper_data
from napari_mood._napari.layers import METADATA_KEY, layer_info
from napari_mood._napari.session import MoodSession, get_session
from napari_mood._napari.viewer import focus_object
from napari_mood._napari.widgets import _kit as kit
from napari_mood.core.io import MoodInputError
from napari_mood.core.regions import FlaggedRegion, RegionScope
from napari_mood.services.review import (
    VERDICTS,
    ReviewRecord,
    Verdict,
    match_reviews,
    now_iso,
    review_record,
)
from napari_mood.services.review_regions import FoundRegions, find_regions
from napari_mood.services.review_store import (
    ReviewFile,
    check_review_location,
    default_review_path,
    export_summary,
)
from napari_mood.services.snapshots import MapSnapshot

if TYPE_CHECKING:
    import napari

__all__ = ["REVIEW_LAYER_NAME", "ReviewWidget"]

REVIEW_LAYER_NAME = "Review: current region"
REVIEW_ROLE = "review"
REVIEW_COLOR = "#00e5ff"
REVIEW_CONTOUR = 1
AUTO_DELAY_MS = 250
NOTE_DELAY_MS = 500
SCOPES: tuple[tuple[str, RegionScope], ...] = (
    ("Counted by the MOOD score (size window)", "window"),
    ("All flagged components", "all"),
)
VERDICT_TEXT: dict[Verdict, tuple[str, str]] = {  # verdict -> (button text, key)
    "true finding": ("True finding", "T"),
    "false alarm": ("False alarm", "F"),
    "unsure": ("Unsure", "U"),
}
METHOD_TIP = "Method whose flagged regions are reviewed, at its display threshold."
SCOPE_TIP = (
    "Which regions to review. 'Counted by the MOOD score': the connected components the "
    "object score counts (inside the size window set by the ground-truth objects; all of "
    "them without a ground truth). 'All flagged components': every component, specks too."
)
VERDICT_TIP = "Record '{verdict}' for the current region (key {key}); saved at once."
NOTE_TIP = "Free-text note saved with the verdict (Enter to finish, then T / F / U / N / P)."
ADVANCE_TIP = "After a verdict, go to the next region."
PREVIOUS_TIP = "Previous region (key P while this panel has focus)."
NEXT_TIP = "Next region (key N while this panel has focus)."
FILE_TIP = "Verdicts are saved to this CSV file after every verdict:\n{path}"
CHANGE_TIP = (
    "Choose the review file (an existing one is continued). It cannot be inside the "
    "dataset or next to the input files."
)
EXPORT_TIP = (
    "Write the verdict counts per method (CSV) and, beside it, every judged region "
    "(<name>-objects.csv)."
)
EMPTY_TEXT = "No score map loaded.\nOpen a MOOD dataset or case to review its flagged regions."


class ReviewWidget(QWidget):
    """Step through a method's flagged regions and record a verdict for each.

    Parameters
    ----------
    viewer : napari.viewer.Viewer
        The viewer whose session (:func:`napari_mood._napari.session.get_session`) is reviewed.
    """

    def __init__(self, viewer: napari.viewer.Viewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._viewer = viewer
        self._session: MoodSession = get_session(viewer)
        self._found: FoundRegions | None = None
        self._index = -1
        self._verdicts: dict[int, ReviewRecord] = {}
        self._chosen_path: Path | None = None
        self._book: ReviewFile | None = None
        self._stale = True  # regions to search once the panel is visible
        self._dock: QDockWidget | None = None
        self._lifetime = kit.Lifetime(self)
        self._worker = self._lifetime.worker(self._on_worker_result, on_busy=self._on_worker_busy)
        self._timer = kit.single_shot(self, AUTO_DELAY_MS, self._on_timer_timeout)
        self._note_timer = kit.single_shot(self, NOTE_DELAY_MS, self._on_note_timer_timeout)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._build()
        self._connect()
        self._refresh_methods()
        self._open_book(self._default_path())
        self._schedule()

    # -- building -------------------------------------------------------------------

    def _build(self) -> None:
        self._method = kit.combo(self, METHOD_TIP, [])
        self._scope = kit.combo(self, SCOPE_TIP, [text for text, _ in SCOPES])
        self._file = QLabel(self)
        self._file.setWordWrap(True)
        self._change = kit.button(self, "Change…", CHANGE_TIP)
        self._position = QLabel(self)
        self._position.setWordWrap(True)
        self._position.setToolTip("The region shown, in review order (highest max score first).")
        self._current = QLabel(self)
        self._current.setWordWrap(True)
        self._current.setToolTip("Verdict recorded for the region shown.")
        self._previous = kit.button(self, "◀ Previous (P)", PREVIOUS_TIP)
        self._next = kit.button(self, "Next (N) ▶", NEXT_TIP)
        self._verdict_buttons = {v: self._verdict_button(v) for v in VERDICTS}
        self._group = QButtonGroup(self)
        for button in self._verdict_buttons.values():
            self._group.addButton(button)
        self._note = QLineEdit(self)
        self._note.setPlaceholderText("Note (optional)")
        self._note.setToolTip(NOTE_TIP)
        self._advance = QCheckBox("Go to the next region after a verdict", self)
        self._advance.setChecked(True)
        self._advance.setToolTip(ADVANCE_TIP)
        self._progress = QLabel(self)
        self._progress.setWordWrap(True)
        self._progress.setToolTip("Verdicts recorded for this case and method.")
        self._export = kit.button(self, "Export summary…", EXPORT_TIP)
        self._empty = QLabel(EMPTY_TEXT, self)
        self._empty.setWordWrap(True)
        self._layout_widgets()
        self._shortcuts = [
            self._shortcut(key, partial(self.step, d)) for key, d in (("N", 1), ("P", -1))
        ]
        self._shortcuts += [
            self._shortcut(key, partial(self.set_verdict, v))
            for v, (_, key) in VERDICT_TEXT.items()
        ]

    def _verdict_button(self, verdict: Verdict) -> QPushButton:
        text, key = VERDICT_TEXT[verdict]
        button = kit.button(self, f"{text} ({key})", VERDICT_TIP.format(verdict=verdict, key=key))
        button.setCheckable(True)
        return button

    def _layout_widgets(self) -> None:
        form = QFormLayout()
        form.addRow("Method", self._method)
        form.addRow("Regions", self._scope)
        review_file = QHBoxLayout()
        review_file.addWidget(self._file, 1)
        review_file.addWidget(self._change)
        form.addRow("Review file", review_file)
        steps = kit.row(self._previous, self._next)
        verdicts = kit.row(*self._verdict_buttons.values())
        layout = QVBoxLayout(self)
        layout.addWidget(self._empty)
        layout.addLayout(form)
        for widget in (self._position, self._current):
            layout.addWidget(widget)
        layout.addLayout(steps)
        layout.addLayout(verdicts)
        for extra in (self._note, self._advance, self._progress, self._export):
            layout.addWidget(extra)
        layout.addStretch(1)

    def _shortcut(self, key: str, slot: Any) -> QShortcut:
        shortcut = QShortcut(QKeySequence(key), self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(slot)
        return shortcut

    def _connect(self) -> None:
        self._method.currentTextChanged.connect(self._on_method_changed)
        self._scope.currentIndexChanged.connect(self._on_scope_changed)
        self._change.clicked.connect(self._on_change_clicked)
        self._previous.clicked.connect(partial(self.step, -1))
        self._next.clicked.connect(partial(self.step, 1))
        for verdict, button in self._verdict_buttons.items():
            button.clicked.connect(partial(self._on_verdict_clicked, verdict))
        self._note.textEdited.connect(self._on_note_edited)
        self._note.editingFinished.connect(self._on_note_editing_finished)
        self._note.returnPressed.connect(self._on_note_return_pressed)
        self._export.clicked.connect(self._on_export_clicked)
        connect = self._lifetime.connect
        connect(self._session.methods_changed, self._on_session_methods_changed)
        connect(self._session.threshold_changed, self._on_session_threshold_changed)
        connect(self._session.case_changed, self._on_session_case_changed)

    # -- public ---------------------------------------------------------------------

    @property
    def session(self) -> MoodSession:
        """The session reviewed."""
        return self._session

    @property
    def busy(self) -> bool:
        """Whether regions are being searched."""
        return self._worker.busy

    @property
    def method(self) -> str | None:
        """The method of the regions shown."""
        return None if self._found is None else self._found.method

    @property
    def regions(self) -> tuple[FlaggedRegion, ...]:
        """Regions under review, in review order."""
        return () if self._found is None else self._found.regions

    @property
    def current_index(self) -> int:
        """Index of the region shown in :attr:`regions` (-1: none)."""
        return self._index

    @property
    def current_region(self) -> FlaggedRegion | None:
        """The region shown."""
        return self.regions[self._index] if 0 <= self._index < len(self.regions) else None

    @property
    def verdicts(self) -> dict[int, ReviewRecord]:
        """Recorded verdict of each region (by object id) for this case and method."""
        return dict(self._verdicts)

    @property
    def review_path(self) -> Path | None:
        """The review file in use (None when it could not be opened)."""
        return None if self._book is None else self._book.path

    def run(self) -> None:
        """Search the chosen method's flagged regions in a worker."""
        name = self._method.currentText()
        if name not in self._session.method_names:
            return
        method, gt = self._session.method(name), self._session.gt_layer
        snapshot = MapSnapshot(
            name,
            method.data,
            method.threshold,
            method.color,
            tuple(abs(float(s)) for s in method.layer.scale),
            None if method.path is None else str(method.path),
        )
        self._worker.submit(
            find_regions,
            snapshot,
            None if gt is None else gt.data,
            case=self._session.case,
            scope=SCOPES[self._scope.currentIndex()][1],
        )

    def select_method(self, name: str) -> None:
        """Review ``name`` (one of the session's methods)."""
        self._method.setCurrentText(name)

    def go_to(self, index: int) -> None:
        """Show region ``index`` (clipped to the regions)."""
        if not self.regions:
            return
        self._save_note()
        self._index = min(max(index, 0), len(self.regions) - 1)
        self._show_current()

    def step(self, delta: int) -> None:
        """Show the region ``delta`` places further in review order."""
        self.go_to(self._index + delta)

    def set_verdict(self, verdict: Verdict) -> bool:
        """Record ``verdict`` (and the note) for the region shown; return whether it was saved."""
        region, found = self.current_region, self._found
        if region is None or self._book is None or found is None:
            return False
        if found.method not in self._session.method_names:
            return False
        record = self._record(region, verdict)
        if not self._save(record, replaces=self._verdicts.get(region.object_id)):
            return False
        if self._advance.isChecked() and self._index < len(self.regions) - 1:
            self.go_to(self._index + 1)
        else:
            self._show_current()
        return True

    def set_review_file(self, path: str | Path) -> bool:
        """Use ``path`` as review file (continued if it exists); refused inside the data."""
        self._save_note()
        try:
            target = self._check_location(path)
        except MoodInputError as error:
            kit.notify("error", f"napari-mood: {error}. The review file was not changed.")
            return False
        self._chosen_path = target
        self._open_book(target)
        return self._book is not None

    def export_summary_to(self, path: str | Path) -> tuple[Path, Path] | None:
        """Write the verdict counts per method to ``path`` and the judged regions beside it."""
        if self._book is None:
            kit.notify(
                "error", "napari-mood: no review file is open: choose one with 'Change…' first"
            )
            return None
        try:
            written = export_summary(
                self._check_location(path),
                self._book.records,
                inputs=self._session.inputs(),
                force=True,  # the save dialog asked before replacing
            )
        except (MoodInputError, OSError) as error:
            kit.notify("error", f"napari-mood: could not export the review summary: {error}")
            return None
        kit.notify("info", f"napari-mood: review summary written to {written[0]} and {written[1]}")
        return written

    # -- review file ----------------------------------------------------------------

    def _default_path(self) -> Path:
        return default_review_path(self._session.dataset)

    def _check_location(self, path: str | Path) -> Path:
        return check_review_location(
            path, datasets=[self._session.dataset], files=self._input_files()
        )

    def _input_files(self) -> list[str]:
        layers = [self._session.scan_layer, self._session.gt_layer]
        layers += [m.layer for m in self._session.methods]
        infos = [layer_info(layer) for layer in layers if layer is not None]
        return [info["path"] for info in infos if info is not None and info.get("path")]

    def _open_book(self, path: Path) -> None:
        self._book = None
        try:
            self._book = ReviewFile(self._check_location(path))
        except MoodInputError as error:
            kit.notify(
                "error",
                f"napari-mood: {error}. Verdicts cannot be saved until you choose another file.",
            )
        self._show_file(path)
        self._match_verdicts()
        self._show_current(move=False)

    def _show_file(self, path: Path) -> None:
        state = "" if self._book is not None else " (not usable: choose another)"
        self._file.setText(f"{path.name}{state}")
        self._file.setToolTip(FILE_TIP.format(path=path))

    def _save(self, record: ReviewRecord, *, replaces: ReviewRecord | None) -> bool:
        assert self._book is not None
        try:
            self._book.save(record, replaces=replaces)
        except OSError as error:
            kit.notify(
                "error",
                f"could not save the verdict to {self._book.path} ({error}); "
                "choose another review file with 'Change…'",
            )
            return False
        self._verdicts[record.object_id] = record
        return True

    def _record(self, region: FlaggedRegion, verdict: Verdict) -> ReviewRecord:
        assert self._found is not None
        layer = self._session.method(self._found.method).layer
        return review_record(
            region,
            case=self._found.case or "",
            method=self._found.method,
            threshold=self._found.threshold,
            centroid_world_mm=tuple(layer.data_to_world(region.centroid_voxel)),
            verdict=verdict,
            note=self._note.text(),
        )

    def _match_verdicts(self) -> None:
        found, book = self._found, self._book
        if found is None or book is None:
            self._verdicts = {}
            return
        stored = match_reviews(
            found.regions, book.records, case=found.case or "", method=found.method
        )
        self._verdicts = dict(stored)

    def _save_note(self) -> None:
        """Save the note of a judged region if it changed (no layer needed: closing is fine)."""
        self._note_timer.stop()
        region = self.current_region
        old = None if region is None else self._verdicts.get(region.object_id)
        note = self._note.text().strip()
        if old is None or self._book is None or old.note == note:
            return
        self._save(replace(old, note=note, time=now_iso()), replaces=old)

    def hideEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Save a note being typed when the panel is hidden or napari closes."""
        self._save_note()
        super().hideEvent(event)

    # -- session -> widget ----------------------------------------------------------

    def _on_session_methods_changed(self) -> None:
        self._refresh_methods()
        if self.method is not None and self.method not in self._session.method_names:
            self._save_note()
            self._found, self._index, self._verdicts = None, -1, {}
            self._show_current(move=False)
        self._schedule()

    def _on_session_threshold_changed(self, name: str, value: float) -> None:
        if name == self._method.currentText():
            self._schedule()

    def _on_session_case_changed(self) -> None:
        if self._chosen_path is None and self._default_path() != self.review_path:
            self._open_book(self._default_path())
        self._schedule()

    def _schedule(self) -> None:
        """Search regions soon; while the panel is hidden (a tab behind), when it shows."""
        self._stale = not self.isVisible()
        if self._session.method_names and not self._stale:
            self._timer.start()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        """Start the postponed search, or go back to the region under review."""
        super().showEvent(event)
        self._dock = kit.watch_dock(self, self._on_dock_visibility_changed, self._dock)
        self._on_dock_visibility_changed(True)

    def _on_dock_visibility_changed(self, visible: bool) -> None:
        region = self.current_region
        if not visible:
            return
        if self._stale:
            self._schedule()
        elif region is not None and self.method in self._session.method_names:
            self._focus(region)

    def _on_timer_timeout(self) -> None:
        if not kit.is_on_screen(self):  # closed, or a tab behind another panel
            self._stale = True
            return
        self.run()

    def _refresh_methods(self) -> None:
        names = self._session.method_names
        current = self._method.currentText()
        self._method.blockSignals(True)
        self._method.clear()
        self._method.addItems(list(names))
        if current in names:
            self._method.setCurrentText(current)
        self._method.blockSignals(False)
        self._empty.setVisible(not names)

    # -- controls -> review ---------------------------------------------------------

    def _on_method_changed(self, name: str) -> None:
        self._save_note()
        self._schedule()

    def _on_scope_changed(self, index: int) -> None:
        self._save_note()
        self._schedule()

    def _on_verdict_clicked(self, verdict: Verdict) -> None:
        if not self.set_verdict(verdict):
            self._show_current(move=False)  # undo the button's own check state

    def _on_note_edited(self, text: str) -> None:
        self._note_timer.start()

    def _on_note_timer_timeout(self) -> None:
        self._save_note()

    def _on_note_editing_finished(self) -> None:
        self._save_note()

    def _on_note_return_pressed(self) -> None:
        self.setFocus()  # back to the panel, so that the keys work again

    def _on_change_clicked(self) -> None:
        start = str(self.review_path or self._default_path())
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Review file (CSV)",
            start,
            "CSV files (*.csv)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.set_review_file(path)

    def _on_export_clicked(self) -> None:
        base = self.review_path or self._default_path()
        start = base.with_name(f"{base.stem}-summary.csv")
        path, _ = QFileDialog.getSaveFileName(
            self, "Export review summary", str(start), "CSV files (*.csv)"
        )
        if path:
            self.export_summary_to(path)

    def _on_worker_busy(self, busy: bool) -> None:
        if busy and self._found is None:
            self._position.setText("Searching flagged regions…")

    def _on_worker_result(self, found: FoundRegions) -> None:
        if found.method not in self._session.method_names:
            return
        self._save_note()
        self._found = found
        self._match_verdicts()
        self._show_labels(found)
        unjudged = [i for i, r in enumerate(found.regions) if r.object_id not in self._verdicts]
        self._index = unjudged[0] if unjudged else (0 if found.regions else -1)
        self._show_current(move=kit.is_on_screen(self))

    # -- display --------------------------------------------------------------------

    def _show_labels(self, found: FoundRegions) -> None:
        layer = self._review_layer()
        if layer is None:
            layer = add_helper_labels(
                self._viewer,
                found.labels,
                name=REVIEW_LAYER_NAME,
                reference=self._session.method(found.method).layer,
                colormap={0: "transparent", None: REVIEW_COLOR},
                metadata={METADATA_KEY: {"role": REVIEW_ROLE, "case": found.case}},
                contour=REVIEW_CONTOUR,
            )
        else:
            set_helper_data(layer, found.labels)
        layer.metadata[METADATA_KEY]["method"] = found.method
        layer.show_selected_label = True

    def _review_layer(self) -> Any:
        return next(helper_layers(self._viewer, REVIEW_ROLE), None)

    def _show_current(self, *, move: bool = True) -> None:
        """Show the current region's details; ``move`` the viewer to it."""
        region = self.current_region
        record = None if region is None else self._verdicts.get(region.object_id)
        self._show_position(region)
        self._show_verdict(record)
        self._note.setText("" if record is None else record.note)
        self._show_progress()
        for control in (*self._verdict_buttons.values(), self._note):
            control.setEnabled(region is not None and self._book is not None)
        self._previous.setEnabled(self._index > 0)
        self._next.setEnabled(0 <= self._index < len(self.regions) - 1)
        layer = self._review_layer()
        if layer is not None and region is not None:
            layer.selected_label = region.object_id
        if move and region is not None and self.method in self._session.method_names:
            self._focus(region)

    def _focus(self, region: FlaggedRegion) -> None:
        assert self._found is not None
        reference = self._session.method(self._found.method).layer
        focus_object(self._viewer, reference, region.centroid_voxel, region.bbox)

    def _show_position(self, region: FlaggedRegion | None) -> None:
        if self._found is None:
            self._position.setText("")
            return
        if region is None:
            self._position.setText(
                f"No flagged region for {self._found.method} at {self._found.threshold:.3f}."
            )
            return
        size = f"{region.size_voxels} voxels"
        if region.size_mm3 is not None:
            size += f" ({region.size_mm3:,.0f} mm³)"
        self._position.setText(
            f"<b>Region {self._index + 1} of {len(self.regions)}</b> · {self._found.method} "
            f"@ {self._found.threshold:.3f}<br>max score {region.max_score:.3f} · {size}"
        )

    def _show_verdict(self, record: ReviewRecord | None) -> None:
        self._group.setExclusive(False)
        for verdict, button in self._verdict_buttons.items():
            button.setChecked(record is not None and record.verdict == verdict)
        self._group.setExclusive(True)
        text = "Verdict: —" if record is None else f"Verdict: <b>{record.verdict}</b>"
        self._current.setText(text)

    def _show_progress(self) -> None:
        total = len(self.regions)
        if not total:
            self._progress.setText("")
            return
        judged = list(self._verdicts.values())
        counts = " · ".join(f"{sum(r.verdict == v for r in judged)} {v}" for v in VERDICTS)
        self._progress.setText(f"Reviewed {len(judged)} of {total}: {counts}")
