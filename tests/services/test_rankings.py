"""Rankings from evaluate JSON files: a small challengeR-style fixture ranked by hand.

brain pixel  : A (.8,.6) mean .7, B (.5,.9) .7, C (.2,.4) .3     -> A 1, B 1, C 3 (ties min)
brain sample : A .5, B .9, C missing (0)                         -> A 2, B 1, C 3
abdom pixel  : A .6, B .4, C .5                                  -> A 1, C 2, B 3
abdom sample : A .1, B .3, C .2                                  -> B 1, C 2, A 3
rank sums    : A 7, B 6, C 10                                    -> consensus B 1, A 2, C 3
toy (pixel)  : A .9, B .2, C .5 -> A 1, C 2, B 3; tau-b vs consensus: (A,B) discordant,
               (A,C) concordant, (B,C) discordant -> (1 - 2) / 3 = -1/3
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats

from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.services.rankings import (
    analyse_rankings,
    plot_rank_stability,
    rankings_csv,
    read_rankings,
)


def _task(aps):
    return {"ap": 0.0, "batch_ap": {"mean": float(np.mean(aps)), "aps": list(aps)}}


def _write(path, dataset, pixel, sample=None):
    methods = {}
    for name, aps in pixel.items():
        methods[name] = {"pixel": _task(aps)}
        if sample and name in sample:
            methods[name]["sample"] = _task(sample[name])
    path.write_text(json.dumps({"dataset": dataset, "cases": [], "methods": methods}))
    return path


@pytest.fixture
def fixture_files(tmp_path):
    brain = _write(
        tmp_path / "brain.json",
        "brain",
        {"A": [0.8, 0.6], "B": [0.5, 0.9], "C": [0.2, 0.4]},
        {"A": [0.5, 0.5], "B": [0.9, 0.9]},
    )
    abdom = _write(
        tmp_path / "abdom.json",
        "abdom",
        {"A": [0.6, 0.6], "B": [0.4, 0.4], "C": [0.5, 0.5]},
        {"A": [0.1, 0.1], "B": [0.3, 0.3], "C": [0.2, 0.2]},
    )
    toy = _write(tmp_path / "toy.json", "toy", {"A": [0.9], "B": [0.2], "C": [0.5]})
    return brain, abdom, toy


def test_hand_ranked_fixture(fixture_files):
    brain, abdom, toy = fixture_files
    tests = read_rankings(brain) + read_rankings(abdom)
    assert [t.label for t in tests] == [
        "brain pixel",
        "brain sample",
        "abdom pixel",
        "abdom sample",
    ]
    result = analyse_rankings(tests, toys=read_rankings(toy), n_boot=200, seed=1)
    assert result.rankings["brain pixel"] == {"A": 1, "B": 1, "C": 3}
    assert result.rankings["brain sample"] == {"A": 2, "B": 1, "C": 3}
    assert result.rankings["abdom pixel"] == {"A": 1, "B": 3, "C": 2}
    assert result.rankings["abdom sample"] == {"A": 3, "B": 1, "C": 2}
    assert result.consensus == {"A": 2, "B": 1, "C": 3}
    assert result.scores["brain sample"]["C"] == 0.0
    assert result.toy_consensus == {"A": 1, "B": 3, "C": 2}
    assert result.tau_b == pytest.approx(-1 / 3)
    oracle = scipy.stats.kendalltau([1, 3, 2], [2, 1, 3], variant="b").statistic
    assert result.tau_b == pytest.approx(oracle)
    freq = result.rank_counts()
    assert freq.shape == (3, 3) and np.allclose(freq.sum(axis=1), 1.0)
    # C is last in three rankings and second in the constant fourth whatever the resample
    np.testing.assert_array_equal(freq[2], [0.0, 0.0, 1.0])
    lines = rankings_csv(result).splitlines()
    assert lines[0].startswith("method,brain pixel score,brain pixel rank")
    assert lines[1].startswith("B,0.700000,1,0.900000,1") and lines[1].endswith(",1,3")
    fig = plot_rank_stability(result)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["B", "A", "C"]


def test_pooled_ap_fallback_warns_and_bad_files(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"dataset": "d", "methods": {"A": {"pixel": {"ap": 0.4}}}}))
    with pytest.warns(MoodInputWarning, match="no batch AP for A"):
        (found,) = read_rankings(path, label="x", tasks=("pixel",))
    assert found.label == "x pixel" and found.scores == {"A": 0.4} and found.batches == {}
    path.write_text("[1, 2]")
    with pytest.raises(MoodInputError, match="not a napari-mood evaluate JSON"):
        read_rankings(path)
    with pytest.raises(MoodInputError, match="not found"):
        read_rankings(tmp_path / "missing.json")
