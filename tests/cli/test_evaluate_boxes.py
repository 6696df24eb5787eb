"""``napari-mood evaluate-boxes``: numbers equal pycocotools end to end, formats, refusals."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from napari_mood.cli import main
from napari_mood.core.boxes import BoxSet
from napari_mood.core.boxes.from_scores import boxes_from_score_map
from napari_mood.io.boxes import discover_box_dataset, read_score_map
from napari_mood.services.box_inputs import load_ground_truth
from tests.core.boxes.coco_reference import coco_reference

NOVA = Path(__file__).resolve().parents[2] / "sample_data" / "nova"  # this checkout's


def _gt_rows() -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((NOVA / "boxes.csv").read_text())))


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def sample_json(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("boxes") / "result.json"
    assert (
        main(["evaluate-boxes", str(NOVA), "--format", "json", "--out", str(out), "--quiet"]) == 0
    )
    return json.loads(out.read_text())


def _oracle_predictions(name: str) -> BoxSet:
    dataset = discover_box_dataset(NOVA)
    if name == "oracle_noisy":
        items = json.loads((NOVA / "predictions" / "oracle_noisy.json").read_text())
        xyxy = [[x, y, x + w, y + h] for x, y, w, h in (i["bbox"] for i in items)]
        return BoxSet.build(
            [i["image_id"] for i in items], xyxy, scores=[i["score"] for i in items]
        )
    parts = [
        boxes_from_score_map(
            read_score_map(NOVA / "maps" / name / f"{image}.png"), threshold=0.5, image=image
        )
        for image in dataset.order
    ]
    return BoxSet.concat(parts)


@pytest.mark.parametrize("method", ["oracle_noisy", "residual"])
def test_sample_json_equals_pycocotools(sample_json, method):
    dataset = discover_box_dataset(NOVA)
    truth = load_ground_truth(dataset)
    ref = coco_reference(truth.boxes, _oracle_predictions(method), list(dataset.order))
    ours = sample_json["methods"][method]
    assert ours["map30"] == pytest.approx(ref["ap"][0.3], abs=1e-9)
    assert ours["map50"] == pytest.approx(ref["ap"][0.5], abs=1e-9)
    assert ours["map50_95"] == pytest.approx(
        np.mean([v for t, v in ref["ap"].items() if t >= 0.5]), abs=1e-9
    )
    assert ours["tp"] == sum(ref["detected"].values())
    assert ours["tp"] + ours["fn"] == ours["gt_boxes"] == len(truth.boxes)
    detected = {
        r["image"]: r["detected"] for r in sample_json["per_image"] if r["method"] == method
    }
    assert detected == ref["detected"]


def test_sample_ground_truth_is_the_consensus_of_two_readers(sample_json):
    gt = sample_json["ground_truth"]
    assert gt["reader"] == "consensus" and gt["readers"] == ["R1", "R2"]
    rows = _gt_rows()
    assert gt["boxes"] == sum(r["reader"] == "R1" for r in rows)  # R2 drew a subset of R1's


def test_csv_has_one_row_per_image_and_method(capsys):
    code, out, _ = _run(capsys, "evaluate-boxes", str(NOVA), "--format", "csv", "--quiet")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 5 * 2
    assert {int(r["detected"]) + int(r["missed"]) == int(r["gt_boxes"]) for r in rows} == {True}


def test_table_and_per_image_table(capsys):
    code, out, _ = _run(capsys, "evaluate-boxes", str(NOVA), "--per-image", "--quiet")
    assert code == 0
    assert "mAP@[50:95]" in out and "TP30" in out and "per image (sorted by misses)" in out


def test_one_reader_and_an_unknown_reader(capsys, sample_json):
    code, out, _ = _run(
        capsys, "evaluate-boxes", str(NOVA), "--reader", "R2", "--format", "json", "--quiet"
    )
    assert code == 0
    rows = _gt_rows()
    assert json.loads(out)["ground_truth"]["boxes"] == sum(r["reader"] == "R2" for r in rows)
    code, _, err = _run(capsys, "evaluate-boxes", str(NOVA), "--reader", "R7")
    assert code == 1 and "no reader 'R7'" in err


@pytest.fixture
def copy(tmp_path):
    target = tmp_path / "nova"
    shutil.copytree(NOVA, target)
    return target


def test_bad_ground_truth_row_is_an_error_naming_file_and_line(capsys, copy):
    with (copy / "boxes.csv").open("a") as stream:
        stream.write("brain_001_z44,470,10,20,20,R1\n")
    code, _, err = _run(capsys, "evaluate-boxes", str(copy))
    assert code == 1
    assert "boxes.csv: line 11: box (470, 10, 490, 30) lies outside the 480 x 480 image" in err


def test_bad_prediction_row_is_a_warning_or_with_strict_an_error(capsys, copy, tmp_path):
    pred = tmp_path / "m.csv"
    pred.write_text("image,x1,y1,x2,y2,score\nbrain_001_z44,200,70,280,150,0.9\nnope,1,1,2,2,0.5\n")
    code, out, err = _run(capsys, "evaluate-boxes", str(copy), "--pred", str(pred))
    assert code == 0 and "m.csv: line 3: unknown image 'nope'" in err and "m " in out
    code, _, err = _run(capsys, "evaluate-boxes", str(copy), "--pred", str(pred), "--strict")
    assert code == 1 and "line 3" in err


def test_outputs_are_guarded(capsys, copy, tmp_path):
    code, _, err = _run(capsys, "evaluate-boxes", str(copy), "--out", str(copy / "r.json"))
    assert code == 1 and "inside the input folder" in err
    out = tmp_path / "r.txt"
    out.write_text("old")
    code, _, err = _run(capsys, "evaluate-boxes", str(copy), "--out", str(out))
    assert code == 1 and "exists already" in err and out.read_text() == "old"
    with pytest.raises(SystemExit) as exc:  # a figure type never written: refused at parse time
        main(["evaluate-boxes", str(copy), "--plot", str(tmp_path / "f.gif")])
    assert exc.value.code == 2 and ".png, .svg or .pdf" in capsys.readouterr().err


@pytest.mark.parametrize("iou", ["1.5", "0", "nan"])
def test_bad_iou_is_a_usage_error(capsys, iou):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate-boxes", str(NOVA), "--iou", iou])
    assert exc.value.code == 2


def test_figure_is_written(capsys, tmp_path):
    figure = tmp_path / "boxes.png"
    code, _, err = _run(
        capsys, "evaluate-boxes", str(NOVA), "--plot", str(figure), "--dpi", "100", "--quiet"
    )
    assert code == 0 and figure.exists()
    with Image.open(figure) as img:
        assert img.format == "PNG" and img.width > 300
