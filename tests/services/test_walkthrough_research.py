"""Issue 36's acceptance walk as the reader-study lead: what it found broken.

* ``napari-mood review-report reviews/ana.csv reviews/ben.csv --out reviews --force``
  wrote readers.csv, agreement.csv, ... among the journals: the next
  ``review-report reviews/*.csv`` then failed on ``reviews/agreement.csv`` ("not a
  napari-mood review file"). ``--out`` may not be a journal's folder (a subfolder is fine).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood.cli import main
from tests.reader_journals import random_readers, write_reader


@pytest.fixture
def journals(tmp_path: Path) -> list[Path]:
    table = random_readers(0, ("ana", "ben"))
    folder = tmp_path / "reviews"
    return [write_reader(folder / f"{name}.csv", name, table[name]) for name in ("ana", "ben")]


def _study(capsys, journals, out: Path, *more: str) -> tuple[int, str]:
    code = main(["review-report", *map(str, journals), "--out", str(out), *more])
    return code, capsys.readouterr().err


def test_out_as_the_journals_folder_is_refused(capsys, journals):
    folder = journals[0].parent
    before = sorted(p.name for p in folder.iterdir())
    code, err = _study(capsys, journals, folder, "--force")
    assert code == 1
    assert err.startswith(f"napari-mood: error: {folder}: --out is the folder of the journals")
    assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written


def test_the_next_study_of_the_folder_still_reads(capsys, journals):
    folder = journals[0].parent
    assert _study(capsys, journals, folder / "study")[0] == 0  # a subfolder is fine
    again = sorted(folder.glob("*.csv"))  # as a shell's reviews/*.csv
    assert again == sorted(journals)
    assert _study(capsys, again, folder / "study", "--force")[0] == 0


def test_journals_listed_through_a_link_protect_their_listed_folder(capsys, journals, tmp_path):
    listed = tmp_path / "listed"
    listed.mkdir()
    links = []
    for journal in journals:
        link = listed / journal.name
        link.symlink_to(journal)
        links.append(link)
    for out in (listed, journals[0].parent):  # where they are listed, and where they are
        code, err = _study(capsys, links, out, "--force")
        assert code == 1 and "is the folder of the journals" in err, (out, err)
    assert _study(capsys, links, listed / "study")[0] == 0
