"""Issue 36, defect 11: journal figures.

* orientation letters sit in the margin, outside every image: they hide no voxel;
* the binary map's flagged voxels stand out on white matter in the figure as drawn;
* ``--width column --annotate`` with three methods fits (texts wrap at spaces and
  underscores, still 7 pt); only a grid whose words cannot fit is refused, in one line
  naming ``--methods``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from skimage.color import deltaE_ciede2000, rgb2lab

from napari_mood.cli import main
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.figure_text import text_width, wrap_text
from napari_mood.services.figures import (
    FigureCase,
    FigureRow,
    FigureTooNarrow,
    figure_rows,
    load_figure_cases,
    make_figure,
)
from napari_mood.services.looks import GT_COLOR

SAMPLE = sample_data_dir()
PLANES3 = ("axial", "coronal", "sagittal")
METHODS = ["binary", "oracle_noisy", "residual"]


@pytest.fixture(scope="module")
def cases() -> list[FigureCase]:
    """brain_001 (sphere + cube), brain_004 (a lesion next to the posterior edge), brain_000."""
    dataset = discover_dataset(SAMPLE)
    methods = discover_methods(SAMPLE / "methods")
    return load_figure_cases(dataset, ["brain_001", "brain_004", "brain_000"], methods)


def _render(figure) -> np.ndarray:
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].astype(np.float32) / 255


def _image_axes(figure) -> list:
    return [ax for ax in figure.axes if ax.images]


def _letters(figure) -> list:
    return [t for ax in figure.axes for t in ax.texts if (t.get_gid() or "").startswith("letter-")]


def _drawn_texts(figure) -> list:
    texts = list(figure.texts)
    for ax in figure.axes:
        texts += ax.texts
        if ax.axison:
            for axis in (ax.xaxis, ax.yaxis):
                texts += [*axis.get_ticklabels(), axis.label]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def _pixels_of(ax, image: np.ndarray) -> np.ndarray:
    box = ax.get_window_extent()
    height = image.shape[0]
    rows = slice(int(math.ceil(height - box.y1)), int(height - box.y0))
    cols = slice(int(math.ceil(box.x0)), int(box.x1))
    return image[rows, cols]


# --------------------------------------------------------------------------- letters


@pytest.mark.parametrize("letters", ["first", "all"])
@pytest.mark.parametrize("width", ["column", "page", None])
def test_orientation_letters_cover_no_image(cases, letters, width):
    """Before: a dark chip inside the image ("A" hid half of brain_001's sphere)."""
    figure = make_figure(figure_rows(cases, planes=PLANES3), width=width, letters=letters)
    figure.set_dpi(150)
    FigureCanvasAgg(figure).draw()
    images = [ax.get_window_extent() for ax in _image_axes(figure)]
    letters_drawn = _letters(figure)
    assert len(letters_drawn) == 4 * (9 if letters == "first" else 9 * 5 - 3)  # no map: none
    for text in letters_drawn:
        where = text.get_window_extent()
        assert text.get_bbox_patch() is None  # no box drawn over anything
        for box in images:
            overlap_x = min(where.x1, box.x1) - max(where.x0, box.x0)
            overlap_y = min(where.y1, box.y1) - max(where.y0, box.y0)
            assert min(overlap_x, overlap_y) <= 0.5, f"{text.get_text()!r} covers an image"


def test_letters_sit_beside_the_middle_of_each_edge(cases):
    figure = make_figure(figure_rows(cases[:1], planes=PLANES3), width="column")
    figure.set_dpi(150)
    FigureCanvasAgg(figure).draw()
    for ax in _image_axes(figure)[::5]:
        box = ax.get_window_extent()
        centre_x, centre_y = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
        for text in ax.texts:
            side = (text.get_gid() or "").removeprefix("letter-")
            where = text.get_window_extent()
            middle_x, middle_y = (where.x0 + where.x1) / 2, (where.y0 + where.y1) / 2
            if side == "top":
                assert where.y0 >= box.y1 and middle_x == pytest.approx(centre_x, abs=1.5)
            elif side == "bottom":
                assert where.y1 <= box.y0 and middle_x == pytest.approx(centre_x, abs=1.5)
            elif side == "left":
                assert where.x1 <= box.x0 and middle_y == pytest.approx(centre_y, abs=1.5)
            elif side == "right":
                assert where.x0 >= box.x1 and middle_y == pytest.approx(centre_y, abs=1.5)


# --------------------------------------------------------------------------- flagged colour


def test_binary_flagged_voxels_stand_out_on_the_white_matter_drawn(cases):
    """The binary map's flagged colour as rendered vs the scan's white matter as rendered."""
    figure = make_figure(figure_rows(cases[:1]), methods=["binary"], crop=True, width="page")
    figure.set_dpi(100)
    image = _render(figure)
    scan_ax, _, binary_ax = _image_axes(figure)
    scan = _pixels_of(scan_ax, image)
    cell = _pixels_of(binary_ax, image)
    grey = scan.mean(axis=-1)
    brain = grey[grey > 0.2]
    white_matter = np.percentile(brain, 85)  # the bright tissue of a T1 scan
    changed = np.abs(
        cell[: scan.shape[0], : scan.shape[1]] - scan[: cell.shape[0], : cell.shape[1]]
    )
    outline = np.all(np.abs(cell - np.array(to_rgb(GT_COLOR))) < 0.3, axis=-1)  # left out
    flagged = (changed.sum(axis=-1) > 0.3) & ~outline[: changed.shape[0], : changed.shape[1]]
    assert flagged.sum() > 50
    colours = cell[: flagged.shape[0], : flagged.shape[1]][flagged]
    distance = deltaE_ciede2000(
        rgb2lab(colours[None]), rgb2lab(np.full_like(colours, white_matter)[None])
    )[0]
    assert np.median(distance) >= 20.0, np.median(distance)


# --------------------------------------------------------------------------- column width


@pytest.mark.parametrize("width", ["column", "85mm", "90mm"])
@pytest.mark.parametrize("letters", ["first", "all"])
def test_three_methods_annotated_fit_one_column(cases, width, letters):
    """Before: FigureTooNarrow ("needs at least 100 mm") for 89 mm."""
    rows = figure_rows(cases, planes=PLANES3)
    figure = make_figure(rows, methods=METHODS, width=width, annotate=True, letters=letters)
    assert len(_image_axes(figure)) == 9 * 5
    figure.set_dpi(150)
    FigureCanvasAgg(figure).draw()
    texts = _drawn_texts(figure)
    assert min(t.get_fontsize() for t in texts) >= 7  # nothing shrunk
    page = figure.bbox
    boxes = [t.get_window_extent() for t in texts]
    for text, box in zip(texts, boxes, strict=True):
        assert page.x0 - 1 <= box.x0 and box.x1 <= page.x1 + 1, text.get_text()
        assert page.y0 - 1 <= box.y0 and box.y1 <= page.y1 + 1, text.get_text()
    for (a, box_a), (b, box_b) in itertools.combinations(zip(texts, boxes, strict=True), 2):
        assert not box_a.shrunk(0.98, 0.9).overlaps(box_b), (a.get_text(), b.get_text())
    shown = " ".join(t.get_text().replace("\n", " ") for t in texts)
    assert "AP " in shown and "Dice@0.5" in shown  # the annotations are there, wrapped


def test_wrapping_breaks_at_spaces_and_underscores_only():
    assert wrap_text("oracle_noisy", 1000.0) == "oracle_noisy"
    assert wrap_text("oracle_noisy", text_width("oracle_noisy") - 1) == "oracle_\nnoisy"
    assert wrap_text("AP 0.69\nDice@0.5 0.83", text_width("Dice@0.5")) == "AP 0.69\nDice@0.5\n0.83"
    assert wrap_text("-0.5", 1.0) == "-0.5"  # a leading sign is no break
    assert wrap_text("", 10.0) == ""


def test_a_grid_whose_words_cannot_fit_is_refused_saying_how_many_fit(cases):
    many = FigureCase(
        "c",
        cases[0].scan,
        cases[0].gt,
        {f"method_{k}": cases[0].maps["residual"] for k in range(12)},
    )
    with pytest.raises(FigureTooNarrow, match=r"at most (\d+) of 14 fit") as info:
        make_figure([FigureRow(many)], width="column", annotate=True)
    fit = info.value.max_columns
    assert 3 <= fit < 14
    names = [f"method_{k}" for k in range(fit - 2)]
    make_figure([FigureRow(many)], methods=names, width="column", annotate=True)  # that many fit


# --------------------------------------------------------------------------- command line


def test_cli_column_annotate_three_methods_is_written(tmp_path, capsys):
    out = tmp_path / "fig.png"
    args = ["figure", str(SAMPLE), "--cases", "brain_001,brain_004,brain_000", "--width"]
    status = main([*args, "column", "--annotate", "--dpi", "50", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert int.from_bytes(out.read_bytes()[16:20], "big") == math.floor(89 / 25.4 * 50)


def test_cli_methods_choose_and_order_the_columns(tmp_path, capsys):
    out = tmp_path / "fig.svg"
    args = ["figure", str(SAMPLE), "--cases", "brain_001", "--methods", "residual,binary"]
    assert main([*args, "--thresholds", "oracle_noisy=0.3", "--out", str(out)]) == 0
    svg = out.read_text()
    assert svg.index(">residual<") < svg.index(">binary<") and ">oracle_noisy<" not in svg


def test_cli_unknown_methods_are_a_usage_error(tmp_path, capsys):
    args = ["figure", str(SAMPLE), "--methods", "residual,nope", "--out", str(tmp_path / "f.png")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--methods: 'nope' names no method (methods: binary, oracle_noisy, residual)" in err
    assert not (tmp_path / "f.png").exists()


def test_cli_methods_parse_errors_exit_2_before_reading(tmp_path, capsys):
    for bad in (",", "a,a"):
        with pytest.raises(SystemExit) as exit_info:
            main(["figure", str(SAMPLE), "--methods", bad, "--out", str(tmp_path / "f.png")])
        assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "names no method" in err and "given twice" in err


def test_cli_a_grid_that_cannot_fit_says_what_to_drop_in_one_line(tmp_path, capsys):
    methods = tmp_path / "methods"
    for k in range(12):
        (methods / f"method_{k}").mkdir(parents=True)
        (methods / f"method_{k}" / "brain_001.nii.gz").symlink_to(
            SAMPLE / "methods" / "residual" / "brain_001.nii.gz"
        )
    out = tmp_path / "f.png"
    args = ["figure", str(SAMPLE), "--preds", str(methods), "--cases", "brain_001"]
    assert main([*args, "--width", "column", "--annotate", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("napari-mood: error: --width:")
    assert "--methods" in err and "of the 12 methods" in err and not out.exists()
