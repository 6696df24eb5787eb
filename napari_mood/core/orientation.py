"""One display orientation for every layer of a case.

Convention (documented in the README): arrays are shown in the voxel grid of the scan,
reoriented to the closest canonical RAS+ axes and then ordered ``(S, A, R)`` with the
anterior axis flipped, so that

* the first (slider) axis runs inferior -> superior: slices are axial;
* rows run anterior (top) -> posterior (bottom);
* columns run patient left -> patient right (neurological convention).

Only axis permutations and flips are applied (views, never resampling), so scan, GT and
score maps of the same grid line up voxel for voxel, which is how MOOD scores them.
Oblique affines are shown in their closest canonical orientation (obliquity is not
resampled). Every layer of a case uses the scan's transform, whatever its own affine
says, because the scorer compares voxels, not world positions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import nibabel as nib
import numpy as np

__all__ = [
    "CONVENTIONS",
    "PLANES",
    "Convention",
    "DisplayTransform",
    "Plane",
    "PlaneView",
    "display_transform",
    "edge_letters",
    "facing_letters",
    "orientable",
    "oriented_plane",
    "plane_view",
    "screen_flips",
]

Plane = Literal["axial", "coronal", "sagittal"]
PLANES: tuple[Plane, ...] = get_args(Plane)
Convention = Literal["radiological", "neurological"]
CONVENTIONS: tuple[Convention, ...] = get_args(Convention)


@dataclass(frozen=True)
class DisplayTransform:
    """Maps file arrays to display arrays and display indices back to the file grid.

    Attributes
    ----------
    file_shape : tuple of int
        Shape of the arrays in the file.
    perm : tuple of int
        ``display_axis k`` is ``file axis perm[k]``.
    flip : tuple of bool
        Whether display axis ``k`` runs opposite to its file axis.
    spacing : tuple of float
        Voxel size along each display axis (napari ``scale``).
    affine : ndarray
        The file's voxel-to-world matrix.
    """

    file_shape: tuple[int, ...]
    perm: tuple[int, ...]
    flip: tuple[bool, ...]
    spacing: tuple[float, ...]
    affine: np.ndarray

    @property
    def display_shape(self) -> tuple[int, ...]:
        """Shape of the display arrays."""
        return tuple(self.file_shape[a] for a in self.perm)

    def to_display(self, array: np.ndarray) -> np.ndarray:
        """Return a display-ordered view of a file-ordered array (no copy).

        Parameters
        ----------
        array : numpy.ndarray
            An array on the scan's file grid.

        Returns
        -------
        numpy.ndarray
            A transposed and flipped view.

        Raises
        ------
        ValueError
            When ``array`` is not on the scan's grid.
        """
        if tuple(array.shape) != self.file_shape:
            raise ValueError(
                f"array shape {array.shape} differs from the scan grid {self.file_shape}"
            )
        view = np.transpose(array, self.perm)
        flips = tuple(k for k, f in enumerate(self.flip) if f)
        return np.flip(view, axis=flips) if flips else view

    def to_file(self, array: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`to_display` (a view).

        Parameters
        ----------
        array : numpy.ndarray
            An array in display order.

        Returns
        -------
        numpy.ndarray
            A view in file order.
        """
        flips = tuple(k for k, f in enumerate(self.flip) if f)
        view = np.flip(array, axis=flips) if flips else array
        return np.transpose(view, np.argsort(self.perm))

    def display_to_file_index(self, index: np.ndarray) -> np.ndarray:
        """Map display voxel coordinates (``(..., ndim)``, may be fractional) to file ones.

        Parameters
        ----------
        index : numpy.ndarray
            ``(..., ndim)`` voxel coordinates in display order.

        Returns
        -------
        numpy.ndarray
            The same points in file order (float64).
        """
        index = np.asarray(index, dtype=np.float64)
        out = np.empty_like(index)
        for k, axis in enumerate(self.perm):
            size = self.file_shape[axis]
            out[..., axis] = (size - 1 - index[..., k]) if self.flip[k] else index[..., k]
        return out

    def display_index_to_world(self, index: np.ndarray) -> np.ndarray:
        """Map display voxel coordinates to scanner coordinates (RAS+, mm, the affine's).

        Parameters
        ----------
        index : numpy.ndarray
            ``(..., ndim)`` voxel coordinates in display order.

        Returns
        -------
        numpy.ndarray
            ``(..., 3)`` world coordinates.
        """
        return self.file_index_to_world(self.display_to_file_index(index))

    def to_dict(self) -> dict[str, list[float] | list[int] | list[bool] | list[list[float]]]:
        """Plain lists (for layer metadata); :meth:`from_dict` reads them back.

        Returns
        -------
        dict
            ``file_shape``, ``perm``, ``flip``, ``spacing`` and ``affine`` as lists.
        """
        return {
            "file_shape": list(self.file_shape),
            "perm": list(self.perm),
            "flip": list(self.flip),
            "spacing": list(self.spacing),
            "affine": np.asarray(self.affine, dtype=float).tolist(),
        }

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> DisplayTransform:
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        values : mapping
            What :meth:`to_dict` returned (e.g. read back from layer metadata).

        Returns
        -------
        DisplayTransform
            The transform.

        Examples
        --------
        >>> t = display_transform((4, 5, 6), np.eye(4))
        >>> DisplayTransform.from_dict(t.to_dict()).perm == t.perm
        True
        """
        return cls(
            tuple(int(v) for v in values["file_shape"]),
            tuple(int(v) for v in values["perm"]),
            tuple(bool(v) for v in values["flip"]),
            tuple(float(v) for v in values["spacing"]),
            np.asarray(values["affine"], dtype=np.float64),
        )

    def file_index_to_world(self, index: np.ndarray) -> np.ndarray:
        """Map file voxel coordinates to world (scanner, mm) coordinates with the affine.

        Parameters
        ----------
        index : numpy.ndarray
            ``(..., ndim)`` voxel coordinates in file order (2-D points get a third coordinate 0).

        Returns
        -------
        numpy.ndarray
            ``(..., 3)`` world coordinates.
        """
        index = np.asarray(index, dtype=np.float64)
        padded = np.zeros(index.shape[:-1] + (3,))
        padded[..., : index.shape[-1]] = index
        return padded @ self.affine[:3, :3].T + self.affine[:3, 3]


def orientable(affine: np.ndarray, ndim: int = 3) -> bool:
    """Tell whether ``affine`` gives each of a grid's first ``ndim`` axes a direction.

    A damaged header does not: NaN or infinite values, or a zero column (nibabel's
    :func:`~nibabel.orientations.io_orientation` finds no world axis for it).

    Parameters
    ----------
    affine : ndarray
        4 x 4 voxel-to-world matrix.
    ndim : int
        Number of grid axes that must have a direction (2 or 3).

    Returns
    -------
    bool
        True when :func:`display_transform` can orient the grid.

    Examples
    --------
    >>> orientable(np.eye(4)), orientable(np.diag([1.0, 0.0, 1.0, 1.0]))
    (True, False)
    >>> orientable(np.full((4, 4), np.nan))
    False
    """
    affine = np.asarray(affine, dtype=np.float64)
    if affine.shape != (4, 4) or not np.isfinite(affine).all():
        return False
    return not np.isnan(nib.orientations.io_orientation(affine)[:ndim]).any()


def display_transform(shape: tuple[int, ...], affine: np.ndarray) -> DisplayTransform:
    """Build the display transform of a 2-D or 3-D grid with the given affine.

    Parameters
    ----------
    shape : tuple of int
        File array shape (2-D or 3-D).
    affine : ndarray
        4 x 4 voxel-to-world matrix of the scan.

    Returns
    -------
    DisplayTransform
        The axis order and flips that show the grid S, A, R (3-D), and back.

    Raises
    ------
    ValueError
        When the grid is not 2-D or 3-D, or the affine does not orient it
        (:func:`orientable`).

    Examples
    --------
    >>> t = display_transform((4, 5, 6), np.diag([2.0, 1.0, 3.0, 1.0]))
    >>> t.display_shape, t.spacing
    ((6, 5, 4), (3.0, 1.0, 2.0))
    """
    ndim = len(shape)
    if ndim not in (2, 3):
        raise ValueError(f"expected a 2-D or 3-D grid, got shape {shape}")
    affine = np.asarray(affine, dtype=np.float64)
    if not orientable(affine, ndim):
        raise ValueError(
            "the affine gives no direction to every grid axis (NaN or infinite values, or a "
            "zero column): the header is damaged"
        )
    ornt = nib.orientations.io_orientation(affine)
    # ornt[i] = (RAS axis of file axis i, +1/-1); display order is S, A, R. Only the grid's
    # axes are read: a 2-D grid's two axes keep their world axes, whose order decides
    # the display
    order = sorted(range(ndim), key=lambda i: -int(ornt[i, 0]))
    flip = tuple(_display_flip(int(ornt[i, 0]), int(ornt[i, 1])) for i in order)
    norms = np.linalg.norm(affine[:3, :ndim], axis=0)
    spacing = tuple(float(norms[i]) if norms[i] > 0 else 1.0 for i in order)
    return DisplayTransform(tuple(int(s) for s in shape), tuple(order), flip, spacing, affine)


def _display_flip(ras_axis: int, sign: int) -> bool:
    # R and S increase along the display axis; A decreases (anterior at the top)
    wants_increasing = ras_axis != 1
    return (sign > 0) != wants_increasing


# --------------------------------------------------------------------------- planes


@dataclass(frozen=True)
class PlaneView:
    """How one plane of a display-ordered ``(S, A, R)`` volume is shown on screen.

    The 2-D slice has rows = display axis ``row_axis`` and columns = ``col_axis``;
    ``flip_rows`` / ``flip_cols`` say whether the screen runs opposite to the array
    (row 0 drawn at the bottom, column 0 drawn at the right). ``letters`` are the patient
    directions at the (top, bottom, left, right) edges of the screen.
    """

    plane: Plane
    convention: Convention
    slice_axis: int
    row_axis: int
    col_axis: int
    flip_rows: bool
    flip_cols: bool
    letters: tuple[str, str, str, str]


# display axes: 0 = inferior -> superior, 1 = anterior -> posterior, 2 = left -> right
_AXIS_LETTERS = (("I", "S"), ("A", "P"), ("L", "R"))  # (low index, high index) per axis
_PLANE_AXES: dict[str, tuple[int, int, int]] = {
    # plane: (slice axis, row axis, col axis)
    "axial": (0, 1, 2),
    "coronal": (1, 0, 2),
    "sagittal": (2, 0, 1),
}


def screen_flips(
    row_axis: int, col_axis: int, *, convention: Convention = "radiological"
) -> tuple[bool, bool]:
    """``(flip_rows, flip_cols)`` for any pair of display axes on screen.

    Superior is always up (the inferior-superior axis runs upwards), anterior is up or
    left (the anterior-posterior axis never flips), and the left-right axis runs from the
    patient's right on the screen's left in the radiological convention.

    Parameters
    ----------
    row_axis, col_axis : int
        The display axes (0 S, 1 A, 2 R) on the screen's rows and columns.
    convention : {"radiological", "neurological"}
        Which side of the screen the patient's right is on.

    Returns
    -------
    tuple of bool
        Whether rows and columns are drawn reversed.

    Raises
    ------
    ValueError
        When the axes are invalid or the convention is unknown.

    Examples
    --------
    >>> screen_flips(1, 2), screen_flips(0, 1)
    ((False, True), (True, False))
    """
    _check_axes(row_axis, col_axis)
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {list(CONVENTIONS)}, got {convention!r}")
    radiological = convention == "radiological"
    return row_axis == 0 or (row_axis == 2 and not radiological), (
        col_axis == 0 or (col_axis == 2 and radiological)
    )


def edge_letters(
    row_axis: int, col_axis: int, *, flip_rows: bool, flip_cols: bool
) -> tuple[str, str, str, str]:
    """Patient directions at the screen's (top, bottom, left, right) edges.

    Row 0 of an unflipped view is drawn at the top, column 0 at the left.

    Parameters
    ----------
    row_axis, col_axis : int
        The display axes on the screen's rows and columns.
    flip_rows, flip_cols : bool
        Whether they are drawn reversed.

    Returns
    -------
    tuple of str
        One letter (S, I, A, P, R, L) per edge.

    Examples
    --------
    >>> edge_letters(1, 2, flip_rows=False, flip_cols=True)  # radiological axial
    ('A', 'P', 'R', 'L')
    """
    _check_axes(row_axis, col_axis)
    top, bottom = _AXIS_LETTERS[row_axis][:: -1 if flip_rows else 1]
    left, right = _AXIS_LETTERS[col_axis][:: -1 if flip_cols else 1]
    return top, bottom, left, right


def facing_letters(up: Sequence[float], right: Sequence[float]) -> tuple[str, str, str, str]:
    """Patient directions nearest to the screen's (top, bottom, left, right) edges in 3-D.

    A rotated 3-D view has no plane: each edge is named after the display axis closest
    to the screen direction pointing at it (the largest component, in display axes).

    Parameters
    ----------
    up, right : sequence of float
        The screen's up and right directions in display axes (0 S, 1 A, 2 R; not
        necessarily unit vectors).

    Returns
    -------
    tuple of str
        One letter (S, I, A, P, R, L) per edge.

    Raises
    ------
    ValueError
        When a direction is not three finite numbers, or is zero.

    Examples
    --------
    >>> facing_letters((0.0, -1.0, 0.0), (0.0, 0.0, 1.0))  # from above, anterior up
    ('A', 'P', 'L', 'R')
    >>> facing_letters((0.9, 0.3, 0.0), (0.0, 0.2, -0.8))  # oblique: the nearest axis
    ('S', 'I', 'R', 'L')
    """
    top, bottom = _facing(up)
    right_letter, left_letter = _facing(right)
    return top, bottom, left_letter, right_letter


def _facing(direction: Sequence[float]) -> tuple[str, str]:
    """Return the letters the direction points to and away from."""
    vector = np.asarray(direction, dtype=float)
    if vector.shape != (3,) or not np.all(np.isfinite(vector)) or not np.any(vector):
        raise ValueError(f"need a non-zero direction of three numbers, got {direction!r}")
    axis = int(np.argmax(np.abs(vector)))
    low, high = _AXIS_LETTERS[axis]
    return (high, low) if vector[axis] > 0 else (low, high)


def _check_axes(row_axis: int, col_axis: int) -> None:
    if {row_axis, col_axis} - {0, 1, 2} or row_axis == col_axis:
        raise ValueError(f"need two different display axes in 0..2, got {row_axis}, {col_axis}")


def plane_view(plane: Plane, *, convention: Convention = "radiological") -> PlaneView:
    """How ``plane`` is shown: superior up, anterior up (axial) or left (sagittal).

    ``radiological``: the patient's right on the screen's left (as if facing the
    patient), in axial and coronal planes; ``neurological``: the patient's left on the
    left. Sagittal planes look the same in both (anterior on the left). See
    :func:`screen_flips`.

    Parameters
    ----------
    plane : {"axial", "coronal", "sagittal"}
        The plane.
    convention : {"radiological", "neurological"}
        Which side of the screen the patient's right is on.

    Returns
    -------
    PlaneView
        The slice, row and column axes, their flips and the edge letters.

    Raises
    ------
    ValueError
        When ``plane`` is unknown.

    Examples
    --------
    >>> plane_view("axial").letters
    ('A', 'P', 'R', 'L')
    >>> plane_view("coronal", convention="neurological").letters
    ('S', 'I', 'L', 'R')
    """
    if plane not in PLANES:
        raise ValueError(f"plane must be one of {list(PLANES)}, got {plane!r}")
    slice_axis, row_axis, col_axis = _PLANE_AXES[plane]
    flip_rows, flip_cols = screen_flips(row_axis, col_axis, convention=convention)
    letters = edge_letters(row_axis, col_axis, flip_rows=flip_rows, flip_cols=flip_cols)
    return PlaneView(
        plane, convention, slice_axis, row_axis, col_axis, flip_rows, flip_cols, letters
    )


def oriented_plane(
    volume: np.ndarray,
    index: int,
    *,
    plane: Plane = "axial",
    convention: Convention = "radiological",
) -> np.ndarray:
    """Slice ``index`` of a display-ordered volume as it appears on screen (a view).

    Row 0 of the result is the top of the screen, column 0 its left.

    Parameters
    ----------
    volume : numpy.ndarray
        A 3-D volume in display order.
    index : int
        The slice along the plane's axis.
    plane : {"axial", "coronal", "sagittal"}
        The plane.
    convention : {"radiological", "neurological"}
        Which side of the screen the patient's right is on.

    Returns
    -------
    numpy.ndarray
        A 2-D view.

    Raises
    ------
    ValueError
        When ``volume`` is not 3-D or ``index`` is outside it.

    Examples
    --------
    >>> v = np.arange(8).reshape(2, 2, 2)
    >>> oriented_plane(v, 0, plane="axial", convention="neurological").tolist()
    [[0, 1], [2, 3]]
    >>> oriented_plane(v, 0, plane="axial").tolist()  # radiological: left-right swapped
    [[1, 0], [3, 2]]
    """
    view = plane_view(plane, convention=convention)
    if volume.ndim != 3:
        raise ValueError(f"expected a 3-D volume, got shape {volume.shape}")
    size = volume.shape[view.slice_axis]
    if not 0 <= index < size:
        raise ValueError(f"{plane} slice {index} outside [0, {size})")
    flat = np.take(volume, index, axis=view.slice_axis)
    if view.row_axis > view.col_axis:  # remaining axes come out in increasing order
        flat = flat.T
    if view.flip_rows:
        flat = flat[::-1, :]
    if view.flip_cols:
        flat = flat[:, ::-1]
    return flat
