"""Box benchmarks (NOVA-style): one entry point, :func:`evaluate_boxes`, and its result.

:func:`evaluate_boxes` reads the ground truth and the methods
(:mod:`napari_mood.services.box_inputs`), scores each method and returns a
:class:`BoxBenchmark` that prints as a table and converts to JSON and a DataFrame (the
texts: :mod:`napari_mood.services.box_formats`).

Categories are scored per category (COCO) only when both the ground truth and the
predictions have a label column; otherwise every box is one category, "anomaly". The
readers, predictions, repeated rows and score maps follow the rules of
:mod:`napari_mood.services.box_inputs`.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from napari_mood.core import boxes as box_rules
from napari_mood.core._checks import check_mapping, check_number, check_path
from napari_mood.core.boxes import DEFAULT_LABEL, BoxEvaluation, BoxSet
from napari_mood.core.boxes.consensus import MergeRule, readers_of
from napari_mood.core.scores import check_threshold
from napari_mood.io.boxes import BoxDataset, discover_box_dataset
from napari_mood.io.errors import MoodInputError, MoodInputWarning, option
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.box_formats import format_box_result, result_dict
from napari_mood.services.box_inputs import (
    BoxMethod,
    GroundTruth,
    check_merge,
    find_box_methods,
    load_ground_truth,
    load_method,
)
from napari_mood.services.formats import require_pandas
from napari_mood.services.output import Inputs, OutputOptions, Planned, check_outputs

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BoxBenchmark",
    "BoxOutputs",
    "BoxRun",
    "BoxSet",
    "evaluate_boxes",
    "readers_of",
    "write_box_evaluation",
]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True, repr=False)
class BoxBenchmark:
    """Every method's :class:`BoxEvaluation` on one box dataset.

    Print it for a table; :meth:`to_dict`, :meth:`to_json` and :meth:`to_frame` give the
    same numbers as plain data, JSON text and a pandas DataFrame.
    """

    dataset: BoxDataset
    truth: GroundTruth
    images: tuple[str, ...]
    results: dict[str, BoxEvaluation]
    predictions: dict[str, BoxSet]
    """Each method's boxes as scored (categories possibly merged into one)."""
    ground_truth: dict[str, BoxSet]
    """The ground truth each method was scored against (categories possibly merged)."""
    problems: tuple[str, ...] = field(default=())
    threshold: float | None = None

    def ranked(self) -> list[str]:
        """Methods by mAP@[50:95], then mAP@50 (NaN last), then name.

        Returns
        -------
        list of str
            The method names, best first.
        """

        def key(name: str) -> tuple[float, float, str]:
            r = self.results[name]
            return (-_or_minus(r.map50_95), -_or_minus(r.map50), name)

        return sorted(self.results, key=key)

    def __str__(self) -> str:
        """Show the summary table (:meth:`to_table`)."""
        return self.to_table()

    def __repr__(self) -> str:
        """Show the dataset, the number of images and the methods, best first."""
        return (
            f"<BoxBenchmark {self.dataset.root.name}: {len(self.images)} images, "
            f"methods {', '.join(self.ranked())}>"
        )

    def to_table(self, *, per_image: bool = False) -> str:
        """Return an aligned text table, one row per method, best first.

        Parameters
        ----------
        per_image : bool
            Add detected / missed / false-positive boxes per image, most misses first.

        Returns
        -------
        str
            The table, ending with a newline.
        """
        return format_box_result(self, "table", per_image=per_image)

    def to_dict(self) -> dict[str, Any]:
        """Return every number as plain data (NaN as None), methods best first.

        Returns
        -------
        dict
            JSON-able data: the dataset, images, ground truth, each method's scores (best
            first), the per-image counts and the problems.
        """
        return result_dict(self)

    def to_json(self) -> str:
        """Return :meth:`to_dict` as JSON text.

        Returns
        -------
        str
            Indented JSON, ending with a line break.
        """
        return format_box_result(self, "json")

    def to_frame(self, *, per_image: bool = False) -> pd.DataFrame:
        """Return a pandas DataFrame: one row per method, or per image and method.

        Parameters
        ----------
        per_image : bool
            One row per image x method (the CSV's rows) instead of one per method.

        Returns
        -------
        pandas.DataFrame
            Per method: indexed by method, columns ``map30``, ``map50``, ``map50_95``,
            ``acc50``, ``tp``, ``fp``, ``fn`` ...

        Raises
        ------
        ImportError
            pandas is not installed (napari brings it; the core does not).
        """
        pd = require_pandas("to_frame")

        data = self.to_dict()
        if per_image:
            return pd.DataFrame(data["per_image"])
        rows = {
            name: {k: v for k, v in values.items() if not isinstance(v, dict)}
            for name, values in data["methods"].items()
        }
        return pd.DataFrame.from_dict(rows, orient="index").rename_axis("method")


def _or_minus(value: float) -> float:
    return -1.0 if math.isnan(value) else value


def evaluate_boxes(
    dataset: PathLike | BoxDataset,
    preds: Mapping[str, PathLike] | None = None,
    *,
    maps: Mapping[str, PathLike] | None = None,
    methods: Mapping[str, BoxMethod] | None = None,
    reader: str | None = None,
    merge: MergeRule = "mean",
    merge_iou: float = 0.3,
    keep_single: bool = True,
    threshold: float = 0.5,
    iou: float = 0.3,
    min_confidence: float | None = None,
    strict: bool = False,
    warn: bool = True,
) -> BoxBenchmark:
    """Score box predictions on a NOVA-style 2-D box dataset (COCO mAP, TP/FP/FN).

    Parameters
    ----------
    dataset : path-like or BoxDataset
        The folder (``images/*.png`` and ``boxes.csv``), or one already discovered
        (:func:`~napari_mood.io.boxes.discover_box_dataset`).
    preds : mapping of str to path-like, optional
        ``{name: box file}`` (.csv, or .json COCO results).
    maps : mapping of str to path-like, optional
        ``{name: folder of score maps}`` (``IMAGE.png`` or ``.npy``), turned into boxes
        at ``threshold``. Without ``preds`` and ``maps``: the dataset's own
        ``predictions/*`` and ``maps/*``.
    methods : mapping of str to BoxMethod, optional
        Methods already found (``preds`` and ``maps`` are then ignored; may be empty).
    reader : str, optional
        Score against one reader, or ``"consensus"`` (the default with two readers).
    merge : {"mean", "union"}
        The consensus box of a pair of readers' boxes.
    merge_iou : float
        Consensus: readers' boxes with an IoU above this are a pair.
    keep_single : bool
        Consensus: keep boxes only one reader drew.
    threshold : float
        Score maps: the box threshold.
    iou : float
        IoU in (0, 1] of the TP / FP / FN counts and the per-image table.
    min_confidence : float, optional
        Leave out predictions below this confidence.
    strict : bool
        A prediction row with a problem is an error (else left out with a warning).
    warn : bool
        Emit one :class:`~napari_mood.io.errors.MoodInputWarning` per problem (they are
        listed in ``problems`` either way).

    Returns
    -------
    BoxBenchmark
        Prints as a table; ``to_dict``, ``to_json``, ``to_frame`` convert it.

    Raises
    ------
    MoodInputError
        A ground-truth row with a problem, no predictions found, an unknown reader.
    TypeError
        An argument of the wrong type (``preds="x.json"``: give ``{"name": "x.json"}``).
    ValueError
        ``iou`` outside (0, 1], an unknown ``merge``, ``merge_iou`` outside [0, 1).

    Examples
    --------
    >>> import napari_mood
    >>> bench = napari_mood.evaluate_boxes(napari_mood.sample_data_dir() / "nova", warn=False)
    >>> bench.ranked(), round(float(bench.to_frame().loc["oracle_noisy", "map50"]), 4)
    (['oracle_noisy', 'residual'], 0.802)
    """
    if check_number("iou", iou) <= 0.0 or iou > 1.0:
        raise ValueError(f"iou must be in (0, 1] (at 0 any two boxes match), got {iou}")
    check_threshold(threshold)
    if min_confidence is not None:
        check_number("min_confidence", min_confidence)
    check_merge(merge=merge, merge_iou=merge_iou, keep_single=keep_single)
    if not isinstance(dataset, BoxDataset):
        dataset = discover_box_dataset(check_path("dataset", dataset))
    found = dataset
    if methods is None:
        files = check_mapping("preds", preds or {}, (str, os.PathLike), "a box file (path)")
        folders = check_mapping("maps", maps or {}, (str, os.PathLike), "a folder of maps (path)")
        methods = find_box_methods(
            found,
            preds=[(name, Path(path)) for name, path in files.items()],
            maps=[(name, Path(path)) for name, path in folders.items()],
        )
    else:
        check_mapping("methods", methods, BoxMethod, "a BoxMethod")
    truth = load_ground_truth(
        found, reader=reader, merge=merge, merge_iou=merge_iou, keep_single=keep_single
    )
    return _score_methods(
        found, truth, methods, threshold=threshold, count_iou=iou,
        min_score=min_confidence, strict=strict, warn=warn,
    )  # fmt: skip


def _score_methods(
    dataset: BoxDataset,
    truth: GroundTruth,
    methods: Mapping[str, BoxMethod],
    *,
    threshold: float,
    count_iou: float,
    min_score: float | None,
    strict: bool,
    warn: bool,
) -> BoxBenchmark:
    """Score every method; each problem is a warning (``warn``) and listed in the result."""
    results: dict[str, BoxEvaluation] = {}
    predictions: dict[str, BoxSet] = {}
    gts: dict[str, BoxSet] = {}
    problems: list[str] = _truth_problems(truth)
    for name, method in methods.items():
        loaded = load_method(method, dataset, threshold=threshold, strict=strict)
        problems += loaded.problems
        boxes = loaded.boxes if min_score is None else loaded.boxes.above(min_score)
        gt = truth.boxes
        if not (truth.file.has_labels and loaded.has_labels):
            if truth.file.has_labels or loaded.has_labels:
                problems.append(
                    f"{name}: only {'the ground truth' if truth.file.has_labels else 'the predictions'} "
                    "name categories: scored as one category"
                )
            gt, boxes = _one_category(gt), _one_category(boxes)
        results[name] = box_rules.evaluate_boxes(
            gt, boxes, images=dataset.order, count_iou=count_iou
        )
        predictions[name], gts[name] = boxes, gt
    if warn:
        for problem in problems:
            warnings.warn(problem, MoodInputWarning, stacklevel=2)
    used = threshold if any(m.kind == "maps" for m in methods.values()) else None
    return BoxBenchmark(
        dataset, truth, dataset.order, results, predictions, gts, tuple(problems), used
    )


def _truth_problems(truth: GroundTruth) -> list[str]:
    repeat = truth.file.repeat_note()
    if repeat is None:
        return []
    return [
        f"{repeat}: each counts as another ground-truth box to find, which changes every "
        "number (remove the repeated rows)"
    ]


def _one_category(boxes: BoxSet) -> BoxSet:
    return replace(boxes, labels=(DEFAULT_LABEL,) * len(boxes))


@dataclass(frozen=True, kw_only=True)
class BoxOutputs(OutputOptions):
    """What a box run writes besides its result: the ``evaluate-boxes`` output options.

    ``out``, ``format``, ``dpi`` (the figure's) and ``force`` as in
    :class:`~napari_mood.services.output.OutputOptions`.

    Attributes
    ----------
    per_image : bool
        The table and CSV list each image too.
    plot : Path, optional
        A figure (.png, .svg or .pdf) of one method's boxes.
    plot_method : str, optional
        The method drawn (default: the best ranked).
    plot_images : sequence of str, optional
        The images drawn, by file stem (default: those with the most misses).
    """

    per_image: bool = False
    plot: Path | None = None
    plot_method: str | None = None
    plot_images: Sequence[str] | None = None


@dataclass(frozen=True)
class BoxRun:
    """A box run: the benchmark, its text and the files written (by output field: ``out``, ``plot``)."""

    result: BoxBenchmark
    text: str
    written: Mapping[str, Path]
    plot_method: str | None = None


def box_inputs(dataset: BoxDataset, methods: Mapping[str, BoxMethod]) -> Inputs:
    """Return what a box run reads (no output may land there)."""
    folders = [dataset.root, dataset.images_dir] + [
        m.path for m in methods.values() if m.kind == "maps"
    ]
    files = [dataset.boxes_file] + [m.path for m in methods.values() if m.kind == "boxes"]
    return Inputs.of(folders=folders, files=files)


def write_box_evaluation(
    dataset: BoxDataset,
    methods: Mapping[str, BoxMethod],
    outputs: BoxOutputs,
    *,
    reader: str | None = None,
    merge: MergeRule = "mean",
    merge_iou: float = 0.3,
    keep_single: bool = True,
    threshold: float = 0.5,
    iou: float = 0.3,
    min_confidence: float | None = None,
    strict: bool = False,
) -> BoxRun:
    """Score the methods (:func:`evaluate_boxes`), then write the outputs asked for.

    Every output is checked by the output guard before any work (outside the inputs,
    no replacing without ``outputs.force``), and ``outputs.plot_images`` against the
    dataset's images and ``outputs.plot_method`` against the methods, before any work.

    Parameters
    ----------
    dataset : BoxDataset
        The dataset (:func:`~napari_mood.io.boxes.discover_box_dataset`).
    methods : mapping of str to BoxMethod
        The methods (:func:`~napari_mood.services.box_inputs.find_box_methods`).
    outputs : BoxOutputs
        What to write.
    reader, merge, merge_iou, keep_single, threshold, iou, min_confidence, strict
        As :func:`evaluate_boxes`.

    Returns
    -------
    BoxRun
        The benchmark, its text in ``outputs.format`` and the files written.

    Raises
    ------
    MoodInputError
        An output refused, an unknown image or method to draw, or a problem of the inputs.
    """
    check_outputs(
        [
            Planned(path, what)
            for path, what in (
                (outputs.out, option("--out", "the output")),
                (outputs.plot, option("--plot", "the plot")),
            )
            if path
        ],
        inputs=box_inputs(dataset, methods),
        force=outputs.force,
    )
    images = _figure_images(outputs.plot_images, dataset)
    name = outputs.plot_method
    if outputs.plot is not None and name is not None and name not in methods:
        raise _not_a_method(name, methods)  # before any work
    result = evaluate_boxes(
        dataset, methods=methods, reader=reader, merge=merge, merge_iou=merge_iou,
        keep_single=keep_single, threshold=threshold, iou=iou,
        min_confidence=min_confidence, strict=strict,
    )  # fmt: skip
    method = None if outputs.plot is None else _figure_method(outputs.plot_method, result)
    text = format_box_result(result, outputs.format, per_image=outputs.per_image)
    written: dict[str, Path] = {}
    if outputs.out is not None:
        written["out"] = write_text_atomic(outputs.out, text, replace=outputs.force)
    if outputs.plot is not None and method is not None:
        from napari_mood.services.box_figures import write_box_figure

        written["plot"] = write_box_figure(
            result, method, outputs.plot, images=images, dpi=outputs.dpi
        )
    return BoxRun(result, text, written, method)


def _figure_method(name: str | None, result: BoxBenchmark) -> str:
    if name is None:
        return result.ranked()[0]
    if name not in result.results:
        raise _not_a_method(name, result.results)
    return name


def _not_a_method(name: str, methods: Iterable[str]) -> MoodInputError:
    return MoodInputError(
        None,
        f"{option('--plot-method', 'the method to draw')} {name!r} is not a method",
        f"methods: {', '.join(methods)}",
    )


def _figure_images(chosen: Sequence[str] | None, dataset: BoxDataset) -> list[str] | None:
    if chosen is None:
        return None
    unknown = [i for i in chosen if i not in dataset.images]
    if unknown or not chosen:
        raise MoodInputError(
            None,
            f"{option('--plot-images', 'the images to draw')}: unknown image(s) "
            f"{', '.join(unknown) or '(none given)'}",
            f"images are named by file stem, e.g. {next(iter(dataset.images))}",
        )  # fmt: skip
    return list(chosen)
