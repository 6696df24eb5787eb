"""Reading NOVA-style folders, box CSV / JSON files and score maps; every refusal names the place."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from PIL import Image

from napari_mood.io.boxes import (
    discover_box_dataset,
    find_box_predictions,
    read_box_file,
    read_score_map,
)
from napari_mood.io.errors import MoodInputError

SIZES = {"s1": (40, 30), "s2": (40, 30)}


def _png(path, shape=(30, 40), dtype=np.uint8, value=0):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full(shape, value, dtype=dtype)).save(path)
    return path


@pytest.fixture
def dataset(tmp_path):
    _png(tmp_path / "images" / "s1.png")
    _png(tmp_path / "images" / "s2.png")
    (tmp_path / "boxes.csv").write_text("image_id,x,y,width,height,reader\ns1.png,1,2,3,4,R1\n")
    return tmp_path


def test_discover_reads_sizes_from_png_headers(dataset):
    found = discover_box_dataset(dataset)
    assert found.order == ("s1", "s2")
    assert found.sizes == {"s1": (40, 30), "s2": (40, 30)}
    assert found.boxes_file == dataset / "boxes.csv"


def test_discover_names_missing_box_file_and_csvs_present(dataset):
    (dataset / "boxes.csv").rename(dataset / "gt.csv")
    with pytest.raises(MoodInputError, match=r"boxes.csv: no ground-truth box file .*gt.csv"):
        discover_box_dataset(dataset)


def test_csv_xywh_and_xyxy_give_the_same_boxes(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("Image ID,X,Y,Width,Height,Reader ID\ns1,1,2,3,4,R1\n")
    b = tmp_path / "b.csv"
    b.write_text("file,xmin,ymin,xmax,ymax\nimages/s1.png,1,2,4,6\n")
    first, second = read_box_file(a, sizes=SIZES), read_box_file(b, sizes=SIZES)
    assert first.boxes.xyxy.tolist() == second.boxes.xyxy.tolist() == [[1, 2, 4, 6]]
    assert first.boxes.readers == ("R1",) and first.has_readers and not second.has_readers
    assert not first.has_scores and first.boxes.scores.tolist() == [1.0]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("s1,1,2,-3,4", "line 2: negative size: width -3"),
        ("s9,1,2,3,4", "line 2: unknown image 's9'"),
        ("s1,38,2,3,4", "line 2: box .* outside the 40 x 30 image s1"),
        ("s1,-1,2,3,4", "outside"),
        ("s1,a,2,3,4", "line 2: x is 'a', not a number"),
        ("s1,1,2,nan,4", "width is 'nan'"),
    ],
)
def test_bad_rows_are_listed_with_file_and_line(tmp_path, row, message):
    path = tmp_path / "p.csv"
    path.write_text(f"image,x,y,w,h\n{row}\n")
    read = read_box_file(path, sizes=SIZES)
    assert len(read.boxes) == 0
    assert len(read.problems) == 1
    assert str(path) in read.problems[0]
    assert re.search(message, read.problems[0]), read.problems[0]


@pytest.mark.parametrize("image", ["../images/s1", "/data/s1.png", "other/s1.png", "a/images/s1"])
def test_an_image_id_that_is_a_path_is_refused_on_its_line(tmp_path, image):
    path = tmp_path / "p.csv"
    path.write_text(f"image,x,y,w,h\ns1,1,2,3,4\n{image},1,2,3,4\n")
    read = read_box_file(path, sizes=SIZES)
    assert len(read.boxes) == 1
    assert read.problems == (
        f"{path}: line 3: image id {image!r} is a path, not a name "
        "(give the slice's name, e.g. 's1')",
    )


def test_an_image_id_at_its_own_place_in_images_is_a_name(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("image,x,y,w,h\nimages/s1.png,1,2,3,4\nimages\\s2,1,2,3,4\n")
    read = read_box_file(path, sizes=SIZES)
    assert read.problems == () and read.boxes.images == ("s1", "s2")


def test_a_reader_column_empty_on_some_rows_names_those_lines(tmp_path):
    path = tmp_path / "gt.csv"
    path.write_text(
        "image,x,y,w,h,reader\ns1,1,2,3,4,R1\ns1,1,2,3,4,\ns2,1,2,3,4,R2\ns2,1,2,3,4,\n"
    )
    read = read_box_file(path, sizes=SIZES)
    assert [p.split(": ")[1] for p in read.problems] == ["line 3", "line 5"]
    assert "reader cell is empty while other rows name a reader" in read.problems[0]
    assert read.boxes.readers == ("R1", "R2")


def test_a_reader_column_empty_on_every_row_is_one_reader(tmp_path):
    path = tmp_path / "gt.csv"
    path.write_text("image,x,y,w,h,reader\ns1,1,2,3,4,\ns2,1,2,3,4,\n")
    assert read_box_file(path, sizes=SIZES).problems == ()


@pytest.mark.parametrize("row", ["s1,1,2,0,4", "s1,1,2,3,0"])
def test_a_box_of_no_area_is_a_problem_of_ground_truth_only(tmp_path, row):
    path = tmp_path / "p.csv"
    path.write_text(f"image,x,y,w,h\n{row}\n")
    truth = read_box_file(path, sizes=SIZES, ground_truth=True)
    assert len(truth.boxes) == 0 and len(truth.problems) == 1
    assert f"{path}: line 2: the box (1, 2, " in truth.problems[0]
    assert "has no area" in truth.problems[0] and "> 0" in truth.problems[0]
    predicted = read_box_file(path, sizes=SIZES)  # COCO: a false positive, never an error
    assert predicted.problems == () and len(predicted.boxes) == 1


def test_box_touching_the_border_is_inside(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("image,x1,y1,x2,y2\ns1,0,0,40,30\n")
    assert read_box_file(path, sizes=SIZES).problems == ()


def test_negative_corner_order_is_refused(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("image,x1,y1,x2,y2\ns1,5,0,4,30\n")
    assert "negative size" in read_box_file(path, sizes=SIZES).problems[0]


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("x,y,width,height", "no image column"),
        ("image,x,y", "no box columns"),
        ("image,x,y,width,height,x1,y1,x2,y2", "both x1,y1,x2,y2 and x,y,width,height"),
    ],
)
def test_missing_columns_name_the_header(tmp_path, header, message):
    path = tmp_path / "p.csv"
    path.write_text(header + "\n")
    with pytest.raises(MoodInputError, match=f"line 1 \\(header\\): {message}"):
        read_box_file(path, sizes=SIZES)


def test_coco_results_json(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(
        json.dumps(
            [
                {"image_id": "s1", "bbox": [1, 2, 3, 4], "score": 0.7},
                {"image_id": "s2", "bbox": [1, 2], "score": 0.7},
            ]
        )
    )
    read = read_box_file(path, sizes=SIZES)
    assert read.boxes.xyxy.tolist() == [[1, 2, 4, 6]] and read.boxes.scores.tolist() == [0.7]
    assert read.has_scores and "item 1: bbox is a list of 2 value(s), not [x" in read.problems[0]


def test_json_that_is_not_a_list_is_refused(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"annotations": []}')
    with pytest.raises(MoodInputError, match="not a list of boxes"):
        read_box_file(path, sizes=SIZES)


def test_predictions_folder(dataset):
    (dataset / "predictions").mkdir()
    (dataset / "predictions" / "m1.json").write_text("[]")
    (dataset / "predictions" / "m2.csv").write_text("image,x,y,w,h,score\n")
    (dataset / "predictions" / "notes.txt").write_text("")
    assert list(find_box_predictions(dataset)) == ["m1", "m2"]


def test_score_maps_png_scaled_and_npy(tmp_path):
    assert read_score_map(_png(tmp_path / "a.png", value=255)).max() == 1.0
    assert read_score_map(_png(tmp_path / "b.png", dtype=np.uint16, value=65535)).max() == 1.0
    np.save(tmp_path / "c.npy", np.full((3, 3), 0.25))
    assert read_score_map(tmp_path / "c.npy").tolist()[0] == [0.25] * 3
    np.save(tmp_path / "d.npy", np.full((3, 3), 2.0))
    with pytest.raises(MoodInputError, match="outside"):
        read_score_map(tmp_path / "d.npy")


def test_not_a_png_is_named(dataset):
    (dataset / "images" / "s3.png").write_text("not an image")
    with pytest.raises(MoodInputError, match="s3.png: is not a readable PNG"):
        discover_box_dataset(dataset)
