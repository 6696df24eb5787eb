"""Bad inputs of the hostile sweep: options refused at parse time, files refused at once.

``--scans`` as a path, an empty ``--reader``, a ``--plot`` type not written, repeated or
empty sweep values and radii beyond any scan (exit 2, before any file is read); a
ground-truth box file without a box, a categories file with other columns or an empty
category, a sweep.json listing a case twice (exit 1 naming the file). Every try: one
line, no traceback, inputs unchanged, no output left.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from napari_mood.io.errors import MoodInputError
from napari_mood.services.report import read_case_categories
from tests import test_bad_inputs
from tests.test_bad_inputs import _checksums, _cli, _refused

data = test_bad_inputs.data  # the fixture: a MOOD set of three cases, methods a and b
NOVA = Path(__file__).resolve().parents[1] / "sample_data" / "nova"


@pytest.fixture
def nova(tmp_path: Path) -> Path:
    """A copy of the sample NOVA box dataset (two readers)."""
    return Path(shutil.copytree(NOVA, tmp_path / "nova"))


def _boxes(nova: Path, *argv: str) -> list[str]:
    pred = str(nova / "predictions" / "oracle_noisy.json")
    return ["evaluate-boxes", str(nova), "--pred", pred, *argv]


# --------------------------------------------------------------------------- --scans


@pytest.mark.parametrize("scans", ["../../..", "..", ".", "toy/..", "a\\b", ""])
@pytest.mark.parametrize("command", ["evaluate", "validate", "figure", "categories"])
def test_scans_is_a_folder_name_not_a_path(capsys, data: Path, command: str, scans: str):
    err = _refused(capsys, data, command, str(data), "--scans", scans, code=2, names="--scans")
    assert "plain folder name" in err


@pytest.mark.parametrize("command", ["reconstruct", "evaluate-recon"])
def test_scans_of_recon_commands_is_a_folder_name(capsys, data: Path, command: str):
    _refused(capsys, data, command, str(data), "--scans", "../..", code=2, names="--scans")


def test_scans_plain_name_still_works(capsys, data: Path):
    code, _, err = _cli(capsys, "evaluate", str(data), "--scans", "toy", "--quiet")
    assert code == 0, err


# --------------------------------------------------------------------------- evaluate-boxes


@pytest.mark.parametrize("reader", ["", " ", "\t"])
def test_empty_reader_is_a_usage_error(capsys, nova: Path, reader: str):
    err = _refused(capsys, nova, *_boxes(nova, "--reader", reader), code=2, names="--reader")
    assert "must not be empty" in err


@pytest.mark.parametrize(
    "text", ["image_id,x,y,width,height,reader\n", "image_id,x1,y1,x2,y2\n\n \n", "[]"]
)
def test_ground_truth_without_a_box_is_an_error(capsys, nova: Path, tmp_path: Path, text: str):
    boxes = tmp_path / ("b.json" if text == "[]" else "b.csv")
    boxes.write_text(text)
    out = tmp_path / "r.csv"
    err = _refused(
        capsys, nova, *_boxes(nova, "--boxes", str(boxes), "--out", str(out)), names=str(boxes)
    )
    assert "holds no box" in err and not out.exists()
    assert boxes.read_text() == text


@pytest.mark.parametrize("figure", ["out.jpg", "out", "out.PNG.txt", ""])
def test_figure_type_is_checked_at_parse_time(capsys, nova: Path, tmp_path: Path, figure: str):
    path = str(tmp_path / figure) if figure else ""
    err = _refused(capsys, nova, *_boxes(nova, "--plot", path), code=2, names="--plot")
    assert "napari-mood evaluate-boxes: error: argument --plot" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nova"]


def test_figure_upper_case_png_is_accepted(capsys, nova: Path, tmp_path: Path):
    figure = tmp_path / "f.PNG"
    code, _, err = _cli(capsys, *_boxes(nova, "--plot", str(figure), "--quiet"))
    assert code == 0, err
    assert figure.stat().st_size > 0


# --------------------------------------------------------------------------- categories


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("a,b,c\n1,2,3\n", "none of its 2 case(s) is in the dataset"),
        ("name,category\nc1,x\n", "row 1 (header) is 'name,category'"),
        ("case,label\nc1,x\n", "row 1 (header) is 'case,label'"),
        ("category,case\nc1,x\n", "row 1 (header)"),
        ("case,category\nc1.nii.gz,\n", "row 2: the category is empty"),
        ("c1, \n", "row 1: the category is empty"),
        ("case,category\n,local\n", "row 2: the case is empty"),
    ],
)
def test_categories_file_with_wrong_columns_or_empty_names(
    capsys, data: Path, tmp_path: Path, text: str, expect: str
):
    path = tmp_path / "c.csv"
    path.write_text(text)
    out = tmp_path / "cats"
    before = path.read_bytes()
    err = _refused(
        capsys,
        data,
        "categories",
        str(data),
        "--categories",
        str(path),
        "--out",
        str(out),
        names=str(path),
    )
    assert expect in err and "case,category[,subcategory[,order]]" in err, err
    assert not out.exists() and path.read_bytes() == before


def test_evaluate_report_refuses_categories_naming_no_case(capsys, data: Path, tmp_path: Path):
    path = tmp_path / "c.csv"
    path.write_text("a,b,c\n1,2,3\n")
    report = tmp_path / "rep"
    err = _refused(
        capsys,
        data,
        "evaluate",
        str(data),
        "--report",
        str(report),
        "--categories",
        str(path),
        names=str(path),
    )
    assert "none of its 2 case(s)" in err and not report.exists()


@pytest.mark.parametrize(
    "text",
    [
        "case,category\nc1,x\n",
        "CASE,Category,\nc1,x\n",  # spreadsheet: capitals, a trailing empty cell
        "case,category,subcategory,order\nc1,x,y,2\n",
        "c1,x\n",  # no header
    ],
)
def test_categories_good_headers_still_read(tmp_path: Path, text: str):
    path = tmp_path / "c.csv"
    path.write_text(text)
    assert set(read_case_categories(path, cases=("c1.nii.gz", "c2.nii.gz"))) == {"c1.nii.gz"}


def test_categories_naming_no_case_of_the_dataset(tmp_path: Path):
    path = tmp_path / "c.csv"
    path.write_text("x,y\n")
    with pytest.raises(MoodInputError, match="none of its 1 case"):
        read_case_categories(path, cases=("c1.nii.gz",))
    assert set(read_case_categories(path)) == {"x.nii.gz"}  # without cases: not checked


def test_categories_plot_without_labelled_artists_warns_nothing():
    from napari_mood.services.categories import plot_categories

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot_categories([], "pixel_ap")
    assert fig.axes[0].get_legend() is None


def test_categories_run_has_no_matplotlib_warning(capsys, data: Path, tmp_path: Path):
    path = tmp_path / "c.csv"
    path.write_text("case,category\nc0,normal\nc1,local\nc2,local\n")
    code, _, err = _cli(
        capsys, "categories", str(data), "--categories", str(path), "--out", str(tmp_path / "o")
    )
    assert code == 0, err
    assert "No artists" not in err and "Traceback" not in err


# --------------------------------------------------------------------------- sweep


@pytest.mark.parametrize(
    ("option", "value", "expect"),
    [
        ("--radii", "5,5", "given twice"),
        ("--radii", "1,2,1", "given twice"),
        ("--radii", "5,,6", "empty item"),
        ("--radii", "5,", "empty item"),
        ("--radii", "1e9", "<= 1,000 voxels"),
        ("--radii", "1001", "<= 1,000 voxels"),
        ("--radii", "0:2000:500", "<= 1,000 voxels"),
        ("--radius", "1e9", "<= 1,000 voxels"),
        ("--intensities", "0.5,0.5", "given twice"),
        ("--intensities", ",0.5", "empty item"),
    ],
)
def test_sweep_values_refused_at_parse_time(
    capsys, data: Path, tmp_path: Path, option: str, value: str, expect: str
):
    kind = "size" if option == "--radii" else "contrast"
    out = tmp_path / "sw"
    scan = str(data / "toy" / "c0.nii.gz")
    err = _refused(
        capsys, data, "sweep", kind, scan, "--out", str(out), option, value, code=2, names=option
    )
    assert expect in err and not out.exists()


def _sweep(capsys, data: Path, out: Path) -> None:
    scan = str(data / "toy" / "c0.nii.gz")
    code, _, err = _cli(capsys, "sweep", "size", scan, "--out", str(out), "--radii", "0,1,2")
    assert code == 0, err


@pytest.mark.parametrize("repeat", [(2, 1), (1, 0), (2, 0)])
def test_sweep_json_listing_a_case_twice(capsys, data: Path, tmp_path: Path, repeat):
    sweep = tmp_path / "sw"
    _sweep(capsys, data, sweep)
    description = json.loads((sweep / "sweep.json").read_text())
    description["cases"][repeat[0]] = description["cases"][repeat[1]]
    (sweep / "sweep.json").write_text(json.dumps(description))
    twice = description["cases"][repeat[1]]["name"]
    out = tmp_path / "rep"
    before = _checksums(sweep)
    err = _refused(
        capsys,
        data,
        "sweep-report",
        str(sweep),
        "--preds",
        str(data / "methods"),
        "--out",
        str(out),
        names=str(sweep / "sweep.json"),
    )
    assert f"lists case {twice} 2 times" in err and not out.exists()
    assert _checksums(sweep) == before


def test_sweep_json_radius_beyond_the_bound(capsys, data: Path, tmp_path: Path):
    sweep = tmp_path / "sw"
    _sweep(capsys, data, sweep)
    description = json.loads((sweep / "sweep.json").read_text())
    description["cases"][0]["radius"] = 1e9
    (sweep / "sweep.json").write_text(json.dumps(description))
    err = _refused(
        capsys, data, "sweep-report", str(sweep), "--preds", str(data / "methods"),
        "--out", str(tmp_path / "rep"), names=str(sweep / "sweep.json"),
    )  # fmt: skip
    assert "<= 1,000 voxels" in err


def test_distinct_sweep_values_still_accepted():
    from napari_mood.core.sweep import parse_values

    assert parse_values(" 3, 1 ,2") == (1.0, 2.0, 3.0)
    assert parse_values("0:10:5") == (0.0, 5.0, 10.0)
    assert np.isclose(parse_values("0.5")[0], 0.5)


def test_load_ground_truth_refuses_an_empty_reader(nova: Path):
    from napari_mood.io.boxes import discover_box_dataset
    from napari_mood.services.box_inputs import load_ground_truth

    with pytest.raises(ValueError, match="not empty"):
        load_ground_truth(discover_box_dataset(nova), reader="")
