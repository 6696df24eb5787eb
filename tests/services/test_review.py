"""napari_mood.services.review: flagged regions, verdict records, the review file and its location."""

from __future__ import annotations

import csv
import json
import os
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import ndimage

from napari_mood.core.regions import FlaggedRegion, flagged_regions, rank_regions
from napari_mood.io.errors import MoodInputError
from napari_mood.services.review import (
    ReviewRecord,
    VerdictCounts,
    match_reviews,
    review_record,
    summarize_reviews,
    with_verdict,
)
from napari_mood.services.review_location import (
    ENV_REVIEW_DIR,
    check_review_location,
    default_review_dir,
    default_review_path,
)
from napari_mood.services.review_store import (
    REVIEW_COLUMNS,
    SUMMARY_COLUMNS,
    ReviewFile,
    export_summary,
    read_journal,
    read_reviews,
)


def _scene() -> tuple[np.ndarray, np.ndarray]:
    """Score map with a big blob (GT), a mid blob, a small blob and a one-voxel speck.

    Scores are exact in float16, as MOOD reads them.
    """
    score = np.zeros((20, 20, 20), dtype=np.float32)
    score[2:6, 2:6, 2:6] = 0.75  # 64 voxels, on the GT
    score[10:13, 10:13, 10:13] = 0.875  # 27 voxels
    score[15:17, 2:4, 2:4] = 0.9375  # 8 voxels
    score[18, 18, 18] = 0.96875  # speck
    gt = np.zeros(score.shape, dtype=np.uint8)
    gt[2:6, 2:6, 2:6] = 1
    return score, gt


def _region(object_id: int, centroid: tuple[float, ...], bbox, *, score=0.9, size=8):
    return FlaggedRegion(object_id, size, None, centroid, bbox, score, score, True)


def _record(region: FlaggedRegion, verdict="true finding", *, case="c", method="m", **kw):
    kw.setdefault("threshold", 0.5)
    kw.setdefault("time", "2025-01-01T10:00:00+00:00")
    world = tuple(2.0 * v for v in region.centroid_voxel)
    return review_record(
        region, case=case, method=method, centroid_world_mm=world, verdict=verdict, **kw
    )


# --------------------------------------------------------------------------- regions


def test_regions_agree_with_an_independent_labelling():
    score, gt = _scene()
    regions = flagged_regions(score, gt, threshold=0.5, scope="all", spacing=(2.0, 1.0, 1.0))
    labels, n = ndimage.label(score >= 0.5, structure=np.ones((3, 3, 3)))
    index = np.arange(1, n + 1)
    expected = sorted(
        zip(
            ndimage.maximum(score, labels, index),
            np.bincount(labels.ravel())[1:],
            strict=True,
        ),
        key=lambda pair: (-pair[0], -pair[1]),
    )
    assert [(r.max_score, r.size_voxels) for r in regions] == expected
    assert [r.size_mm3 for r in regions] == [2.0 * r.size_voxels for r in regions]
    big = next(r for r in regions if r.size_voxels == 64)
    assert big.centroid_voxel == pytest.approx((3.5, 3.5, 3.5))
    assert big.bbox == ((2, 6), (2, 6), (2, 6))


def test_window_scope_drops_what_the_mood_score_discards():
    score, gt = _scene()
    everything = flagged_regions(score, gt, threshold=0.5, scope="all")
    counted = flagged_regions(score, gt, threshold=0.5)  # window (32, 128) from the 64-voxel GT
    assert [r.size_voxels for r in counted] == [64]
    assert {r.size_voxels for r in everything if not r.in_window} == {27, 8, 1}


def test_without_ground_truth_every_region_is_counted():
    score, _ = _scene()
    assert len(flagged_regions(score, threshold=0.5)) == 4
    assert all(r.in_window for r in flagged_regions(score, threshold=0.5))


def test_regions_follow_the_threshold_and_the_score_rule():
    score, gt = _scene()
    found = flagged_regions(score, gt, threshold=0.85, scope="all")
    assert [r.max_score for r in found] == [0.96875, 0.9375, 0.875]
    assert flagged_regions(score, gt, threshold=1.0, scope="all") == ()


def test_bad_scope_is_refused():
    score, gt = _scene()
    with pytest.raises(ValueError, match="scope must be one of 'window', 'all'"):
        flagged_regions(score, gt, threshold=0.5, scope="some")  # type: ignore[arg-type]


def test_ranking_breaks_ties_by_size_then_id():
    a = _region(3, (0.0,), ((0, 1),), score=0.5, size=4)
    b = _region(1, (5.0,), ((5, 6),), score=0.5, size=4)
    c = _region(2, (9.0,), ((9, 10),), score=0.5, size=9)
    d = _region(4, (12.0,), ((12, 13),), score=0.7, size=1)
    assert [r.object_id for r in rank_regions([a, b, c, d])] == [4, 2, 1, 3]


# --------------------------------------------------------------------------- records


def test_record_checks_verdict_and_coordinates():
    region = _region(1, (1.0, 2.0), ((0, 3), (1, 4)))
    with pytest.raises(ValueError, match="verdict must be one of"):
        _record(region, "maybe")
    with pytest.raises(ValueError, match="3 values for a 2-D region"):
        review_record(
            region,
            case="c",
            method="m",
            threshold=0.5,
            centroid_world_mm=(1, 2, 3),
            verdict="unsure",
        )
    record = _record(region, "unsure", note="  look again  ")
    assert (record.note, record.object_id, record.centroid_world_mm) == (
        "look again",
        1,
        (2.0, 4.0),
    )


def test_now_is_utc_iso():
    region = _region(1, (1.0,), ((0, 3),))
    record = review_record(
        region, case="c", method="m", threshold=0.5, centroid_world_mm=(1.0,), verdict="unsure"
    )
    assert record.time.endswith("+00:00") and "T" in record.time


def test_with_verdict_replaces_same_key_and_the_replaced_record():
    region = _region(1, (1.0,), ((0, 3),))
    first = _record(region, "unsure")
    other = _record(_region(2, (8.0,), ((7, 9),)), "false alarm")
    again = _record(region, "true finding")
    assert with_verdict([first, other], again) == (other, again)
    moved = _record(_region(5, (1.0,), ((0, 3),)), "false alarm", threshold=0.7)
    assert with_verdict([first, other], moved, replaces=first) == (other, moved)


# --------------------------------------------------------------------------- matching


def test_verdicts_survive_a_threshold_change():
    score, gt = _scene()
    at_half = flagged_regions(score, gt, threshold=0.5, scope="all")
    records = [_record(r, "true finding") for r in at_half]
    score[2, 2:6, 2:6] = 0.625  # at 0.7 the big region loses a face: smaller, centroid moves
    at_higher = flagged_regions(score, gt, threshold=0.7, scope="all")
    matched = match_reviews(at_higher, records, case="c", method="m")
    assert sorted(matched) == sorted(r.object_id for r in at_higher)
    big = next(r for r in at_higher if r.size_voxels == 48)
    assert matched[big.object_id].size_voxels == 64  # the record made at 0.5


def test_matching_needs_same_case_and_method_and_a_containing_box():
    region = _region(1, (5.0, 5.0), ((3, 8), (3, 8)))
    far = _region(2, (15.0, 15.0), ((14, 17), (14, 17)))
    inside = _record(_region(9, (7.4, 3.0), ((7, 8), (3, 4))))
    outside = _record(_region(9, (8.6, 3.0), ((8, 9), (3, 4))))  # beyond half a voxel
    assert match_reviews([region, far], [inside], case="c", method="m")[1] is inside
    assert match_reviews([region, far], [outside], case="c", method="m") == {}
    assert match_reviews([region], [inside], case="other", method="m") == {}
    assert match_reviews([region], [inside], case="c", method="other") == {}


def test_nearest_region_wins_and_newest_verdict_wins():
    wide = _region(1, (5.0, 5.0), ((0, 11), (0, 11)))
    small = _region(2, (8.0, 8.0), ((7, 10), (7, 10)))
    record = _record(_region(7, (8.2, 8.1), ((8, 9), (8, 9))))
    assert list(match_reviews([wide, small], [record], case="c", method="m")) == [2]
    old = _record(_region(3, (4.0, 4.0), ((4, 5), (4, 5))), "false alarm")
    new = _record(
        _region(4, (6.0, 6.0), ((6, 7), (6, 7))), "unsure", time="2025-01-02T09:00:00+00:00"
    )
    for order in ([old, new], [new, old]):
        assert match_reviews([wide], order, case="c", method="m")[1].verdict == "unsure"


# --------------------------------------------------------------------------- file


NOTES = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40).map(str.strip)


@given(note=NOTES)
def test_file_round_trip_keeps_every_field(tmp_path_factory, note):
    path = tmp_path_factory.mktemp("r") / "review.csv"
    region = FlaggedRegion(7, 12, 96.0, (1.25, 2.5, 3.0), ((0, 3),) * 3, 0.8125, 0.5, True)
    record = _record(region, "false alarm", note=note)
    ReviewFile(path).save(record)
    (back,) = read_reviews(path)
    assert back == record
    assert [p.name for p in path.parent.iterdir()] == ["review.csv"]  # no temporary left


def test_file_has_the_documented_columns(tmp_path: Path):
    path = tmp_path / "review.csv"
    region = _region(1, (1.0, 2.0, 3.0), ((0, 3),) * 3)
    ReviewFile(path).save(_record(region, note='says "hi", twice\nsecond line'))
    with path.open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert tuple(rows[0]) == REVIEW_COLUMNS
    assert rows[0]["centroid_world_mm"] == "2.0000 4.0000 6.0000"
    assert rows[0]["note"] == 'says "hi", twice\nsecond line'
    assert rows[0]["verdict"] == "true finding"


def test_failed_write_leaves_the_file_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "review.csv"
    region = _region(1, (1.0,), ((0, 3),))
    ReviewFile(path).save(_record(region, "unsure"))
    before = path.read_bytes()

    def full_disk(descriptor, data):
        raise OSError("disk full")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="disk full"):
        ReviewFile(path).save(_record(region, "true finding"))
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["review.csv"]


def test_missing_file_has_no_verdicts(tmp_path: Path):
    assert read_reviews(tmp_path / "none.csv") == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a,b\n1,2\n", "is not a napari-mood review file"),
        (
            ",".join(REVIEW_COLUMNS) + "\nc,m,0.5,1,1 2,2 4,3,,0.9,great,,2025-01-01T00:00:00\n",
            "line 2",
        ),
        (
            ",".join(REVIEW_COLUMNS) + "\nc,m,0.5,1,1 2,2,3,,0.9,unsure,,2025-01-01T00:00:00\n",
            "same number",
        ),
        (",".join(REVIEW_COLUMNS) + "\nc,m,0.5,1,1 2,2 4,3,,0.9,unsure,,yesterday\n", "line 2"),
    ],
)
def test_bad_file_names_itself_and_says_what_to_do(tmp_path: Path, text: str, message: str):
    path = tmp_path / "review.csv"
    path.write_text(text)
    with pytest.raises(MoodInputError, match=message) as info:
        read_reviews(path)
    assert info.value.path == path
    assert "choose another review file" in str(info.value)


def test_review_file_saves_each_verdict_at_once(tmp_path: Path):
    path = tmp_path / "sub" / "review.csv"
    book = ReviewFile(path)
    region = _region(1, (1.0,), ((0, 3),))
    book.save(_record(region, "unsure"))
    assert [r.verdict for r in read_reviews(path)] == ["unsure"]
    book.save(_record(region, "false alarm"))
    assert [r.verdict for r in ReviewFile(path).records] == ["false alarm"]


# --------------------------------------------------------------------------- summary


def _judged() -> list[ReviewRecord]:
    regions = [_region(i, (float(i),), ((i, i + 1),), score=i / 10) for i in range(1, 6)]
    verdicts = ["true finding", "false alarm", "false alarm", "unsure", "true finding"]
    records = [
        _record(r, v, case=f"case{r.object_id % 2}") for r, v in zip(regions, verdicts, strict=True)
    ]
    return [*records, _record(regions[0], "unsure", method="other")]


def test_summary_counts_per_method():
    assert summarize_reviews(_judged()) == (
        VerdictCounts("m", cases=2, true_finding=2, false_alarm=2, unsure=1),
        VerdictCounts("other", cases=1, true_finding=0, false_alarm=0, unsure=1),
    )


def test_export_writes_counts_and_regions(tmp_path: Path):
    counts, objects = export_summary(tmp_path / "summary.csv", _judged())
    assert objects == tmp_path / "summary-objects.csv"
    with counts.open(newline="") as stream:
        rows = list(csv.reader(stream))
    assert rows == [
        list(SUMMARY_COLUMNS),
        ["m", "2", "5", "2", "2", "1"],
        ["other", "1", "1", "0", "0", "1"],
    ]
    back = read_reviews(objects)  # the per-region file is a review file too
    assert sorted(back, key=lambda r: (r.method, r.object_id)) == sorted(
        _judged(), key=lambda r: (r.method, r.object_id)
    )
    assert [(r.case, r.method, r.max_score) for r in back][:3] == [
        ("c", "other", 0.1),
        ("case0", "m", 0.4),
        ("case0", "m", 0.2),
    ]


# --------------------------------------------------------------------------- location


def test_default_dir_is_the_variable_when_set(tmp_path: Path):
    assert default_review_dir({ENV_REVIEW_DIR: str(tmp_path)}) == tmp_path


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG rule is Linux's")
def test_default_dir_on_linux_is_the_xdg_data_folder(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HOME", "/home/ana")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_review_dir({}) == Path("/home/ana/.local/share/napari-mood/reviews")
    monkeypatch.setenv("XDG_DATA_HOME", "/xdg")
    assert default_review_dir({}) == Path("/xdg/napari-mood/reviews")


def test_default_dir_is_platformdirs_user_data_folder():
    import platformdirs

    expected = Path(platformdirs.user_data_dir("napari-mood", appauthor=False), "reviews")
    assert default_review_dir({}) == expected


def test_default_path_keeps_same_named_datasets_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(ENV_REVIEW_DIR, str(tmp_path / "reviews"))
    first = default_review_path(tmp_path / "a" / "mood")
    second = default_review_path(tmp_path / "b" / "mood")
    assert first.parent == second.parent == tmp_path / "reviews"
    assert first != second and first.name.startswith("mood-") and first.suffix == ".csv"
    assert default_review_path(tmp_path / "a" / "mood") == first
    assert default_review_path(None) == tmp_path / "reviews" / "reviews.csv"


def test_location_inside_the_data_is_refused(tmp_path: Path):
    dataset, preds = tmp_path / "data", tmp_path / "preds" / "m"
    scan = dataset / "toy" / "case.nii.gz"
    score = preds / "case.nii.gz"
    with pytest.raises(MoodInputError, match="inside the dataset folder"):
        check_review_location(dataset / "reviews" / "r.csv", datasets=[dataset], files=[scan])
    with pytest.raises(MoodInputError, match="folder of the input file"):
        check_review_location(preds / "r.csv", datasets=[dataset], files=[scan, score])
    ok = tmp_path / "elsewhere" / "r.csv"
    assert (
        check_review_location(ok, datasets=[dataset, None], files=[scan, score, None])
        == ok.resolve()
    )
    assert (
        check_review_location(preds / "sub" / "r.csv", files=[score])
        == (preds / "sub" / "r.csv").resolve()
    )


def test_review_module_imports_no_gui():
    code = (
        "import json, sys; import napari_mood.services.review; "
        "print(json.dumps([m for m in ('napari', 'qtpy', 'PyQt5', 'vispy') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_docstring_examples_run():
    import doctest

    import napari_mood.core.regions as regions
    import napari_mood.services.review as review

    results = [doctest.testmod(module) for module in (regions, review)]
    assert sum(r.failed for r in results) == 0 and sum(r.attempted for r in results) >= 20


# --------------------------------------------------------------------------- sharing


def test_two_writers_keep_each_others_verdicts(tmp_path: Path):
    path = tmp_path / "review.csv"
    r1, r2, r3 = (_record(_region(i, (float(i),), ((i, i + 1),)), "unsure") for i in (1, 2, 3))
    a, b = ReviewFile(path), ReviewFile(path)
    a.save(r1)
    b.save(r2)
    a.save(r3)
    assert sorted(r.object_id for r in read_reviews(path)) == [1, 2, 3]
    assert sorted(r.object_id for r in a.records) == [1, 2, 3]  # a sees b's verdict


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs POSIX file locks")
def test_a_reader_waits_for_a_row_being_written(tmp_path: Path):
    import fcntl
    import threading

    path, other = tmp_path / "review.csv", tmp_path / "other.csv"
    r1, r2 = (_record(_region(i, (float(i),), ((i, i + 1),)), "unsure") for i in (1, 2))
    ReviewFile(path).save(r1)
    ReviewFile(other).save(r2)
    row = other.read_bytes().splitlines(keepends=True)[-1]
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND)
    fcntl.flock(descriptor, fcntl.LOCK_EX)  # what a writer holds while it appends
    os.write(descriptor, row[:12])  # half a row: its time is cut short
    read: list[tuple] = []
    reader = threading.Thread(target=lambda: read.append(read_reviews(path)))
    reader.start()
    reader.join(0.5)
    assert reader.is_alive() and not read  # it waits for the writer
    os.write(descriptor, row[12:])
    os.close(descriptor)
    reader.join(10)
    assert sorted(r.object_id for r in read[0]) == [1, 2]


def _append_verdicts(path: str, start: int, count: int) -> None:
    book = ReviewFile(path)
    for i in range(start, start + count):
        book.save(_record(_region(i, (float(i),), ((i, i + 1),)), "false alarm"))


def test_processes_writing_at_once_lose_nothing(tmp_path: Path):
    import multiprocessing

    path = tmp_path / "review.csv"
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_append_verdicts, args=(str(path), 100 * k, 25)) for k in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert all(worker.exitcode == 0 for worker in workers)
    ids = sorted(r.object_id for r in read_reviews(path))
    assert ids == sorted(100 * k + i for k in range(4) for i in range(25))
    assert path.read_text().count("case,method,threshold") == 1  # one header


def test_writes_and_reads_take_filelocks_lock_and_release_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # filelock's lock on the journal itself: flock on POSIX, LockFileEx on Windows (the old
    # fcntl-only lock left Windows without any)
    from filelock import lock_descriptor, unlock_descriptor

    import napari_mood.services.review_store as store

    taken: list[int] = []

    def spy(descriptor: int, **options) -> bool:
        taken.append(descriptor)
        return lock_descriptor(descriptor, **options)

    monkeypatch.setattr(store, "lock_descriptor", spy)
    path = tmp_path / "review.csv"
    ReviewFile(path).save(_record(_region(1, (1.0,), ((0, 3),)), "unsure"))
    assert len(taken) >= 2  # the append, then the read that folds the journal
    taken.clear()
    assert [r.verdict for r in read_reviews(path)] == ["unsure"] and taken
    with path.open("rb") as other:  # released: another holder gets it at once
        assert lock_descriptor(other.fileno(), blocking=False)
        unlock_descriptor(other.fileno())


def test_permissions_are_kept_and_a_read_only_file_is_refused(tmp_path: Path):
    path = tmp_path / "review.csv"
    region = _region(1, (1.0,), ((0, 3),))
    ReviewFile(path).save(_record(region, "unsure"))
    path.chmod(0o664)
    ReviewFile(path).save(_record(region, "false alarm"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
    path.chmod(0o444)
    before = path.read_bytes()
    if os.geteuid() != 0:  # root may write anyway; the check is on the permission bits
        with pytest.raises(MoodInputError, match="read-only"):
            ReviewFile(path)
    assert path.read_bytes() == before and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_withdrawn_verdicts_and_moved_verdicts(tmp_path: Path):
    path = tmp_path / "review.csv"
    book = ReviewFile(path)
    first = _record(_region(1, (1.0,), ((0, 3),)), "unsure")
    book.save(first)
    moved = _record(_region(2, (1.0,), ((0, 3),)), "true finding")
    book.save(moved, replaces=first)
    assert [r.object_id for r in book.records] == [2]
    book.withdraw(moved, time="2030-01-01T00:00:00+00:00")
    assert book.records == () and read_reviews(path) == ()
    assert len(read_journal(path)) == 4  # nothing is ever rewritten


def test_files_of_earlier_versions_and_excel_boms_read(tmp_path: Path):
    path = tmp_path / "old.csv"
    old_columns = [c for c in REVIEW_COLUMNS if c != "reviewer"]
    row = "c,m,0.5,1,1.0000,2.0000,3,,0.9,unsure,a note,2025-01-01T00:00:00+00:00"
    path.write_text("\ufeff" + ",".join(old_columns) + "\n" + row + "\n", encoding="utf-8")
    (record,) = read_reviews(path)
    assert (record.verdict, record.note, record.reviewer) == ("unsure", "a note", "")
    ReviewFile(path).save(replace(record, verdict="false alarm", time="2025-02-01T00:00:00+00:00"))
    assert [r.verdict for r in read_reviews(path)] == ["false alarm"]
