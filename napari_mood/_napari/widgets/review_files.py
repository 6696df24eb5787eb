"""The review panel's review file: where it is, opening it, saving verdicts, exporting.

The file format and its safety (append-only journal, lock, refusal inside the data) are
:mod:`napari_mood.services.review_store`; this module ties it to the case shown: the
default file of the session's dataset, a location refused beside the layers' files, and
messages in napari's notifications.
"""

from __future__ import annotations

from pathlib import Path

from qtpy.QtWidgets import QFileDialog, QWidget

from napari_mood._napari.layers import layer_info
from napari_mood._napari.session import MoodSession
from napari_mood._napari.widgets import _kit as kit
from napari_mood.io.errors import MoodInputError
from napari_mood.services.review import ReviewRecord
from napari_mood.services.review_location import check_review_location, default_review_path
from napari_mood.services.review_store import ReviewFile, export_summary

__all__ = ["ReviewFiles"]


class ReviewFiles:
    """The review file of a session: the dataset's default one, or one chosen by the user.

    Parameters
    ----------
    session : MoodSession
        The case shown (its dataset and layer files decide where a file may be).
    """

    def __init__(self, session: MoodSession) -> None:
        self._session = session
        self.book: ReviewFile | None = None
        self.chosen: Path | None = None  # None: the dataset's default file
        self.shown: Path = self.default_path()

    @property
    def path(self) -> Path | None:
        """The file in use (None when it could not be opened)."""
        return None if self.book is None else self.book.path

    def default_path(self) -> Path:
        """Return the default review file of the session's dataset."""
        return default_review_path(self._session.dataset)

    def check_location(self, path: str | Path) -> Path:
        """``path`` if a review file may be there (never inside the data); else raise."""
        return check_review_location(
            path, datasets=[self._session.dataset], files=self._input_files()
        )

    def open(self, path: Path) -> None:
        """Use ``path`` (continued if it exists); a refused or broken file is notified."""
        self.book, self.shown = None, path
        try:
            self.book = ReviewFile(self.check_location(path))
        except MoodInputError as error:
            kit.notify(
                "error",
                f"napari-mood: {error}. Verdicts cannot be saved until you choose another file.",
            )

    def choose(self, path: str | Path) -> bool:
        """Switch to a file the user chose; False (and a message) when the place is refused.

        A file that is there but unusable is taken (and notified): :attr:`book` is None.
        """
        try:
            target = self.check_location(path)
        except MoodInputError as error:
            kit.notify("error", f"napari-mood: {error}. The review file was not changed.")
            return False
        self.chosen = target
        self.open(target)
        return True

    def follow_case(self) -> bool:
        """After a case change: open the new dataset's default file; return whether it changed."""
        if self.chosen is not None or self.default_path() == self.path:
            return False
        self.open(self.default_path())
        return True

    def save(self, record: ReviewRecord, *, replaces: ReviewRecord | None) -> bool:
        """Append ``record`` (replacing ``replaces``); False (and a message) on failure."""
        assert self.book is not None
        try:
            self.book.save(record, replaces=replaces)
        except OSError as error:
            kit.notify(
                "error",
                f"could not save the verdict to {self.book.path} ({error}); "
                "choose another review file with 'Change…'",
            )
            return False
        return True

    def export(self, path: str | Path) -> tuple[Path, Path] | None:
        """Write the verdict counts per method to ``path`` and the judged regions beside it."""
        if self.book is None:
            kit.notify(
                "error", "napari-mood: no review file is open: choose one with 'Change…' first"
            )
            return None
        try:
            written = export_summary(
                self.check_location(path),
                self.book.records,
                inputs=self._session.inputs(),
                force=True,  # the save dialog asked before replacing
            )
        except (MoodInputError, OSError) as error:
            kit.notify("error", f"napari-mood: could not export the review summary: {error}")
            return None
        kit.notify("info", f"napari-mood: review summary written to {written[0]} and {written[1]}")
        return written

    def ask_review_file(self, parent: QWidget) -> str:
        """Ask for a review file (an existing one is continued); "" when cancelled."""
        start = str(self.path or self.default_path())
        path, _ = QFileDialog.getSaveFileName(
            parent,
            "Review file (CSV)",
            start,
            "CSV files (*.csv)",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        return str(path)

    def ask_summary_file(self, parent: QWidget) -> str:
        """Ask where the summary goes (beside the review file first); "" when cancelled."""
        base = self.path or self.default_path()
        start = base.with_name(f"{base.stem}-summary.csv")
        path, _ = QFileDialog.getSaveFileName(
            parent, "Export review summary", str(start), "CSV files (*.csv)"
        )
        return str(path)

    def _input_files(self) -> list[str]:
        session = self._session
        layers = [session.scan_layer, session.gt_layer, *(m.layer for m in session.methods)]
        infos = [layer_info(layer) for layer in layers if layer is not None]
        return [info["path"] for info in infos if info is not None and info.get("path")]
