"""Publication figures (napari_mood.services.figures) and ``napari-mood figure``: headless, Agg."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import nibabel as nib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb

from napari_mood.cli import main
from napari_mood.core.io import discover_dataset, discover_methods
from napari_mood.core.looks import GT_COLOR, METHOD_COLORS
from napari_mood.core.orientation import display_transform
from napari_mood.core.results import EvaluationOptions
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.engine import run_evaluation
from napari_mood.services.figures import (
    FigureCase,
    FigureRow,
    anomalous_cases,
    case_annotation,
    figure_rows,
    load_figure_cases,
    make_figure,
    method_cmap,
    save_figure,
)

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
    labels = [t.get_text() for ax in _cells(figure) for t in ax.texts if "slice" in t.get_text()]
    binary = sample_cases[1].maps["binary"].astype(np.float32)
    peak = np.flatnonzero(binary.max(axis=(1, 2)) == binary.max())
    assert labels[0] == f"brain_001\nslice {best}"
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
    figure = make_figure([FigureRow(case)], crop=False)
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


def test_method_colours_follow_the_viewer():
    cmap = method_cmap(METHOD_COLORS[1])
    assert cmap(0.0)[3] == 0.0
    assert np.allclose(cmap(0.5)[:3], to_rgb(METHOD_COLORS[1]), atol=0.01)


def test_annotation_equals_the_evaluator_per_case_ap(sample_cases):
    dataset = discover_dataset(SAMPLE)
    methods = discover_methods(SAMPLE / "methods")
    result, _ = run_evaluation(
        dataset, methods, options=EvaluationOptions(tasks=("pixel",)), warn=False
    )
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


@pytest.mark.parametrize(
    ("slices", "message"), [([1, 2, 3], "one slice per case"), ([0, 500], "outside")]
)
def test_figure_rows_rejects_bad_slices(sample_cases, slices, message):
    with pytest.raises(ValueError, match=message):
        figure_rows(sample_cases, slices)


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


def test_default_cases_are_the_anomalous_ones():
    assert anomalous_cases(discover_dataset(SAMPLE), limit=3) == [
        "brain_001.nii.gz",
        "brain_002.nii.gz",
        "brain_003.nii.gz",
    ]


def test_cases_must_be_arrays_of_one_shape():
    with pytest.raises(ValueError, match="one shape"):
        FigureCase("c", np.zeros((2, 3, 4)), np.zeros((2, 3, 5), bool))


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


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--cases", "brain_999"], "has no case 'brain_999'"),
        (["--thresholds", "nope=0.2"], "names no method"),
        (["--thresholds", "2"], "must be a number in [0, 1]"),
        (["--slices", "x"], "is not a slice index"),
        (["--cases", "brain_001", "--slices", "400"], "outside 0..94"),
    ],
)
def test_cli_figure_bad_inputs_exit_1_with_a_message(tmp_path, capsys, extra, message):
    assert main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"), *extra]) == 1
    err = capsys.readouterr().err
    assert "napari-mood: error:" in err and message in err
    assert not (tmp_path / "f.png").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--dpi", "0"], "must be a positive number"), (["--max-cases", "0"], "must be 1 or more")],
)
def test_cli_figure_bad_numbers_are_usage_errors(tmp_path, capsys, extra, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.png"), *extra])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_cli_figure_bad_output_or_dataset_exit_1(tmp_path, capsys):
    assert main(["figure", str(SAMPLE), "--out", str(tmp_path / "f.jpg")]) == 1
    assert ".png, .svg or .pdf" in capsys.readouterr().err
    assert main(["figure", str(tmp_path / "none"), "--out", str(tmp_path / "f.png")]) == 1
    assert "none" in capsys.readouterr().err


def test_figures_import_no_gui():
    code = (
        "import sys, napari_mood.services.figures, napari_mood.cli.figure, napari_mood.core.slices\n"
        "print(sorted(m for m in ('napari', 'qtpy', 'PyQt5', 'vispy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
