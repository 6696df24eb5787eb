"""``categories``: a case of the categories file missing from the dataset is a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood.cli import main
from napari_mood.services.datasets import sample_data_dir


@pytest.mark.parametrize("quiet", [False, True])
def test_an_unknown_case_is_a_warning_naming_the_file_that_quiet_silences(
    tmp_path: Path, capsys, quiet: bool
):
    cats = tmp_path / "cats.csv"
    cats.write_text("case,category\nbrain_001,local\nbrain_999,local\n")
    argv = ["categories", str(sample_data_dir()), "--categories", str(cats)]
    argv += ["--out", str(tmp_path / "out"), "--plot-formats", "svg"]
    assert main(argv + (["--quiet"] if quiet else [])) == 0
    err = capsys.readouterr().err
    shown = f"napari-mood: warning: {cats}: 1 case(s) not in the dataset: brain_999"
    assert (shown in err) == (not quiet), err
