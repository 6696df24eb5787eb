"""Adjudication end to end: two readers disagree -> "Adjudicate disagreements" -> the
review panel walks the disputed region -> T -> an adjudicated journal row."""

from __future__ import annotations

import csv
from pathlib import Path

from qtpy.QtCore import Qt
from qtpy.QtWidgets import QApplication, QLineEdit, QPushButton

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.reader_study import ReaderStudyWidget
from napari_mood._napari.widgets.review import ReviewWidget
from napari_mood.core.regions import flagged_regions
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.reader_study import reader_study
from napari_mood.services.review import review_record
from napari_mood.services.review_store import ReviewFile, read_journal
from tests.napari import ui
from tests.napari.widgets.test_review import _control, _wait, needs_sample
from tests.napari.widgets.test_review_never_misfires import (  # noqa: F401  (autouse: pictures to tmp_path)
    _click_canvas,
    _press,
    _shot,
    _shots_in_tmp_path,
)

pytestmark = needs_sample
METHOD = "residual"


def _regions(session):
    method, gt = session.method(METHOD), session.gt_layer
    found = flagged_regions(
        method.data, gt.data, threshold=method.threshold, scope="window", spacing=method.layer.scale
    )
    return method, found


def _write_readers(folder: Path, session, said: dict[str, list[str]]) -> list[Path]:
    """One journal per reader: reader -> verdict of region 0, 1, ... (as the panel writes)."""
    method, regions = _regions(session)
    paths = []
    for reader, verdicts in said.items():
        book = ReviewFile(folder / f"{reader}.csv")
        for k, verdict in enumerate(verdicts):
            region = regions[k]
            book.save(
                review_record(
                    region,
                    case=session.case,
                    method=METHOD,
                    threshold=method.threshold,
                    centroid_world_mm=tuple(method.layer.data_to_world(region.centroid_voxel)),
                    verdict=verdict,  # type: ignore[arg-type]
                    time=f"2025-03-01T09:0{k}:00+00:00",
                    reviewer=reader,
                )
            )
        paths.append(book.path)
    return paths


def test_disagreements_open_as_a_review_queue_and_verdicts_are_journal_rows(
    make_napari_viewer, qtbot, tmp_path, review_dir
):
    viewer = make_napari_viewer(show=True)
    session = load_into_viewer(viewer, [sample_data_dir()])
    journals = _write_readers(
        tmp_path,
        session,
        {
            "ana": ["true finding", "false alarm", "true finding"],
            "ben": ["true finding", "false alarm", "false alarm"],  # disagree on region 3
        },
    )
    disputed = _regions(session)[1][2]
    _, study_panel = viewer.window.add_plugin_dock_widget("napari-mood", "Reader study")
    assert isinstance(study_panel, ReaderStudyWidget)
    study_panel.add_journals(journals)
    qtbot.waitUntil(lambda: study_panel.study is not None and not study_panel.busy, timeout=15_000)
    assert study_panel.tables["Disagreements"].rowCount() == 1
    adjudicate = ui.control(study_panel, "Adjudicate disagreements", QPushButton)
    assert adjudicate.isEnabled()
    _shot(study_panel, "reader-study-adjudicate.png")
    ui.type_into(ui.control(study_panel, "Adjudicator's name", QLineEdit), "cy")
    ui.click(adjudicate)

    _, review = viewer.window.add_plugin_dock_widget("napari-mood", "Review flagged regions")
    assert isinstance(review, ReviewWidget)
    _wait(qtbot, review, METHOD)
    qtbot.waitUntil(lambda: len(review.regions) == 1, timeout=15_000)
    assert review.regions == (disputed,) and review.current_region == disputed
    assert (
        _control(review, "adjudication").isChecked()
        and _control(review, "adjudication").isVisible()
    )
    said = _control(review, "readers").text()
    assert "ana: <b>true finding</b>" in said and "ben: <b>false alarm</b>" in said
    assert review.verdicts == {}  # the readers' verdicts are not the adjudication's
    _shot(review, "review-adjudication.png")

    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_T)
    events = read_journal(review.review_path)
    assert len(events) == 1
    (record, withdrawn), *_ = events
    assert not withdrawn and record.adjudication and record.reviewer == "cy"
    assert (record.case, record.method, record.object_id, record.verdict) == (
        session.case,
        METHOD,
        disputed.object_id,
        "true finding",
    )
    with review.review_path.open(newline="") as stream:
        (row,) = list(csv.DictReader(stream))
    assert row["adjudication"] == "yes" and row["reviewer"] == "cy"

    study = reader_study([*journals, review.review_path])  # adjudications are no reader's
    assert study.readers == ("ana", "ben") and len(study.disagreements) == 1
    _press(qtbot, Qt.Key.Key_N)  # the only disputed region of the only disputed case
    qtbot.waitUntil(
        lambda: "End of the queue" in _control(review, "queue_label").text(), timeout=5000
    )

    _control(review, "adjudication").setChecked(False)  # back to a plain review: every region
    qtbot.waitUntil(lambda: len(review.regions) > 1, timeout=15_000)
    _wait(qtbot, review, METHOD)
    assert (
        not _control(review, "adjudication").isVisible()
        and _control(review, "reviewer").text() != "cy"
    )
    assert review.verdicts[disputed.object_id].verdict == "true finding"
    assert QApplication.focusWidget() is not None
