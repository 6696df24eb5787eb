"""One entry point per benchmark: defaults, validation up front, one result type each.

The numbers behind these entry points are checked against independent derivations in
test_notebook_examples.py (official scorer, pycocotools) and the modules' own tests;
here: what a notebook user gets without reading the code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import napari_mood
from napari_mood.core.results import EvaluationOptions
from tests.conftest import make_mood_folder


@pytest.fixture
def pixel_only(tmp_path: Path) -> tuple[Path, Path]:
    """Two cases with pixel labels only; method ``a`` perfect, ``b`` inverted."""
    labels, good, bad = {}, {}, {}
    for i in range(2):
        mask = np.zeros((6, 7, 8), bool)
        mask[1:4, 2:5, 2 + i : 5 + i] = True
        labels[f"c{i}"] = mask
        good[f"c{i}"] = np.where(mask, 0.9, 0.1).astype(np.float32)
        bad[f"c{i}"] = np.where(mask, 0.1, 0.9).astype(np.float32)
    return make_mood_folder(tmp_path, labels, {"a": good, "b": bad})


def test_evaluate_needs_no_options_and_scores_the_tasks_with_labels(pixel_only):
    data, preds = pixel_only
    found = napari_mood.evaluate(data, preds)  # no options: no TypeError
    assert found.result.options.tasks == ("pixel",)  # no sample labels: pixel only
    assert found.result.methods["a"].pixel.ap == 1.0  # every GT voxel scores above the rest
    # b scores every GT voxel 0.1, every other 0.9: its only operating point with recall
    # flags everything, so AP = 1 x precision there = the prevalence
    n_gt, n = 2 * 27, 2 * 6 * 7 * 8
    assert found.result.methods["b"].pixel.ap == pytest.approx(n_gt / n, rel=1e-12)
    assert found.stats.workers == 1  # small inputs: no process pool


def test_evaluate_takes_methods_by_name_and_tasks_over_options(pixel_only):
    data, preds = pixel_only
    found = napari_mood.evaluate(data, {"mine": preds / "a"}, warn=False)
    assert list(found.methods) == ["mine"]
    options = EvaluationOptions(tasks=("object",), object_threshold=0.5)
    found = napari_mood.evaluate(data, preds, tasks=("pixel", "object"), options=options)
    assert found.result.options.tasks == ("pixel", "object")
    assert found.result.options.object_threshold == 0.5
    assert found.result.methods["a"].object.counts.tp == 2  # one object per case, both found


def test_evaluate_refuses_an_unknown_task_before_reading(tmp_path):
    with pytest.raises(ValueError, match="task must be one of 'pixel', 'sample', 'object'"):
        napari_mood.evaluate(tmp_path / "nowhere", tasks=("voxel",))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one"):
        napari_mood.evaluate(tmp_path / "nowhere", tasks=())
    with pytest.raises(napari_mood.MoodInputError):
        napari_mood.evaluate(tmp_path / "nowhere")


def test_the_mood_result_converts_one_way_each(pixel_only):
    data, preds = pixel_only
    found = napari_mood.evaluate(data, preds)
    assert json.loads(found.to_json()) == found.to_dict()
    frame = found.to_frame()
    assert list(frame.index) == ["a", "b"] and frame.loc["a", "pixel_ap"] == 1.0
    assert len(found.to_frame(per_case=True)) == 4  # 2 cases x 2 methods
    table = str(found).splitlines()
    assert table[1].split()[:3] == ["method", "pixel", "AP"] and table[2].startswith("a ")
    assert repr(found).startswith("<MoodEvaluation data: 2 cases, methods a, b")


def test_to_frame_without_pandas_names_what_to_install(pixel_only, monkeypatch):
    # pandas comes with napari, not with napari-mood's core (a core-only install has none)
    found = napari_mood.evaluate(*pixel_only)
    monkeypatch.setitem(sys.modules, "pandas", None)  # what `import pandas` meets without it
    with pytest.raises(ImportError, match=r"to_frame needs pandas.*pip install pandas"):
        found.to_frame()


def test_boxes_and_recon_refuse_bad_arguments_up_front(tmp_path):
    with pytest.raises(ValueError, match=r"iou must be in \(0, 1\]"):
        napari_mood.evaluate_boxes(tmp_path, iou=0.0)
    with pytest.raises(TypeError, match="reconstructions"):
        napari_mood.evaluate_recon(tmp_path)
