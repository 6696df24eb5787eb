"""The docs' notebook examples (docs/examples/*.py), run as written, one per benchmark.

Each example is three lines: import, the benchmark's entry point, print. The numbers they
print are checked against an independent derivation (the restated official MOOD scorer,
pycocotools' COCO evaluator, the recon metrics restated in test_recon.py).
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

import napari_mood
from tests.reference_scorer import official_ap

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SAMPLE = napari_mood.sample_data_dir()


def _run(name: str, cwd: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[dict, str]:
    path = EXAMPLES / name
    code = [line for line in path.read_text().splitlines() if line.strip()]
    assert len(code) == 3, f"{name}: a notebook example is three lines"
    monkeypatch.chdir(cwd)
    namespace = runpy.run_path(str(path))
    return namespace, capsys.readouterr().out


# the sample data leave one case of "binary" without a map, on purpose: it warns
@pytest.mark.filterwarnings("ignore::napari_mood.io.errors.MoodInputWarning")
def test_mood_example_prints_the_official_scorers_ap(tmp_path, monkeypatch, capsys):
    namespace, out = _run("evaluate_mood.py", tmp_path, monkeypatch, capsys)
    result = namespace["result"]
    assert isinstance(result, napari_mood.MoodEvaluation) and out == str(result) + "\n"
    frame = result.to_frame()
    for method in ("oracle_noisy", "residual", "binary"):
        expected = official_ap(SAMPLE / "methods" / method, SAMPLE / "toy_label" / "pixel")
        assert frame.loc[method, "pixel_ap"] == pytest.approx(expected, abs=1e-12)
        assert f"{expected:.4f}" in out.splitlines()[2 + list(frame.index).index(method)]
    assert list(frame.index) == sorted(frame.index, key=lambda m: -frame.loc[m, "pixel_ap"])
    assert (
        result.to_dict()["methods"]["residual"]["pixel"]["ap"] == frame.loc["residual", "pixel_ap"]
    )


def test_boxes_example_prints_cocos_map(tmp_path, monkeypatch, capsys):
    from tests.core.boxes.coco_reference import coco_reference

    namespace, out = _run("evaluate_boxes.py", tmp_path, monkeypatch, capsys)
    result = namespace["result"]
    assert isinstance(result, napari_mood.BoxBenchmark) and out == str(result) + "\n"
    frame = result.to_frame()
    for method in result.ranked():
        gt, pred = result.ground_truth[method], result.predictions[method]
        expected = coco_reference(gt, pred, list(result.images))["ap"][0.5]
        assert frame.loc[method, "map50"] == pytest.approx(expected, abs=1e-9)
        row = next(line for line in out.splitlines() if line.startswith(method))
        assert f"{expected:.4f}" in row


def test_recon_example_prints_the_per_degree_table(tmp_path, monkeypatch, capsys):
    from tests.services.test_recon import _dataset

    _dataset(tmp_path)  # tmp_path/sim (a simulated set) and tmp_path/recon
    namespace, out = _run("evaluate_recon.py", tmp_path, monkeypatch, capsys)
    result = namespace["result"]
    assert isinstance(result, napari_mood.ReconEvaluation) and out == str(result) + "\n"
    frame = result.to_frame()
    assert len(frame) == 6 and set(frame["where"]) == {"brain", "anomaly"}
    degree0 = frame[frame["degree"] == 0.0]
    assert np.allclose(degree0["normalised_mse"], 1.0)  # degree 0 is its own reference
    assert len(result.to_frame(per_case=True)) == 6


@pytest.mark.parametrize("example", sorted(path.name for path in EXAMPLES.glob("*.py")))
def test_every_docs_example_is_run_by_a_test_here(example: str):
    assert f'_run("{example}"' in Path(__file__).read_text(encoding="utf-8"), (
        f"docs/examples/{example} is shown on the site but no test runs it"
    )
