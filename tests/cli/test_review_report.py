"""``napari-mood review-report``: exit codes, outputs, the output guard."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from napari_mood.cli import main
from napari_mood.services.reader_study_report import REPORT_FILES
from napari_mood.services.review_store import ReviewFile
from tests.reader_journals import random_readers, record, write_reader


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _usage(capsys, *argv: object) -> str:
    with pytest.raises(SystemExit) as caught:
        main([str(a) for a in argv])
    assert caught.value.code == 2
    return capsys.readouterr().err


@pytest.fixture
def journals(tmp_path) -> list[Path]:
    table = random_readers(0, ("ana", "ben"))
    del table["dee"]
    folder = tmp_path / "reviews"
    return [write_reader(folder / f"{name}.csv", name, rows) for name, rows in table.items()]


def test_writes_the_tables_and_prints_the_report(capsys, tmp_path, journals):
    before = [p.read_bytes() for p in journals]
    out = tmp_path / "study"
    code, text, err = _run(capsys, "review-report", *journals, "--out", out)
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(REPORT_FILES)
    assert text.startswith("reader study: 2 reader(s) (ana, ben)")
    assert f"written to {out}" in err
    assert [p.read_bytes() for p in journals] == before  # inputs never written
    pair = next(csv.DictReader(io.StringIO((out / "agreement.csv").read_text())))
    assert pair["statistic"] == "cohen" and pair["readers"] == "ana;ben"


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_format_chooses_what_is_printed(capsys, tmp_path, journals, fmt):
    out = tmp_path / "study"
    code, text, _ = _run(capsys, "review-report", *journals, "--out", out, "--format", fmt)
    assert code == 0
    if fmt == "json":
        assert json.loads(text) == json.loads((out / "reader_study.json").read_text())
    else:
        assert text == (out / "readers.csv").read_text()


def test_plot(capsys, tmp_path, journals):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "figs" / "precision.png"
    code, _, _ = _run(
        capsys, "review-report", *journals, "--out", tmp_path / "s", "--plot", plot, "--dpi", "80"
    )
    assert code == 0 and plot.read_bytes().startswith(b"\x89PNG")


def test_disagreements_file_lists_each_reader(capsys, tmp_path, journals):
    out = tmp_path / "study"
    assert _run(capsys, "review-report", *journals, "--out", out)[0] == 0
    rows = list(csv.DictReader(io.StringIO((out / "disagreements.csv").read_text())))
    assert rows and all(r["verdict:ana"] != r["verdict:ben"] for r in rows)


# --------------------------------------------------------------------------- the guard


def test_out_onto_a_journal_is_refused(capsys, journals):
    before = journals[0].read_bytes()
    code, _, err = _run(capsys, "review-report", *journals, "--out", journals[0], "--force")
    assert code == 1
    assert "onto the input file" in err and str(journals[0]) in err
    assert len(err.strip().splitlines()) == 1
    assert journals[0].read_bytes() == before


def test_plot_onto_a_journal_is_refused(capsys, tmp_path, journals):
    target = journals[0].with_suffix(".png")
    journals[0].rename(target)
    code, _, err = _run(
        capsys, "review-report", target, "--out", tmp_path / "s", "--plot", target, "--force"
    )
    assert code == 1 and "onto the input file" in err
    assert not (tmp_path / "s").exists()  # refused before any work


def test_a_journal_named_like_an_output_in_out_is_refused(capsys, journals):
    named = journals[0].parent / "readers.csv"
    journals[0].rename(named)
    code, _, err = _run(capsys, "review-report", named, "--out", named.parent, "--force")
    assert code == 1 and "onto the input file" in err


def test_existing_outputs_need_force(capsys, tmp_path, journals):
    out = tmp_path / "study"
    assert _run(capsys, "review-report", *journals, "--out", out)[0] == 0
    code, _, err = _run(capsys, "review-report", *journals, "--out", out)
    assert code == 1 and "already holds" in err and "--force" in err
    assert _run(capsys, "review-report", *journals, "--out", out, "--force")[0] == 0


def test_plot_and_out_on_one_path_overlap(capsys, tmp_path, journals):
    both = tmp_path / "study.png"
    code, _, err = _run(capsys, "review-report", *journals, "--out", both, "--plot", both)
    assert code == 1 and "overlap" in err
    assert not both.exists()


# --------------------------------------------------------------------------- bad input


def test_missing_journal_is_one_line_naming_it(capsys, tmp_path, journals):
    gone = tmp_path / "gone.csv"
    code, _, err = _run(capsys, "review-report", journals[0], gone, "--out", tmp_path / "s")
    assert code == 1
    assert err.strip().splitlines() == [
        f"napari-mood: error: {gone}: file not found (check the path)"
    ]
    assert not (tmp_path / "s" / "readers.csv").exists()


def test_a_file_that_is_not_a_journal(capsys, tmp_path):
    notes = tmp_path / "notes.csv"
    notes.write_text("a,b\n1,2\n")
    code, _, err = _run(capsys, "review-report", notes, "--out", tmp_path / "s")
    assert code == 1 and str(notes) in err and "not a napari-mood review file" in err


def test_warnings_and_quiet(capsys, tmp_path):
    ReviewFile(tmp_path / "ana.csv").save(record("ana", "c", "m", 1, "unsure", 0))
    ReviewFile(tmp_path / "ben.csv").save(record("ben", "c", "m", 1, "unsure", 0, threshold=0.7))
    args = ["review-report", tmp_path / "ana.csv", tmp_path / "ben.csv", "--force"]
    code, _, err = _run(capsys, *args, "--out", tmp_path / "s")
    assert code == 0 and "napari-mood: warning:" in err and "different thresholds" in err
    code, _, err = _run(capsys, *args, "--out", tmp_path / "s", "--quiet")
    assert code == 0 and "napari-mood: warning:" not in err


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--plot", "fig.jpg"], "unsupported figure type"),
        (["--format", "html"], "invalid choice"),
        (["--dpi", "0"], "--dpi"),
        (["--max-gap", "0"], "--max-gap"),
        (["--max-gap", "soon"], "--max-gap"),
        (["--out", ""], "must not be empty"),
    ],
)
def test_usage_errors_exit_2_before_reading(capsys, tmp_path, extra, match):
    gone = tmp_path / "gone.csv"  # never read: the usage error comes first
    argv = ["review-report", gone, "--out", tmp_path / "s", *extra]
    assert match in _usage(capsys, *argv)


def test_usage_without_out_or_journal(capsys, tmp_path):
    assert "--out" in _usage(capsys, "review-report", tmp_path / "a.csv")
    assert "JOURNAL" in _usage(capsys, "review-report", "--out", tmp_path / "s")


def test_a_journal_given_twice_is_a_usage_error(capsys, tmp_path, journals):
    twice = journals[0].parent / "." / journals[0].name
    assert "given twice" in _usage(capsys, "review-report", journals[0], twice, "--out", tmp_path)


def test_help_ends_with_an_example(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["review-report", "--help"])
    assert caught.value.code == 0
    lines = capsys.readouterr().out.rstrip().splitlines()
    assert lines[-2] == "example:" and lines[-1].strip().startswith("napari-mood review-report ")


def test_listed_among_the_subcommands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "review-report" in capsys.readouterr().out
