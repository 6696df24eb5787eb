"""Several anomalies on one scan, and small MOOD-style datasets made from one scan."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from napari_mood.core._checks import check_choice
from napari_mood.core.simulate.kinds import (
    add_cube,
    add_image_slab,
    add_pet_change,
    add_pixel_shuffle,
    add_sphere,
)
from napari_mood.core.simulate.placement import (
    DEFAULT_SIZE_RANGES,
    KINDS,
    Anomaly,
    AnomalyKind,
    Seed,
    as_scan,
    body_of,
)

__all__ = [
    "SimulatedCase",
    "Simulation",
    "add_anomalies",
    "iter_simulated_cases",
    "simulate_cases",
]


@dataclass(frozen=True, eq=False)
class Simulation:
    """Several anomalies applied one after the other to one scan.

    ``scan`` is the final scan, ``mask`` the union of the anomalies' masks and
    ``anomalies`` the individual anomalies in the order they were applied.
    """

    scan: np.ndarray
    mask: np.ndarray
    anomalies: tuple[Anomaly, ...]


@dataclass(frozen=True, eq=False)
class SimulatedCase:
    """A named case of a simulated dataset: scan, ground truth and its anomalies."""

    name: str
    scan: np.ndarray
    mask: np.ndarray
    anomalies: tuple[Anomaly, ...]

    @property
    def label(self) -> int:
        """Sample-level label: 1 if the case has an anomaly, else 0."""
        return int(bool(self.mask.any()))


_ADDERS: dict[str, Callable[..., Anomaly]] = {
    "sphere": add_sphere,
    "cube": add_cube,
    "shuffle": add_pixel_shuffle,
    "slab": add_image_slab,
    "pet": add_pet_change,
}


def add_anomalies(
    scan: np.ndarray,
    *,
    kind: AnomalyKind | Literal["mixed"] = "sphere",
    count: int = 1,
    size_range: tuple[int, int] | None = None,
    body_mask: np.ndarray | None = None,
    seed: Seed = None,
) -> Simulation:
    """Apply ``count`` separate anomalies to one scan, one after the other.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D array with values in [0, 1]. Not modified.
    kind : {'sphere', 'cube', 'shuffle', 'slab', 'pet', 'mixed'}
        AnomalyKind of every anomaly; ``'mixed'`` draws each kind at random (``'slab'`` only
        for 3-D scans).
    count : int
        Number of anomalies (0 gives a copy of the scan and an empty mask).
    size_range : (int, int), optional
        Range of the random sizes; the kind's default (``DEFAULT_SIZE_RANGES``) if omitted.
    body_mask : ndarray of bool, optional
        Where anomalies should go; defaults to the nonzero voxels of the input scan.
    seed : int, Generator or None
        Source of randomness.

    Returns
    -------
    Simulation
        Final scan, union mask, and the anomalies. Anomalies never touch each other (a gap
        of at least 2 voxels); a ValueError says when there is no room left.

    Examples
    --------
    >>> scan = np.full((48, 48, 48), 0.5)
    >>> sim = add_anomalies(scan, kind="sphere", count=3, size_range=(2, 4), seed=0)
    >>> len(sim.anomalies), bool(sim.mask.any()), float(scan.max())
    (3, True, 0.5)
    """
    check_choice("kind", kind, (*KINDS, "mixed"))
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 0:
        raise ValueError(f"count must be a non-negative integer, got {count!r}")
    arr = as_scan(scan)
    if kind == "slab" and arr.ndim != 3:
        raise ValueError("kind='slab' needs a 3-D scan")
    rng = np.random.default_rng(seed)
    body = body_of(arr, body_mask)
    pool = [k for k in KINDS if arr.ndim == 3 or k != "slab"]
    current, union, anomalies = arr.copy(), np.zeros(arr.shape, dtype=bool), []
    for _ in range(int(count)):
        this = str(rng.choice(pool)) if kind == "mixed" else kind
        sizes = DEFAULT_SIZE_RANGES[this] if size_range is None else size_range
        anomaly = _ADDERS[this](current, size_range=sizes, body_mask=body, avoid=union, seed=rng)
        anomalies.append(anomaly)
        current = anomaly.scan
        union |= anomaly.mask
    return Simulation(current, union, tuple(anomalies))


def simulate_cases(
    scan: np.ndarray,
    *,
    kind: AnomalyKind | Literal["mixed"] = "sphere",
    count: int = 1,
    n_anomalous: int = 3,
    n_normal: int = 1,
    size_range: tuple[int, int] | None = None,
    body_mask: np.ndarray | None = None,
    prefix: str = "case",
    seed: Seed = None,
) -> tuple[SimulatedCase, ...]:
    """Make a small MOOD-style dataset from one scan: normal and anomalous cases.

    Cases are named ``{prefix}_000``, ``{prefix}_001``, ...: first ``n_normal`` normal
    cases (copies of the scan, empty masks), then ``n_anomalous`` cases with ``count``
    anomalies each (see :func:`add_anomalies`). Each case draws from its own child of
    the seed's generator, so a case does not change when another one is added.
    :func:`iter_simulated_cases` gives the same cases one at a time.

    Parameters
    ----------
    scan : ndarray
        2-D or 3-D array with values in [0, 1]. Not modified.
    kind, count, size_range, body_mask
        As in :func:`add_anomalies`.
    n_anomalous, n_normal : int
        Number of cases of each sort.
    prefix : str
        Start of the case names.
    seed : int, Generator or None
        Source of randomness.

    Returns
    -------
    tuple of SimulatedCase
        Write them with :func:`napari_mood.services.writers.write_mood_case`.

    Examples
    --------
    >>> scan = np.full((32, 32, 32), 0.5)
    >>> cases = simulate_cases(scan, kind="cube", n_anomalous=2, size_range=(2, 3), seed=0)
    >>> [(case.name, case.label) for case in cases]
    [('case_000', 0), ('case_001', 1), ('case_002', 1)]
    """
    return tuple(
        iter_simulated_cases(
            scan,
            kind=kind,
            count=count,
            n_anomalous=n_anomalous,
            n_normal=n_normal,
            size_range=size_range,
            body_mask=body_mask,
            prefix=prefix,
            seed=seed,
        )
    )


def iter_simulated_cases(
    scan: np.ndarray,
    *,
    kind: AnomalyKind | Literal["mixed"] = "sphere",
    count: int = 1,
    n_anomalous: int = 3,
    n_normal: int = 1,
    size_range: tuple[int, int] | None = None,
    body_mask: np.ndarray | None = None,
    prefix: str = "case",
    seed: Seed = None,
) -> Iterator[SimulatedCase]:
    """Yield the cases of :func:`simulate_cases`, one at a time (one scan in memory at once).

    The arguments are checked before the first case is made (a ValueError).

    Parameters
    ----------
    scan, kind, count, n_anomalous, n_normal, size_range, body_mask, prefix, seed
        As in :func:`simulate_cases`.

    Yields
    ------
    SimulatedCase
        The normal cases, then the anomalous ones.

    Examples
    --------
    >>> scan = np.full((32, 32, 32), 0.5)
    >>> cases = iter_simulated_cases(scan, kind="cube", n_anomalous=1, size_range=(2, 3), seed=0)
    >>> [case.name for case in cases]
    ['case_000', 'case_001']
    """
    for name, number in (("n_anomalous", n_anomalous), ("n_normal", n_normal)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {number!r}")
    if not prefix or any(sep in prefix for sep in "/\\"):
        raise ValueError(f"prefix must be a non-empty file-name part, got {prefix!r}")
    arr = as_scan(scan)
    children = np.random.default_rng(seed).spawn(n_normal + n_anomalous)

    def cases() -> Iterator[SimulatedCase]:
        for index, child in enumerate(children):
            name = f"{prefix}_{index:03d}"
            if index < n_normal:
                yield SimulatedCase(name, arr.copy(), np.zeros(arr.shape, bool), ())
                continue
            sim = add_anomalies(
                arr, kind=kind, count=count, size_range=size_range, body_mask=body_mask, seed=child
            )
            yield SimulatedCase(name, sim.scan, sim.mask, sim.anomalies)

    return cases()
