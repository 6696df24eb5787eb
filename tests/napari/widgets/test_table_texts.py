"""The comparison table's columns, cell texts, best values and CSV text (no viewer)."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari.widgets.table_texts import (
    COLUMNS,
    best_methods,
    describe_table,
    format_cell,
    format_table,
    format_value,
    problems_text,
    shown_columns,
)
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.comparison import ComparisonRow, ComparisonTable, dataset_comparison
from napari_mood.services.evaluation import EvaluationOptions, evaluate
from tests.conftest import make_mood_folder


@pytest.fixture
def evaluation(tmp_path: Path):
    rng = np.random.default_rng(5)
    labels, good, bad = {}, {}, {}
    for index in range(3):
        mask = np.zeros((8, 9, 7), dtype=bool)
        if index:
            mask[2:5, 3:6, 2:5] = True
        labels[f"case_{index}"] = mask
        good[f"case_{index}"] = (mask * 0.7 + rng.random(mask.shape) * 0.3).astype(np.float32)
        bad[f"case_{index}"] = rng.random(mask.shape).astype(np.float32)
    dataset, preds = make_mood_folder(
        tmp_path,
        labels,
        {"good": good, "bad": bad},
        sample_labels={"case_0": "0", "case_1": "1", "case_2": "1"},
        sample_scores={
            "good": {"case_0": "0.1", "case_1": "0.9", "case_2": "0.8"},
            "bad": {"case_0": "0.9", "case_1": "0.1", "case_2": "0.5"},
        },
    )
    options = EvaluationOptions(
        tasks=("pixel", "sample", "object"), object_threshold={"good": 0.6, "bad": 0.9}
    )
    return evaluate(
        discover_dataset(dataset), methods=discover_methods(preds), options=options, workers=1
    ).result


def _rows() -> ComparisonTable:
    rows = (
        ComparisonRow("a", 0.9, 0.95, 0.1, 0.8, 0.5, 0.5, 2, 5, 0, 0.4, rank=1),
        ComparisonRow("b", 0.5, 0.95, 0.3, 0.6, 0.4, 0.5, 2, 1, 0, 0.8, rank=2),
        ComparisonRow("c", math.nan, math.nan, math.nan, math.nan, math.nan, 0.5, 0, 9, 2, 0.0),
    )
    return ComparisonTable("case", "brain_001", 1, rows)


def test_best_methods_mind_lower_is_better_and_ties():
    best = best_methods(_rows())
    assert best["pixel_ap"] == {"a"}
    assert best["auroc"] == {"a", "b"}  # tie; NaN ignored
    assert best["fpr95"] == {"a"}  # lower is better
    assert best["object_fp"] == {"b"}
    assert best["object_fn"] == {"a", "b"}
    assert best["object_tp"] == {"a", "b"}
    assert best["object_f1"] == {"b"}
    assert best["rank"] == {"a"}
    assert "sample_ap" not in best  # no value at all
    assert "best_dice_threshold" not in best  # not compared
    assert {c.key for c in COLUMNS if c.better} >= set(best)


def test_format_table_writes_every_shown_column_at_full_precision():
    table = _rows()
    text = format_table(table, order=["b", "c", "a"])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["method"] for r in rows] == ["b", "c", "a"]
    assert "sample_ap" not in rows[0] and "rank_low" not in rows[0]  # empty columns dropped
    assert rows[0]["scope"] == "case" and rows[0]["name"] == "brain_001"
    assert float(rows[2]["pixel_ap"]) == 0.9 and rows[2]["object_fp"] == "5"
    assert rows[1]["pixel_ap"] == "" and rows[1]["rank"] == ""
    tsv = format_table(table, delimiter="\t")
    assert tsv.splitlines()[0].split("\t")[:3] == ["scope", "name", "method"]


def test_format_table_splits_intervals(evaluation):
    table = dataset_comparison(evaluation, n_boot=50)
    rows = list(csv.DictReader(io.StringIO(format_table(table))))
    good = next(r for r in rows if r["method"] == "good")
    assert float(good["ap_low"]) == table.row("good").ap_low
    assert int(good["rank_high"]) == table.row("good").rank_high
    assert float(good["sample_ap"]) == table.row("good").sample_ap
    assert [c.key for c in shown_columns(table)][-2:] == ["sample_ap", "rank"]
    header = format_table(table).splitlines()[0].split(",")
    assert header[3:6] == ["pixel_ap", "ap_low", "ap_high"]
    assert header[-3:] == ["rank", "rank_low", "rank_high"]


def test_format_value_and_cell():
    assert format_value(0.123456) == "0.1235"
    assert format_value(math.nan) == "" and format_value(None) == ""
    assert format_value(np.float32(0.5), digits=2) == "0.50"
    row = ComparisonRow("a", 0.5, 0.9, 0.1, 0.8, 0.5, 0.5, 1, 0, 0, 1.0, rank=2)
    rank = next(c for c in COLUMNS if c.key == "rank")
    assert format_cell(row, rank) == "2"  # no interval: the value only
    row = replace(row, rank_low=1, rank_high=3, ap_low=0.25, ap_high=0.754)
    assert format_cell(row, rank) == "2 [1, 3]"
    assert format_cell(row, COLUMNS[1]) == "0.5000 [0.25, 0.75]"
    assert format_cell(replace(row, pixel_ap=math.nan), COLUMNS[1]) == ""


def test_describe_table_and_problems_text():
    assert describe_table(_rows(), ()).startswith("Case brain_001: objects at each method's")
    text = problems_text("d", tuple(range(7)), limit=5)  # type: ignore[arg-type]
    assert text.splitlines()[0] == "napari-mood: dataset d:"
    assert text.splitlines()[-1] == "... and 2 more (see `napari-mood evaluate d`)"
