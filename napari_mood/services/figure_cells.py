"""The images of a figure row: each plane oriented, cropped and sliced as the figure shows it.

Every array comes through :func:`napari_mood.core.orientation.oriented_plane` (row 0 at
the top of the screen, column 0 at its left), cropped to the body of the case over all
slices of the plane, with the voxel size of its screen rows and columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.colors import Colormap, LinearSegmentedColormap

from napari_mood.core.curves import curve_from_arrays
from napari_mood.core.metrics import average_precision_from_curve, confusion_at
from napari_mood.core.orientation import Convention, PlaneView, oriented_plane, plane_view
from napari_mood.core.scores import check_threshold
from napari_mood.core.slices import BODY_MARGIN, CropBox, body_mask, choose_slice, mask_box
from napari_mood.services.figure_cases import FigureCase, FigureRow
from napari_mood.services.figure_layout import RowExtent
from napari_mood.services.looks import DEFAULT_THRESHOLD, method_colormap, method_colors

__all__ = [
    "RowImages",
    "case_annotation",
    "colors_for",
    "method_cmap",
    "row_images",
    "thresholds_for",
]

_SCAN_PERCENTILES = (0.5, 99.5)


# --------------------------------------------------------------------------- looks


def method_cmap(color: str) -> Colormap:
    """Matplotlib version of a method's viewer colormap (transparent at its low end).

    Masked values (at or below the threshold) are transparent.

    Parameters
    ----------
    color : str
        A ``#rrggbb`` colour.

    Returns
    -------
    matplotlib.colors.Colormap
        The colormap.
    """
    spec = method_colormap(color)
    stops = list(zip(spec["controls"], spec["colors"], strict=True))
    cmap = LinearSegmentedColormap.from_list(spec["name"], stops)
    return cmap.with_extremes(bad=(0.0, 0.0, 0.0, 0.0))


def case_annotation(gt: np.ndarray | None, scores: np.ndarray, threshold: float) -> str:
    r"""Short text for a method's cell: case AP and Dice at ``threshold``, or the peak score.

    AP is the case's voxel AP (float16 scores, as the scorer and ``napari-mood evaluate``);
    Dice flags scores ``>= threshold``. Cases without anomalous voxels get ``max`` (the
    highest score, a false positive's strength).

    Parameters
    ----------
    gt : numpy.ndarray or None
        The case's ground truth.
    scores : numpy.ndarray
        The method's map.
    threshold : float
        The method's threshold.

    Returns
    -------
    str
        One or two lines.

    Examples
    --------
    >>> gt = np.zeros((1, 2, 2), bool); gt[0, 0, 0] = True
    >>> case_annotation(gt, np.array([[[0.9, 0.2], [0.1, 0.0]]]), 0.5)
    'AP 1.00\nDice@0.5 1.00'
    """
    if gt is None or not gt.any():
        return f"max {float(np.nanmax(scores)):.2f}"
    curve = curve_from_arrays(np.asarray(scores), np.asarray(gt), mode="mood")
    dice = confusion_at(curve, threshold).dice
    dice_text = "n/a" if math.isnan(dice) else f"{dice:.2f}"
    return f"AP {average_precision_from_curve(curve):.2f}\nDice@{threshold:g} {dice_text}"


def thresholds_for(
    methods: Sequence[str], thresholds: float | Mapping[str, float]
) -> dict[str, float]:
    """Return the threshold each method's outline is drawn at.

    Parameters
    ----------
    methods : sequence of str
        The figure's methods.
    thresholds : float or mapping of str to float
        One threshold for all, or one per method (methods left out take
        ``DEFAULT_THRESHOLD``).

    Returns
    -------
    dict of str to float
        A checked threshold per method.

    Raises
    ------
    ValueError
        When ``thresholds`` names a method not in ``methods`` or a threshold is invalid.
    """
    if isinstance(thresholds, Mapping):
        unknown = sorted(set(thresholds) - set(methods))
        if unknown:
            raise ValueError(f"thresholds for unknown methods {unknown}; methods: {list(methods)}")
        chosen = {m: float(thresholds.get(m, DEFAULT_THRESHOLD)) for m in methods}
    else:
        chosen = dict.fromkeys(methods, float(thresholds))
    return {m: check_threshold(t, name=f"the threshold of {m}") for m, t in chosen.items()}


def colors_for(methods: Sequence[str], colors: Mapping[str, str] | None) -> dict[str, str]:
    """Return the colour of each method: the one given, else its colour (:func:`method_colors`).

    Parameters
    ----------
    methods : sequence of str
        The figure's methods, in column order.
    colors : mapping of str to str or None
        Colours chosen by the caller, by method.

    Returns
    -------
    dict of str to str
        A colour per method.
    """
    given = dict(colors or {})
    own = method_colors(methods)
    return {m: given.get(m, own[m]) for m in methods}


# --------------------------------------------------------------------------- cells


@dataclass(frozen=True)
class _CaseLook:
    """What every row of a case shares: the scan's grey window and its body mask."""

    window: tuple[float, float]
    body: np.ndarray | None


@dataclass(frozen=True)
class RowImages:
    """Screen-oriented, cropped 2-D images of one row (row 0 at the top).

    ``spacing`` is the voxel size (mm) along the images' rows and columns; ``notes`` the
    annotation per method (only on the last row of a case).
    """

    label: str
    view: PlaneView
    scan: np.ndarray | None
    gt: np.ndarray | None
    maps: Mapping[str, np.ndarray]
    spacing: tuple[float, float]  # mm per image row, per image column
    window: tuple[float, float]
    notes: Mapping[str, str]

    @property
    def shape(self) -> tuple[int, int]:
        """Shape of the row's images (rows, columns)."""
        image = next(a for a in (self.scan, self.gt, *self.maps.values()) if a is not None)
        return image.shape  # type: ignore[no-any-return]

    @property
    def extent(self) -> RowExtent:
        """The image's size in patient millimetres, for the layout."""
        rows, cols = self.shape
        notes = tuple(self.notes.values())
        return RowExtent(cols * self.spacing[1], rows * self.spacing[0], self.label, notes)

    @property
    def aspect(self) -> float:
        """Matplotlib ``aspect`` (height / width of a voxel)."""
        return self.spacing[0] / self.spacing[1]


def _case_look(case: FigureCase, *, crop: bool) -> _CaseLook:
    if case.scan is None:
        return _CaseLook((0.0, 1.0), None)
    return _CaseLook(_window(case.scan), body_mask(case.scan) if crop else None)


def _window(scan: np.ndarray) -> tuple[float, float]:
    """Return the scan's grey window: percentiles of its finite voxels ((0, 1) for none)."""
    values = np.asarray(scan, dtype=np.float32)
    finite = np.isfinite(values)
    if not finite.all():  # NaN and infinities are no grey level (inf - inf is NaN)
        values = values[finite]
    if values.size == 0:
        return 0.0, 1.0
    low, high = np.percentile(values, _SCAN_PERCENTILES)
    return float(low), float(max(high, low + 1e-6))


def _row_index(row: FigureRow, methods: Sequence[str]) -> int:
    if row.index is not None:
        return row.index
    case = row.case
    first_map = next((case.maps[m] for m in methods if m in case.maps), None)
    axis = plane_view(row.plane).slice_axis
    return choose_slice(case.gt, first_map, row.depth, axis=axis)


def _plane_box(body: np.ndarray | None, view: PlaneView, shape: tuple[int, int]) -> CropBox:
    """Return the body's bounding box over every slice of the plane, on screen."""
    if body is None:
        return CropBox((0, shape[0]), (0, shape[1]))
    projection = np.asarray(body.any(axis=view.slice_axis, keepdims=True))
    screen = oriented_plane(projection, 0, plane=view.plane, convention=view.convention)
    return mask_box(screen, margin=BODY_MARGIN)


def _row_cells(
    row: FigureRow,
    look: _CaseLook,
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    *,
    convention: Convention,
    annotate: bool,
) -> RowImages:
    case = row.case
    view = plane_view(row.plane, convention=convention)
    index = _row_index(row, methods)

    def show(volume: np.ndarray) -> np.ndarray:
        return oriented_plane(volume, index, plane=row.plane, convention=convention)

    first = next(a for a in (case.scan, case.gt, *case.maps.values()) if a is not None)
    cut = _plane_box(look.body, view, show(first).shape).slices
    notes = {}
    if annotate:
        notes = {
            m: case_annotation(case.gt, case.maps[m], thresholds[m])
            for m in methods
            if m in case.maps
        }
    return RowImages(
        label=f"{case.name}\n{row.plane} {index}",
        view=view,
        scan=None if case.scan is None else show(case.scan)[cut].astype(np.float32),
        gt=None if case.gt is None else show(case.gt)[cut].astype(bool),
        maps={m: show(case.maps[m])[cut].astype(np.float32) for m in methods if m in case.maps},
        spacing=(case.spacing[view.row_axis], case.spacing[view.col_axis]),
        window=look.window,
        notes=notes,
    )


def row_images(
    rows: Sequence[FigureRow],
    methods: Sequence[str],
    thresholds: Mapping[str, float],
    *,
    convention: Convention,
    annotate: bool,
    crop: bool,
) -> list[RowImages]:
    """Return the cropped, screen-oriented images of every row of a figure.

    Parameters
    ----------
    rows : sequence of FigureRow
        The figure's rows, a case's rows next to each other.
    methods : sequence of str
        The methods shown, one column each.
    thresholds : mapping of str to float
        The threshold of each method's annotation.
    convention : Convention
        The display convention the images are oriented in.
    annotate : bool
        Whether the last row of each case carries its metrics per method.
    crop : bool
        Whether the images are cropped to the body.

    Returns
    -------
    list of RowImages
        One entry per row, in order.
    """
    looks: dict[int, _CaseLook] = {}
    cells = []
    for k, row in enumerate(rows):
        key = id(row.case)
        if key not in looks:  # one window and body per case, shared by its rows
            looks[key] = _case_look(row.case, crop=crop)
        last_of_case = k + 1 == len(rows) or rows[k + 1].case is not row.case
        cells.append(
            _row_cells(
                row,
                looks[key],
                methods,
                thresholds,
                convention=convention,
                annotate=annotate and last_of_case,  # case metrics: once, under its rows
            )
        )
    return cells
