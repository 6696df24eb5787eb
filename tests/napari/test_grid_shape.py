"""How many rows and columns the compare grid uses (no viewer)."""

from __future__ import annotations

import pytest

from napari_mood._napari.grid import grid_shape


@pytest.mark.parametrize(
    ("n", "canvas", "expected"),
    [
        (1, (600, 800), (1, 1)),
        (3, (600, 1800), (1, 3)),
        (3, (1800, 600), (3, 1)),
        (3, (700, 700), (2, 2)),
        (4, (800, 800), (2, 2)),
        (6, (600, 900), (2, 3)),
    ],
)
def test_grid_shape_fits_the_canvas(n, canvas, expected):
    rows, cols = grid_shape(n, canvas=canvas, cell=(100, 100))
    assert (rows, cols) == expected
    assert rows * cols >= n


def test_grid_shape_rejects_nonsense():
    with pytest.raises(ValueError):
        grid_shape(0, canvas=(10, 10), cell=(1, 1))
    with pytest.raises(ValueError):
        grid_shape(2, canvas=(0, 10), cell=(1, 1))
