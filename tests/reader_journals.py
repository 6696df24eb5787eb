"""Simulated readers: review journals written with the real :class:`ReviewFile`.

Shared by the service, command-line and panel tests of reader studies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from napari_mood.core.regions import FlaggedRegion
from napari_mood.services.review import VERDICTS, ReviewRecord, review_record
from napari_mood.services.review_store import ReviewFile

START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
CASES = ("case_a", "case_b")
METHODS = ("ae", "vae")
REGIONS = (1, 2, 3, 4, 5, 6)

# one verdict: (case, method, object id, verdict)
Verdict4 = tuple[str, str, int, str]


def region(object_id: int) -> FlaggedRegion:
    """Region ``object_id``: a 3x3x3 cube centred at (4 * id, 5, 5)."""
    centre = (4.0 * object_id, 5.0, 5.0)
    bbox = tuple((int(c) - 1, int(c) + 2) for c in centre)
    return FlaggedRegion(object_id, 27, 27.0, centre, bbox, 0.9 - object_id / 100, 0.8, True)


def when(seconds: float) -> str:
    """The ``time`` column ``seconds`` after :data:`START`."""
    return (START + timedelta(seconds=seconds)).isoformat(timespec="seconds")


def record(
    reader: str,
    case: str,
    method: str,
    object_id: int,
    verdict: str,
    seconds: float,
    *,
    threshold: float = 0.5,
    blind_seed: int | None = None,
) -> ReviewRecord:
    """A verdict as the review panel records it."""
    found = region(object_id)
    return review_record(
        found,
        case=case,
        method=method,
        threshold=threshold,
        centroid_world_mm=tuple(2.0 * c for c in found.centroid_voxel),
        verdict=verdict,  # type: ignore[arg-type]
        time=when(seconds),
        reviewer=reader,
        blind_seed=blind_seed,
    )


def write_reader(
    path: Path,
    reader: str,
    verdicts: Iterable[Verdict4],
    *,
    step: float = 30.0,
    start: float = 0.0,
    blind_seed: int | None = None,
) -> Path:
    """Append ``verdicts`` to the journal ``path``, one every ``step`` seconds."""
    book = ReviewFile(path)
    for k, (case, method, object_id, verdict) in enumerate(verdicts):
        seconds = start + step * k
        book.save(record(reader, case, method, object_id, verdict, seconds, blind_seed=blind_seed))
    return path


def every_region() -> list[tuple[str, str, int]]:
    """Every simulated region key: case, method, object id."""
    return [(c, m, r) for c in CASES for m in METHODS for r in REGIONS]


def random_readers(
    seed: int, readers: Sequence[str] = ("ana", "ben", "cy")
) -> dict[str, list[Verdict4]]:
    """Verdicts of ``readers`` over :func:`every_region`: mostly the same, some flipped.

    The last reader never answers "unsure"; the second one leaves the first two regions
    of each case and method out (judged by a subset of readers); a fourth reader "dee"
    alone judges region 7 of each case and method (regions seen by one reader only).
    """
    rng = np.random.default_rng(seed)
    truth = {key: VERDICTS[int(rng.choice(3, p=[0.45, 0.4, 0.15]))] for key in every_region()}
    table: dict[str, list[Verdict4]] = {}
    for index, reader in enumerate(readers):
        rows: list[Verdict4] = []
        for key in every_region():
            if index == 1 and key[2] <= 2:
                continue
            verdict = truth[key]
            if rng.random() < 0.3:
                verdict = VERDICTS[int(rng.integers(3))]
            if index == len(readers) - 1 and verdict == "unsure":
                verdict = "false alarm"
            rows.append((*key, verdict))
        table[reader] = rows
    table["dee"] = [(c, m, 7, "true finding") for c in CASES for m in METHODS]
    return table
