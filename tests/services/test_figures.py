"""Publication figures (napari_mood.services.figures) and ``napari-mood figure``: headless, Agg."""

from __future__ import annotations

import itertools
import json
import math
import re
import subprocess
import sys

import matplotlib
import nibabel as nib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle

from napari_mood.cli import main
from napari_mood.core.orientation import display_transform
from napari_mood.core.results import EvaluationOptions
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.evaluation import evaluate
from napari_mood.services.figures import (
    FigureCase,
    FigureRow,
    FigureTooNarrow,
    ViewFigure,
    case_annotation,
    figure_rows,
    load_figure_cases,
    make_figure,
    save_figure,
    write_view_figure,
)
from napari_mood.services.looks import GT_COLOR
from napari_mood.services.paper import PAGE_HEIGHT_MM, parse_width, scale_bar_mm

SAMPLE = sample_data_dir()


@pytest.fixture(scope="module")
def sample_cases() -> list[FigureCase]:
    dataset = discover_dataset(SAMPLE)
    methods = discover_methods(SAMPLE / "methods")
    return load_figure_cases(dataset, ["brain_001", "brain_000.nii.gz"], methods)


def _render(figure) -> np.ndarray:
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].astype(np.float32) / 255


def _pixels_of(ax, image: np.ndarray) -> np.ndarray:
    """The rendered pixels inside an axes (image rows run top -> bottom)."""
    box = ax.get_window_extent()
    height = image.shape[0]
    rows = slice(int(math.ceil(height - box.y1)), int(height - box.y0))
    cols = slice(int(math.ceil(box.x0)), int(box.x1))
    return image[rows, cols]


def _cells(figure) -> list:
    return [ax for ax in figure.axes if ax.images]


def _near(image: np.ndarray, color: str, tol: float = 0.12) -> np.ndarray:
    return np.all(np.abs(image - np.array(to_rgb(color))) < tol, axis=-1)


PLANES3 = ("axial", "coronal", "sagittal")


@pytest.fixture(scope="module")
def three_cases() -> list[FigureCase]:
    """An anomalous case, one without a ``binary`` map, a normal case."""
    dataset = discover_dataset(SAMPLE)
    methods = discover_methods(SAMPLE / "methods")
    return load_figure_cases(dataset, ["brain_001", "brain_004", "brain_000"], methods)


def _drawn_texts(figure) -> list:
    """Every non-empty text matplotlib draws (tick labels only of axes that show them)."""
    FigureCanvasAgg(figure).draw()
    texts = list(figure.texts)
    for ax in figure.axes:
        texts += ax.texts
        if ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                texts += [*axis.get_ticklabels(), axis.label]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def _letters(ax) -> dict[str, str]:
    """Orientation letters of an image axes by side (``top``, ``bottom``, ``left``, ``right``)."""
    return {
        t.get_gid().removeprefix("letter-"): t.get_text()
        for t in ax.texts
        if (t.get_gid() or "").startswith("letter-")
    }


# --------------------------------------------------------------------------- files


@pytest.mark.parametrize("dpi", [40, 72])
def test_png_is_figsize_times_dpi_pixels(sample_cases, tmp_path, dpi):
    figure = make_figure(figure_rows(sample_cases))
    path = save_figure(figure, tmp_path / "grid.png", dpi=dpi)
    with path.open("rb") as handle:
        header = handle.read(24)
    width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
    expected = np.floor(figure.get_size_inches() * dpi).astype(int)  # as Agg truncates
    assert (width, height) == tuple(expected)


@pytest.mark.parametrize(("suffix", "magic"), [(".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_vector_formats_are_written(sample_cases, tmp_path, suffix, magic):
    path = save_figure(make_figure(figure_rows(sample_cases[:1])), tmp_path / f"f{suffix}", dpi=50)
    assert path.read_bytes().startswith(magic)
    assert path.stat().st_size > 10_000


def test_save_figure_refuses_other_formats(sample_cases, tmp_path):
    figure = make_figure(figure_rows(sample_cases[:1]))
    with pytest.raises(ValueError, match=r"\.png, \.svg or \.pdf"):
        save_figure(figure, tmp_path / "f.jpg")
    with pytest.raises(ValueError, match="dpi"):
        save_figure(figure, tmp_path / "f.png", dpi=0)


# --------------------------------------------------------------------------- content


def test_grid_has_a_cell_per_case_and_column_and_no_cell_is_blank(sample_cases):
    figure = make_figure(figure_rows(sample_cases), annotate=True)
    image = _render(figure)
    cells = _cells(figure)
    assert len(cells) == 2 * (2 + 3)  # rows x (scan, GT, binary, oracle_noisy, residual)
    for ax in cells:
        assert _pixels_of(ax, image).std() > 0.05
    titles = [t.get_text() for t in figure.texts]
    assert titles == ["scan", "ground truth", "binary", "oracle_noisy", "residual"]


def test_rows_use_the_largest_ground_truth_slice_and_the_top_score_slice(sample_cases):
    gt_file = nib.load(SAMPLE / "toy_label" / "pixel" / "brain_001.nii.gz")
    shown = display_transform(gt_file.shape, gt_file.affine).to_display(
        np.asarray(gt_file.dataobj) > 0
    )
    best = int(np.argmax(shown.sum(axis=(1, 2))))
    figure = make_figure(figure_rows(sample_cases))
    labels = [t.get_text() for ax in _cells(figure) for t in ax.texts if "axial" in t.get_text()]
    binary = sample_cases[1].maps["binary"].astype(np.float32)
    peak = np.flatnonzero(binary.max(axis=(1, 2)) == binary.max())
    assert labels[0] == f"brain_001\naxial {best}"
    assert int(labels[1].split()[-1]) in peak  # normal case: a slice holding binary's top score


def test_method_cells_are_transparent_at_or_below_the_threshold():
    scores = np.zeros((1, 8, 8), np.float32)
    scores[0, :, 4:] = 0.4  # right half: 0.4
    case = FigureCase("c", np.zeros((1, 8, 8), np.float32), None, {"m": scores})
    image = _render(make_figure([FigureRow(case)], thresholds={"m": 0.4}, crop=False))
    method_cell = _pixels_of(_cells(make_figure([FigureRow(case)], crop=False))[2], image)
    assert method_cell.max() < 0.02  # all transparent over a black scan
    shown = _render(make_figure([FigureRow(case)], thresholds={"m": 0.3}, crop=False))
    assert _pixels_of(_cells(make_figure([FigureRow(case)], crop=False))[2], shown).max() > 0.2


def test_gt_outline_lies_on_the_mask_boundary():
    mask = np.zeros((1, 32, 32), bool)
    mask[0, 10:20, 8:22] = True  # voxel edges at rows 9.5 / 19.5, columns 7.5 / 21.5
    case = FigureCase("c", np.zeros((1, 32, 32), np.float32), mask, {})
    figure = make_figure([FigureRow(case)], crop=False, convention="neurological")
    figure.set_dpi(200)  # about 11 pixels per voxel
    image = _render(figure)
    gt_ax = _cells(figure)[1]
    box = gt_ax.get_window_extent()
    ys, xs = np.nonzero(_near(image, GT_COLOR))
    inside = (xs > box.x0) & (xs < box.x1) & (image.shape[0] - ys > box.y0)
    data = gt_ax.transData.inverted().transform(
        np.column_stack([xs[inside] + 0.5, image.shape[0] - ys[inside] - 0.5])
    )
    col, row = data[:, 0], data[:, 1]
    to_edge = np.minimum.reduce(
        [np.abs(col - 7.5), np.abs(col - 21.5), np.abs(row - 9.5), np.abs(row - 19.5)]
    )
    within = (col > 7.0) & (col < 22.0) & (row > 9.0) & (row < 20.0)
    assert len(col) > 200
    assert within.all()
    assert (to_edge < 0.6).all()
    for edge in (np.abs(col - 7.5), np.abs(col - 21.5), np.abs(row - 9.5), np.abs(row - 19.5)):
        assert (edge < 0.3).sum() > 40  # every side is drawn


def test_anterior_is_up(sample_cases):
    """brain_001's sphere is anterior (file y = 90 of 117): its outline is in the top half."""
    centre = json.loads((SAMPLE / "cases.json").read_text())["cases"][1]["anomalies"][0]["center"]
    assert centre[1] > 117 / 2
    figure = make_figure(figure_rows(sample_cases[:1]), crop=False)
    image = _render(figure)
    gt_ax = _cells(figure)[1]
    ys, _ = np.nonzero(_near(_pixels_of(gt_ax, image), GT_COLOR))
    assert np.median(ys) < _pixels_of(gt_ax, image).shape[0] / 2


def test_annotation_equals_the_evaluator_per_case_ap(sample_cases):
    dataset = discover_dataset(SAMPLE)
    methods = discover_methods(SAMPLE / "methods")
    result = evaluate(
        dataset, methods=methods, options=EvaluationOptions(tasks=("pixel",)), warn=False
    ).result
    ap = next(
        r.pixel_ap
        for r in result.per_case
        if (r.case, r.method) == ("brain_001.nii.gz", "residual")
    )
    case = sample_cases[0]
    text = case_annotation(case.gt, case.maps["residual"], 0.5)
    assert text.splitlines()[0] == f"AP {ap:.2f}"
    flagged = case.maps["residual"] >= 0.5
    dice = 2 * (flagged & case.gt).sum() / (flagged.sum() + case.gt.sum())
    assert text.splitlines()[1] == f"Dice@0.5 {dice:.2f}"
    assert case_annotation(None, case.maps["residual"], 0.5).startswith("max ")


# --------------------------------------------------------------------------- rows and checks


def test_several_slices_of_one_case_make_several_rows(sample_cases):
    rows = figure_rows(sample_cases[:1], [10, None, 50])
    assert [r.index for r in rows] == [10, None, 50]
    assert len(_cells(make_figure(rows))) == 3 * 5


def test_thresholds_of_unknown_methods_are_refused(sample_cases):
    with pytest.raises(ValueError, match="unknown methods"):
        make_figure(figure_rows(sample_cases[:1]), thresholds={"nope": 0.3})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        make_figure(figure_rows(sample_cases[:1]), thresholds=1.5)


def test_methods_choose_and_order_the_columns(sample_cases):
    figure = make_figure(
        figure_rows(sample_cases[:1]), methods=["residual", "binary"], annotate=True
    )
    assert [t.get_text() for t in figure.texts][2:] == ["residual", "binary"]
    assert len(_cells(figure)) == 4


def test_a_missing_map_says_so(tmp_path):
    dataset = discover_dataset(SAMPLE)
    cases = load_figure_cases(dataset, ["brain_004"], discover_methods(SAMPLE / "methods"))
    figure = make_figure(figure_rows(cases), methods=["binary", "residual"])
    notes = [t.get_text() for ax in _cells(figure) for t in ax.texts]
    assert "no map" in notes


# --------------------------------------------------------------------------- fonts


def test_pdf_embeds_truetype_fonts_and_no_type3(three_cases, tmp_path):
    figure = make_figure(figure_rows(three_cases[:1], planes=PLANES3), width="column")
    data = save_figure(figure, tmp_path / "f.pdf", dpi=50).read_bytes()
    assert b"/Type3" not in data
    assert b"/FontFile2" in data  # an embedded TrueType program (Type 42)
    assert re.search(rb"/BaseFont /[A-Z]{6}\+DejaVuSans\b", data)
    assert b"DejaVuSans-Bold" in data  # the orientation letters are text too


def test_svg_keeps_every_text_as_text_in_dejavu_sans(three_cases, tmp_path):
    figure = make_figure(figure_rows(three_cases[:1], planes=PLANES3), width="column")
    svg = save_figure(figure, tmp_path / "f.svg", dpi=50).read_text()
    shown = set(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    assert {"scan", "binary", "brain_001", "axial 44", "50 mm", "GT outline", "R", "S"} <= shown
    families = set(re.findall(r"font-family: ([^;\"]*)", svg))
    assert families == {"'DejaVu Sans', sans-serif"}


def test_font_settings_stay_local(three_cases, tmp_path):
    before = {k: matplotlib.rcParams[k] for k in ("pdf.fonttype", "svg.fonttype", "font.size")}
    save_figure(make_figure(figure_rows(three_cases[:1])), tmp_path / "f.pdf", dpi=40)
    after = {k: matplotlib.rcParams[k] for k in before}
    assert after == before


# --------------------------------------------------------------------------- width


@pytest.mark.parametrize("width", ["column", "lncs", "page", "3.5in", "8.9cm"])
def test_files_have_the_requested_width(sample_cases, tmp_path, width):
    width_in = parse_width(width) / 25.4
    figure = make_figure(figure_rows(sample_cases[:1]), width=width)
    assert figure.get_size_inches()[0] == pytest.approx(width_in)
    png = save_figure(figure, tmp_path / "f.png", dpi=100).read_bytes()
    assert abs(int.from_bytes(png[16:20], "big") - width_in * 100) <= 1
    pdf = save_figure(figure, tmp_path / "f.pdf", dpi=40).read_bytes()
    box = re.search(rb"/MediaBox \[\s*0 0 ([0-9.]+) ([0-9.]+)", pdf)
    assert float(box[1]) == pytest.approx(width_in * 72, abs=0.01)
    svg = save_figure(figure, tmp_path / "f.svg", dpi=40).read_text()
    assert float(re.search(r'<svg[^>]* width="([0-9.]+)pt"', svg)[1]) == pytest.approx(
        width_in * 72, abs=0.01
    )


@pytest.mark.parametrize(
    ("width", "annotate", "letters"),
    [("column", False, "all"), ("lncs", True, "first"), (None, True, "all")],
)
def test_every_text_is_7pt_inside_the_figure_and_none_overlap(
    three_cases, width, annotate, letters
):
    rows = figure_rows(three_cases, planes=PLANES3)
    figure = make_figure(rows, width=width, annotate=annotate, letters=letters)
    figure.set_dpi(150)
    texts = _drawn_texts(figure)
    assert min(t.get_fontsize() for t in texts) >= 7
    boxes = [t.get_window_extent() for t in texts]
    page = figure.bbox
    for box in boxes:
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1
        assert page.y0 - 1 <= box.y0 and box.y1 <= page.y1 + 1
    for (a, box_a), (b, box_b) in itertools.combinations(zip(texts, boxes, strict=True), 2):
        inner = box_a.shrunk(0.98, 0.9)
        assert not inner.overlaps(box_b), f"{a.get_text()!r} overlaps {b.get_text()!r}"


def test_a_width_too_narrow_is_refused_with_the_minimum(three_cases):
    rows = figure_rows(three_cases[:1], planes=PLANES3)
    with pytest.raises(FigureTooNarrow, match=r"needs at least (\d+) mm") as info:
        make_figure(rows, width="40mm")
    minimum = math.ceil(info.value.min_width_mm)
    assert f"{minimum}mm or more" in str(info.value)
    make_figure(rows, width=f"{minimum}mm")  # the width it names fits


def test_annotations_fit_a_column_of_five_by_wrapping(three_cases):
    figure = make_figure(figure_rows(three_cases[:1]), width="column", annotate=True)
    notes = [t.get_text() for ax in figure.axes for t in ax.texts if "AP" in t.get_text()]
    assert notes and all(note.count("\n") == 2 for note in notes)  # "Dice@0.5" / "0.83"


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"width": "wide"}, r"column \(89 mm\)"),
        ({"width": 0}, "more than 0"),
        ({"convention": "left"}, r"\['radiological', 'neurological'\]"),
        ({"letters": True}, r"\['first', 'all', 'none'\]"),
    ],
)
def test_options_are_checked_up_front(sample_cases, option, message):
    with pytest.raises(ValueError, match=message):
        make_figure(figure_rows(sample_cases[:1]), **option)


# --------------------------------------------------------------------------- orientation


def _corner_case() -> FigureCase:
    """A uniform body with a bright block at the superior, anterior, right corner."""
    scan = np.full((16, 18, 20), 0.2, np.float32)  # (S, A, R); A index 0 is anterior
    scan[11:15, 1:5, 15:19] = 1.0
    return FigureCase("corner", scan, None)


@pytest.mark.parametrize(
    ("plane", "index", "convention", "expected"),
    [
        ("axial", 13, "radiological", ("left", "top")),
        ("axial", 13, "neurological", ("right", "top")),
        ("coronal", 3, "radiological", ("left", "top")),
        ("coronal", 3, "neurological", ("right", "top")),
        ("sagittal", 17, "radiological", ("left", "top")),
        ("sagittal", 17, "neurological", ("left", "top")),
    ],
)
def test_the_marker_is_where_the_letters_say(plane, index, convention, expected):
    rows = [FigureRow(_corner_case(), index, plane)]
    figure = make_figure(rows, crop=False, convention=convention, letters="none")
    scan_ax = _cells(figure)[0]
    pixels = _pixels_of(scan_ax, _render(figure)).mean(axis=-1)
    ys, xs = np.nonzero(pixels > 0.8)
    side_x = "left" if xs.mean() < pixels.shape[1] / 2 else "right"
    side_y = "top" if ys.mean() < pixels.shape[0] / 2 else "bottom"
    assert (side_x, side_y) == expected  # radiological: patient right on the left
    lettered = make_figure(rows, crop=False, convention=convention)
    letters = _letters(_cells(lettered)[0])
    assert letters[side_x] in "RAS" and letters[side_y] in "AS"  # the marker's directions
    assert set(letters) == {"top", "bottom", "left", "right"}


def test_radiological_shows_the_right_sided_cube_of_brain_001_on_the_left(sample_cases):
    """brain_001's cube is at file x = 75 of 99 (patient right, RAS affine)."""
    for convention, left_side in (("radiological", True), ("neurological", False)):
        figure = make_figure(figure_rows(sample_cases[:1]), convention=convention, crop=False)
        gt_ax = _cells(figure)[1]
        cell = _pixels_of(gt_ax, _render(figure))
        _, xs = np.nonzero(_near(cell, GT_COLOR))
        width = cell.shape[1]
        assert ((xs < 0.35 * width).any()) == left_side
        assert ((xs > 0.65 * width).any()) == (not left_side)


@pytest.mark.parametrize(
    ("letters", "lettered_columns"), [("first", [0]), ("all", [0, 1, 2, 3, 4]), ("none", [])]
)
def test_letters_sit_on_the_first_or_every_image(sample_cases, letters, lettered_columns):
    figure = make_figure(figure_rows(sample_cases[:1], planes=PLANES3), letters=letters)
    cells = _cells(figure)
    for k, ax in enumerate(cells):
        assert bool(_letters(ax)) == (k % 5 in lettered_columns)
    if letters == "none":
        return
    expected = [("A", "P", "R", "L"), ("S", "I", "R", "L"), ("S", "I", "A", "P")]  # radiological
    for ax, want in zip(cells[::5], expected, strict=True):
        assert tuple(_letters(ax)[side] for side in ("top", "bottom", "left", "right")) == want


# letters beside each edge, outside the image: tests/services/test_journal_figures.py


# --------------------------------------------------------------------------- aspect and scale


def _ct_like_case() -> FigureCase:
    """0.7 x 0.7 mm in-plane, 5 mm slices: (S, A, R) = 20 x 40 x 40 voxels."""
    scan = np.random.default_rng(0).random((20, 40, 40)).astype(np.float32)
    return FigureCase("ct", scan, None, spacing=(5.0, 0.7, 0.7))


@pytest.mark.parametrize(
    ("plane", "height_mm", "width_mm"),
    [("axial", 28.0, 28.0), ("coronal", 100.0, 28.0), ("sagittal", 100.0, 28.0)],
)
def test_anisotropic_voxels_keep_their_physical_aspect(plane, height_mm, width_mm):
    figure = make_figure([FigureRow(_ct_like_case(), 5, plane)], crop=False, width="page")
    FigureCanvasAgg(figure).draw()
    ax = _cells(figure)[0]
    box = ax.get_window_extent()
    assert box.height / box.width == pytest.approx(height_mm / width_mm, rel=0.01)
    rows, cols = ax.images[0].get_array().shape
    assert (rows * cols) in (40 * 40, 20 * 40)  # the plane's voxels, none resampled


def test_one_scale_bar_of_a_round_length_fits_every_panel():
    case = _ct_like_case()
    rows = [FigureRow(case, 5, plane) for plane in PLANES3]
    figure = make_figure(rows, crop=False, width="column")
    FigureCanvasAgg(figure).draw()
    bars = [p for ax in figure.axes for p in ax.patches if p.get_gid() == "scale-bar"]
    assert len(bars) == 1 and isinstance(bars[0], Rectangle)
    bar_px = bars[0].get_window_extent().width
    bar_mm = scale_bar_mm(28.0)
    assert bar_mm == 5.0
    for ax in _cells(figure):  # every image: pixels per mm equal to the bar's
        assert ax.get_window_extent().width / 28.0 == pytest.approx(bar_px / bar_mm, rel=0.02)
    labels = [t.get_text() for t in _drawn_texts(figure) if t.get_text().endswith(" mm")]
    assert labels == ["5 mm"]


def test_the_scale_bar_can_be_left_out(sample_cases):
    figure = make_figure(figure_rows(sample_cases[:1]), scale_bar=False)
    assert not [p for ax in figure.axes for p in ax.patches if p.get_gid() == "scale-bar"]


# --------------------------------------------------------------------------- planes


def test_each_case_gets_a_row_per_plane_in_order(three_cases):
    rows = figure_rows(three_cases[:2], planes=("sagittal", "axial"))
    assert [(r.case.name, r.plane) for r in rows] == [
        ("brain_001", "sagittal"), ("brain_001", "axial"),
        ("brain_004", "sagittal"), ("brain_004", "axial"),
    ]  # fmt: skip
    figure = make_figure(rows)
    assert len(_cells(figure)) == 4 * 5


def test_coronal_and_sagittal_slices_go_through_the_largest_gt_area(sample_cases):
    gt = sample_cases[0].gt
    figure = make_figure(figure_rows(sample_cases[:1], planes=PLANES3))
    labels = [t.get_text() for ax in _cells(figure)[::5] for t in ax.texts if "\n" in t.get_text()]
    assert labels == [
        f"brain_001\naxial {np.argmax(gt.sum(axis=(1, 2)))}",
        f"brain_001\ncoronal {np.argmax(gt.sum(axis=(0, 2)))}",
        f"brain_001\nsagittal {np.argmax(gt.sum(axis=(0, 1)))}",
    ]


def test_view_figure_is_written_with_the_same_fonts_and_letters(sample_cases, tmp_path):
    case = sample_cases[0]
    request = ViewFigure(
        path=tmp_path / "view.pdf", name=case.name, scan=case.scan, gt=case.gt,
        maps=dict(case.maps), spacing=case.spacing, index=40, thresholds={}, colors={},
        annotate=False, dpi=40, convention="neurological", width="page",
    )  # fmt: skip
    data = write_view_figure(request).read_bytes()
    assert b"/Type3" not in data and b"/FontFile2" in data
    box = re.search(rb"/MediaBox \[\s*0 0 ([0-9.]+)", data)
    assert float(box[1]) == pytest.approx(183 / 25.4 * 72, abs=0.01)


# --------------------------------------------------------------------------- command line


def test_cli_figure_writes_the_file(tmp_path, capsys):
    out = tmp_path / "fig.png"
    status = main(
        ["figure", str(SAMPLE), "--out", str(out), "--cases", "brain_001,brain_000",
         "--dpi", "40", "--annotate", "--thresholds", "residual=0.7"]
    )  # fmt: skip
    assert status == 0
    assert out.is_file()
    assert "figure written to" in capsys.readouterr().out


def test_cli_figure_defaults_to_the_anomalous_cases(tmp_path, capsys):
    out = tmp_path / "fig.svg"
    assert main(["figure", str(SAMPLE), "--out", str(out), "--max-cases", "2"]) == 0
    assert "2 rows" in capsys.readouterr().out


def test_cli_figure_chooses_as_many_cases_as_fit_a_page_and_says_so(tmp_path, capsys):
    out = tmp_path / "fig.png"
    args = ["figure", str(SAMPLE), "--out", str(out), "--width", "column", "--dpi", "40",
            "--planes", "axial,coronal,sagittal"]  # fmt: skip
    assert main(args) == 0
    printed = capsys.readouterr()
    rows, height = re.search(r"\((\d+) rows, 89 x (\d+) mm", printed.out).groups()
    assert int(height) <= PAGE_HEIGHT_MM and int(rows) % 3 == 0 and 3 <= int(rows) < 15
    cases = int(rows) // 3
    assert f"napari-mood: note: drew {cases} of the 5 anomalous cases" in printed.err
    assert main([*args, "--force", "--quiet"]) == 0
    assert "note" not in capsys.readouterr().err  # --quiet: no note
    assert main([*args, "--force", "--max-cases", "5"]) == 0  # asked for: drawn, and said
    printed = capsys.readouterr()
    assert "15 rows" in printed.out and "taller than a 240-mm page" in printed.err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cases", "brain_999"], "has no case 'brain_999'"),
        (["--cases", "brain_001", "--slices", "400"], "outside 0..94"),
    ],
)
def test_cli_figure_bad_inputs_exit_1_with_a_message(tmp_path, capsys, extra, message):
    assert main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"), *extra]) == 1
    err = capsys.readouterr().err
    assert "napari-mood: error:" in err and message in err
    assert not (tmp_path / "f.png").exists()


def test_cli_figure_unknown_threshold_names_are_usage_errors(tmp_path, capsys):
    assert main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"),
                 "--thresholds", "nope=0.2"]) == 2  # fmt: skip
    assert "names no method" in capsys.readouterr().err
    assert not (tmp_path / "f.png").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--dpi", "0"], "must be a positive number"),
        (["--max-cases", "0"], "must be 1 or more"),
        (["--thresholds", "2"], "must be a number in [0, 1]"),
        (["--slices", "x"], "is not a slice index"),
    ],
)
def test_cli_figure_bad_numbers_are_usage_errors(tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"), *extra])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_cli_figure_bad_output_or_dataset(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.jpg")])
    assert exit_info.value.code == 2 and ".png, .svg or .pdf" in capsys.readouterr().err
    assert main(["figure", str(tmp_path / "none"), "--out", str(tmp_path / "f.png")]) == 1
    assert "none" in capsys.readouterr().err


def test_figures_import_no_gui():
    code = (
        "import sys, napari_mood.services.figures, napari_mood.cli.figure, napari_mood.core.slices\n"
        "print(sorted(m for m in ('napari', 'qtpy', 'PyQt5', 'vispy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_cli_figure_width_planes_and_letters(tmp_path, capsys):
    out = tmp_path / "fig.png"
    status = main(
        ["figure", str(SAMPLE), "--out", str(out), "--cases", "brain_001", "--dpi", "50",
         "--width", "column", "--planes", "axial,coronal,sagittal", "--slices", "40,c:30"]
    )  # fmt: skip
    assert status == 0
    assert int.from_bytes(out.read_bytes()[16:20], "big") == math.floor(89 / 25.4 * 50)
    printed = capsys.readouterr().out
    assert "3 rows, 89 x " in printed and " mm, 175 x " in printed
    other = tmp_path / "other.svg"
    status = main(
        ["figure", str(SAMPLE), "--out", str(other), "--cases", "brain_001", "--no-letters",
         "--convention", "neurological", "--no-scale-bar"]
    )  # fmt: skip
    assert status == 0
    assert "50 mm" not in other.read_text()


def test_cli_figure_too_narrow_is_a_usage_error_naming_the_minimum(tmp_path, capsys):
    out = tmp_path / "f.pdf"
    assert main(["figure", str(SAMPLE), "--out", str(out), "--width", "30mm"]) == 2
    err = capsys.readouterr().err
    assert "napari-mood: error: --width: 30 mm holds at most" in err
    assert re.search(r"use --width \d+mm or more", err)
    assert not out.exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--width", "60"], "a length with a unit"),
        (["--planes", "axial,oblique"], "distinct planes among axial,coronal,sagittal"),
        (["--convention", "up"], "invalid choice"),
        (["--letters", "some"], "invalid choice"),
    ],
)
def test_cli_figure_bad_options_are_usage_errors(tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"), *extra])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_cli_figure_a_slice_outside_the_scan_exits_1(tmp_path, capsys):
    extra = ["--cases", "brain_001", "--planes", "sagittal", "--slices", "s:500"]
    assert main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"), *extra]) == 1
    assert "outside 0..98" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--slices", "c:5"], "not among the planes"), (["--slices", "x:5"], "names no plane")],
)
def test_cli_figure_bad_plane_slices_are_usage_errors(tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"), *extra])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
