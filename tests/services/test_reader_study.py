"""napari_mood.services.reader_study and .adjudication on journals of simulated readers."""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from napari_mood.core.regions import flagged_regions
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.services.adjudication import (
    ADJUDICATION_COLUMNS,
    AdjudicationItem,
    AdjudicationList,
    read_adjudication,
)
from napari_mood.services.reader_study import ReaderStudy, reader_study
from napari_mood.services.reader_study_report import (
    REPORT_FILES,
    format_study,
    study_files,
    study_frames,
    write_study,
)
from napari_mood.services.review import VERDICTS
from napari_mood.services.review_queue import review_queue
from napari_mood.services.review_store import ReviewFile, read_reviews
from tests.conftest import make_mood_folder
from tests.reader_journals import (
    CASES,
    METHODS,
    random_readers,
    record,
    when,
    write_reader,
)

statsmodels = pytest.importorskip("statsmodels")
from statsmodels.stats.inter_rater import aggregate_raters  # noqa: E402
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa  # noqa: E402
from statsmodels.stats.proportion import proportion_confint  # noqa: E402


def _journals(folder: Path, table) -> list[Path]:
    return [write_reader(folder / f"{name}.csv", name, rows) for name, rows in table.items()]


def _by_key(table) -> dict[tuple[str, str, int], dict[str, str]]:
    regions: dict[tuple[str, str, int], dict[str, str]] = {}
    for reader, rows in table.items():
        for case, method, object_id, verdict in rows:
            regions.setdefault((case, method, object_id), {})[reader] = verdict
    return regions


def _sklearn(a, b) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(cohen_kappa_score(a, b, labels=list(VERDICTS)))


@pytest.fixture(params=[0, 1, 2])
def simulated(request, tmp_path) -> tuple[ReaderStudy, dict]:
    table = random_readers(request.param)
    return reader_study(_journals(tmp_path, table)), table


# --------------------------------------------------------------------------- statistics


def test_counts_and_precision_per_reader_and_method(simulated):
    study, table = simulated
    assert study.readers == ("ana", "ben", "cy", "dee")
    for row in study.counts:
        said = [v for c, m, _, v in table[row.reader] if m == row.method]
        assert (row.true_finding, row.false_alarm, row.unsure) == tuple(
            said.count(v) for v in VERDICTS
        )
        decided = row.true_finding + row.false_alarm
        assert row.precision == pytest.approx(row.true_finding / decided)  # unsure left out
        low, high = proportion_confint(row.true_finding, decided, alpha=0.05, method="wilson")
        assert (row.precision_low, row.precision_high) == (pytest.approx(low), pytest.approx(high))
        assert row.cases == 2 and row.blind == 0
    cy = [row for row in study.counts if row.reader == "cy"]
    assert all(row.unsure == 0 for row in cy)  # the reader who never answers unsure


def test_cohen_per_pair_equals_scikit_learn(simulated):
    study, table = simulated
    regions = _by_key(table)
    for pair in study.pairs:
        first, second = pair.readers
        shared = [v for v in regions.values() if first in v and second in v]
        a, b = [v[first] for v in shared], [v[second] for v in shared]
        assert pair.shared == len(shared)
        if shared:
            assert pair.agreement.kappa == pytest.approx(_sklearn(a, b), nan_ok=True)
        else:
            assert math.isnan(pair.agreement.kappa)
    ana_ben = next(p for p in study.pairs if p.readers == ("ana", "ben"))
    ana_cy = next(p for p in study.pairs if p.readers == ("ana", "cy"))
    assert (ana_ben.shared, ana_cy.shared) == (16, 24)  # ben left regions 1 and 2 out
    assert next(p for p in study.pairs if p.readers == ("ana", "dee")).shared == 0


def test_fleiss_over_regions_every_reader_judged_equals_statsmodels(tmp_path):
    table = random_readers(5)
    del table["dee"]  # dee shares no region: Fleiss would have none
    study = reader_study(_journals(tmp_path, table))
    regions = _by_key(table)
    complete = [v for v in regions.values() if len(v) == 3]
    codes = np.array([[VERDICTS.index(v[r]) for r in ("ana", "ben", "cy")] for v in complete])
    counts, _ = aggregate_raters(codes, n_cat=3)
    assert study.overall.statistic == "fleiss" and study.overall.shared == len(complete) == 16
    assert study.overall.agreement.kappa == pytest.approx(sm_fleiss_kappa(counts))


def test_regions_seen_by_one_reader_only(simulated):
    study, _ = simulated
    assert study.single_reader_regions == 4  # dee's region 7 of each case and method
    assert study.regions == len(CASES) * len(METHODS) * 7
    assert study.overall.shared == 0  # nothing seen by all four readers
    assert math.isnan(study.overall.agreement.kappa)
    dee = [row for row in study.counts if row.reader == "dee"]
    assert [row.true_finding for row in dee] == [2, 2]  # counted for the reader
    assert not any(d.key[3] == 7 for d in study.disagreements)


def test_all_agree_on_one_verdict_is_undefined_kappa(tmp_path):
    rows = [("c", "m", k, "false alarm") for k in (1, 2, 3)]
    study = reader_study(_journals(tmp_path, {"ana": rows, "ben": rows}))
    (pair,) = study.pairs
    assert math.isnan(pair.agreement.kappa) and pair.agreement.observed == 1.0
    assert not study.disagreements
    assert "n/a" in format_study(study, "table")
    assert json.loads(format_study(study, "json"))["agreement"]["pairs"][0]["kappa"] is None


def test_all_agree_on_two_verdicts_is_kappa_one(tmp_path):
    rows = [("c", "m", 1, "false alarm"), ("c", "m", 2, "true finding")]
    study = reader_study(_journals(tmp_path, {"ana": rows, "ben": rows, "cy": rows}))
    assert [p.agreement.kappa for p in study.pairs] == [1.0, 1.0, 1.0]
    assert study.overall.agreement.kappa == 1.0


def test_disagreements_list_every_differing_region(simulated):
    study, table = simulated
    regions = _by_key(table)
    expected = {k for k, v in regions.items() if len(v) > 1 and len(set(v.values())) > 1}
    assert {(d.key[0], d.key[1], d.key[3]) for d in study.disagreements} == expected
    for item in study.disagreements:
        assert dict(item.verdicts) == regions[(item.key[0], item.key[1], item.key[3])]


# --------------------------------------------------------------------------- journals


def test_two_readers_in_one_journal_keep_their_own_verdicts(tmp_path):
    path = tmp_path / "shared.csv"
    book = ReviewFile(path)
    book.save(record("ana", "c", "m", 1, "true finding", 0))
    book.save(record("ben", "c", "m", 1, "false alarm", 30))  # same key: replaces in the fold
    study = reader_study([path])
    assert study.readers == ("ana", "ben")
    (item,) = study.disagreements
    assert dict(item.verdicts) == {"ana": "true finding", "ben": "false alarm"}


def test_undo_and_rejudging_are_per_reader(tmp_path):
    path = tmp_path / "ana.csv"
    book = ReviewFile(path)
    first = record("ana", "c", "m", 1, "unsure", 0)
    book.save(first)
    book.save(record("ana", "c", "m", 1, "true finding", 20))  # judged again
    book.save(record("ana", "c", "m", 2, "false alarm", 40))
    book.withdraw(record("ana", "c", "m", 2, "false alarm", 40), time=when(50))  # undo
    (row,) = reader_study([path]).counts
    assert (row.true_finding, row.false_alarm, row.unsure) == (1, 0, 0)


def test_rows_without_reviewer_take_the_journal_name(tmp_path):
    for folder in ("site1", "site2"):
        write_reader(tmp_path / folder / "review.csv", "", [("c", "m", 1, "unsure")])
    write_reader(tmp_path / "cy.csv", "", [("c", "m", 1, "unsure")])
    paths = [
        tmp_path / "site1" / "review.csv",
        tmp_path / "site2" / "review.csv",
        tmp_path / "cy.csv",
    ]
    assert reader_study(paths).readers == ("cy", "site1/review", "site2/review")


def test_one_reader_in_two_journals_is_one_reader(tmp_path):
    write_reader(tmp_path / "a1.csv", "ana", [("c", "m", 1, "unsure")], start=0)
    write_reader(tmp_path / "a2.csv", "ana", [("c", "m", 1, "false alarm")], start=60)
    study = reader_study([tmp_path / "a2.csv", tmp_path / "a1.csv"])
    assert study.readers == ("ana",)
    (row,) = study.counts
    assert (row.false_alarm, row.unsure) == (1, 0)  # the newer verdict, whatever the order


def test_one_reader_name_in_two_journals_with_other_verdicts_is_warned_with_both_files(tmp_path):
    verdicts = [("c", "m", 1, "unsure"), ("c", "m", 2, "true finding")]
    first = write_reader(tmp_path / "ana.csv", "ana", verdicts)
    other = [("c", "m", 1, "false alarm"), ("c", "m", 2, "true finding")]
    second = write_reader(tmp_path / "ana_copy.csv", "ana", other)  # same times
    with pytest.warns(MoodInputWarning) as record:
        study = reader_study([first, second], warn=True)
    (text,) = [str(w.message) for w in record]
    assert f"reader 'ana' has verdicts in {first} and {second} that differ on 1 region(s)" in text
    assert f"of verdicts at the same time the one in {second} (the journal given last)" in text
    assert text in format_study(study, "table")
    assert study.counts[0].false_alarm == 1  # the journal given last, as the note says


def test_a_control_character_in_a_journal_name_is_refused_naming_file_and_line(tmp_path):
    path = write_reader(
        tmp_path / "ana.csv", "ana", [("c", "m", 1, "unsure"), ("c", "m", 2, "unsure")]
    )
    lines = path.read_text().splitlines()
    lines[2] = (
        lines[2].replace(",c,", ",c\x00x,", 1) if ",c," in lines[2] else "c\x00x" + lines[2][1:]
    )
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        MoodInputError, match=r"line 3 is malformed \(case 'c\\x00x' holds a control"
    ) as caught:
        reader_study([path])
    assert str(path) in str(caught.value)


def test_tied_timestamps_keep_the_file_order(tmp_path):
    path = tmp_path / "ana.csv"
    book = ReviewFile(path)
    book.save(record("ana", "c", "m", 1, "unsure", 0))
    book.save(record("ana", "c", "m", 1, "true finding", 0))  # same second
    study = reader_study([path])
    assert study.counts[0].true_finding == 1
    assert study.times[0].timed == 1 and study.times[0].median_s == 0.0


@pytest.mark.parametrize("where", ["the same journal", "a second journal of the reader"])
def test_a_verdict_row_repeated_exactly_is_timed_once(tmp_path, where):
    path = tmp_path / "ana.csv"
    for k, seconds in enumerate([0, 20, 60]):
        ReviewFile(path).save(record("ana", "c", "m", k + 1, "unsure", seconds))
    text = path.read_text()
    journals = [path]
    if where == "the same journal":
        header, first, *rest = text.splitlines(keepends=True)
        path.write_text(header + first + first + "".join(rest))
    else:
        journals.append(tmp_path / "ana_copy.csv")
        journals[1].write_text(text)
    (time,) = reader_study(journals).times
    assert (time.verdicts, time.timed, time.breaks) == (3, 2, 0)
    assert (time.median_s, time.mean_s, time.total_s) == (30.0, 30.0, 60.0)


def test_time_per_region_leaves_breaks_out(tmp_path):
    path = tmp_path / "ana.csv"
    book = ReviewFile(path)
    for k, seconds in enumerate([0, 20, 60, 60 + 3600, 60 + 3600 + 30]):  # one hour's break
        book.save(record("ana", "c", "m", k + 1, "unsure", seconds))
    book.withdraw(record("ana", "c", "m", 5, "unsure", 0), time=when(3700))  # not a verdict
    (time,) = reader_study([path]).times
    assert (time.verdicts, time.timed, time.breaks) == (5, 3, 1)
    assert (time.median_s, time.mean_s, time.total_s) == (30.0, 30.0, 90.0)
    (longer,) = reader_study([path], max_gap_s=7200).times
    assert longer.breaks == 0 and longer.timed == 4


def test_blind_verdicts_are_counted_under_their_method(tmp_path):
    write_reader(tmp_path / "ana.csv", "ana", [("c", "vae", 1, "true finding")], blind_seed=7)
    write_reader(tmp_path / "ben.csv", "ben", [("c", "vae", 1, "false alarm")])
    study = reader_study([tmp_path / "ana.csv", tmp_path / "ben.csv"])
    ana = next(row for row in study.counts if row.reader == "ana")
    assert (ana.method, ana.blind) == ("vae", 1)
    assert study.disagreements[0].blind
    assert "Method A" not in format_study(study, "table")


def test_different_thresholds_are_not_compared_and_warned(tmp_path):
    ReviewFile(tmp_path / "ana.csv").save(record("ana", "c", "m", 1, "unsure", 0))
    ReviewFile(tmp_path / "ben.csv").save(
        record("ben", "c", "m", 1, "true finding", 0, threshold=0.7)
    )
    with pytest.warns(MoodInputWarning, match="different thresholds"):
        study = reader_study([tmp_path / "ana.csv", tmp_path / "ben.csv"], warn=True)
    assert study.pairs[0].shared == 0 and not study.disagreements


def test_one_key_at_two_places_is_warned(tmp_path):
    ReviewFile(tmp_path / "ana.csv").save(record("ana", "c", "m", 1, "unsure", 0))
    moved = record("ben", "c", "m", 1, "unsure", 0)
    ReviewFile(tmp_path / "ben.csv").save(replace(moved, centroid_voxel=(40.0, 5.0, 5.0)))
    study = reader_study([tmp_path / "ana.csv", tmp_path / "ben.csv"])
    assert any("voxels apart" in w for w in study.warnings)


def test_one_reader_only(tmp_path):
    study = reader_study([write_reader(tmp_path / "a.csv", "ana", [("c", "m", 1, "unsure")])])
    assert study.pairs == () and study.overall.shared == 0
    assert math.isnan(study.counts[0].precision)  # only unsure: no decided verdict
    text = format_study(study, "table")
    assert "one reader only" in text and "n/a" in text
    assert study_files(study)["agreement.csv"].splitlines() == [
        "statistic,readers,shared,observed,expected,kappa"
    ]


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("a,b\n1,2\n", "not a napari-mood review file"),
        ("case,method,threshold,object_id,centroid_voxel,centroid_world_mm,size_voxels,"
         "size_mm3,max_score,verdict,note,time\nc,m,0.5,1,1 2 3,1 2 3,8,,0.9,maybe,,x\n",
         "line 2 is malformed"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_journal_is_named(tmp_path, content, match):
    path = tmp_path / "notes.csv"
    path.write_text(content)
    with pytest.raises(MoodInputError, match=match) as caught:
        reader_study([path])
    assert str(path) in str(caught.value)


def test_missing_and_empty_journals(tmp_path):
    with pytest.raises(MoodInputError, match="not found") as caught:
        reader_study([tmp_path / "gone.csv"])
    assert "gone.csv" in str(caught.value)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(MoodInputError, match="no verdict"):
        reader_study([tmp_path / "empty.csv"])
    write_reader(tmp_path / "ana.csv", "ana", [("c", "m", 1, "unsure")])
    study = reader_study([tmp_path / "ana.csv", tmp_path / "empty.csv"])
    assert any("empty.csv: holds no verdict" in w for w in study.warnings)


@pytest.mark.parametrize("kwargs", [{"max_gap_s": 0.0}, {"max_gap_s": math.nan}])
def test_options_are_checked(tmp_path, kwargs):
    with pytest.raises(ValueError, match="max_gap_s"):
        reader_study([tmp_path / "a.csv"], **kwargs)


# --------------------------------------------------------------------------- outputs


def test_files_tables_json_and_frames(simulated, tmp_path):
    study, _ = simulated
    files = study_files(study)
    assert tuple(files) == REPORT_FILES
    readers = list(csv.DictReader(io.StringIO(files["readers.csv"])))
    assert len(readers) == len(study.counts)
    assert float(readers[0]["precision"]) == study.counts[0].precision  # full precision
    data = json.loads(files["reader_study.json"])  # strict JSON: no NaN
    assert data["readers"] == list(study.readers) and data["options"]["interval"] == "wilson"
    assert len(data["disagreements"]) == len(study.disagreements)
    assert format_study(study, "csv") == files["readers.csv"]
    frames = study_frames(study)
    assert frames["readers"].shape == (len(study.counts), 11)
    assert len(frames["disagreements"]) == len(study.disagreements)
    written = write_study(study, tmp_path / "out", force=False)
    assert sorted(p.name for p in written) == sorted(REPORT_FILES)
    with pytest.raises(ValueError, match="fmt"):
        format_study(study, "html")  # type: ignore[arg-type]


def test_table_text_reads_as_a_report(simulated):
    study, _ = simulated
    text = format_study(study, "table")
    assert text.startswith("reader study: 4 reader(s) (ana, ben, cy, dee)")
    for heading in ("Verdicts", "Agreement", "Time per region", "Disagreements"):
        assert heading in text
    assert "fleiss" in text and "ana / ben" in text


def test_plot_has_one_point_per_reader_and_method(simulated):
    pytest.importorskip("matplotlib")
    from napari_mood.services.reader_study_report import plot_study

    study, _ = simulated
    figure = plot_study(study)
    axes = figure.axes[0]
    assert [t.get_text() for t in axes.get_xticklabels()] == list(METHODS)
    points = sum(len(line.get_xdata()) for line in axes.lines if line.get_marker() == "o")
    assert points == len(study.counts)


# --------------------------------------------------------------------------- adjudication


def test_disagreements_file_reads_back_as_an_adjudication_list(simulated, tmp_path):
    study, _ = simulated
    path = tmp_path / "disagreements.csv"
    path.write_text(study_files(study)["disagreements.csv"])
    found = read_adjudication(path)
    assert found.readers == study.readers
    assert [(i.case, i.method, i.threshold, i.object_id) for i in found.items] == [
        d.key for d in study.disagreements
    ]
    assert [dict(i.verdicts) for i in found.items] == [
        dict(d.verdicts) for d in study.disagreements
    ]
    assert found.cases("ae") == tuple(
        dict.fromkeys(d.key[0] for d in study.disagreements if d.key[1] == "ae")
    )


def test_adjudication_finds_the_disputed_regions_at_another_threshold():
    score = np.zeros((20, 8, 8), np.float32)
    score[3:6, 3:6, 3:6] = 0.9  # region around (4, 4, 4)
    score[12:15, 3:6, 3:6] = 0.6  # region around (13, 4, 4)
    regions = flagged_regions(score, threshold=0.5)
    disputed = next(r for r in regions if r.centroid_voxel[0] > 10)
    item = AdjudicationItem(
        "c", "m", 0.5, disputed.object_id, disputed.centroid_voxel, (), (), (), 27, 0.6,
        False, (("ana", "unsure"), ("ben", "true finding")),
    )  # fmt: skip
    listed = AdjudicationList((item,), ("ana", "ben"))
    assert listed.regions(regions, case="c", method="m") == (disputed,)
    assert listed.regions(regions, case="other", method="m") == ()
    score[12, 3:6, 3:6] = 0.55  # at 0.58 the region shrinks and moves, and keeps its dispute
    shrunk = flagged_regions(score, threshold=0.58)
    assert len(listed.regions(shrunk, case="c", method="m")) == 1


def test_adjudication_narrows_a_review_queue(tmp_path):
    mask = np.zeros((4, 4, 4), np.uint8)
    names = ("case_a", "case_b", "case_c")
    dataset, preds = make_mood_folder(
        tmp_path, {n: mask for n in names}, {"vae": {n: mask.astype(np.float32) for n in names}}
    )
    queue = review_queue(dataset, {"vae": preds / "vae" / "case_a.nii.gz"}, method="vae", seed=3)
    case_b = next(c for c in queue.cases if c.startswith("case_b"))
    listed = read_adjudication_text(
        tmp_path, f"{case_b},vae,0.5,1,4 5 5,,,,27,0.9,yes,unsure,false alarm\n"
    )
    narrowed = listed.restrict(queue, method="vae")
    assert narrowed.cases == (case_b,) and narrowed.seed == 3
    assert narrowed.step(None, 1) == case_b and narrowed.step(case_b, 1) is None
    assert listed.restrict(queue, method="ae").cases == ()
    assert listed.items[0].blind


def read_adjudication_text(folder: Path, rows: str) -> AdjudicationList:
    path = folder / "disagreements.csv"
    path.write_text(",".join([*ADJUDICATION_COLUMNS, "verdict:ana", "verdict:ben"]) + "\n" + rows)
    return read_adjudication(path)


@pytest.mark.parametrize(
    ("rows", "match"),
    [
        ("c,m,0.5,1,4 5 5,,,,27,0.9,maybe,unsure,\n", "blind must be yes or no"),
        ("c,m,0.5,1,4 5 5,,,,27,0.9,no,perhaps,\n", "verdict must be one of"),
        ("c,m,0.5,x,4 5 5,,,,27,0.9,no,unsure,\n", "line 2 is malformed"),
        ("c,m,0.5,1,4 nan 5,,,,27,0.9,no,unsure,\n", "finite"),
    ],
)
def test_a_bad_disagreements_file_is_named(tmp_path, rows, match):
    with pytest.raises(MoodInputError, match=match) as caught:
        read_adjudication_text(tmp_path, rows)
    assert "disagreements.csv" in str(caught.value)


def test_a_journal_is_not_a_disagreements_file(tmp_path):
    path = write_reader(tmp_path / "ana.csv", "ana", [("c", "m", 1, "unsure")])
    with pytest.raises(MoodInputError, match="not a disagreements file"):
        read_adjudication(path)


@pytest.mark.parametrize("point", ["10 20 30", "[10, 20, 30]", "(10, 20, 30)", "10,20,30"])
def test_a_point_is_read_as_written_or_as_a_list(tmp_path, point):
    header = (
        "case,method,threshold,object_id,centroid_voxel,centroid_world_mm,size_voxels,"
        "size_mm3,max_score,verdict,note,time,reviewer\n"
    )
    row = f'c,m,0.5,1,"{point}","{point}",8,,0.9,unsure,,2025-03-01T09:00:00+00:00,ana\n'
    (tmp_path / "ana.csv").write_text(header + row)
    (record,) = read_reviews(tmp_path / "ana.csv")
    assert record.centroid_voxel == record.centroid_world_mm == (10.0, 20.0, 30.0)


@pytest.mark.parametrize("point", ["[10, 20, 30", "10; 20; 30", "[]"])
def test_a_point_that_is_no_list_of_numbers_is_refused(tmp_path, point):
    header = (
        "case,method,threshold,object_id,centroid_voxel,centroid_world_mm,size_voxels,"
        "size_mm3,max_score,verdict,note,time\n"
    )
    row = f'c,m,0.5,1,"{point}","{point}",8,,0.9,unsure,,2025-03-01T09:00:00+00:00\n'
    (tmp_path / "ana.csv").write_text(header + row)
    with pytest.raises(MoodInputError, match="line 2 is malformed"):
        read_reviews(tmp_path / "ana.csv")
