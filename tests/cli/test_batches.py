"""Challenge batches (``--batches`` / ``--splits``) equal the official ``bootstrap_dir``.

The dataset has what real downloads have: a truncated label, a stray README, a hidden
``.DS_Store`` and a leftover sub-folder in the label folders. The official scorer indexes
its batches over every one of these entries and skips the unreadable ones inside each
batch; ``tests/reference_scorer.official_bootstrap_dir`` restates that procedure.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from napari_mood.cli import main
from tests.conftest import make_mood_folder
from tests.reference_scorer import case_names, official_bootstrap_dir

N_CASES = 12


@pytest.fixture(scope="module")
def messy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """12 cases; label folders polluted as real downloads are. Returns (dataset, method)."""
    rng = np.random.default_rng(2026)
    labels, maps, sample_labels, sample_scores = {}, {}, {}, {}
    for i in range(N_CASES):
        case = f"case_{i:02d}"
        mask = np.zeros((6, 6, 6), np.uint8)
        if i % 3:
            mask[1 : 2 + i % 4, 2:4, 1 : 3 + i % 3] = 1
        labels[case] = mask
        maps[case] = np.clip(mask * rng.uniform(0.2, 0.9) + rng.uniform(0, 0.7, mask.shape), 0, 1)
        sample_labels[case] = str(int(mask.any()))
        sample_scores[case] = f"{rng.uniform(0.0, 1.0):.6f}"
    root = tmp_path_factory.mktemp("messy")
    dataset, preds = make_mood_folder(
        root,
        labels,
        {"method": maps},
        sample_labels=sample_labels,
        sample_scores={"method": sample_scores},
    )
    pixel, sample = dataset / "toy_label" / "pixel", dataset / "toy_label" / "sample"
    truncated = pixel / "case_05.nii.gz"
    truncated.write_bytes(truncated.read_bytes()[:60])  # a cut download
    (sample / "case_07.nii.gz.txt").write_text("unknown\n")  # unreadable sample label
    (preds / "method" / "case_03.nii.gz").unlink()  # missing map: the case scores 0
    (preds / "method" / "case_04.nii.gz.txt").unlink()  # missing sample score: 0
    for folder in (pixel, sample):
        (folder / "README.txt").write_text("labels of the toy set\n")
        (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1" + bytes(40))
        (folder / "old").mkdir()
    return dataset, preds / "method"


def _evaluate(tmp_path: Path, dataset: Path, method: Path, *extra: str) -> dict:
    out = tmp_path / "r.json"
    code = main(
        ["evaluate", str(dataset), "--pred", str(method), "--task", "pixel,sample"]
        + ["--format", "json", "--out", str(out), "--quiet", *extra]
    )
    assert code == 0
    return json.loads(out.read_text())["methods"]["method"]


def test_fixture_is_as_messy_as_intended(messy):
    dataset, _ = messy
    listing = case_names(dataset / "toy_label" / "pixel")
    assert len(listing) == N_CASES + 3 and listing[:2] == [".DS_Store", "README.txt"]
    with pytest.raises((EOFError, OSError)):
        gzip.decompress((dataset / "toy_label" / "pixel" / "case_05.nii.gz").read_bytes())


@pytest.mark.parametrize(
    ("n_runs", "size", "seed"), [(6, 4, 3), (10, 2, 123), (5, 7, 0), (30, 3, 11)]
)
def test_random_batches_equal_bootstrap_dir(messy, tmp_path, n_runs, size, seed):
    dataset, method = messy
    args = ("--batches", str(n_runs), "--batch-size", str(size), "--seed", str(seed))
    got = _evaluate(tmp_path, dataset, method, *args)
    for task in ("pixel", "sample"):
        mean, scores, splits = official_bootstrap_dir(
            method,
            dataset / "toy_label" / task,
            n_runs=n_runs,
            n_files=size,
            seed=seed,
            mode=task,
            empty_batch="nan",
        )
        batch = got[task]["batch_ap"]
        assert batch["splits"] == splits
        assert _aps(batch) == pytest.approx(scores, abs=1e-12, nan_ok=True)
        assert batch["mean"] == pytest.approx(mean, abs=1e-12)
        listing = case_names(dataset / "toy_label" / task)
        assert batch["split_entries"] == [[listing[i] for i in s] for s in splits]


def test_batches_skip_unreadable_entries_inside_the_batch(messy, tmp_path):
    dataset, method = messy
    listing = case_names(dataset / "toy_label" / "pixel")
    stray = [listing.index(n) for n in (".DS_Store", "README.txt", "old", "case_05.nii.gz")]
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps([[*stray, listing.index("case_01.nii.gz")], [1, 4, 8, 9]]))
    got = _evaluate(tmp_path, dataset, method, "--splits", str(splits))["pixel"]["batch_ap"]
    assert got["from_splits_file"] and got["scored_cases"][0] == ["case_01.nii.gz"]
    mean, scores, _ = official_bootstrap_dir(
        method, dataset / "toy_label" / "pixel", splits_file=splits, mode="pixel"
    )
    assert got["aps"] == pytest.approx(scores, abs=1e-12)
    assert got["mean"] == pytest.approx(mean, abs=1e-12)


def test_splits_file_round_trip(messy, tmp_path):
    """Our JSON ``splits`` fed back with ``--splits`` reproduces every batch."""
    dataset, method = messy
    first = _evaluate(tmp_path, dataset, method, "--batches", "4", "--batch-size", "5")
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps(first["pixel"]["batch_ap"]["splits"]))
    (tmp_path / "r.json").unlink()
    again = _evaluate(tmp_path, dataset, method, "--splits", str(splits))
    for task in ("pixel", "sample"):
        assert again[task]["batch_ap"]["aps"] == first[task]["batch_ap"]["aps"]


def test_batch_without_readable_case_is_nan_where_official_crashes(messy, tmp_path, capsys):
    dataset, method = messy
    listing = case_names(dataset / "toy_label" / "pixel")
    splits = tmp_path / "splits.json"
    splits.write_text(json.dumps([[0, 1, listing.index("old")], [3, 4]]))
    with pytest.raises(ValueError, match="at least one array"):
        official_bootstrap_dir(
            method, dataset / "toy_label" / "pixel", splits_file=splits, mode="pixel"
        )
    out = tmp_path / "r.json"
    code = main(
        ["evaluate", str(dataset), "--pred", str(method), "--task", "pixel", "--splits"]
        + [str(splits), "--format", "json", "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 0 and "1 of 2 batches hold no readable case" in err
    batch = json.loads(out.read_text())["methods"]["method"]["pixel"]["batch_ap"]
    assert batch["aps"][0] is None and math.isnan(_aps(batch)[0])  # JSON null
    _, scores, _ = official_bootstrap_dir(
        method, dataset / "toy_label" / "pixel", splits_file=_one(tmp_path, [3, 4])
    )
    assert batch["mean"] == pytest.approx(scores[0], abs=1e-12)


def _aps(batch: dict) -> list[float]:
    """Batch APs from the JSON report, where NaN is written as null."""
    return [math.nan if ap is None else ap for ap in batch["aps"]]


def _one(tmp_path: Path, batch: list[int]) -> Path:
    path = tmp_path / "one.json"
    path.write_text(json.dumps([batch]))
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[[0, 99]]", "outside the 15 entries"),
        ('{"a": [0]}', "not an official splits.json (not a JSON list)"),
        ("[[0.5]]", "not an integer"),
        ("not json", "is not readable JSON"),
    ],
)
def test_bad_splits_file_is_refused_before_work(messy, tmp_path, capsys, content, message):
    dataset, method = messy
    splits = tmp_path / "splits.json"
    splits.write_text(content)
    code = main(["evaluate", str(dataset), "--pred", str(method), "--splits", str(splits)])
    err = capsys.readouterr().err
    assert code == 1 and str(splits) in err and message in err
