"""Jobs of the comparison table: methods x metrics for the case shown or for a dataset.

Current case: :func:`~napari_mood.core.compare.case_comparison` on the maps and ground
truth shown. Dataset: the dataset's methods evaluated as ``napari-mood evaluate`` does
(:func:`~napari_mood.services.evaluation.evaluate`), then
:func:`~napari_mood.core.compare.dataset_comparison` with case-bootstrap rank intervals.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from napari_mood.core.compare import (
    A_ONLY,
    B_ONLY,
    BOTH,
    ComparisonRow,
    ComparisonTable,
    Difference,
    case_comparison,
    dataset_comparison,
    difference,
)
from napari_mood.core.problems import Problem
from napari_mood.core.results import EvaluationOptions, Task
from napari_mood.core.seed import DEFAULT_RESAMPLES, DEFAULT_SEED
from napari_mood.io.errors import MoodInputError
from napari_mood.io.methods import find_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.evaluation import evaluate
from napari_mood.services.labelling import LabellingCache
from napari_mood.services.looks import DEFAULT_THRESHOLD
from napari_mood.services.snapshots import MapSnapshot

__all__ = [
    "A_ONLY",
    "BOTH",
    "B_ONLY",
    "ComparisonRow",
    "ComparisonTable",
    "Difference",
    "difference",
    "N_BOOT",
    "SEED",
    "TableResult",
    "case_table",
    "dataset_table",
]

N_BOOT = DEFAULT_RESAMPLES
SEED = DEFAULT_SEED
TableResult = tuple[ComparisonTable, tuple[Problem, ...]]


def dataset_table(
    root: str | os.PathLike[str],
    thresholds: Mapping[str, float],
    *,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> TableResult:
    """Evaluate a dataset's methods (``DATASET/methods/``) and return the comparison table.

    Runs in this thread (no process pool: called from a widget's worker). Object counts
    are taken at ``thresholds[method]`` (:data:`~napari_mood.services.looks.DEFAULT_THRESHOLD`
    for methods not given).

    Parameters
    ----------
    root : str or os.PathLike
        The dataset folder.
    thresholds : mapping of str to float
        Each method's display threshold.
    n_boot : int
        Bootstrap resamples of the rank intervals.
    seed : int
        Seed of the resampling.

    Returns
    -------
    TableResult
        The table and the input problems met.

    Raises
    ------
    MoodInputError
        When ``root`` is not a dataset, holds no labels or no methods.
    """
    dataset = discover_dataset(root)
    methods = find_methods(dataset.root)
    tasks: tuple[Task, ...] = ("pixel", "object") if dataset.pixel_labels else ()
    tasks += ("sample",) if dataset.sample_labels else ()
    if not tasks:
        raise MoodInputError(root, "holds no labels", "add toy_label/pixel or toy_label/sample")
    options = EvaluationOptions(
        tasks=tasks,
        object_threshold={m: float(thresholds.get(m, DEFAULT_THRESHOLD)) for m in methods},
    )
    found = evaluate(dataset, methods=methods, options=options, workers=1, warn=False)
    return dataset_comparison(found.result, n_boot=n_boot, seed=seed), found.result.problems


def case_table(
    maps: Sequence[MapSnapshot], gt: Any, name: str, *, cache: LabellingCache | None = None
) -> TableResult:
    """Return the comparison table of the case shown, objects at each map's threshold.

    With ``cache`` (the session's), each map's histograms and labelling at its threshold
    are the ones the other panels use (computed once for all of them). No input
    problems to report.

    Parameters
    ----------
    maps : sequence of MapSnapshot
        The maps shown, each at its threshold.
    gt : array-like
        The case's ground truth.
    name : str
        The case's name.
    cache : LabellingCache, optional
        The session's histograms and labellings.

    Returns
    -------
    TableResult
        The table, without problems.
    """
    scores = {m.name: m.data for m in maps}
    thresholds = {m.name: m.threshold for m in maps}
    if cache is None:
        return case_comparison(scores, gt, thresholds=thresholds, name=name), ()
    curves = {m.name: cache.histograms(m.data, gt) for m in maps}
    counts = {
        m.name: cache.get(
            m.data, gt, threshold=m.threshold, spacing=m.spacing or None, labels=False
        ).counts
        for m in maps
    }
    table = case_comparison(
        scores, gt, thresholds=thresholds, name=name, curves=curves, counts=counts
    )
    return table, ()
