"""Evaluate a dataset folder for any front end: methods, progress, cancel, toy thresholds.

The command line, the dataset browser, the comparison table and the threshold widget all
evaluate through here (and :func:`napari_mood.services.engine.run_evaluation` below it), so
"which methods" (:func:`napari_mood.core.io.find_methods`), "choose thresholds on a toy
dataset" (:func:`toy_thresholds`) and the challenge statistics (:func:`add_statistics`)
are written once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from napari_mood.core import ranking
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.io import (
    METHODS_FOLDER,
    MethodFolder,
    MoodDataset,
    MoodInputError,
    discover_dataset,
    find_methods,
)
from napari_mood.core.readout import BestCriterion, BestThreshold, best_dataset_thresholds
from napari_mood.core.results import (
    DatasetEvaluation,
    EvaluationOptions,
    PixelSummary,
    SampleSummary,
)
from napari_mood.services.engine import EngineStats, run_evaluation

__all__ = [
    "EvaluationCancelled",
    "FolderEvaluation",
    "ThresholdChoice",
    "add_statistics",
    "check_toy",
    "evaluate_folder",
    "toy_thresholds",
]

Progress = Callable[[int, int, str], None]
PathLike = str | os.PathLike[str]


class EvaluationCancelled(RuntimeError):
    """The evaluation was cancelled (raised from the progress callback)."""


@dataclass(frozen=True)
class FolderEvaluation:
    """A dataset folder, the methods found for it and the engine's result."""

    dataset: MoodDataset
    methods: Mapping[str, MethodFolder]
    result: DatasetEvaluation
    stats: EngineStats


def _cancellable(
    progress: Progress | None, cancelled: threading.Event | None, what: str
) -> Progress:
    def report(done: int, total: int, case: str) -> None:
        if cancelled is not None and cancelled.is_set():
            raise EvaluationCancelled(f"evaluation of {what} cancelled")
        if progress is not None:
            progress(done, total, case)

    return report


def evaluate_folder(
    dataset: PathLike | MoodDataset,
    *,
    preds: PathLike | None = None,
    pred: Mapping[str, PathLike] | None = None,
    methods: Mapping[str, MethodFolder] | None = None,
    options: EvaluationOptions,
    workers: int | None = 1,
    scheduler: str | None = None,
    cache: PathLike | None = None,
    progress: Progress | None = None,
    cancelled: threading.Event | None = None,
    warn: bool = False,
) -> FolderEvaluation:
    """Find a dataset's methods and evaluate them (serially by default: GUI workers).

    Parameters
    ----------
    dataset : path-like or MoodDataset
        The MOOD dataset folder (or one already discovered).
    preds, pred
        Where the methods are (:func:`~napari_mood.core.io.find_methods`); ignored when
        ``methods`` is given.
    options : EvaluationOptions
        Tasks and policies.
    workers, scheduler, cache
        As :func:`~napari_mood.services.engine.run_evaluation` (``workers=1``: in this
        thread, no process pool).
    progress : callable(done, total, case), optional
    cancelled : threading.Event, optional
        When set, the evaluation stops after the current case with
        :class:`EvaluationCancelled`.

    Raises
    ------
    MoodInputError
        When the dataset or its methods cannot be used (the message names the folder).
    """
    found = dataset if isinstance(dataset, MoodDataset) else discover_dataset(dataset)
    if methods is None:
        methods = find_methods(found.root, preds=preds, pred=pred)
    result, stats = run_evaluation(
        found,
        methods,
        options=options,
        workers=workers,
        scheduler=scheduler,
        cache=cache,
        progress=_cancellable(progress, cancelled, str(found.root)),
        warn=warn,
    )
    return FolderEvaluation(found, methods, result, stats)


@dataclass(frozen=True)
class ThresholdChoice:
    """Thresholds chosen per method, where they were chosen and the methods left out."""

    best: Mapping[str, BestThreshold]
    source: str
    missing: tuple[str, ...] = ()
    available: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    def thresholds(self) -> dict[str, float]:
        """``{method: threshold}`` of the methods found."""
        return {name: b.threshold for name, b in self.best.items()}


def check_toy(toy: PathLike | MoodDataset) -> MoodDataset:
    """The toy dataset thresholds are chosen on: it needs pixel labels (object F1, Dice).

    Raises
    ------
    MoodInputError
        When it is not a dataset or has no pixel labels (naming the folder looked in).
    """
    dataset = toy if isinstance(toy, MoodDataset) else discover_dataset(toy)
    if not dataset.pixel_labels:
        raise MoodInputError(
            dataset.root / "toy_label" / "pixel",
            "the toy dataset has no pixel labels: thresholds are chosen on it by object F1, "
            "which needs them",
            "give a toy dataset with toy_label/pixel/, or a fixed --threshold",
        )
    return dataset


def toy_thresholds(
    toy: PathLike,
    names: Sequence[str],
    *,
    by: BestCriterion = "object_f1",
    preds: PathLike | None = None,
    options: EvaluationOptions | None = None,
    workers: int | None = 1,
    progress: Progress | None = None,
) -> ThresholdChoice:
    """MOOD's procedure: each method's best threshold over a separate toy dataset.

    The methods' outputs on the toy dataset are found like any dataset's
    (:func:`~napari_mood.core.io.find_methods`: ``TOY/methods/`` unless ``preds`` is
    given) and paired with ``names`` by name. The object F1 is searched on the grid
    0.01 .. 0.99; the Dice threshold is the pooled best one.

    Raises
    ------
    MoodInputError
        When the toy folder is not a dataset, has no pixel labels (:func:`check_toy`), no
        methods, or none of ``names``.
    """
    base = options or EvaluationOptions()
    toy_options = replace(
        base, tasks=("pixel", "object"), object_threshold="auto", sample_from_pixel=None
    )
    dataset = check_toy(toy)
    folders = find_methods(dataset.root, preds=preds)
    matched = {n: folders[n] for n in names if n in folders}
    missing = tuple(n for n in names if n not in folders)
    available = tuple(sorted(folders))
    source = f"toy dataset {dataset.name} ({len(dataset.cases)} cases)"
    if not matched:
        raise MoodInputError(
            dataset.root / METHODS_FOLDER if preds is None else preds,
            f"has no folder named like the methods shown ({', '.join(names)}); "
            f"it has {', '.join(available)}",
            "rename the folders or pick another toy dataset",
        )
    found = evaluate_folder(
        dataset, methods=matched, options=toy_options, workers=workers, progress=progress
    )
    best = best_dataset_thresholds(found.result, by=by)
    problems = tuple(str(p) for p in found.result.problems)
    return ThresholdChoice(best, source, missing, available, problems)


def add_statistics(
    result: DatasetEvaluation,
    *,
    batches: int,
    batch_size: int,
    bootstrap: int,
    seed: int,
    dataset: MoodDataset | None = None,
    splits: Sequence[Sequence[int]] | None = None,
) -> DatasetEvaluation:
    """Add the challenge batch AP (pixel and sample tasks) and bootstrap intervals.

    Batches follow the official ``bootstrap_dir`` to the letter
    (:func:`~napari_mood.core.ranking.listing_batch_ap`): they index the label folders'
    listings of ``dataset`` (every entry, stray and unreadable ones included, skipped
    inside a batch), drawn with ``seed`` unless ``splits`` (an official ``splits.json``)
    is given.
    """
    if not (batches or bootstrap or splits):
        return result
    methods = {}
    for name, summary in result.methods.items():
        pixel, sample = summary.pixel, summary.sample
        if pixel is not None and result.case_accumulators.get(name):
            accs = result.case_accumulators[name]
            listing = dataset.pixel_listing if dataset is not None else tuple(sorted(accs))
            pixel = _with_stats(pixel, accs, listing, batches, batch_size, bootstrap, seed, splits)
        if sample is not None and (batches or splits):
            accs = _sample_accumulators(result, name)
            listing = dataset.sample_listing if dataset is not None else tuple(sorted(accs))
            sample = _with_stats(sample, accs, listing, batches, batch_size, 0, seed, splits)
        methods[name] = replace(summary, pixel=pixel, sample=sample)
    return replace(result, methods=methods)


def _sample_accumulators(result: DatasetEvaluation, method: str) -> dict[str, CurveAccumulator]:
    """One accumulator per scored sample case, keyed by its label file name (``CASE.txt``)."""
    accs = {}
    for row in result.per_case:
        if row.method == method and row.sample_label is not None and row.sample_score is not None:
            acc = CurveAccumulator(mode="exact")
            acc.add(np.array([row.sample_score]), np.array([row.sample_label == 1]))
            accs[f"{row.case}.txt"] = acc
    return accs


_Summary = TypeVar("_Summary", PixelSummary, SampleSummary)


def _with_stats(
    summary: _Summary,
    accs: Mapping[str, CurveAccumulator],
    listing: Sequence[str],
    batches: int,
    batch_size: int,
    bootstrap: int,
    seed: int,
    splits: Sequence[Sequence[int]] | None,
) -> _Summary:
    extra: dict[str, Any] = dict(summary.extra)
    if batches or splits:
        b = ranking.listing_batch_ap(
            listing, accs, n_runs=batches, batch_size=batch_size, seed=seed, splits=splits
        )
        extra["batch_ap"] = {
            "mean": b.mean,
            "n_batches": len(b.splits),
            "batch_size": max(len(s) for s in b.splits),
            "seed": seed,
            "aps": list(b.scores),
            "splits": [list(x) for x in b.splits],
            "split_entries": [list(x) for x in b.entries],
            "scored_cases": [list(x) for x in b.scored],
            "from_splits_file": splits is not None,
        }
    if bootstrap:
        ci = ranking.bootstrap_ap(tuple(accs.values()), n_boot=bootstrap, seed=seed)
        extra["ap_ci95"] = [ci.low, ci.high]
    return replace(summary, extra=extra)
