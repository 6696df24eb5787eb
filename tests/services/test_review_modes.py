"""Issue 36, review that never misfires (no napari): what each review mode shows, the
adjudication column of the journal, adjudication lists from a study, object places."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from nibabel.affines import apply_affine

from napari_mood.core.objects import match_objects
from napari_mood.core.orientation import display_transform
from napari_mood.core.regions import flagged_regions
from napari_mood.io.errors import MoodInputError
from napari_mood.services.adjudication import adjudication_list, read_adjudication
from napari_mood.services.object_views import object_place
from napari_mood.services.reader_study import reader_study
from napari_mood.services.reader_study_report import study_files
from napari_mood.services.review import same_key_verdict
from napari_mood.services.review_mode import ReviewMode
from napari_mood.services.review_regions import FoundRegions
from napari_mood.services.review_store import (
    REVIEW_COLUMNS,
    ReviewFile,
    ReviewFileError,
    read_journal,
    read_reviews,
)
from tests.reader_journals import random_readers, record, write_reader


def _open_blind_adjudicated(object_id: int = 1):
    seen = record("ana", "c", "m", object_id, "true finding", 0)
    blind = replace(seen, verdict="false alarm", blind_seed=7)
    judged = replace(seen, reviewer="cy", verdict="unsure", adjudication=True)
    return seen, blind, judged


# --------------------------------------------------------------------------- modes


def test_each_mode_shows_only_its_own_verdicts():
    seen, blind, judged = _open_blind_adjudicated()
    everything = (seen, blind, judged)
    disputes = adjudication_list(
        [(seen, [("ana", "true finding"), ("ben", "unsure")], False)], ["ana", "ben"]
    )
    assert ReviewMode().stored(everything) == everything
    assert ReviewMode(seed=7).stored(everything) == (blind,)  # no open verdict, no note
    assert ReviewMode(adjudication=disputes).stored(everything) == (judged,)
    assert ReviewMode(seed=3, adjudication=disputes).stored(everything) == (judged,)
    tags = [ReviewMode.tag_of(r) for r in everything]
    assert tags == ["open", "blind", "adjudication"]
    assert ReviewMode(seed=3, adjudication=disputes).tag == "blind adjudication"


def test_adjudication_walks_only_the_disputed_regions_blind_shuffles_them():
    score = np.zeros((40, 8, 8), np.float32)
    for k in range(4):
        score[10 * k + 2 : 10 * k + 5, 3:6, 3:6] = 0.9 - k / 10
    regions = flagged_regions(score, threshold=0.5)
    found = FoundRegions("c", "m", 0.5, regions, np.zeros(1))
    place = replace(
        record("ana", "c", "m", 1, "unsure", 0), centroid_voxel=regions[2].centroid_voxel
    )
    disputes = adjudication_list(
        [(place, [("ana", "unsure"), ("ben", "false alarm")], False)], ["ana", "ben"]
    )
    assert ReviewMode().regions(found) == regions
    assert {r.object_id for r in ReviewMode(seed=5).regions(found)} == {
        r.object_id for r in regions
    }
    assert ReviewMode(seed=5).regions(found) != regions
    mode = ReviewMode(adjudication=disputes)
    assert mode.regions(found) == (regions[2],)
    assert mode.dispute(regions[2], case="c", method="m").verdicts == (
        ("ana", "unsure"),
        ("ben", "false alarm"),
    )
    assert mode.dispute(regions[0], case="c", method="m") is None
    assert ReviewMode().dispute(regions[2], case="c", method="m") is None


def test_undo_puts_back_the_same_readers_open_verdict_only():
    seen, blind, judged = _open_blind_adjudicated()
    assert same_key_verdict([seen], blind) == seen  # blind replaced ana's open verdict
    assert same_key_verdict([seen], judged) is None  # never another reader's row
    assert same_key_verdict([blind], blind) is None


def test_an_adjudication_list_from_a_study_is_the_file_read_back(tmp_path):
    journals = [
        write_reader(tmp_path / f"{n}.csv", n, rows) for n, rows in random_readers(2).items()
    ]
    study = reader_study(journals)
    path = tmp_path / "disagreements.csv"
    path.write_text(study_files(study)["disagreements.csv"])
    direct = adjudication_list(
        [(d.record, d.verdicts, d.blind) for d in study.disagreements], study.readers
    )
    read = read_adjudication(path)
    assert direct.readers == read.readers and len(direct.items) == len(study.disagreements) > 0
    for mine, theirs in zip(direct.items, read.items, strict=True):
        assert (mine.case, mine.method, mine.object_id, mine.verdicts, mine.blind) == (
            theirs.case,
            theirs.method,
            theirs.object_id,
            theirs.verdicts,
            theirs.blind,
        )
        assert mine.centroid_voxel == pytest.approx(theirs.centroid_voxel, abs=1e-4)
    assert direct.methods() == tuple(dict.fromkeys(i.method for i in direct.items))


# --------------------------------------------------------------------------- journal


def test_adjudicated_verdicts_are_journal_rows_marked_and_no_readers(tmp_path: Path):
    seen, blind, judged = _open_blind_adjudicated()
    ana = write_reader(tmp_path / "ana.csv", "ana", [("c", "m", 1, "true finding")])
    write_reader(tmp_path / "ben.csv", "ben", [("c", "m", 1, "false alarm")])
    book = ReviewFile(tmp_path / "cy.csv")
    book.save(judged)
    ((back, withdrawn),) = read_journal(book.path)
    assert back == judged and back.adjudication and not withdrawn
    with book.path.open(newline="") as stream:
        (row,) = list(csv.DictReader(stream))
    assert row["adjudication"] == "yes" and list(row) == list(REVIEW_COLUMNS)
    study = reader_study([ana, tmp_path / "ben.csv", book.path])
    assert study.readers == ("ana", "ben") and len(study.disagreements) == 1


def test_old_journals_read_and_refuse_a_mark_they_would_drop(tmp_path: Path):
    seen, blind, judged = _open_blind_adjudicated()
    path = tmp_path / "old.csv"
    old = [c for c in REVIEW_COLUMNS if c not in ("blind_seed", "adjudication")]
    path.write_text(",".join(old) + "\n")
    ReviewFile(path).save(seen)  # an open verdict: written as before
    assert read_reviews(path)[0].adjudication is False
    for marked in (blind, judged):
        before = path.read_bytes()
        with pytest.raises(ReviewFileError, match="without the .* column") as caught:
            ReviewFile(path).save(replace(marked, object_id=9))
        assert str(path) in str(caught.value) and "choose a new review file" in str(caught.value)
        assert path.read_bytes() == before  # nothing written


@pytest.mark.parametrize(("cell", "expected"), [("", False), ("no", False), ("yes", True)])
def test_adjudication_cells(tmp_path: Path, cell: str, expected: bool):
    path = tmp_path / "review.csv"
    ReviewFile(path).save(record("ana", "c", "m", 1, "unsure", 0))
    text = path.read_text().splitlines()
    path.write_text(f"{text[0]}\n{text[1][: text[1].rfind(',') + 1]}{cell}\n")
    assert read_reviews(path)[0].adjudication is expected


def test_a_bad_adjudication_cell_names_the_file(tmp_path: Path):
    path = tmp_path / "review.csv"
    ReviewFile(path).save(record("ana", "c", "m", 1, "unsure", 0))
    text = path.read_text().splitlines()
    path.write_text(f"{text[0]}\n{text[1]}maybe\n")
    with pytest.raises(MoodInputError, match="adjudication must be yes, no or empty"):
        read_reviews(path)


# --------------------------------------------------------------------------- places


@pytest.mark.parametrize(
    "affine",
    [
        np.diag([2.0, 2.0, 2.0, 1.0]),
        np.array([[0, 0, -1.5, 90], [-2.0, 0, 0, 20], [0, 3.0, 0, -40], [0, 0, 0, 1]]),
    ],
)
def test_object_places_are_file_voxels_and_ras_by_the_affine(affine):
    shape = (9, 11, 7)
    transform = display_transform(shape, affine)
    file_score = np.zeros(shape, np.float32)
    file_score[2:5, 6:9, 1:3] = 0.9  # a box in FILE indices, centre (3, 7, 1.5)
    score = transform.to_display(file_score)
    record = match_objects(score, score > 0, threshold=0.5).objects[0]
    place = object_place(record, transform)
    assert place.file_voxel == pytest.approx((3.0, 7.0, 1.5))
    assert place.ras_mm == pytest.approx(tuple(apply_affine(affine, (3.0, 7.0, 1.5))))
    displayed = object_place(record, None)  # no affine: the displayed index, no RAS
    assert displayed.file_voxel == record.centroid_voxel and displayed.ras_mm is None
