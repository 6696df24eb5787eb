"""The options the jobs take: the words and checks a front end applies before starting one.

Light on purpose (numpy and nibabel only): the command line's option parsers import it at
parse time, so a usage error is refused before any file is read, and the viewer's panels
check what the user typed with the same rules. Each name is defined once in the core
rules; this module is the front ends' door to them.
"""

from __future__ import annotations

import os

from napari_mood.core._checks import check_integer
from napari_mood.core.orientation import CONVENTIONS, PLANES, Convention, Plane
from napari_mood.core.recon_study import TESTS
from napari_mood.core.scores import (
    SCORE_MODES,
    ScoreMode,
    check_threshold,
    display_threshold,
    threshold_limits,
)
from napari_mood.core.seed import DEFAULT_SEED

__all__ = [
    "CONVENTIONS",
    "DEFAULT_SEED",
    "PLANES",
    "SCORE_MODES",
    "TESTS",
    "Convention",
    "Plane",
    "ScoreMode",
    "WORKERS_PER_CORE",
    "check_threshold",
    "check_workers",
    "usable_cores",
    "display_threshold",
    "threshold_limits",
]

WORKERS_PER_CORE = 4
"""Local worker processes: at most this many per usable core (each is a Python with numpy
and a case in memory; beyond the cores they only cost memory). A cluster: a scheduler."""


def usable_cores() -> int:
    """Return the cores this process may run on (at least 1).

    Returns
    -------
    int
        The usable cores.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers: object) -> int | None:
    """Return ``workers`` checked: None (auto) or 1 .. :data:`WORKERS_PER_CORE` per usable core.

    The one rule of a worker count, for the Python API and ``--workers`` alike: 0 is no
    number of processes (refused, not read as 1).

    Parameters
    ----------
    workers : int or None
        The number of local worker processes asked for.

    Returns
    -------
    int or None
        ``workers``.

    Raises
    ------
    TypeError
        When ``workers`` is not an integer (``"2"``, ``2.0``).
    ValueError
        When it is below 1 or above 4 per usable core.

    Examples
    --------
    >>> check_workers(0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: workers must be an integer in [1, ...]; got 0
    """
    if workers is None:
        return None
    return check_integer("workers", workers, minimum=1, maximum=WORKERS_PER_CORE * usable_cores())
