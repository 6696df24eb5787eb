"""Per-object records of a match, kept as columns and built as Python objects on demand.

A noisy map has tens of thousands of components at a low threshold, nearly all of them
specks the size window discards. :class:`ObjectRecords` keeps the per-object numbers as
arrays (a few hundred bytes per object) and builds an :class:`ObjectRecord` only for the
objects a caller asks for: :meth:`ObjectRecords.select` (e.g. the TP, FP and FN objects a
table lists) or :meth:`ObjectRecords.ids` never touch the others. Iterating, indexing or
comparing behaves as the tuple of every record (predicted objects by id, then GT objects
by id), built once on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np

from napari_mood.core.objects.components import Components
from napari_mood.core.objects.rule import KINDS, ObjectKind

__all__ = ["Geometry", "ObjectRecord", "ObjectRecords", "Source", "SourceColumns"]

Source = Literal["pred", "gt"]


@dataclass(frozen=True)
class ObjectRecord:
    """One predicted or GT object of an :class:`~napari_mood.core.objects.ObjectMatch`.

    ``id`` is the object's label in the label image of its source (see
    :func:`~napari_mood.core.objects.object_labels`). ``bbox`` holds half-open
    ``(lo, hi)`` voxel ranges per axis. ``size_mm3`` needs ``spacing`` or ``affine``;
    ``centroid_world`` is ``affine @ centroid`` with an affine, ``centroid * spacing`` with
    spacing only, else None. ``max_score`` / ``mean_score`` are taken over the object's
    voxels of the score map as read (also for GT objects). ``matched_ids`` are the GT ids
    a predicted object matches, or the predicted ids matching a GT object.
    """

    id: int
    kind: ObjectKind
    source: Source
    size_voxels: int
    size_mm3: float | None
    centroid_voxel: tuple[float, ...]
    centroid_world: tuple[float, ...] | None
    bbox: tuple[tuple[int, int], ...]
    max_score: float
    mean_score: float
    matched_ids: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Geometry:
    """Voxel volume and voxel-to-world mapping of a case (all None when unknown)."""

    volume: float | None
    spacing: np.ndarray | None
    affine: np.ndarray | None

    def world(self, centroids: np.ndarray) -> list[Any] | None:
        """World coordinates of voxel ``centroids`` (n, ndim), or None without a mapping.

        Parameters
        ----------
        centroids : numpy.ndarray
            ``(n, ndim)`` voxel coordinates.

        Returns
        -------
        list or None
            ``n`` coordinate lists, or None.
        """
        if self.affine is not None:
            return (centroids @ self.affine[:-1, :-1].T + self.affine[:-1, -1]).tolist()
        if self.spacing is not None:
            return (centroids * self.spacing).tolist()
        return None


@dataclass(frozen=True, eq=False)
class SourceColumns:
    """The per-object numbers of one source (predicted or GT), object ``i`` in row ``i - 1``.

    ``kinds``: kind codes (``KINDS.index(kind) + 1``); ``matches``: 0-based partner rows
    on the other side; ``max_scores`` / ``mean_scores``: over the object's voxels.
    """

    source: Source
    kinds: np.ndarray
    sizes: np.ndarray
    centroids: np.ndarray
    bbox_lo: np.ndarray
    bbox_hi: np.ndarray
    max_scores: np.ndarray
    mean_scores: np.ndarray
    matches: Sequence[tuple[int, ...]]

    @classmethod
    def of(
        cls,
        comp: Components,
        source: Source,
        kinds: np.ndarray,
        matches: Sequence[tuple[int, ...]],
        scores: tuple[np.ndarray, np.ndarray],
    ) -> SourceColumns:
        """Return the columns of ``comp`` (its label image is not kept).

        Parameters
        ----------
        comp : Components
            The objects of one source.
        source : {"pred", "gt"}
            Which source they are.
        kinds : numpy.ndarray
            Kind code of each object.
        matches : sequence of tuple of int
            Each object's partners (0-based indices).
        scores : tuple of numpy.ndarray
            Each object's peak and mean score.

        Returns
        -------
        SourceColumns
            One column per field, one row per object.
        """
        return cls(
            source,
            np.asarray(kinds, dtype=np.uint8),
            comp.sizes,
            comp.centroids,
            comp.bbox_lo,
            comp.bbox_hi,
            scores[0],
            scores[1],
            matches,
        )

    @property
    def n(self) -> int:
        """Number of objects."""
        return int(self.sizes.size)

    def rows_of(self, kinds: Collection[str]) -> np.ndarray:
        """Ascending rows whose kind is one of ``kinds``.

        Parameters
        ----------
        kinds : collection of str
            Object kinds (``"TP"``, ``"FP"``, ...); unknown ones match nothing.

        Returns
        -------
        numpy.ndarray
            Row indices.
        """
        codes = [KINDS.index(kind) + 1 for kind in kinds if kind in KINDS]  # type: ignore[arg-type]
        return np.flatnonzero(np.isin(self.kinds, codes))

    def records(self, rows: np.ndarray, geometry: Geometry) -> list[ObjectRecord]:
        """Return the records of ``rows``; the columns turn into Python values in bulk.

        Parameters
        ----------
        rows : numpy.ndarray
            Row indices.
        geometry : Geometry
            The case's voxel volume and world mapping.

        Returns
        -------
        list of ObjectRecord
            One record per row.
        """
        centroids = self.centroids[rows]
        world = geometry.world(centroids)
        sizes = self.sizes[rows].tolist()
        boxes = np.stack([self.bbox_lo[rows], self.bbox_hi[rows]], axis=2).tolist()
        volume = geometry.volume
        count = len(sizes)
        columns = zip(
            (rows + 1).tolist(),
            [KINDS[code - 1] for code in self.kinds[rows].tolist()],
            sizes,
            [None] * count if volume is None else [size * volume for size in sizes],
            map(tuple, centroids.tolist()),
            [None] * count if world is None else map(tuple, world),
            [tuple(map(tuple, box)) for box in boxes],
            self.max_scores[rows].tolist(),
            self.mean_scores[rows].tolist(),
            [tuple(m + 1 for m in self.matches[row]) for row in rows.tolist()],
            strict=True,
        )
        return [ObjectRecord(i, kind, self.source, *rest) for i, kind, *rest in columns]


class ObjectRecords(Sequence[ObjectRecord]):
    """Every object of a match: predicted objects by id, then GT objects by id.

    A read-only sequence of :class:`ObjectRecord` that equals the tuple of its records;
    they are built on first iteration (once, thread-safe). :meth:`select`, :meth:`ids`
    and :meth:`kind_codes` read the columns and build nothing they do not return.

    Examples
    --------
    >>> from napari_mood.core.objects import match_objects
    >>> gt = np.zeros((1, 9), bool); gt[0, 1:3] = True
    >>> score = np.zeros((1, 9)); score[0, 1:3] = score[0, 5] = score[0, 7] = 0.9
    >>> objects = match_objects(score, gt, threshold=0.5, size_window=(2, 4)).objects
    >>> len(objects), objects.ids("pred", ("discarded",)).tolist()
    (4, [2, 3])
    >>> [(r.source, r.id, r.kind) for r in objects.select("pred", ("TP", "FP"))]
    [('pred', 1, 'TP')]
    """

    def __init__(self, pred: SourceColumns, gt: SourceColumns, geometry: Geometry) -> None:
        self._sides = {"pred": pred, "gt": gt}
        self._geometry = geometry
        self._all: tuple[ObjectRecord, ...] | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Return the number of predicted and GT objects (no record is built)."""
        return self._sides["pred"].n + self._sides["gt"].n

    @overload
    def __getitem__(self, index: int) -> ObjectRecord: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[ObjectRecord, ...]: ...

    def __getitem__(self, index: int | slice) -> ObjectRecord | tuple[ObjectRecord, ...]:
        """Return the record (or records) at ``index`` of :meth:`as_tuple`."""
        return self.as_tuple()[index]

    def __iter__(self) -> Iterator[ObjectRecord]:
        """Iterate over every record (built on first use)."""
        return iter(self.as_tuple())

    def __eq__(self, other: object) -> bool:
        """Compare the records with another set or with a tuple of records."""
        if isinstance(other, ObjectRecords | tuple):
            return self.as_tuple() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        """Hash the records, consistently with ``==`` on a tuple of them."""
        return hash(self.as_tuple())

    def __repr__(self) -> str:
        """Show the records as a tuple."""
        return repr(self.as_tuple())

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the columns and geometry only (records are rebuilt, the lock is not kept)."""
        return {"sides": self._sides, "geometry": self._geometry}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore the columns and geometry with a new lock and no records built."""
        self._sides = state["sides"]
        self._geometry = state["geometry"]
        self._all = None
        self._lock = threading.Lock()

    def as_tuple(self) -> tuple[ObjectRecord, ...]:
        """Every record (built once, then kept).

        Returns
        -------
        tuple of ObjectRecord
            The predicted objects, then the GT objects, each by ascending id.
        """
        with self._lock:
            if self._all is None:
                self._all = self.select("pred", KINDS) + self.select("gt", KINDS)
            return self._all

    def select(self, source: Source, kinds: Collection[str]) -> tuple[ObjectRecord, ...]:
        """Return the records of the ``source`` objects whose kind is in ``kinds``, ascending id.

        Parameters
        ----------
        source : {"pred", "gt"}
            Whose objects.
        kinds : collection of str
            The kinds wanted.

        Returns
        -------
        tuple of ObjectRecord
            The records.
        """
        side = self._sides[source]
        return tuple(side.records(side.rows_of(kinds), self._geometry))

    def ids(self, source: Source, kinds: Collection[str]) -> np.ndarray:
        """Ids (int64, ascending) of the ``source`` objects whose kind is in ``kinds``.

        Parameters
        ----------
        source : {"pred", "gt"}
            Whose objects.
        kinds : collection of str
            The kinds wanted.

        Returns
        -------
        numpy.ndarray
            The ids.
        """
        return (self._sides[source].rows_of(kinds) + 1).astype(np.int64)

    def kind_codes(self, source: Source) -> np.ndarray:
        """Kind code of each ``source`` object, object ``i`` at index ``i - 1`` (uint8).

        Parameters
        ----------
        source : {"pred", "gt"}
            Whose objects.

        Returns
        -------
        numpy.ndarray
            A copy of the codes.
        """
        return self._sides[source].kinds.copy()
