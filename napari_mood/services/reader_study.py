"""Reader studies: what several readers' review journals say together. GUI-free.

Input: review journals (:mod:`napari_mood.services.review_store`), one or several readers
each. Output: one :class:`ReaderStudy`; :mod:`napari_mood.services.reader_study_report`
gives it as text, CSV, JSON, pandas DataFrames, a figure and the files of
``napari-mood review-report``.

Rules (README "Reader studies"):

Readers
    A reader is the journal's ``reviewer``; rows without one belong to a reader named after
    their journal (its file name without ``.csv``; the folder name is added when two
    journals share a file name). One reader's rows in several journals are one reader.
Verdicts
    Each reader's journal is folded on its own: a reader's newest row of a region wins (a
    ``withdrawn`` row takes it back). Another reader's verdict never replaces it, also when
    two readers share one journal.
Regions
    A region is the key ``(case, method, threshold, object_id)``: readers agree or not on
    the same region only when they reviewed the same map at the same threshold (a
    warning names readers of one case and method at different thresholds).
Precision
    Per reader and method: ``true / (true + false)``, the share of the flagged regions
    the reader judged that are confirmed; "unsure" is left out of both (it is neither a
    confirmation nor a rejection) and counted apart. The interval is Wilson's 95 %
    (:func:`~napari_mood.core.agreement.wilson_interval`); no decided verdict: NaN.
Agreement
    On the three verdicts (unsure is a category of its own). Cohen's kappa per pair of
    readers over the regions both judged; Fleiss' kappa over the regions *every* reader
    judged (the statistic needs the same readers per region). Regions judged by a subset
    count in the pairs that share them and in the disagreements, not in Fleiss' kappa; a
    region judged by one reader only counts in no agreement. Kappa is NaN when undefined
    (no shared region, or one verdict for everything: :mod:`napari_mood.core.agreement`).
Time per region
    From the reader's consecutive verdict rows (re-judgements too, withdrawals not; a row
    repeated exactly, the same region, verdict and time in one journal or in two, once), in
    time order: each gap up to ``max_gap_s`` (10 minutes) is the time of the region judged at
    its end; a longer gap is a break and is not counted, so the first region of each
    sitting has no time. Timestamps have one-second resolution.
Disagreements
    Regions judged by two readers or more whose verdicts differ (unsure against a firm
    verdict included), in the adjudication file format
    (:mod:`napari_mood.services.adjudication`). Adjudicated verdicts (rows with the
    ``adjudication`` column set) are no reader's: they are left out of every statistic.
Blind review
    The journal stores the real method with the review's ``blind_seed``; the reader saw
    "Method A". The report groups by the real method and counts blind verdicts apart
    (``blind`` column), so blind verdicts are tied back to their method only here.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from itertools import combinations
from pathlib import Path
from typing import Any, Literal

import numpy as np

from napari_mood.core.agreement import (
    Agreement,
    cohen_kappa,
    fleiss_kappa,
    rating_table,
    wilson_interval,
)
from napari_mood.io.errors import MoodInputError, MoodInputWarning, check_regular_file
from napari_mood.services.review import VERDICTS, ReviewRecord, Verdict, check_time
from napari_mood.services.review_store import read_journal

__all__ = [
    "CONFIDENCE",
    "MAX_GAP_S",
    "Disagreement",
    "PairAgreement",
    "ReaderMethodCounts",
    "ReaderStudy",
    "ReaderTime",
    "RegionKey",
    "reader_study",
]

RegionKey = tuple[str, str, float, int]
MAX_GAP_S = 600.0
"""A gap between two verdicts longer than this (seconds) is a break, not reading time."""
CONFIDENCE = 0.95
_HINT = "give napari-mood review files (CSV journals written by the review panel)"


# --------------------------------------------------------------------------- result


@dataclass(frozen=True)
class ReaderMethodCounts:
    """One reader's verdicts on one method's regions, with the confirmed share."""

    reader: str
    method: str
    cases: int
    true_finding: int
    false_alarm: int
    unsure: int
    blind: int
    precision: float
    precision_low: float
    precision_high: float

    @property
    def regions(self) -> int:
        """Number of judged regions."""
        return self.true_finding + self.false_alarm + self.unsure


@dataclass(frozen=True)
class PairAgreement:
    """Agreement of readers on the regions they all judged (``shared``)."""

    readers: tuple[str, ...]
    statistic: Literal["cohen", "fleiss"]
    agreement: Agreement

    @property
    def shared(self) -> int:
        """Number of regions judged by every one of :attr:`readers`."""
        return self.agreement.items


@dataclass(frozen=True)
class ReaderTime:
    """Reading time of one reader: gaps between consecutive verdicts, breaks left out."""

    reader: str
    verdicts: int
    timed: int
    breaks: int
    median_s: float
    mean_s: float
    total_s: float


@dataclass(frozen=True)
class Disagreement:
    """A region whose readers gave different verdicts; ``record`` locates it."""

    record: ReviewRecord
    verdicts: tuple[tuple[str, Verdict], ...]
    blind: bool

    @property
    def key(self) -> RegionKey:
        """``(case, method, threshold, object_id)``."""
        return self.record.key


@dataclass(frozen=True)
class ReaderStudy:
    """Several readers' verdicts on flagged regions, compared (module docstring)."""

    journals: tuple[Path, ...]
    readers: tuple[str, ...]
    methods: tuple[str, ...]
    counts: tuple[ReaderMethodCounts, ...]
    pairs: tuple[PairAgreement, ...]
    overall: PairAgreement
    single_reader_regions: int
    regions: int
    times: tuple[ReaderTime, ...]
    disagreements: tuple[Disagreement, ...]
    warnings: tuple[str, ...] = ()
    max_gap_s: float = MAX_GAP_S
    confidence: float = CONFIDENCE

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-ready (NaN as None).

        Returns
        -------
        dict
            The journals, readers, methods, options, counts, agreement, times and
            disagreements.
        """
        return _clean(
            {
                "journals": [str(p) for p in self.journals],
                "readers": list(self.readers),
                "methods": list(self.methods),
                "regions": self.regions,
                "options": {
                    "confidence": self.confidence,
                    "interval": "wilson",
                    "max_gap_s": self.max_gap_s,
                },
                "verdicts": [{**asdict(c), "regions": c.regions} for c in self.counts],
                "agreement": {
                    "pairs": [_agreement_dict(p) for p in self.pairs],
                    "overall": _agreement_dict(self.overall),
                    "single_reader_regions": self.single_reader_regions,
                },
                "times": [asdict(t) for t in self.times],
                "disagreements": [_disagreement_dict(d) for d in self.disagreements],
                "warnings": list(self.warnings),
            }
        )


def _agreement_dict(pair: PairAgreement) -> dict[str, Any]:
    a = pair.agreement
    return {
        "statistic": pair.statistic,
        "readers": list(pair.readers),
        "shared": a.items,
        "observed": a.observed,
        "expected": a.expected,
        "kappa": a.kappa,
    }


def _disagreement_dict(item: Disagreement) -> dict[str, Any]:
    r = item.record
    return {
        "case": r.case,
        "method": r.method,
        "threshold": r.threshold,
        "object_id": r.object_id,
        "centroid_voxel": list(r.centroid_voxel),
        "blind": item.blind,
        "verdicts": dict(item.verdicts),
    }


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


# --------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class _Event:
    reader: str
    record: ReviewRecord
    withdrawn: bool
    when: datetime
    order: tuple[int, int]  # (journal, row): ties of time keep the file order


def _journal_names(paths: Sequence[Path]) -> dict[Path, str]:
    """Return the reader name of rows without a reviewer: the file's name (and folder if needed)."""
    stems = [p.stem for p in paths]
    return {p: (f"{p.parent.name}/{p.stem}" if stems.count(p.stem) > 1 else p.stem) for p in paths}


def _read_events(journals: Sequence[Path]) -> tuple[list[_Event], list[str]]:
    names = _journal_names(journals)
    events: list[_Event] = []
    notes: list[str] = []
    for index, path in enumerate(journals):
        check_regular_file(path, what="review journal")
        rows = read_journal(path)
        if not rows:
            notes.append(f"{path}: holds no verdict")
        for row, (record, withdrawn) in enumerate(rows):
            if record.adjudication:
                continue  # an adjudicator's verdict, not a reader's (module docstring)
            reader = record.reviewer or names[path]
            when = check_time(record.time)
            events.append(_Event(reader, record, withdrawn, when, (index, row)))
    return events, notes


def _fold(events: Iterable[_Event]) -> dict[tuple[str, RegionKey], ReviewRecord]:
    """Each reader's current verdict per region: newest row wins, ``withdrawn`` removes."""
    current: dict[tuple[str, RegionKey], ReviewRecord] = {}
    for event in sorted(events, key=lambda e: (e.when, e.order)):
        slot = (event.reader, event.record.key)
        current.pop(slot, None)
        if not event.withdrawn:
            current[slot] = event.record
    return current


# --------------------------------------------------------------------------- the study


def reader_study(
    journals: Sequence[str | os.PathLike[str]],
    *,
    max_gap_s: float = MAX_GAP_S,
    confidence: float = CONFIDENCE,
    warn: bool = False,
) -> ReaderStudy:
    """Compare the readers of one or more review journals.

    Parameters
    ----------
    journals : sequence of path-like
        Review files (CSV journals of the review panel); they are only read.
    max_gap_s : float
        Gaps between a reader's verdicts longer than this are breaks (default 600 s).
    confidence : float
        Coverage of the precision intervals (default 0.95, Wilson).
    warn : bool
        Also emit :attr:`ReaderStudy.warnings` as :class:`MoodInputWarning`.

    Returns
    -------
    ReaderStudy
        Per reader and method the verdict counts and precision, the agreement, the reading
        times and the disagreements.

    Raises
    ------
    MoodInputError
        A journal that is missing or not a review file (the message names it), or no
        verdict in any of them.

    Examples
    --------
    >>> study = reader_study([tmp / "ana.csv", tmp / "ben.csv"])  # doctest: +SKIP
    >>> [(p.readers, p.shared, round(p.agreement.kappa, 2)) for p in study.pairs]  # doctest: +SKIP
    [(('ana', 'ben'), 16, 0.62)]
    """
    if not journals:
        raise ValueError("give at least one review journal")
    if not (math.isfinite(max_gap_s) and max_gap_s > 0):
        raise ValueError(f"max_gap_s must be a positive number of seconds, got {max_gap_s!r}")
    paths = tuple(Path(p) for p in journals)
    events, notes = _read_events(paths)
    current = _fold(events)
    if not current:
        raise MoodInputError(
            paths[0] if len(paths) == 1 else None,
            "no verdict to report in " + ", ".join(str(p) for p in paths),
            _HINT,
        )
    study = _study(paths, events, current, max_gap_s=max_gap_s, confidence=confidence)
    notes = [*notes, *_shared_reader_notes(events, paths)]
    study = _with_warnings(study, (*notes, *_threshold_notes(current), *_place_notes(current)))
    if warn:
        for text in study.warnings:
            warnings.warn(text, MoodInputWarning, stacklevel=2)
    return study


def _shared_reader_notes(events: Sequence[_Event], paths: Sequence[Path]) -> list[str]:
    """One reader's name in several journals whose last verdicts on a region differ.

    :func:`_fold` keeps the newest verdict, and of verdicts at the same time the one of
    the journal given last: each note names the files and says so.
    """
    last: dict[tuple[str, RegionKey, int], _Event] = {}  # per reader, region and journal
    for event in sorted(events, key=lambda e: (e.when, e.order)):
        last[(event.reader, event.record.key, event.order[0])] = event
    by_slot: dict[tuple[str, RegionKey], list[_Event]] = {}
    for (reader, key, _), event in last.items():
        by_slot.setdefault((reader, key), []).append(event)
    conflicts: dict[tuple[str, tuple[int, ...]], list[RegionKey]] = {}
    for (reader, key), found in by_slot.items():
        verdicts = {"withdrawn" if e.withdrawn else e.record.verdict for e in found}
        if len(verdicts) > 1:
            files = tuple(sorted(e.order[0] for e in found))
            conflicts.setdefault((reader, files), []).append(key)
    notes = []
    for (reader, files), keys in sorted(conflicts.items()):
        case, method, _, object_id = min(keys)
        notes.append(
            f"reader {reader!r} has verdicts in {' and '.join(str(paths[i]) for i in files)} "
            f"that differ on {len(keys)} region(s) (first: {case} {method} region {object_id}): "
            f"the newest verdict counts, and of verdicts at the same time the one in "
            f"{paths[files[-1]]} (the journal given last); give each reader their own name "
            "if these are two people"
        )
    return notes


def _with_warnings(study: ReaderStudy, notes: Sequence[str]) -> ReaderStudy:
    return replace(study, warnings=tuple(dict.fromkeys(notes)))


def _study(
    paths: tuple[Path, ...],
    events: Sequence[_Event],
    current: Mapping[tuple[str, RegionKey], ReviewRecord],
    *,
    max_gap_s: float,
    confidence: float,
) -> ReaderStudy:
    readers = tuple(sorted({reader for reader, _ in current} | {e.reader for e in events}))
    by_region: dict[RegionKey, dict[str, ReviewRecord]] = {}
    for (reader, key), record in sorted(current.items()):
        by_region.setdefault(key, {})[reader] = record
    return ReaderStudy(
        journals=paths,
        readers=readers,
        counts=_counts(current, confidence),
        pairs=tuple(_pair(by_region, pair) for pair in combinations(readers, 2)),
        overall=_overall(by_region, readers),
        single_reader_regions=sum(len(v) == 1 for v in by_region.values()),
        regions=len(by_region),
        times=tuple(_reading_time(events, reader, max_gap_s) for reader in readers),
        disagreements=_disagreements(by_region),
        max_gap_s=max_gap_s,
        confidence=confidence,
        methods=tuple(sorted({key[1] for key in by_region})),
    )


def _counts(
    current: Mapping[tuple[str, RegionKey], ReviewRecord], confidence: float
) -> tuple[ReaderMethodCounts, ...]:
    groups: dict[tuple[str, str], list[ReviewRecord]] = {}
    for (reader, key), record in current.items():
        groups.setdefault((reader, key[1]), []).append(record)
    return tuple(
        _reader_method(reader, method, rows, confidence)
        for (reader, method), rows in sorted(groups.items())
    )


def _reader_method(
    reader: str, method: str, rows: Sequence[ReviewRecord], confidence: float
) -> ReaderMethodCounts:
    tally = {verdict: sum(r.verdict == verdict for r in rows) for verdict in VERDICTS}
    confirmed, rejected = tally["true finding"], tally["false alarm"]
    decided = confirmed + rejected
    low, high = wilson_interval(confirmed, decided, confidence=confidence)
    return ReaderMethodCounts(
        reader=reader,
        method=method,
        cases=len({r.case for r in rows}),
        true_finding=confirmed,
        false_alarm=rejected,
        unsure=tally["unsure"],
        blind=sum(r.blind_seed is not None for r in rows),
        precision=confirmed / decided if decided else math.nan,
        precision_low=low,
        precision_high=high,
    )


def _pair(
    by_region: Mapping[RegionKey, Mapping[str, ReviewRecord]], pair: tuple[str, str]
) -> PairAgreement:
    first, second = pair
    shared = [v for v in by_region.values() if first in v and second in v]
    agreement = cohen_kappa(
        [v[first].verdict for v in shared], [v[second].verdict for v in shared], categories=VERDICTS
    )
    return PairAgreement(pair, "cohen", agreement)


def _overall(
    by_region: Mapping[RegionKey, Mapping[str, ReviewRecord]], readers: tuple[str, ...]
) -> PairAgreement:
    if len(readers) < 2:
        return PairAgreement(readers, "fleiss", fleiss_kappa(np.zeros((0, len(VERDICTS)), int)))
    complete = [v for v in by_region.values() if len(v) == len(readers)]
    ratings = [[v[reader].verdict for reader in readers] for v in complete]
    table = rating_table(ratings, categories=VERDICTS).reshape(len(ratings), len(VERDICTS))
    return PairAgreement(readers, "fleiss", fleiss_kappa(table))


def _reading_time(events: Sequence[_Event], reader: str, max_gap_s: float) -> ReaderTime:
    verdicts = {  # a row repeated (in one journal or in two) is one verdict, not a 0 s one
        (e.when, e.record.key, e.record.verdict)
        for e in events
        if e.reader == reader and not e.withdrawn
    }
    moments = sorted(when for when, _, _ in verdicts)
    gaps = np.array(
        [(b - a).total_seconds() for a, b in zip(moments[:-1], moments[1:], strict=True)], float
    )
    kept = gaps[gaps <= max_gap_s]
    return ReaderTime(
        reader=reader,
        verdicts=len(moments),
        timed=int(kept.size),
        breaks=int(gaps.size - kept.size),
        median_s=float(np.median(kept)) if kept.size else math.nan,
        mean_s=float(np.mean(kept)) if kept.size else math.nan,
        total_s=float(kept.sum()),
    )


def _disagreements(
    by_region: Mapping[RegionKey, Mapping[str, ReviewRecord]],
) -> tuple[Disagreement, ...]:
    found = []
    for readers in by_region.values():
        verdicts = tuple((name, record.verdict) for name, record in sorted(readers.items()))
        if len(verdicts) < 2 or len({v for _, v in verdicts}) < 2:
            continue
        records = list(readers.values())
        blind = any(r.blind_seed is not None for r in records)
        found.append(Disagreement(records[0], verdicts, blind))
    return tuple(
        sorted(found, key=lambda d: (d.record.case, d.record.method, d.record.threshold,
                                     -d.record.max_score, d.record.object_id))
    )  # fmt: skip


def _threshold_notes(current: Mapping[tuple[str, RegionKey], ReviewRecord]) -> list[str]:
    """Readers of one case and method at different thresholds: their regions never meet."""
    seen: dict[tuple[str, str], dict[float, set[str]]] = {}
    for (reader, key), _ in current.items():
        seen.setdefault((key[0], key[1]), {}).setdefault(key[2], set()).add(reader)
    notes = []
    for (case, method), levels in sorted(seen.items()):
        if len(levels) > 1:
            shown = "; ".join(
                f"{', '.join(sorted(who))} at {level:g}" for level, who in sorted(levels.items())
            )
            notes.append(
                f"case {case}, method {method}: judged at different thresholds ({shown}); "
                "regions at different thresholds are not compared (review at one threshold)"
            )
    return notes


def _place_notes(current: Mapping[tuple[str, RegionKey], ReviewRecord]) -> list[str]:
    """One region key at different places for two readers: their maps were not the same."""
    first: dict[RegionKey, tuple[str, ReviewRecord]] = {}
    notes = []
    for (reader, key), record in sorted(current.items()):
        if key not in first:
            first[key] = (reader, record)
            continue
        other, seen = first[key]
        moved = _distance(seen.centroid_voxel, record.centroid_voxel)
        if moved > 0.5:
            case, method, threshold, object_id = key
            notes.append(
                f"case {case}, method {method}, threshold {threshold:g}, region {object_id}: "
                f"{other} and {reader} judged regions {moved:.1f} voxels apart under one key "
                "(were their score maps the same files?)"
            )
    return notes


def _distance(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        return math.inf
    return math.dist(a, b)
