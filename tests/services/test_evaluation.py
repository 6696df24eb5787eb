"""One owner of "which methods", "thresholds on a toy dataset", progress and cancel."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from napari_mood.core.results import EvaluationOptions
from napari_mood.io.errors import MoodInputError
from napari_mood.io.methods import find_methods, methods_beside
from napari_mood.services.evaluation import (
    EvaluationCancelled,
    add_statistics,
    evaluate,
    toy_thresholds,
)
from tests.conftest import make_mood_folder

OPTIONS = EvaluationOptions(tasks=("pixel", "object"))


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """Three cases, methods ``a`` and ``b`` in DATASET/methods."""
    labels, maps_a, maps_b = {}, {}, {}
    for i in range(3):
        mask = np.zeros((8, 9, 10), bool)
        mask[2:5, 3:6, 2 + i : 5 + i] = True
        labels[f"c{i}"] = mask
        maps_a[f"c{i}"] = np.where(mask, 0.8, 0.1).astype(np.float32)
        maps_b[f"c{i}"] = np.where(mask, 0.4, 0.3).astype(np.float32)
    root, preds = make_mood_folder(tmp_path, labels, {"a": maps_a, "b": maps_b})
    preds.rename(root / "methods")
    return root


def test_find_methods_is_the_one_rule(dataset: Path, tmp_path: Path):
    assert sorted(find_methods(dataset)) == ["a", "b"]
    assert sorted(find_methods(dataset, pred={"x": dataset / "methods" / "a"})) == ["x"]
    assert sorted(find_methods(tmp_path, preds=dataset / "methods")) == ["a", "b"]
    empty = tmp_path / "empty"
    (empty / "toy").mkdir(parents=True)
    assert methods_beside(empty) == {}
    with pytest.raises(MoodInputError, match="no methods") as info:
        find_methods(empty)
    assert "a folder of method folders" in str(info.value) and str(empty / "methods") in str(
        info.value
    )
    (empty / "methods").mkdir()
    with pytest.raises(MoodInputError, match="no method subfolders"):
        methods_beside(empty)


def test_evaluate_finds_the_methods_beside_the_dataset(dataset: Path):
    # the numbers are checked against hand-worked values in test_evaluation_oracle.py
    found = evaluate(dataset, options=OPTIONS, warn=False)
    assert sorted(found.methods) == ["a", "b"] and found.stats.workers == 1


def test_evaluate_reports_progress_and_cancels(dataset: Path):
    seen: list[tuple[int, int, str]] = []
    evaluate(dataset, options=OPTIONS, progress=lambda *a: seen.append(a))
    assert [s[:2] for s in seen] == [(1, 3), (2, 3), (3, 3)]
    stop = threading.Event()
    stop.set()
    with pytest.raises(EvaluationCancelled):
        evaluate(dataset, options=OPTIONS, cancelled=stop)


def test_toy_thresholds_use_the_toy_datasets_own_methods(dataset: Path, tmp_path: Path):
    choice = toy_thresholds(dataset, ["a", "b", "zzz"], by="object_f1")
    # F1 = 1 while the box alone is flagged; ties go to the highest grid threshold. a: box 0.8
    # (float16 0.7998) -> 0.79; b: box 0.4 (0.39990), background 0.3 (0.30005) -> 0.39
    assert choice.best["a"].threshold == pytest.approx(0.79)
    assert choice.best["b"].threshold == pytest.approx(0.39)
    assert choice.best["a"].value == choice.best["b"].value == 1.0
    assert choice.missing == ("zzz",) and choice.available == ("a", "b")
    assert choice.thresholds() == {n: b.threshold for n, b in choice.best.items()}
    dice = toy_thresholds(dataset, ["a"], by="dice")
    assert dice.best["a"].threshold == pytest.approx(0.7998046875)
    with pytest.raises(MoodInputError, match="no folder named like the methods shown"):
        toy_thresholds(dataset, ["zzz"])


def test_add_statistics_only_adds(dataset: Path):
    found = evaluate(dataset, options=EvaluationOptions(tasks=("pixel",)))
    same = add_statistics(found.result, batches=0, batch_size=2, bootstrap=0, seed=0)
    assert same is found.result
    more = add_statistics(found.result, batches=3, batch_size=2, bootstrap=20, seed=1)
    extra = more.methods["a"].pixel.extra
    assert extra["batch_ap"]["n_batches"] == 3 and len(extra["ap_ci95"]) == 2
    assert more.methods["a"].pixel.ap == found.result.methods["a"].pixel.ap
