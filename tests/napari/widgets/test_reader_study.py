"""ReaderStudyWidget: journals in, the study's tables shown, exported through the guard."""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood._napari.widgets.reader_study import ReaderStudyWidget
from napari_mood.services.output import OutputRefused
from napari_mood.services.reader_study import reader_study
from napari_mood.services.reader_study_report import REPORT_FILES
from tests.reader_journals import random_readers, write_reader


def _wait(qtbot, widget: ReaderStudyWidget, readers: int) -> None:
    def done() -> bool:
        study = widget.study
        return not widget.busy and study is not None and len(study.readers) == readers

    qtbot.waitUntil(done, timeout=15_000)


def _column(grid, title: str) -> list[str]:
    titles = [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())]
    col = titles.index(title)
    return [grid.item(r, col).text() for r in range(grid.rowCount())]


def test_panel_shows_the_study_of_the_journals_and_exports_it(
    make_napari_viewer, qtbot, tmp_path, review_dir, monkeypatch
):
    errors: list[str] = []
    monkeypatch.setattr("napari.utils.notifications.show_error", errors.append)
    table = random_readers(1)
    journals = [write_reader(tmp_path / f"{n}.csv", n, rows) for n, rows in table.items()]
    viewer = make_napari_viewer(show=True)
    _, widget = viewer.window.add_plugin_dock_widget("napari-mood", "Reader study")
    assert isinstance(widget, ReaderStudyWidget) and widget.journals == ()

    widget.add_journals(journals)
    _wait(qtbot, widget, 4)
    expected = reader_study(journals)
    assert widget.study.to_dict() == expected.to_dict()  # the service's result, in the worker
    grids = widget.tables
    assert grids["Verdicts"].rowCount() == len(expected.counts)
    assert _column(grids["Agreement"], "statistic") == ["cohen"] * 6 + ["fleiss"]
    assert "n/a" in _column(grids["Agreement"], "kappa")  # dee shares no region
    assert grids["Disagreements"].rowCount() == len(expected.disagreements)
    assert _column(grids["Time"], "reader") == ["ana", "ben", "cy", "dee"]

    out = tmp_path / "study"
    assert sorted(p.name for p in widget.export(out)) == sorted(REPORT_FILES)
    with pytest.raises(OutputRefused, match="already holds"):
        widget.export(out)  # the dialog asks first; without force nothing is replaced
    with pytest.raises(OutputRefused, match="onto the input file"):
        widget.export(journals[0], force=True)

    widget.remove_journals(journals[2:])
    _wait(qtbot, widget, 2)
    assert _column(grids["Agreement"], "statistic") == ["cohen", "fleiss"]
    assert not errors


def test_a_bad_journal_is_reported_not_raised(
    make_napari_viewer, qtbot, tmp_path, review_dir, monkeypatch
):
    errors: list[str] = []
    monkeypatch.setattr("napari.utils.notifications.show_error", errors.append)
    notes = tmp_path / "notes.csv"
    notes.write_text("a,b\n1,2\n")
    viewer = make_napari_viewer(show=True)
    widget = ReaderStudyWidget(viewer)
    viewer.window.add_dock_widget(widget)
    widget.add_journals([notes])
    qtbot.waitUntil(lambda: bool(errors) and not widget.busy, timeout=15_000)
    assert str(notes) in errors[0] and widget.study is None
    assert widget.tables["Verdicts"].rowCount() == 0
    assert not Path(tmp_path / "readers.csv").exists()
