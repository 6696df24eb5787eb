"""A set of boxes over many images: the one container of box ground truth and predictions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from napari_mood.core.boxes.geometry import as_boxes

__all__ = ["DEFAULT_LABEL", "BoxSet"]

DEFAULT_LABEL = "anomaly"
"""The category of every box when a file has no label column (one category)."""


@dataclass(frozen=True, eq=False)
class BoxSet:
    """Boxes of many images, one row per box (see :mod:`.geometry` for the convention).

    Attributes
    ----------
    images : tuple of str
        The image each box belongs to.
    xyxy : ndarray, shape (n, 4)
        ``(x1, y1, x2, y2)`` in pixels.
    scores : ndarray, shape (n,)
        Confidence of each box (predictions); 1.0 for ground truth.
    labels : tuple of str
        Category of each box (``"anomaly"`` when none is given).
    readers : tuple of str
        Who drew each box (``""`` when unknown, and for predictions).
    """

    images: tuple[str, ...]
    xyxy: np.ndarray
    scores: np.ndarray
    labels: tuple[str, ...]
    readers: tuple[str, ...]

    @classmethod
    def build(
        cls,
        images: Sequence[str],
        xyxy: object,
        *,
        scores: object | None = None,
        labels: Sequence[str] | None = None,
        readers: Sequence[str] | None = None,
    ) -> BoxSet:
        """Check and assemble; missing scores are 1.0, labels ``"anomaly"``, readers ``""``.

        Parameters
        ----------
        images : sequence of str
            The image id of each box.
        xyxy : array-like
            ``(n, 4)`` corners ``(x1, y1, x2, y2)``.
        scores : array-like, optional
            Confidence of each box.
        labels : sequence of str, optional
            Category of each box.
        readers : sequence of str, optional
            Reader of each box.

        Returns
        -------
        BoxSet
            The boxes.

        Raises
        ------
        ValueError
            When lengths differ or a box or score is invalid.

        Examples
        --------
        >>> boxes = BoxSet.build(["a", "a"], [[0, 0, 2, 2], [1, 1, 3, 3]], scores=[0.9, 0.2])
        >>> len(boxes), boxes.labels
        (2, ('anomaly', 'anomaly'))
        """
        arr = as_boxes(xyxy)
        n = len(arr)
        score = np.ones(n) if scores is None else np.asarray(scores, dtype=np.float64).ravel()
        label = (DEFAULT_LABEL,) * n if labels is None else tuple(str(v) for v in labels)
        reader = ("",) * n if readers is None else tuple(str(v) for v in readers)
        if not (len(images) == len(score) == len(label) == len(reader) == n):
            raise ValueError("images, boxes, scores, labels and readers differ in length")
        if not np.isfinite(score).all():
            raise ValueError("scores hold values that are not finite numbers")
        return cls(tuple(str(v) for v in images), arr, score, label, reader)

    @classmethod
    def empty(cls) -> BoxSet:
        """No box at all.

        Returns
        -------
        BoxSet
            An empty set.
        """
        return cls.build([], [])

    def __len__(self) -> int:
        """Return the number of boxes."""
        return len(self.images)

    def take(self, rows: Iterable[int] | np.ndarray) -> BoxSet:
        """Return the boxes at ``rows`` (indices or a boolean mask), in that order.

        Parameters
        ----------
        rows : iterable of int or numpy.ndarray
            Row indices, or a bool mask of every row.

        Returns
        -------
        BoxSet
            The selected boxes.
        """
        index = np.asarray(list(rows) if not isinstance(rows, np.ndarray) else rows)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        index = index.astype(np.intp)
        return BoxSet(
            tuple(self.images[i] for i in index),
            self.xyxy[index],
            self.scores[index],
            tuple(self.labels[i] for i in index),
            tuple(self.readers[i] for i in index),
        )

    def rows_of(self, image: str, label: str | None = None) -> np.ndarray:
        """Row indices of the boxes of ``image`` (and ``label``), in file order.

        Parameters
        ----------
        image : str
            An image id.
        label : str, optional
            A category (default: any).

        Returns
        -------
        numpy.ndarray
            Row indices.
        """
        return np.array(
            [
                i
                for i, (img, lab) in enumerate(zip(self.images, self.labels, strict=True))
                if img == image and (label is None or lab == label)
            ],
            dtype=np.intp,
        )

    def above(self, min_score: float) -> BoxSet:
        """Return the boxes whose score is ``>= min_score``.

        Parameters
        ----------
        min_score : float
            The lowest confidence kept.

        Returns
        -------
        BoxSet
            The boxes kept, in order.
        """
        return self.take(self.scores >= min_score)

    @staticmethod
    def concat(parts: Sequence[BoxSet]) -> BoxSet:
        """One set holding the boxes of ``parts`` in order.

        Parameters
        ----------
        parts : sequence of BoxSet
            The sets to join.

        Returns
        -------
        BoxSet
            The joined set (empty without parts).
        """
        if not parts:
            return BoxSet.empty()
        return BoxSet(
            tuple(v for p in parts for v in p.images),
            np.concatenate([p.xyxy for p in parts]).reshape(-1, 4),
            np.concatenate([p.scores for p in parts]),
            tuple(v for p in parts for v in p.labels),
            tuple(v for p in parts for v in p.readers),
        )
