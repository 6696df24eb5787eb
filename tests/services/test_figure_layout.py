"""Figure geometry (napari_mood.services.figure_layout): widths, one scale, 7-pt text fits."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties

from napari_mood.services.figure_layout import (
    CELL_PT,
    GAP_PT,
    ColumnTexts,
    FigureTooNarrow,
    RowExtent,
    plan_layout,
)
from napari_mood.services.figure_text import FONT_FAMILY, text_width
from napari_mood.services.paper import mm_to_points

ROWS = [
    RowExtent(180.0, 216.0, "brain_001\naxial 44"),
    RowExtent(180.0, 170.0, "brain_001\ncoronal 26"),
    RowExtent(216.0, 170.0, "brain_001\nsagittal 49"),
]
COLUMNS = [
    ColumnTexts("scan"),
    ColumnTexts("ground truth", "GT outline"),
    ColumnTexts("oracle_noisy", "oracle_noisy", ("0.5", "1")),
]


@pytest.mark.parametrize("text", ["oracle_noisy", "ground truth", "50 mm", "R", "Dice@0.5 0.84"])
def test_text_width_matches_the_agg_renderer(text):
    renderer = RendererAgg(10, 10, 720)  # ten pixels per point: hinting does not matter
    font = FontProperties(family=FONT_FAMILY, size=7)
    rendered, _, _ = renderer.get_text_width_height_descent(text, font, ismath=False)
    assert text_width(text) == pytest.approx(rendered / 10, abs=0.5)


@pytest.mark.parametrize("width_mm", [89.0, 122.0, 183.0])
def test_the_figure_has_the_requested_width(width_mm):
    layout = plan_layout(ROWS, COLUMNS, width_mm=width_mm)
    assert layout.width_pt == pytest.approx(mm_to_points(width_mm))
    assert layout.width_mm == pytest.approx(width_mm)


def test_every_image_has_one_scale_and_the_widest_fills_its_cell():
    layout = plan_layout(ROWS, COLUMNS, width_mm=89.0)
    for row, (width, height) in zip(ROWS, layout.images, strict=True):
        assert width / row.width_mm == pytest.approx(layout.points_per_mm)
        assert height / row.height_mm == pytest.approx(layout.points_per_mm)
    assert max(w for w, _ in layout.images) == pytest.approx(layout.cell_pt)


def test_rows_are_as_tall_as_their_image_or_their_label():
    short = RowExtent(200.0, 10.0, "a long case name\naxial 3")
    layout = plan_layout([*ROWS, short], COLUMNS, width_mm=89.0, letters="none")
    assert layout.row_heights[0] == pytest.approx(layout.images[0][1])
    assert layout.row_heights[3] >= text_width("a long case name")


def test_no_width_gives_the_natural_cell():
    assert plan_layout(ROWS, COLUMNS).cell_pt == pytest.approx(CELL_PT)


def test_a_narrow_width_is_refused_with_the_narrowest_that_fits():
    with pytest.raises(FigureTooNarrow, match=r"at least \d+ mm") as info:
        plan_layout(ROWS, COLUMNS, width_mm=30.0)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.width_mm == 30.0 and error.columns == 3
    fits = plan_layout(ROWS, COLUMNS, width_mm=error.min_width_mm)
    assert text_width("oracle_") <= fits.cell_pt + GAP_PT  # the widest word decides
    assert fits.wrap("oracle_noisy") == "oracle_\nnoisy"  # longer texts wrap
    with pytest.raises(FigureTooNarrow):
        plan_layout(ROWS, COLUMNS, width_mm=error.min_width_mm - 0.5)


def test_the_refusal_says_how_many_columns_fit():
    columns = [ColumnTexts("scan"), ColumnTexts("ground truth")]
    columns += [ColumnTexts(f"method_{k}", ticks=("0.5", "1")) for k in range(12)]
    with pytest.raises(FigureTooNarrow) as info:
        plan_layout(ROWS, columns, width_mm=89.0)
    fit = info.value.max_columns
    assert 2 <= fit < len(columns)
    assert f"at most {fit} of {len(columns)} fit" in str(info.value)
    plan_layout(ROWS, columns[:fit], width_mm=89.0)  # that many do fit


def test_letters_take_a_margin_outside_the_images():
    tiny = RowExtent(200.0, 8.0, "x")  # 8 mm tall next to 200 mm wide images: letters fit
    plain = plan_layout([tiny], [ColumnTexts("scan")], width_mm=89.0, letters="none")
    lettered = plan_layout([tiny], [ColumnTexts("scan")], width_mm=89.0)
    assert lettered.cell_pt < plain.cell_pt  # the side margins
    assert lettered.row_heights[0] > lettered.images[0][1] + 2 * 7  # bands above and under


def test_annotation_lines_add_a_band_under_their_row():
    plain = plan_layout(ROWS, COLUMNS, width_mm=122.0)
    note = "AP 0.94\nDice@0.5 0.84"
    noted = [ROWS[0], ROWS[1], RowExtent(216.0, 170.0, "brain_001\nsagittal 49", (note,))]
    layout = plan_layout(noted, COLUMNS, width_mm=122.0)
    assert layout.notes[:2] == (0.0, 0.0) and layout.notes[2] > 2 * 7
    assert layout.height_pt == pytest.approx(plain.height_pt + layout.notes[2])


def test_rows_and_columns_are_needed():
    with pytest.raises(ValueError, match="at least one row"):
        plan_layout([], COLUMNS)
    with pytest.raises(ValueError, match="positive"):
        RowExtent(0.0, 1.0, "x")
