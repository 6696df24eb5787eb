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

from dataclasses import dataclass

import nibabel as nib
import numpy as np

__all__ = ["DisplayTransform", "display_transform"]


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
        """Return a display-ordered view of a file-ordered array (no copy)."""
        if tuple(array.shape) != self.file_shape:
            raise ValueError(
                f"array shape {array.shape} differs from the scan grid {self.file_shape}"
            )
        view = np.transpose(array, self.perm)
        flips = tuple(k for k, f in enumerate(self.flip) if f)
        return np.flip(view, axis=flips) if flips else view

    def to_file(self, array: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`to_display` (a view)."""
        flips = tuple(k for k, f in enumerate(self.flip) if f)
        view = np.flip(array, axis=flips) if flips else array
        return np.transpose(view, np.argsort(self.perm))

    def display_to_file_index(self, index: np.ndarray) -> np.ndarray:
        """Map display voxel coordinates (``(..., ndim)``, may be fractional) to file ones."""
        index = np.asarray(index, dtype=np.float64)
        out = np.empty_like(index)
        for k, axis in enumerate(self.perm):
            size = self.file_shape[axis]
            out[..., axis] = (size - 1 - index[..., k]) if self.flip[k] else index[..., k]
        return out

    def file_to_display_index(self, index: np.ndarray) -> np.ndarray:
        """Map file voxel coordinates (``(..., ndim)``) to display ones."""
        index = np.asarray(index, dtype=np.float64)
        out = np.empty_like(index)
        for k, axis in enumerate(self.perm):
            size = self.file_shape[axis]
            out[..., k] = (size - 1 - index[..., axis]) if self.flip[k] else index[..., axis]
        return out

    def file_index_to_world(self, index: np.ndarray) -> np.ndarray:
        """Map file voxel coordinates to world (scanner, mm) coordinates with the affine."""
        index = np.asarray(index, dtype=np.float64)
        padded = np.zeros(index.shape[:-1] + (3,))
        padded[..., : index.shape[-1]] = index
        return padded @ self.affine[:3, :3].T + self.affine[:3, 3]


def display_transform(shape: tuple[int, ...], affine: np.ndarray) -> DisplayTransform:
    """Build the display transform of a 2-D or 3-D grid with the given affine.

    Parameters
    ----------
    shape : tuple of int
        File array shape (2-D or 3-D).
    affine : ndarray
        4 x 4 voxel-to-world matrix of the scan.

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
    ornt = _orientation(affine, ndim)
    # ornt[i] = (RAS axis of file axis i, +1/-1); display order is S, A, R
    order = sorted(range(ndim), key=lambda i: -int(ornt[i, 0]))
    flip = tuple(_display_flip(int(ornt[i, 0]), int(ornt[i, 1])) for i in order)
    norms = np.linalg.norm(affine[:3, :ndim], axis=0)
    spacing = tuple(float(norms[i]) if norms[i] > 0 else 1.0 for i in order)
    return DisplayTransform(tuple(int(s) for s in shape), tuple(order), flip, spacing, affine)


def _orientation(affine: np.ndarray, ndim: int) -> np.ndarray:
    ornt = nib.orientations.io_orientation(affine)
    if ndim == 3:
        return ornt
    # 2-D: the two in-plane axes keep their world axes; their order decides the display
    return ornt[:2]


def _display_flip(ras_axis: int, sign: int) -> bool:
    # R and S increase along the display axis; A decreases (anterior at the top)
    wants_increasing = ras_axis != 1
    return (sign > 0) != wants_increasing
