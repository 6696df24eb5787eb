"""Evaluate a MOOD dataset folder: the one entry point, :func:`evaluate`, and its helpers.

The command line, the dataset browser, the comparison table, the threshold widget and a
notebook all evaluate through :func:`evaluate` (the engine below it,
:mod:`napari_mood.services.engine`, runs the per-case work serially, in processes or on a
cluster), so "which methods" (:func:`napari_mood.io.methods.find_methods`), "which tasks"
(:func:`default_tasks`), "choose thresholds on a toy dataset" (:func:`toy_thresholds`) and
the challenge statistics (:func:`add_statistics`) are written once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from napari_mood.core import ranking
from napari_mood.core._checks import check_instance, check_mapping, check_path, check_sequence
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.readout import BestCriterion, BestThreshold, best_dataset_thresholds
from napari_mood.core.results import (
    DatasetEvaluation,
    EvaluationOptions,
    PixelSummary,
    SampleSummary,
    Task,
)
from napari_mood.io.errors import MoodInputError, option
from napari_mood.io.methods import METHODS_FOLDER, MethodFolder, find_methods
from napari_mood.io.mood import MoodDataset, discover_dataset
from napari_mood.services.engine import EngineStats, run_evaluation
from napari_mood.services.formats import format_json, format_table, require_pandas
from napari_mood.services.options import check_workers

if TYPE_CHECKING:
    import pandas as pd

from napari_mood.core.batches import check_splits, listing_batch_ap
from napari_mood.core.results import CaseRow

__all__ = [
    "EvaluationOptions",
    "Task",
    "DatasetEvaluation",
    "CaseRow",
    "check_splits",
    "EvaluationCancelled",
    "MoodEvaluation",
    "ThresholdChoice",
    "add_statistics",
    "check_toy",
    "default_tasks",
    "evaluate",
    "toy_thresholds",
]

Progress = Callable[[int, int, str], None]
PathLike = str | os.PathLike[str]


class EvaluationCancelled(RuntimeError):
    """The evaluation was cancelled (raised from the progress callback)."""


@dataclass(frozen=True, repr=False)
class MoodEvaluation:
    """A MOOD dataset's evaluation: the dataset, its methods, the metrics and the run.

    Print it for a table; :meth:`to_dict`, :meth:`to_json` and :meth:`to_frame` give the
    same numbers as plain data, JSON text and a pandas DataFrame.

    Attributes
    ----------
    dataset : MoodDataset
        The dataset evaluated.
    methods : mapping of str to MethodFolder
        The methods evaluated, by name.
    result : DatasetEvaluation
        Per-method summaries, per-case rows and the problems found.
    stats : EngineStats
        What the run did (computed vs cached results, workers, peak memory).
    """

    dataset: MoodDataset
    methods: Mapping[str, MethodFolder]
    result: DatasetEvaluation
    stats: EngineStats

    def __str__(self) -> str:
        """Show the summary table (:meth:`to_table`)."""
        return self.to_table()

    def __repr__(self) -> str:
        """Show the dataset, the number of cases, the methods (best first) and the tasks."""
        tasks = ",".join(self.result.options.tasks)
        return (
            f"<MoodEvaluation {self.result.dataset}: {len(self.result.cases)} cases, "
            f"methods {', '.join(self.result.ranked_methods())}, tasks {tasks}>"
        )

    def to_table(self) -> str:
        """Return an aligned text table, one row per method, best first.

        Returns
        -------
        str
            The table, ending with a line break.
        """
        return format_table(self.result)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-able structure documented in the README (NaN as None).

        Returns
        -------
        dict
            JSON-able data: the dataset, cases, score mode, each method's summary (best first),
            the per-case rows and the problems.
        """
        return self.result.to_dict()

    def to_json(self) -> str:
        """Return :meth:`to_dict` as JSON text.

        Returns
        -------
        str
            Indented JSON.
        """
        return format_json(self.result)

    def to_frame(self, *, per_case: bool = False) -> pd.DataFrame:
        """Return a pandas DataFrame: one row per method, or per case and method.

        Parameters
        ----------
        per_case : bool
            One row per case x method (the CSV's rows) instead of one per method.

        Returns
        -------
        pandas.DataFrame
            Per method: indexed by method, columns ``TASK_METRIC`` (``pixel_ap``,
            ``sample_auroc``, ``object_f1`` ...). Per case: the CSV's columns.

        Raises
        ------
        ImportError
            pandas is not installed (napari brings it; the core does not).
        """
        pd = require_pandas("to_frame")

        data = self.to_dict()
        if per_case:
            return pd.DataFrame(data["per_case"])
        rows = {
            name: {
                f"{task}_{key}": value
                for task, values in summary.items()
                for key, value in values.items()
                if not isinstance(value, (dict, list))
            }
            for name, summary in data["methods"].items()
        }
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("method")


def default_tasks(dataset: MoodDataset | None) -> tuple[Task, ...]:
    """Return the tasks scored by default: pixel and sample, those whose labels exist.

    Parameters
    ----------
    dataset : MoodDataset or None
        The dataset; None (or a dataset with neither label folder) gives both, so the
        error that follows names both folders.

    Returns
    -------
    tuple of str
        A subset of ``("pixel", "sample")``.
    """
    if dataset is None:
        return ("pixel", "sample")
    found: tuple[Task, ...] = ("pixel",) if dataset.pixel_labels else ()
    found += ("sample",) if dataset.sample_labels else ()
    return found or ("pixel", "sample")


def _cancellable(
    progress: Progress | None, cancelled: threading.Event | None, what: str
) -> Progress:
    def report(done: int, total: int, case: str) -> None:
        if cancelled is not None and cancelled.is_set():
            raise EvaluationCancelled(f"evaluation of {what} cancelled")
        if progress is not None:
            progress(done, total, case)

    return report


def _methods(
    found: MoodDataset,
    preds: PathLike | Mapping[str, PathLike] | None,
    methods: Mapping[str, MethodFolder] | None,
) -> Mapping[str, MethodFolder]:
    if methods is not None:
        return check_mapping("methods", methods, MethodFolder, "a MethodFolder")
    if isinstance(preds, Mapping):
        return find_methods(
            found.root, pred=check_mapping("preds", preds, (str, os.PathLike), "a folder")
        )
    return find_methods(found.root, preds=None if preds is None else check_path("preds", preds))


def _asked_options(
    tasks: Sequence[Task] | None, options: EvaluationOptions | None
) -> EvaluationOptions | None:
    """Return the options asked for, checked before any file is read (None: by the labels found)."""
    if options is not None:
        check_instance("options", options, EvaluationOptions, "an EvaluationOptions")
    if tasks is None:
        return options
    if isinstance(tasks, str):
        tasks = (tasks,)  # type: ignore[assignment]  # one task named alone
    asked = check_sequence("tasks", tasks, str, "task names ('pixel', 'sample', 'object')")
    if not asked:
        raise ValueError("tasks must name at least one of 'pixel', 'sample', 'object'")
    return replace(options or EvaluationOptions(), tasks=asked)


def evaluate(
    dataset: PathLike | MoodDataset,
    preds: PathLike | Mapping[str, PathLike] | None = None,
    *,
    tasks: Sequence[Task] | None = None,
    options: EvaluationOptions | None = None,
    methods: Mapping[str, MethodFolder] | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    cache: PathLike | None = None,
    progress: Progress | None = None,
    cancelled: threading.Event | None = None,
    warn: bool = True,
) -> MoodEvaluation:
    """Evaluate every method on a MOOD dataset folder, as the official scorer would.

    Parameters
    ----------
    dataset : path-like or MoodDataset
        The dataset folder (``toy/``, ``toy_label/pixel``, ``toy_label/sample``), or one
        already discovered (:func:`~napari_mood.io.mood.discover_dataset`).
    preds : path-like or mapping of str to path-like, optional
        Where the methods are: a folder holding one folder per method, or
        ``{name: folder}``. Default: the dataset's own ``methods/`` folder.
    tasks : {"pixel", "sample", "object"} or a sequence of them, optional
        The tasks scored (overrides ``options.tasks``). Default: pixel and sample, those
        whose labels the dataset has (:func:`default_tasks`).
    options : EvaluationOptions, optional
        Policies (mode, NaN policy, object threshold ...); defaults reproduce the
        official scorer.
    methods : mapping of str to MethodFolder, optional
        Methods already found (``preds`` is then ignored).
    workers : int, optional
        Local worker processes, 1 to 4 per usable core (:func:`~.options.check_workers`);
        1 runs in this thread. Default: the usable cores when the files to read add up to
        at least 64 MiB, else 1.
    scheduler : str, optional
        Address of a running ``dask.distributed`` scheduler (its workers must see the
        files under the same paths).
    cache : path-like, optional
        Folder of the per-case result cache, created if needed (a rerun recomputes only
        what changed).
    progress : callable(done, total, case), optional
        Called after each case.
    cancelled : threading.Event, optional
        When set, the evaluation stops after the current case with
        :class:`EvaluationCancelled`.
    warn : bool
        Emit one :class:`~napari_mood.io.errors.MoodInputWarning` per problem found (they
        are listed in ``result.problems`` either way).

    Returns
    -------
    MoodEvaluation
        Prints as a table; ``to_dict``, ``to_json``, ``to_frame`` convert it. Identical
        numbers whatever ``workers``, ``scheduler`` and ``cache``.

    Raises
    ------
    TypeError
        An argument of the wrong type (``dataset=None``, ``workers="2"``), naming it.
    ValueError
        An unknown or empty ``tasks``, ``workers`` out of range (before any file is read).
    MoodInputError
        When the dataset or its methods cannot be used (the message names the folder).

    Examples
    --------
    >>> import napari_mood
    >>> found = napari_mood.evaluate(napari_mood.sample_data_dir(), warn=False)
    >>> round(float(found.to_frame().loc["oracle_noisy", "pixel_ap"]), 4)
    0.8455
    """
    asked = _asked_options(tasks, options)
    check_workers(workers)
    if not isinstance(dataset, MoodDataset):
        dataset = discover_dataset(check_path("dataset", dataset))
    found = dataset
    chosen = _methods(found, preds, methods)
    result, stats = run_evaluation(
        found,
        chosen,
        options=asked or EvaluationOptions(tasks=default_tasks(found)),
        workers=workers,
        scheduler=scheduler,
        cache=cache,
        progress=_cancellable(progress, cancelled, str(found.root)),
        warn=warn,
    )
    return MoodEvaluation(found, chosen, result, stats)


@dataclass(frozen=True)
class ThresholdChoice:
    """Thresholds chosen per method, where they were chosen and the methods left out."""

    best: Mapping[str, BestThreshold]
    source: str
    missing: tuple[str, ...] = ()
    available: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    def thresholds(self) -> dict[str, float]:
        """Return ``{method: threshold}`` of the methods found.

        Returns
        -------
        dict of str to float
            The chosen threshold of each method.
        """
        return {name: b.threshold for name, b in self.best.items()}


def check_toy(toy: PathLike | MoodDataset) -> MoodDataset:
    """Return the toy dataset thresholds are chosen on: it needs pixel labels (object F1, Dice).

    Parameters
    ----------
    toy : path-like or MoodDataset
        The toy dataset, or its folder.

    Returns
    -------
    MoodDataset
        The toy dataset.

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
            f"give a toy dataset with toy_label/pixel/, or {option('a fixed --threshold', 'a fixed threshold')}",
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
    (:func:`~napari_mood.io.methods.find_methods`: ``TOY/methods/`` unless ``preds`` is
    given) and paired with ``names`` by name. The object F1 is searched on the grid
    0.01 .. 0.99; the Dice threshold is the pooled best one.

    Parameters
    ----------
    toy : path-like
        The toy dataset's folder.
    names : sequence of str
        The methods to choose thresholds for.
    by : {"object_f1", "dice"}
        The value the threshold maximises.
    preds : path-like, optional
        The folder holding the methods' toy outputs (default ``TOY/methods/``).
    options : EvaluationOptions, optional
        Evaluation options (the tasks and threshold search are set here).
    workers : int or None
        Worker processes (None: one per usable core).
    progress : callable, optional
        Called with ``(done, total, case)`` after each case.

    Returns
    -------
    ThresholdChoice
        The threshold of each method found, where they were chosen, the methods missing and
        the problems met.

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
    found = evaluate(
        dataset,
        methods=matched,
        options=toy_options,
        workers=workers,
        progress=progress,
        warn=False,
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
    (:func:`~napari_mood.core.batches.listing_batch_ap`): they index the label folders'
    listings of ``dataset`` (every entry, stray and unreadable ones included, skipped
    inside a batch), drawn with ``seed`` unless ``splits`` (an official ``splits.json``)
    is given.

    Parameters
    ----------
    result : DatasetEvaluation
        An evaluation with its per-case accumulators.
    batches : int
        Number of challenge batches (0: none).
    batch_size : int
        Cases per batch.
    bootstrap : int
        Number of bootstrap resamples for the intervals (0: none).
    seed : int
        Seed of the batches and resamples.
    dataset : MoodDataset, optional
        The dataset, whose label folder listings the batches index (default: the cases
        evaluated, sorted).
    splits : sequence of sequence of int, optional
        Official batches to use instead of drawing them.

    Returns
    -------
    DatasetEvaluation
        A new result with the statistics; ``result`` itself when none is asked for.
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
        b = listing_batch_ap(
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
