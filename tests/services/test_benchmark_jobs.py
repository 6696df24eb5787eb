"""Each benchmark's job called as a notebook would: evaluate, then write what is asked.

The numbers written are checked against independent derivations (the restated official
MOOD scorer, pycocotools); the files written are exactly those asked for; an output that
may not be written is refused before any work.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import napari_mood
from napari_mood.io.boxes import discover_box_dataset
from napari_mood.io.errors import MoodInputError
from napari_mood.io.methods import find_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.io.recon import ReconFolders
from napari_mood.services import evaluation_job
from napari_mood.services.box_inputs import find_box_methods
from napari_mood.services.boxes import BoxOutputs, write_box_evaluation
from napari_mood.services.evaluation import EvaluationOptions
from napari_mood.services.evaluation_job import MoodOutputs, write_mood_evaluation
from napari_mood.services.output import OutputRefused
from napari_mood.services.recon_report import ReconOutputs, write_recon_evaluation
from napari_mood.services.report import REPORT_FILES
from tests.conftest import make_mood_folder
from tests.reference_scorer import official_ap

SAMPLE = napari_mood.sample_data_dir()


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def mood(tmp_path: Path):
    """Four cases, two methods (one perfect, one noisy); returns (dataset, methods, preds)."""
    rng = np.random.default_rng(3)
    labels, perfect, noisy = {}, {}, {}
    for i in range(4):
        mask = np.zeros((6, 7, 8), bool)
        mask[1 + i % 3 : 4, 2:5, 3 : 5 + i % 2] = True
        labels[f"c{i}"] = mask
        perfect[f"c{i}"] = mask.astype(np.float32)
        noisy[f"c{i}"] = np.clip(mask * 0.6 + rng.random(mask.shape) * 0.5, 0, 1).astype(np.float32)
    root, preds = make_mood_folder(tmp_path / "in", labels, {"perfect": perfect, "noisy": noisy})
    dataset = discover_dataset(root)
    return dataset, find_methods(root, preds=preds), preds


def test_mood_job_writes_the_official_scorers_ap_and_only_what_is_asked(mood, tmp_path):
    dataset, methods, preds = mood
    out_dir = tmp_path / "out"
    outputs = MoodOutputs(
        out=out_dir / "result.json", format="json", report=out_dir / "report", dpi=50
    )
    run = write_mood_evaluation(dataset, methods, EvaluationOptions(tasks=("pixel",)), outputs)
    assert set(run.written) == {"out", "report"}
    assert _tree(out_dir) == {"result.json", *(f"report/{name}" for name in REPORT_FILES)}
    data = json.loads((out_dir / "result.json").read_text())
    assert (out_dir / "result.json").read_text() == run.text
    labels = dataset.root / "toy_label" / "pixel"
    for method in ("perfect", "noisy"):
        expected = official_ap(preds / method, labels)
        assert data["methods"][method]["pixel"]["ap"] == pytest.approx(expected, abs=1e-12)
    assert data["methods"]["perfect"]["pixel"]["ap"] == 1.0  # a perfect map, worked by hand
    assert run.evaluation.result is run.result


def test_mood_job_without_outputs_writes_nothing(mood, tmp_path):
    dataset, methods, _ = mood
    before = _tree(tmp_path)
    run = write_mood_evaluation(
        dataset, methods, EvaluationOptions(tasks=("pixel",)), MoodOutputs(format="csv")
    )
    assert run.written == {} and run.report is None and _tree(tmp_path) == before
    assert run.text.splitlines()[0].startswith("case,method,")


def test_mood_job_refuses_an_existing_output_before_any_work(mood, tmp_path, monkeypatch):
    dataset, methods, _ = mood
    out = tmp_path / "result.txt"
    out.write_text("kept")

    def no_work(*args, **kwargs):
        raise AssertionError("evaluated before the outputs were checked")

    monkeypatch.setattr(evaluation_job, "evaluate", no_work)
    options = EvaluationOptions(tasks=("pixel",))
    with pytest.raises(OutputRefused, match="allow replacing it"):
        write_mood_evaluation(dataset, methods, options, MoodOutputs(out=out))
    with pytest.raises(OutputRefused):  # inside an input folder
        write_mood_evaluation(dataset, methods, options, MoodOutputs(out=dataset.root / "r.txt"))
    assert out.read_text() == "kept" and not (dataset.root / "r.txt").exists()


def test_box_job_writes_cocos_map(tmp_path):
    from tests.core.boxes.coco_reference import coco_reference

    dataset = discover_box_dataset(SAMPLE / "nova")
    methods = find_box_methods(dataset)
    out = tmp_path / "boxes.json"
    run = write_box_evaluation(dataset, methods, BoxOutputs(out=out, format="json"))
    assert set(run.written) == {"out"} and _tree(tmp_path) == {"boxes.json"}
    data = json.loads(out.read_text())
    result = run.result
    for method in result.ranked():
        gt, pred = result.ground_truth[method], result.predictions[method]
        expected = coco_reference(gt, pred, list(result.images))["ap"][0.5]
        assert data["methods"][method]["map50"] == pytest.approx(expected, abs=1e-9)


@pytest.mark.filterwarnings("ignore::napari_mood.io.errors.MoodInputWarning")
def test_box_job_checks_the_drawn_method_before_writing_anything(tmp_path, monkeypatch):
    from napari_mood.services import boxes

    dataset = discover_box_dataset(SAMPLE / "nova")
    methods = find_box_methods(dataset)
    outputs = BoxOutputs(out=tmp_path / "r.csv", plot=tmp_path / "f.png", plot_method="nope")
    monkeypatch.setattr(boxes, "evaluate_boxes", lambda *a, **k: pytest.fail("worked"))
    with pytest.raises(MoodInputError, match="the method to draw 'nope' is not a method"):
        write_box_evaluation(dataset, methods, outputs)
    with pytest.raises(MoodInputError, match="unknown image"):
        write_box_evaluation(dataset, methods, BoxOutputs(plot_images=["nope"]))
    assert _tree(tmp_path) == set()


def test_recon_job_writes_the_maps_and_the_text_asked_for(tmp_path):
    from tests.services.test_recon import _dataset

    truth = _dataset(tmp_path / "in")
    folders = ReconFolders.of_dataset(tmp_path / "in" / "sim", tmp_path / "in" / "recon")
    outputs = ReconOutputs(
        out=tmp_path / "out" / "r.json", format="json", save_maps=tmp_path / "maps"
    )
    run = write_recon_evaluation(folders, outputs)
    assert set(run.written) == {"out", "save_maps"}
    assert _tree(tmp_path / "out") == {"r.json"}
    assert _tree(tmp_path / "maps") == {
        f"{name}{suffix}" for name in truth for suffix in (".nii.gz", ".nii.gz.txt")
    }
    assert (tmp_path / "out" / "r.json").read_text() == run.text
    data = json.loads(run.text)
    assert {case["case"].removesuffix(".nii.gz") for case in data["cases"]} == set(truth)


def test_recon_job_refuses_maps_inside_its_inputs_before_any_work(tmp_path, monkeypatch):
    from napari_mood.services import recon_report
    from tests.services.test_recon import _dataset

    _dataset(tmp_path)
    folders = ReconFolders.of_dataset(tmp_path / "sim", tmp_path / "recon")
    monkeypatch.setattr(recon_report, "evaluate_recon", lambda *a, **k: pytest.fail("worked"))
    with pytest.raises(OutputRefused):
        write_recon_evaluation(folders, ReconOutputs(save_maps=tmp_path / "recon" / "maps"))
    assert not (tmp_path / "recon" / "maps").exists()


def test_figure_job_writes_one_figure(tmp_path):
    from napari_mood.services.figure_job import write_figure

    dataset = discover_dataset(SAMPLE)
    methods = find_methods(SAMPLE)
    out = tmp_path / "fig.png"
    run = write_figure(dataset, methods, out, max_cases=2, dpi=60)
    assert run.path == out and _tree(tmp_path) == {"fig.png"} and run.rows == 2
    from PIL import Image

    with Image.open(out) as image:
        width, height = image.size
    w_in, h_in = run.figure.get_size_inches()
    assert (width, height) == (int(w_in * 60), int(h_in * 60))
    with pytest.raises(OutputRefused):
        write_figure(dataset, methods, out)


@pytest.mark.parametrize("outputs", [MoodOutputs, BoxOutputs, ReconOutputs])
def test_an_unknown_format_is_refused_when_the_outputs_are_made(outputs):
    with pytest.raises(ValueError, match="format must be one of table, csv, json, got 'JSON'"):
        outputs(format="JSON")
