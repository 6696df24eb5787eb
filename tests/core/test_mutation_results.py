"""Evaluation options and the JSON shape of a dataset result (core.results), values by hand."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from napari_mood.core.objects import ObjectCounts
from napari_mood.core.problems import Problem
from napari_mood.core.results import (
    CaseRow,
    DatasetEvaluation,
    EvaluationOptions,
    MethodSummary,
    ObjectSummary,
    PixelSummary,
    SampleSummary,
)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"tasks": ("pixel", "voxel")},
            "task must be one of 'pixel', 'sample', 'object'; got 'voxel'",
        ),
        ({"mode": "fast"}, "mode"),
        ({"nan_policy": "skip"}, "nan_policy must be one of 'error', 'zero'; got 'skip'"),
        (
            {"sample_from_pixel": "min"},
            "sample_from_pixel must be one of None, 'max', 'mean', 'top1'",
        ),
        ({"connectivity": "edge"}, "connectivity must be one of 'full', 'face'; got 'edge'"),
        ({"object_threshold": "best"}, "object_threshold must be one of 'auto'; got 'best'"),
    ],
)
def test_unknown_option_values_are_refused(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        EvaluationOptions(**options)


def test_defaults_are_the_official_scorer():
    options = EvaluationOptions()
    assert options.tasks == ("pixel", "sample") and options.mode == "mood"
    assert not options.strict and options.nan_policy == "error"
    assert options.sample_from_pixel is None and options.object_threshold == 0.5
    assert options.size_window is None and options.connectivity == "full"


@pytest.mark.parametrize(
    ("tasks", "from_pixel", "needs"),
    [
        (("pixel",), None, True),
        (("object",), None, True),
        (("sample",), None, False),
        (("sample",), "max", True),
    ],
)
def test_maps_are_read_only_when_a_task_uses_them(tasks, from_pixel, needs):
    assert EvaluationOptions(tasks=tasks, sample_from_pixel=from_pixel).needs_maps is needs


def test_object_thresholds_fixed_per_method_and_auto():
    assert EvaluationOptions(object_threshold=0.25).thresholds_for("a") == (0.25,)
    per_method = EvaluationOptions(object_threshold={"a": 0.25, "b": 0.75})
    assert per_method.thresholds_for("b") == (0.75,)
    grid = EvaluationOptions(object_threshold="auto").thresholds_for("a")
    assert len(grid) == 99 and grid[0] == pytest.approx(0.01) and grid[-1] == pytest.approx(0.99)
    assert all(isinstance(t, float) for t in grid)


def _pixel(ap: float) -> PixelSummary:
    return PixelSummary(ap, 0.5, 0.25, 0.125, 0.75, 2, ("c3",), (), {"extra_key": 1.0})


def _sample(ap: float) -> SampleSummary:
    return SampleSummary(ap, math.inf, 3, (), ("c1",), {})


def _objects(f1: float) -> ObjectSummary:
    counts = ObjectCounts(0.5, 1, 2, 3, 4, 0, f1, 1 / 3, 0.25, (2.0, 8.0))
    return ObjectSummary(counts, auto=True)


def _evaluation(methods: list[MethodSummary]) -> DatasetEvaluation:
    row = CaseRow("c1", "a", "ok", 7, math.nan, 0.5, 0.25, 1.0, 1, None, 1, 0, 0)
    return DatasetEvaluation(
        dataset="toy",
        cases=("c1", "c2"),
        methods={m.name: m for m in methods},
        per_case=(row,),
        problems=(),
        options=EvaluationOptions(mode="exact"),
    )


def test_ranked_by_pixel_ap_then_sample_ap_then_object_f1_nan_last():
    methods = [
        MethodSummary("pixel_low", _pixel(0.2), _sample(0.9), None),
        MethodSummary("nan_pixel", _pixel(math.nan), _sample(0.5), None),
        MethodSummary("object_only", None, None, _objects(0.3)),
        MethodSummary("nothing", None, None, None),
        MethodSummary("all_nan", _pixel(math.nan), None, _objects(math.nan)),
    ]
    ranked = _evaluation(methods).ranked_methods()
    assert ranked[:3] == ["nan_pixel", "object_only", "pixel_low"]
    assert set(ranked[3:]) == {"nothing", "all_nan"}


def test_to_dict_is_json_with_nan_as_null():
    methods = [MethodSummary("a", _pixel(0.5), _sample(0.25), _objects(0.4))]
    out = json.loads(json.dumps(_evaluation(methods).to_dict(), allow_nan=False))
    assert out["dataset"] == "toy" and out["cases"] == ["c1", "c2"] and out["mode"] == "exact"
    assert out["methods"]["a"]["pixel"] == {
        "ap": 0.5,
        "auroc": 0.5,
        "fpr95": 0.25,
        "best_dice": 0.125,
        "best_dice_threshold": 0.75,
        "n_cases": 2,
        "missing": ["c3"],
        "invalid": [],
        "extra_key": 1.0,
    }
    assert out["methods"]["a"]["sample"] == {
        "ap": 0.25,
        "auroc": None,
        "n_cases": 3,
        "missing": [],
        "from_pixel": ["c1"],
    }
    assert out["methods"]["a"]["object"] == {
        "threshold": 0.5,
        "tp": 1,
        "fp": 2,
        "fn": 3,
        "discarded": 4,
        "f1": 0.4,
        "precision": pytest.approx(1 / 3),
        "recall": 0.25,
        "size_window": [2.0, 8.0],
        "auto_threshold": True,
    }
    assert out["per_case"][0]["pixel_ap"] is None and out["per_case"][0]["gt_voxels"] == 7
    assert out["problems"] == []


def test_numpy_scalars_become_plain_json():
    pixel = PixelSummary(np.float32(0.5), np.float64(np.nan), 0.0, 0.0, 0.0, np.int64(2), (), ())
    methods = [MethodSummary("a", pixel, None, None)]
    out = _evaluation(methods).to_dict()["methods"]["a"]
    assert out == {"pixel": {**out["pixel"], "ap": 0.5, "auroc": None, "n_cases": 2}}
    assert type(out["pixel"]["n_cases"]) is int and "sample" not in out and "object" not in out


def test_to_dict_lists_problems_and_a_missing_size_window_as_null():
    counts = ObjectCounts(0.5, 0, 0, 0, 0, 0, math.nan, math.nan, math.nan, None)  # type: ignore[arg-type]
    methods = [MethodSummary("a", None, None, ObjectSummary(counts, auto=False))]
    problem = Problem("missing", "error", Path("pred/c2.nii.gz"), "no prediction", "add it")
    evaluation = replace(_evaluation(methods), problems=(problem,))
    out = evaluation.to_dict()
    assert out["problems"] == [f"{Path('pred/c2.nii.gz')}: no prediction -> add it"]
    assert out["methods"]["a"]["object"]["size_window"] is None
    assert out["methods"]["a"]["object"]["f1"] is None
