"""The rank job called as a notebook calls them (no command line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from napari_mood.io.errors import MoodInputError
from napari_mood.services.rankings import rank_results


def _results(path: Path, batches: dict[str, list[float]]) -> Path:
    """An ``evaluate --format json`` file whose pixel task has these batch APs per method."""
    methods = {
        name: {"pixel": {"batch_ap": {"mean": sum(aps) / len(aps), "aps": aps}}}
        for name, aps in batches.items()
    }
    path.write_text(json.dumps({"dataset": path.stem, "methods": methods}))
    return path


def test_rank_results_ranks_by_hand_and_writes_its_folder(tmp_path: Path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    first = _results(inputs / "brain.json", {"a": [0.9, 0.7], "b": [0.5, 0.5], "c": [0.1, 0.3]})
    second = _results(inputs / "abdom.json", {"a": [0.4, 0.4], "b": [0.8, 0.6], "c": [0.2, 0.2]})
    out = tmp_path / "ranks"
    analysis = rank_results([("", first), ("", second)], tasks=("pixel",), out=out)
    # by hand: brain a 1, b 2, c 3; abdom b 1, a 2, c 3; rank sums a 3, b 3, c 6;
    # a and b tie on the sum and on first places (one each): the name breaks the tie
    assert analysis.rankings == {
        "brain pixel": {"a": 1, "b": 2, "c": 3},
        "abdom pixel": {"b": 1, "a": 2, "c": 3},
    }
    assert analysis.consensus == {"a": 1, "b": 2, "c": 3}
    written = json.loads((out / "ranks.json").read_text())
    assert written["consensus"] == {"a": 1, "b": 2, "c": 3} and written["bootstrap"] is None
    assert (out / "ranks.csv").read_text().splitlines()[0].startswith("method,")


def test_rank_results_checks_the_output_before_reading_a_file(tmp_path: Path):
    out = tmp_path / "ranks"
    out.mkdir()
    (out / "ranks.csv").write_text("mine\n")
    with pytest.raises(MoodInputError, match="already holds ranks.csv"):
        rank_results([("", tmp_path / "missing.json")], out=out)
    assert (out / "ranks.csv").read_text() == "mine\n"
