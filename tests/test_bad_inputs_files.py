"""Input files that lie or hold bad content (issue 35): one class per section.

Every test checks what the user sees (exit code, one line naming the file, no traceback),
that no input changed (checksums before and after) and that nothing partial is left
(no output of a refused run, no temporary file beside a written one).

- Files that lie about their size: PNG slices and score maps, ``.npy`` maps, NIfTI
  headers with negative or zero dimensions.
- Results and prediction JSON of the wrong shape (``rank``, ``evaluate-boxes``).
- Box files whose rows repeat (ground truth and predictions).
- Categories files with a case in two rows, or no case at all.
- Figures of cases without a scan.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import struct
import zlib
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.io.boxes import MAX_SLICE_PIXELS, read_image_size, read_score_map
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.json_input import read_json
from napari_mood.io.mood import discover_dataset
from napari_mood.io.nifti import read_grid
from napari_mood.services.datasets import sample_data_dir
from tests import test_bad_inputs
from tests.test_bad_inputs import _checksums, _cli, _refused

NOVA = sample_data_dir() / "nova"
data = test_bad_inputs.data  # the fixture: a MOOD set of three cases, methods a and b


@pytest.fixture
def nova(tmp_path: Path) -> Path:
    """A copy of the bundled NOVA-style box set (5 slices, boxes.csv, two methods)."""
    return Path(shutil.copytree(NOVA, tmp_path / "nova"))


def _only(folder: Path, *names: str) -> None:
    """``folder`` holds exactly ``names`` (no temporary or partial file)."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


def _single_error(err: str, names: str) -> None:
    errors = [line for line in err.splitlines() if line.startswith("napari-mood: error:")]
    assert len(errors) == 1 and names in errors[0], err
    assert "Traceback" not in err


# --------------------------------------------------------------------------- lying sizes


def _png_claiming(path: Path, width: int, height: int) -> None:
    """Rewrite a PNG's IHDR to declare ``width x height`` (CRC fixed, pixels unchanged)."""
    raw = path.read_bytes()
    ihdr = bytearray(raw[16:29])
    ihdr[0:8] = struct.pack(">II", width, height)
    crc = struct.pack(">I", zlib.crc32(b"IHDR" + bytes(ihdr)) & 0xFFFFFFFF)
    path.write_bytes(raw[:16] + bytes(ihdr) + crc + raw[33:])


PNG_LIES = {
    "100000^2 (PIL's bomb error)": (100000, 100000, "declares 100000 x 100000 pixels"),
    "12000^2 (PIL's bomb warning)": (12000, 12000, "declares 12000 x 12000 pixels"),
    "9000 x 7000 in a 35 KB file": (9000, 7000, "is truncated or its header is wrong"),
}


@pytest.mark.parametrize("kind", list(PNG_LIES))
def test_a_slice_lying_about_its_size_is_named(capsys, nova: Path, tmp_path: Path, kind: str):
    width, height, message = PNG_LIES[kind]
    slice_png = nova / "images" / "brain_003_z46.png"
    _png_claiming(slice_png, width, height)
    out = tmp_path / "result.json"
    err = _refused(capsys, nova, "evaluate-boxes", str(nova), "--out", str(out), names=message)
    _single_error(err, str(slice_png))
    assert not out.exists()
    _only(tmp_path, "nova")


@pytest.mark.parametrize("kind", list(PNG_LIES))
def test_a_score_map_lying_about_its_size_costs_only_its_image(
    capsys, nova: Path, tmp_path: Path, kind: str
):
    width, height, message = PNG_LIES[kind]
    lying = nova / "maps" / "residual" / "brain_003_z46.png"
    _png_claiming(lying, width, height)
    before = _checksums(nova)
    out = tmp_path / "result.json"
    code, _, err = _cli(capsys, "evaluate-boxes", str(nova), "--format", "json", "--out", str(out))
    assert code == 0 and "Traceback" not in err
    assert f"{lying}: {message}" in err and "image brain_003_z46 has no predicted box" in err
    result = json.loads(out.read_text())
    assert set(result["methods"]) == {"oracle_noisy", "residual"}
    assert _checksums(nova) == before
    _only(tmp_path, "nova", "result.json")


def _npy_header(path: Path, shape: tuple[int, ...], descr: str = "<f8", extra: int = 64) -> None:
    with path.open("wb") as stream:
        header = {"descr": descr, "fortran_order": False, "shape": shape}
        np.lib.format.write_array_header_1_0(stream, header)
        stream.write(bytes(extra))


NPY_LIES = {
    "7 TiB": (lambda p: _npy_header(p, (1 << 20, 1 << 20)), "declares 1048576 x 1048576 pixels"),
    "2000^2 in 64 bytes": (
        lambda p: _npy_header(p, (2000, 2000)),
        "is truncated or its header is wrong: shape (2000, 2000) of 8-byte values needs",
    ),
    "complex": (
        lambda p: np.save(p, np.zeros((480, 480), np.complex64)),
        "holds complex64 values, not real numbers",
    ),
    "3-D": (lambda p: np.save(p, np.zeros((2, 480, 480), np.float32)), "is 3-D"),
    "objects": (
        lambda p: np.save(p, np.array([{}, {}], dtype=object), allow_pickle=True),
        "holds object values",
    ),
    "not .npy": (lambda p: p.write_bytes(b"\x93NUMPY\x09\x00garbage"), "not a readable .npy"),
    "empty": (lambda p: p.write_bytes(b""), "not a readable .npy"),
}


@pytest.mark.parametrize("kind", list(NPY_LIES))
def test_a_bad_npy_map_costs_only_its_image(capsys, nova: Path, tmp_path: Path, kind: str):
    write, message = NPY_LIES[kind]
    maps = nova / "maps" / "residual"
    (maps / "brain_003_z46.png").unlink()
    lying = maps / "brain_003_z46.npy"
    write(lying)
    before = _checksums(nova)
    code, out, err = _cli(capsys, "evaluate-boxes", str(nova), "--format", "json")
    assert code == 0 and "Traceback" not in err
    assert f"{lying}: " in err and message in err, err
    assert "image brain_003_z46 has no predicted box" in err
    assert json.loads(out)["methods"]["residual"]["predicted_boxes"] > 0
    assert _checksums(nova) == before


def test_declared_sizes_are_checked_before_reading(tmp_path: Path):
    good = tmp_path / "good.npy"
    np.save(good, np.full((3, 4), 0.5))
    assert read_score_map(good).shape == (3, 4)
    big = tmp_path / "big.npy"
    side = int(MAX_SLICE_PIXELS**0.5) + 1
    _npy_header(big, (side, side), "|u1")
    with pytest.raises(MoodInputError, match=f"big.npy: declares {side} x {side} pixels"):
        read_score_map(big)
    png = tmp_path / "s.png"
    shutil.copy(NOVA / "images" / "brain_000_z47.png", png)
    assert read_image_size(png) == (480, 480)
    _png_claiming(png, 1, 2**31 - 1)
    with pytest.raises(MoodInputError, match="s.png: declares 1 x 2147483647 pixels"):
        read_image_size(png)


def _set_dim(path: Path, dims: dict[int, int]) -> Path:
    """Write ``dim[i] = v`` into a NIfTI header (the voxels unchanged); ``.nii`` stays plain."""
    packed = path.name.endswith(".gz")
    raw = bytearray(gzip.decompress(path.read_bytes()) if packed else path.read_bytes())
    header = nib.Nifti1Header.from_fileobj(io.BytesIO(bytes(raw[:348])))
    for index, value in dims.items():
        header.structarr["dim"][index] = value
    raw[:348] = header.structarr.tobytes()
    path.write_bytes(gzip.compress(bytes(raw)) if packed else bytes(raw))
    return path


def _plain(path: Path) -> Path:
    plain = path.with_name(path.name.removesuffix(".gz"))
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    path.unlink()
    return plain


NEGATIVE_DIMS = {
    "one axis": {2: -5},
    "two axes (positive product)": {1: -10, 2: -11},
    "every axis": {1: -1, 2: -1, 3: -1},
    "the last axis": {3: -12},
}


@pytest.mark.parametrize("dims", list(NEGATIVE_DIMS))
@pytest.mark.parametrize("packed", [True, False], ids=["nii.gz", "nii"])
def test_a_map_with_a_negative_dimension_costs_only_its_case(
    capsys, data: Path, dims: str, packed: bool
):
    case = "c1.nii.gz"
    if not packed:  # a plain case: its label, sample label and both maps as .nii
        _plain(data / "toy_label" / "pixel" / case)
        for name in ("a", "b"):
            _plain(data / "methods" / name / case)
    name = case if packed else "c1.nii"
    broken = _set_dim(data / "methods" / "a" / name, NEGATIVE_DIMS[dims])
    before = _checksums(data)
    code, out, err = _cli(capsys, "evaluate", str(data), "--task", "pixel", "--format", "json")
    assert code == 0 and "Traceback" not in err
    assert f"{broken}: its header declares a negative size" in err and "re-export" in err
    pixel = json.loads(out)["methods"]
    assert pixel["a"]["pixel"]["invalid"] == [name] and pixel["b"]["pixel"]["invalid"] == []
    code, report, _ = _cli(capsys, "validate", str(data))
    assert code == 0 and f"warning: {broken}: its header declares a negative size" in report
    assert _checksums(data) == before


@pytest.mark.parametrize("dims", [{1: -99}, {0: 0}, {3: 0}])
def test_a_label_with_a_bad_dimension_skips_its_case(capsys, data: Path, dims: dict[int, int]):
    label = _set_dim(data / "toy_label" / "pixel" / "c2.nii.gz", dims)
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert code == 0 and "Traceback" not in err
    assert f"{label}: its header declares" in err and "the case is skipped" in err
    with pytest.raises(MoodInputError, match="c2.nii.gz: its header declares"):
        read_grid(label)


# --------------------------------------------------------------------------- bad JSON


def _results(path: Path, **change: object) -> Path:
    """A ``evaluate --format json`` result of methods A and B (pixel task with batches)."""
    methods: dict[str, object] = {
        name: {"pixel": {"ap": 0.5, "batch_ap": {"mean": 0.5, "aps": [0.4, 0.6]}}}
        for name in ("A", "B")
    }
    results: dict[str, object] = {"dataset": "d", "methods": methods}
    for where, value in change.items():
        *parents, last = where.split("__")
        node = results
        for key in parents:
            node = node[key]  # type: ignore[assignment]
        node[last] = value
    path.write_text(json.dumps(results))
    return path


RESULTS = {
    "ap a string": ({"methods__A__pixel__batch_ap": None, "methods__A__pixel__ap": "high"},
                    "field methods.A.pixel.ap is 'high', not a number"),
    "ap an object": ({"methods__A__pixel__batch_ap": None, "methods__A__pixel__ap": {}},
                     "field methods.A.pixel.ap is an object, not a number"),
    "ap a boolean": ({"methods__A__pixel__batch_ap": None, "methods__A__pixel__ap": True},
                     "field methods.A.pixel.ap is True, not a number"),
    "ap above 1": ({"methods__A__pixel__batch_ap": None, "methods__A__pixel__ap": 1.5},
                   "field methods.A.pixel.ap is 1.5, outside [0, 1]"),
    "batch APs null": ({"methods__B__pixel__batch_ap__aps": None},
                       "field methods.B.pixel.batch_ap.aps is null, not a list"),
    "batch APs a string": ({"methods__B__pixel__batch_ap__aps": "0.4"},
                           "field methods.B.pixel.batch_ap.aps is '0.4', not a list"),
    "a batch AP a string": ({"methods__B__pixel__batch_ap__aps": [0.4, "x"]},
                            "field methods.B.pixel.batch_ap.aps[1] is 'x', not a number"),
    "batch mean a string": ({"methods__B__pixel__batch_ap__mean": "high"},
                            "field methods.B.pixel.batch_ap.mean is 'high'"),
    "batch_ap a list": ({"methods__B__pixel__batch_ap": [0.5]},
                        "field methods.B.pixel.batch_ap is a list, not an object"),
    "task a number": ({"methods__B__pixel": 0.5}, "field methods.B.pixel is 0.5, not an object"),
    "method a list": ({"methods__B": [1, 2]}, "field methods.B is a list, not an object"),
    "methods a string": ({"methods": "A,B"}, "field methods is 'A,B', not an object"),
}  # fmt: skip


@pytest.mark.parametrize("kind", list(RESULTS))
def test_rank_names_the_file_and_the_bad_field(capsys, tmp_path: Path, kind: str):
    change, message = RESULTS[kind]
    bad = _results(tmp_path / "bad.json", **change)
    good = _results(tmp_path / "good.json")
    out = tmp_path / "ranks"
    err = _refused(
        capsys, tmp_path, "rank", f"x={good}", f"y={bad}", "--bootstrap", "10", "--out", str(out),
        names=f"{bad}: {message}",
    )  # fmt: skip
    _single_error(err, str(bad))
    _only(tmp_path, "bad.json", "good.json")


UNREADABLE_JSON = {
    "nested 100000 deep": ("[" * 100_000 + "]" * 100_000, "is JSON nested too deeply"),
    "nested in a field": (
        '{"methods": {"A": {"pixel": {"ap": ' + "[" * 50_000 + "]" * 50_000 + "}}}}",
        "is JSON nested too deeply",
    ),
    "an integer of 5000 digits": ('{"methods": {"A": {"pixel": {"ap": 1' + "0" * 5000 + "}}}}",
                                  "is not readable JSON (Exceeds the limit"),
    "a top-level list": ("[1, 2]", "is not a napari-mood evaluate JSON (it holds a list)"),
    "an empty object": ("{}", "is not a napari-mood evaluate JSON (no field methods)"),
    "not JSON": ("methods: A", "is not readable JSON"),
}  # fmt: skip


@pytest.mark.parametrize("kind", list(UNREADABLE_JSON))
def test_rank_refuses_unreadable_results(capsys, tmp_path: Path, kind: str):
    text, message = UNREADABLE_JSON[kind]
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    err = _refused(capsys, tmp_path, "rank", str(bad), names=f"{bad}: {message}")
    _single_error(err, str(bad))


def test_rank_refuses_text_that_is_not_utf8(capsys, tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"methods": "\xff\xfe"}')
    _refused(capsys, tmp_path, "rank", str(bad), names=f"{bad}: is not UTF-8 text")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "is JSON nested too deeply"),
        ('[{"image_id": ' + "[" * 50_000 + "]" * 50_000 + "}]", "is JSON nested too deeply"),
        ('{"image_id": "brain_001_z44"}', "is not a list of boxes"),
        ('[{"bbox": [1, 2, 3, 4], "score": 1' + "0" * 5000 + "}]", "is not readable JSON"),
    ],
)
def test_evaluate_boxes_refuses_unreadable_prediction_json(
    capsys, nova: Path, tmp_path: Path, text: str, message: str
):
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    out = tmp_path / "r.json"
    err = _refused(
        capsys, nova, "evaluate-boxes", str(nova), "--pred", str(bad), "--out", str(out),
        names=f"{bad}: {message}",
    )  # fmt: skip
    _single_error(err, str(bad))
    _only(tmp_path, "nova", "bad.json")


def test_prediction_fields_that_are_not_scalars_are_named_by_item(capsys, nova: Path, tmp_path):
    pred = tmp_path / "p.json"
    items = [
        {"image_id": "brain_001_z44", "bbox": [210, 79, 60, 59], "score": 0.9},
        {"image_id": [[["brain_001_z44"]]], "bbox": [210, 79, 60, 59], "score": 0.8},
        {"image_id": "brain_001_z44", "bbox": [{"x": 1}, 79, 60, 59], "score": 0.7},
        {"image_id": "brain_001_z44", "bbox": [210, 79, 60, 59], "score": None},
        {"image_id": "brain_001_z44", "bbox": [210, 79, 60, 59], "score": True},
    ]
    pred.write_text(json.dumps(items))
    code, _, err = _cli(capsys, "evaluate-boxes", str(nova), "--pred", str(pred))
    assert code == 0 and "Traceback" not in err
    assert f"{pred}: item 1: unknown image '(a list)'" in err
    assert f"{pred}: item 2: x is '(an object)', not a number" in err
    assert f"{pred}: item 3: score is 'null', not a number" in err
    assert f"{pred}: item 4: score is 'true', not a number" in err


def test_read_json_is_the_one_owner(tmp_path: Path):
    path = tmp_path / "x.json"
    path.write_text("\ufeff[1]", encoding="utf-8")
    assert read_json(path, hint="h") == [1]
    path.write_text("[" * 10_000)
    with pytest.raises(MoodInputError, match=r"x.json: is JSON nested too deeply .*\(h\)"):
        read_json(path, hint="h")


# --------------------------------------------------------------------------- repeated rows


def test_repeated_ground_truth_rows_are_warned(capsys, nova: Path):
    boxes = nova / "boxes.csv"
    lines = boxes.read_text().splitlines()
    boxes.write_text("\n".join(lines + lines[1:]) + "\n")  # every row twice: 9 repeats
    before = _checksums(nova)
    code, out, err = _cli(capsys, "evaluate-boxes", str(nova), "--format", "json")
    assert code == 0 and "Traceback" not in err
    note = f"{boxes}: 9 row(s) repeat an earlier row exactly (first: line 11 = line 2)"
    assert f"napari-mood: warning: {note}" in err and "ground-truth box" in err
    assert err.count(note) == 1
    assert any(note in p for p in json.loads(out)["problems"])
    assert _checksums(nova) == before


def test_the_same_box_of_two_readers_is_no_repeat(capsys, nova: Path):
    boxes = nova / "boxes.csv"
    boxes.write_text(
        "image_id,x,y,width,height,reader\n"
        "brain_001_z44,204,75,73,71,R1\nbrain_001_z44,204,75,73,71,R2\n"
        "brain_001_z44,10,10,5,5,R1\n"
    )
    code, _, err = _cli(capsys, "evaluate-boxes", str(nova))
    assert code == 0 and "repeat" not in err


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_repeated_predictions_are_warned_never_refused(
    capsys, nova: Path, tmp_path: Path, suffix: str
):
    items = json.loads((NOVA / "predictions" / "oracle_noisy.json").read_text())
    pred = tmp_path / f"twice{suffix}"
    if suffix == ".json":
        pred.write_text(json.dumps(items + items[:3]))
        first = "item 4 = item 0"
    else:
        rows = [f"{i['image_id']},{','.join(map(str, i['bbox']))},{i['score']}" for i in items]
        pred.write_text("\n".join(["image_id,x,y,width,height,score", *rows, *rows[:3]]) + "\n")
        first = "line 6 = line 2"
    code, _, err = _cli(capsys, "evaluate-boxes", str(nova), "--pred", str(pred), "--strict")
    assert code == 0 and "Traceback" not in err
    assert f"{pred}: 3 row(s) repeat an earlier row exactly (first: {first})" in err
    assert "false positive" in err


# --------------------------------------------------------------------------- categories


CATEGORIES = {
    "a case in two categories": (
        "case,category\nc1,local\nc2,global\nc1,global\n",
        "case c1 is in row 2 (local) and in row 4 (global)",
    ),
    "named once with .nii.gz": (
        "c1.nii.gz,local,sphere\nc2,local\nc1,local,slab\n",
        "case c1 is in row 1 (local / sphere) and in row 3 (local / slab)",
    ),
    "another order": (
        "c1,local,sphere,1\nc1,local,sphere,2\n",
        "case c1 is in row 1 (local / sphere / order 1) and in row 2",
    ),
    "empty": ("", "holds no case"),
    "header only": ("case,category,subcategory\n", "holds no case"),
    "comments and blank lines": ("# none yet\n\n", "holds no case"),
}


@pytest.mark.parametrize("kind", list(CATEGORIES))
@pytest.mark.parametrize("command", ["categories", "evaluate --report"])
def test_a_bad_categories_file_is_named(
    capsys, data: Path, tmp_path: Path, kind: str, command: str
):
    text, message = CATEGORIES[kind]
    path = data / "categories.csv"
    path.write_text(text)
    out = tmp_path / "out"
    argv = (
        ("categories", str(data), "--out", str(out))
        if command == "categories"
        else ("evaluate", str(data), "--report", str(out))
    )
    err = _refused(capsys, data, *argv, "--categories", str(path), names=f"{path}: {message}")
    _single_error(err, str(path))
    assert not out.exists()


def test_a_case_repeated_in_one_category_is_accepted(capsys, data: Path, tmp_path: Path):
    path = data / "categories.csv"
    path.write_text("case,category\nc1,local\nc2,local\nc1.nii.gz,local\n")
    code, _, err = _cli(
        capsys, "categories", str(data), "--categories", str(path), "--out", str(tmp_path / "o"),
        "--quiet",
    )  # fmt: skip
    assert code == 0, err


# --------------------------------------------------------------------------- figures


def test_a_figure_of_a_case_without_its_scan_is_refused(capsys, data: Path, tmp_path: Path):
    scan = data / "toy" / "c1.nii.gz"
    scan.unlink()
    out = tmp_path / "f.png"
    err = _refused(
        capsys, data, "figure", str(data), "--cases", "c1,c2", "--out", str(out),
        names=f"{scan}: the scan of case c1 is missing",
    )  # fmt: skip
    _single_error(err, "leave the case out of --cases")
    assert not out.exists()


def test_a_figure_of_a_case_with_a_broken_scan_is_refused(capsys, data: Path, tmp_path: Path):
    scan = _set_dim(data / "toy" / "c2.nii.gz", {1: -10})
    out = tmp_path / "f.png"
    err = _refused(
        capsys, data, "figure", str(data), "--cases", "c2", "--out", str(out),
        names=f"{scan}: its header declares a negative size",
    )  # fmt: skip
    assert "case c2 has no scan to show" in err and not out.exists()


def test_chosen_cases_without_a_scan_are_left_out(capsys, data: Path, tmp_path: Path):
    scan = data / "toy" / "c1.nii.gz"
    scan.unlink()
    before = _checksums(data)
    out = tmp_path / "f.png"
    code, stdout, err = _cli(capsys, "figure", str(data), "--out", str(out), "--dpi", "50")
    assert code == 0 and "Traceback" not in err
    assert f"napari-mood: warning: {scan}: the scan of case c1 is missing" in err
    assert "left out of the figure" in err and "1 row," in stdout
    assert _checksums(data) == before
    _only(tmp_path, "data", "f.png")
    (data / "toy" / "c2.nii.gz").unlink()
    out.unlink()
    err = _refused(capsys, data, "figure", str(data), "--out", str(out), names=str(data))
    assert "has no anomalous case with a scan to show" in err and not out.exists()


def test_load_figure_cases_asked_or_chosen(data: Path):
    from napari_mood.io.methods import discover_methods
    from napari_mood.services.figure_cases import load_figure_cases

    (data / "toy" / "c1.nii.gz").unlink()
    dataset = discover_dataset(data)
    methods = discover_methods(data / "methods")
    with pytest.raises(MoodInputError, match="c1.nii.gz: the scan of case c1 is missing"):
        load_figure_cases(dataset, ["c1", "c2"], methods)
    with pytest.warns(MoodInputWarning, match="left out of the figure"):
        cases = load_figure_cases(dataset, ["c1", "c2"], methods, asked=False)
    assert [c.name for c in cases] == ["c2"] and cases[0].scan is not None


@pytest.mark.parametrize(("width", "height"), [(0, 71), (73, 0), (0, 0)])
def test_a_ground_truth_box_of_no_area_is_refused_naming_its_line(
    capsys, nova: Path, tmp_path: Path, width: int, height: int
):
    boxes = nova / "boxes.csv"
    boxes.write_text(boxes.read_text().replace("204,75,73,71,R1", f"204,75,{width},{height},R1", 1))
    out = tmp_path / "result.json"
    err = _refused(capsys, nova, "evaluate-boxes", str(nova), "--out", str(out),
                   names=f"{boxes}: line 2: the box (204, 75, ")  # fmt: skip
    _single_error(err, "has no area")
    assert not out.exists()
