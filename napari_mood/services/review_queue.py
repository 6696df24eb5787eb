"""Review order: the queue of cases and regions a reviewer walks, and blind review.

Qt-free. A reading session walks one method's flagged regions case after case:

* regions of a case are shown by decreasing max score (:mod:`napari_mood.core.regions`),
  or, in blind review, in an order shuffled with the review's seed;
* cases of the dataset are walked in their sorted order, or shuffled with the seed;
* in blind review methods are shown as "Method A", "Method B", ... (assigned with the
  seed), so that neither the method's name nor the regions' order tell what it is.

The seed is written with every verdict (column ``blind_seed`` of the review file), so a
blind review resumed later, or checked by someone else, walks the same order.

Examples
--------
>>> region_order(4, seed=None, case="a", method="m")
(0, 1, 2, 3)
>>> sorted(region_order(4, seed=7, case="a", method="m"))
[0, 1, 2, 3]
>>> blind_names(["ae", "vae"], seed=3) == blind_names(["vae", "ae"], seed=3)
True
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from napari_mood.io.methods import MethodFolder, method_folder
from napari_mood.io.mood import MoodDataset, discover_dataset
from napari_mood.services.review import ReviewRecord

__all__ = [
    "ReviewQueue",
    "blind_names",
    "method_root",
    "new_seed",
    "region_order",
    "review_queue",
    "stored_seed",
]


def new_seed() -> int:
    """Return a fresh seed for a blind review (a positive 31-bit integer).

    Returns
    -------
    int
        The seed.
    """
    return secrets.randbelow(2**31 - 1) + 1


def stored_seed(records: Iterable[ReviewRecord], reviewer: str) -> int:
    """Return the seed of ``reviewer``'s latest blind verdict in ``records``, or a new one.

    A blind review resumed later walks the same order.

    Parameters
    ----------
    records : iterable of ReviewRecord
        The stored verdicts, in file order.
    reviewer : str
        The reviewer.

    Returns
    -------
    int
        The seed.
    """
    name = reviewer.strip()
    seeds = [r.blind_seed for r in records if r.blind_seed and r.reviewer == name]
    return seeds[-1] if seeds else new_seed()


def _rng(seed: int, *parts: str) -> np.random.Generator:
    digest = hashlib.sha256("\0".join((str(seed), *parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def region_order(count: int, *, seed: int | None, case: str, method: str) -> tuple[int, ...]:
    """Return the indices of ``count`` ranked regions in review order.

    Parameters
    ----------
    count : int
        Number of regions (ranked by max score).
    seed : int or None
        Blind review seed; None keeps the ranking (highest max score first).
    case, method : str
        Mixed into the shuffle so that each case and method has its own order.

    Returns
    -------
    tuple of int
        A permutation of ``range(count)``.
    """
    if seed is None:
        return tuple(range(count))
    return tuple(int(i) for i in _rng(seed, "regions", case, method).permutation(count))


def blind_names(methods: Iterable[str], *, seed: int) -> dict[str, str]:
    """Neutral names ("Method A", ...) for ``methods``, assigned in an order set by ``seed``.

    The assignment does not depend on the order ``methods`` are given in.

    Parameters
    ----------
    methods : iterable of str
        The methods.
    seed : int
        The blind review's seed.

    Returns
    -------
    dict of str to str
        The neutral name of each method.
    """
    names = sorted(set(methods))
    order = _rng(seed, "methods").permutation(len(names))
    return {names[int(k)]: f"Method {_letters(i)}" for i, k in enumerate(order)}


def _letters(index: int) -> str:
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("A") + rest) + text
    return text


def method_root(map_path: Path) -> Path:
    """Return the method folder of a map file (``M/case.nii.gz`` or ``M/pixel/case.nii.gz``).

    Parameters
    ----------
    map_path : pathlib.Path
        A map file.

    Returns
    -------
    pathlib.Path
        The method's folder.
    """
    parent = map_path.parent
    return parent.parent if parent.name == "pixel" else parent


@dataclass(frozen=True)
class ReviewQueue:
    """The cases a reviewer walks, in order, with what is needed to open each."""

    dataset: MoodDataset
    methods: Mapping[str, MethodFolder]
    cases: tuple[str, ...]
    seed: int | None = None

    def step(self, current: str | None, delta: int) -> str | None:
        """Return the case ``delta`` places from ``current`` (None past either end).

        Parameters
        ----------
        current : str or None
            The case shown.
        delta : int
            Places to move (negative: back).

        Returns
        -------
        str or None
            The case; from a case not queued, the first case going forward.
        """
        if not self.cases:
            return None
        if current not in self.cases:
            return self.cases[0] if delta > 0 else None
        index = self.cases.index(current) + delta
        return self.cases[index] if 0 <= index < len(self.cases) else None

    def position(self, current: str | None) -> tuple[int, int]:
        """``(1-based position of current, number of cases)``; position 0 when not queued.

        Parameters
        ----------
        current : str or None
            The case shown.

        Returns
        -------
        tuple of int
            Position and count.
        """
        index = self.cases.index(current) + 1 if current in self.cases else 0
        return index, len(self.cases)


def review_queue(
    dataset: Path, maps: Mapping[str, Path], *, method: str, seed: int | None = None
) -> ReviewQueue:
    """Return the queue of cases of ``dataset`` that ``method`` has a map for.

    Parameters
    ----------
    dataset : Path
        A MOOD-layout dataset folder.
    maps : mapping of str to Path
        Each shown method's map file of the current case (their folders are indexed).
    method : str
        The reviewed method; only cases it has a map for are queued.
    seed : int, optional
        Blind review seed: the cases are shuffled with it (sorted otherwise).

    Returns
    -------
    ReviewQueue
        The cases with a map of ``method``, shuffled when ``seed`` is given.

    Raises
    ------
    napari_mood.io.errors.MoodInputError
        When the dataset or a method folder cannot be read.
    """
    found = discover_dataset(dataset)
    folders = {name: method_folder(method_root(path), name=name) for name, path in maps.items()}
    reviewed = folders.get(method)
    cases = sorted(c for c in found.cases if reviewed is not None and c in reviewed.pixel)
    return ReviewQueue(found, folders, _shuffled(cases, seed), seed)


def _shuffled(cases: Sequence[str], seed: int | None) -> tuple[str, ...]:
    if seed is None:
        return tuple(cases)
    return tuple(cases[int(i)] for i in _rng(seed, "cases").permutation(len(cases)))
