"""Box benchmark services: reader choice, categories, score-map methods, figures."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from napari_mood.io.boxes import discover_box_dataset
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.services.box_formats import format_box_result
from napari_mood.services.box_inputs import BoxMethod, find_box_methods, load_ground_truth
from napari_mood.services.boxes import _score_methods, evaluate_boxes


def _dataset(tmp_path, boxes: str):
    for name in ("s1", "s2"):
        (tmp_path / "images").mkdir(exist_ok=True)
        Image.fromarray(np.zeros((20, 30), dtype=np.uint8)).save(
            tmp_path / "images" / f"{name}.png"
        )
    (tmp_path / "boxes.csv").write_text(boxes)
    return discover_box_dataset(tmp_path)


def test_three_readers_need_a_choice(tmp_path):
    dataset = _dataset(
        tmp_path, "image,x,y,w,h,reader\n" + "".join(f"s1,0,0,5,5,R{i}\n" for i in range(3))
    )
    with pytest.raises(MoodInputError, match="has 3 readers"):
        load_ground_truth(dataset)
    assert len(load_ground_truth(dataset, reader="R1").boxes) == 1


def test_bad_ground_truth_rows_are_all_counted(tmp_path):
    rows = "".join("s9,0,0,5,5\n" for _ in range(7))
    dataset = _dataset(tmp_path, "image,x,y,w,h\n" + rows)
    with pytest.raises(MoodInputError, match=r"7 row\(s\) cannot be used: .*line 2: .*and 2 more"):
        load_ground_truth(dataset)


def test_categories_only_when_both_sides_name_them(tmp_path):
    dataset = _dataset(tmp_path, "image,x,y,w,h,label\ns1,0,0,10,10,cyst\n")
    pred = tmp_path / "p.csv"
    pred.write_text("image,x,y,w,h,score\ns1,0,0,10,10,0.9\n")
    methods = {"p": BoxMethod("p", pred, "boxes")}
    with pytest.warns(MoodInputWarning, match="only the ground truth name categories"):
        result = evaluate_boxes(dataset, methods=methods)
    assert result.results["p"].map50 == 1.0  # scored as one category: the box matches
    labelled = tmp_path / "q.csv"
    labelled.write_text("image,x,y,w,h,score,label\ns1,0,0,10,10,0.9,tumour\n")
    result = evaluate_boxes(dataset, {"q": labelled})
    assert result.results["q"].map50 == 0.0  # wrong category: no match


def test_score_maps_missing_or_of_another_size_cost_their_image(tmp_path):
    dataset = _dataset(tmp_path, "image,x1,y1,x2,y2\ns1,2,3,6,8\ns2,0,0,4,4\n")
    maps = tmp_path / "m"
    maps.mkdir()
    score = np.zeros((20, 30))
    score[3:8, 2:6] = 0.8
    np.save(maps / "s1.npy", score)
    np.save(maps / "s2.npy", np.zeros((5, 5)))
    with pytest.warns(MoodInputWarning, match="map is 5 x 5, the image 30 x 20"):
        result = evaluate_boxes(dataset, maps={"m": maps})
    assert (result.results["m"].tp, result.results["m"].fn) == (1, 1)
    assert result.predictions["m"].scores.tolist() == [0.8]
    assert result.threshold == 0.5


def test_default_methods_and_none_found(tmp_path):
    dataset = _dataset(tmp_path, "image,x,y,w,h\ns1,0,0,5,5\n")
    with pytest.raises(MoodInputError, match="no predictions found"):
        find_box_methods(dataset)
    (tmp_path / "predictions").mkdir()
    (tmp_path / "predictions" / "a.json").write_text("[]")
    (tmp_path / "maps" / "b").mkdir(parents=True)
    assert {n: m.kind for n, m in find_box_methods(dataset).items()} == {"a": "boxes", "b": "maps"}


def test_json_has_no_nan(tmp_path):
    dataset = _dataset(tmp_path, "image,x,y,w,h\ns1,2,2,5,5\n")
    truth = load_ground_truth(dataset)
    truth = replace(truth, boxes=truth.boxes.take([]))  # no GT box: mAP is NaN -> null
    pred = tmp_path / "p.json"
    pred.write_text('[{"image_id": "s1", "bbox": [0, 0, 3, 3], "score": 0.5}]')
    # a ground-truth file without boxes is refused, so the empty truth is given directly
    result = _score_methods(
        dataset, truth, {"p": BoxMethod("p", pred, "boxes")},
        threshold=0.5, count_iou=0.3, min_score=None, strict=False, warn=True,
    )  # fmt: skip
    text = format_box_result(result, "json")
    assert "NaN" not in text and '"map50": null' in text


def test_box_figure_pdf_embeds_truetype(tmp_path):
    pytest.importorskip("matplotlib")
    from napari_mood.services.box_figures import write_box_figure

    dataset = _dataset(tmp_path, "image,x,y,w,h\ns1,2,2,5,5\n")
    pred = tmp_path / "p.csv"
    pred.write_text("image,x,y,w,h,score\ns1,2,2,5,5,0.9\ns1,20,10,5,5,0.4\n")
    result = evaluate_boxes(dataset, {"p": pred})
    out = write_box_figure(result, "p", tmp_path / "out" / "f.pdf")
    data = out.read_bytes()
    assert b"/FontFile2" in data and b"/Type3" not in data
