"""The ``evaluate`` job: check every output, evaluate a MOOD dataset, write what is asked.

:func:`write_mood_evaluation` takes the dataset, its methods, the options and the
outputs asked for (:class:`MoodOutputs`) and does the whole run a command or a notebook
asks for: outputs refused before any work (output guard), the report's categories and
an official ``splits.json`` read first, the object threshold chosen on a toy set when
asked, then :func:`~napari_mood.services.evaluation.evaluate`, the challenge batches and
intervals, the report folder and the result's file.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from napari_mood.core.results import DatasetEvaluation, EvaluationOptions
from napari_mood.core.seed import DEFAULT_RESAMPLES, DEFAULT_SEED
from napari_mood.io.errors import MoodInputError, MoodInputWarning, option
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset, check_labels_for, read_splits
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.cache import check_cache_folder
from napari_mood.services.evaluation import (
    MoodEvaluation,
    Progress,
    add_statistics,
    check_toy,
    evaluate,
    toy_thresholds,
)
from napari_mood.services.formats import format_csv, format_result
from napari_mood.services.output import Inputs, OutputOptions, Planned, check_outputs
from napari_mood.services.report import REPORT_FILES, ReportFiles, write_report

if TYPE_CHECKING:
    from napari_mood.services.categories import CaseCategory

__all__ = ["MoodOutputs", "MoodRun", "write_mood_evaluation"]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, kw_only=True)
class MoodOutputs(OutputOptions):
    """What an evaluation writes besides its result: the ``evaluate`` output options.

    ``out``, ``format``, ``dpi`` (the report's figures') and ``force`` as in
    :class:`~napari_mood.services.output.OutputOptions`.

    Attributes
    ----------
    report : Path, optional
        A report folder (``results.csv``, ``results.json``, ``report.html``).
    categories : Path, optional
        The report's case categories (default: the dataset's ``categories.csv`` if any).
    """

    report: Path | None = None
    categories: Path | None = None


@dataclass(frozen=True)
class MoodRun:
    """An evaluation run: the evaluation, its text, the files written (by output field: ``out``, ``report``)."""

    evaluation: MoodEvaluation
    text: str
    written: Mapping[str, Path]
    report: ReportFiles | None = None

    @property
    def result(self) -> DatasetEvaluation:
        """The metrics, with the batches and intervals asked for."""
        return self.evaluation.result


def write_mood_evaluation(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    options: EvaluationOptions,
    outputs: MoodOutputs,
    *,
    splits: Path | None = None,
    toy: Path | None = None,
    toy_preds: Path | None = None,
    batches: int = 0,
    batch_size: int = 20,
    bootstrap: int = 0,
    seed: int = DEFAULT_SEED,
    workers: int | None = None,
    scheduler: str | None = None,
    cache: Path | None = None,
    progress: Progress | None = None,
    toy_progress: Progress | None = None,
) -> MoodRun:
    """Evaluate the methods on a MOOD dataset, then write the outputs asked for.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset (:func:`~napari_mood.io.mood.discover_dataset`).
    methods : mapping of str to MethodFolder
        The methods evaluated.
    options : EvaluationOptions
        Tasks, score mode and the object rule (``object_threshold="auto"``: chosen on
        ``toy`` if given, else on the evaluated cases with a warning).
    outputs : MoodOutputs
        What to write.
    splits : Path, optional
        An official ``splits.json`` (replaces ``batches`` and ``seed`` for the batches).
    toy, toy_preds : Path, optional
        A toy dataset (and the methods' outputs on it) to choose the object threshold on.
    batches, batch_size, bootstrap, seed
        The challenge batches and bootstrap intervals
        (:func:`~napari_mood.services.evaluation.add_statistics`).
    workers, scheduler, cache, progress
        As :func:`~napari_mood.services.evaluation.evaluate`.
    toy_progress : callable, optional
        Progress of the toy set's evaluation.

    Returns
    -------
    MoodRun
        The evaluation (with its statistics), its text in ``outputs.format`` and the
        files written.

    Raises
    ------
    MoodInputError
        An output refused, missing labels, an unusable toy set, splits or categories file.
    """
    inputs = Inputs.of(
        dataset, methods, folders=[toy, toy_preds], files=[outputs.categories, splits]
    )
    cache = _check_outputs(outputs, inputs, cache)
    categories = _read_categories(outputs, dataset)
    batches_of = None if splits is None else read_splits(splits, dataset, options.tasks)
    check_labels_for(dataset, options.tasks)
    options = _object_options(options, methods, toy, toy_preds, workers, toy_progress)
    found = evaluate(
        dataset, methods=methods, options=options, workers=workers, scheduler=scheduler,
        cache=cache, progress=progress, warn=True,
    )  # fmt: skip
    result = add_statistics(
        found.result, batches=batches, batch_size=batch_size, bootstrap=bootstrap,
        seed=seed, dataset=dataset, splits=batches_of,
    )  # fmt: skip
    written: dict[str, Path] = {}
    files = None
    if outputs.report is not None:
        files = write_report(  # matplotlib: checked before the work (parser_mood._evaluate_needs)
            result, outputs.report, csv_text=format_csv(result), categories=categories,
            n_boot=bootstrap or DEFAULT_RESAMPLES, seed=seed, dpi=outputs.dpi, inputs=inputs,
            force=outputs.force,
        )  # fmt: skip
        written["report"] = files.html
    text = format_result(result, outputs.format)
    if outputs.out is not None:
        written["out"] = write_text_atomic(outputs.out, text, replace=outputs.force)
    return MoodRun(replace(found, result=result), text, written, files)


def _check_outputs(outputs: MoodOutputs, inputs: Inputs, cache: Path | None) -> Path | None:
    """Refuse unusable outputs before any work; return the cache (None: unusable, warned)."""
    if cache is not None:
        cache = check_cache_folder(cache, inputs=inputs, what=option("--cache", "the cache folder"))
    planned = []
    if outputs.out is not None:
        planned.append(Planned(outputs.out, option("--out", "the output")))
    if outputs.report is not None:
        planned.append(
            Planned(
                outputs.report,
                option("--report", "the report folder"),
                folder=True,
                names=REPORT_FILES,
            )
        )
    if cache is not None:
        planned.append(
            Planned(cache, option("--cache", "the cache folder"), folder=True, replace=True)
        )
    check_outputs(planned, inputs=inputs, force=outputs.force)
    return cache


def _read_categories(outputs: MoodOutputs, dataset: MoodDataset) -> dict[str, CaseCategory] | None:
    """Return the report's categories (given, or the dataset's own), read before the work."""
    if outputs.report is None:
        return None
    path = outputs.categories
    default = dataset.root / "categories.csv"
    if path is None and (default.exists() or default.is_symlink()):
        path = default
    if path is None:
        return None
    from napari_mood.services.report import read_case_categories

    return read_case_categories(path, cases=dataset.cases)


def _object_options(
    options: EvaluationOptions,
    methods: Mapping[str, MethodFolder],
    toy: Path | None,
    toy_preds: Path | None,
    workers: int | None,
    progress: Progress | None,
) -> EvaluationOptions:
    """Choose ``object_threshold="auto"`` on the toy set (or warn: on the cases themselves)."""
    if "object" not in options.tasks or options.object_threshold != "auto":
        return options
    if toy is None:
        warnings.warn(
            "object threshold chosen on the evaluated cases themselves: the object F1 is "
            f"optimistic (give {option('--toy DATASET', 'a toy dataset')} to choose it on a "
            "separate toy set)",
            MoodInputWarning,
            stacklevel=2,
        )
        return options
    check_toy(toy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MoodInputWarning)
        choice = toy_thresholds(
            toy, list(methods), preds=toy_preds, options=options, workers=workers,
            progress=progress,
        )  # fmt: skip
    if choice.missing:
        raise MoodInputError(
            toy_preds or toy / "methods",
            f"holds no outputs of {', '.join(choice.missing)} (it has "
            f"{', '.join(choice.available)}), so no threshold can be chosen on it",
            f"give the methods' toy outputs {option('with --toy-preds DIR', 'as toy predictions')}",
        )
    return replace(options, object_threshold=choice.thresholds())
