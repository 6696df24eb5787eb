"""Box benchmarks (NOVA-style): ground truth, methods, evaluation and its text formats.

One entry point for every front end, :func:`evaluate_boxes`: :func:`load_ground_truth`
(reader choice, consensus), :func:`find_box_methods` (which predictions),
:func:`load_method` (a box file, or score maps turned into boxes), scoring, and a
:class:`BoxBenchmark` that prints as a table and converts to JSON and a DataFrame
(:func:`format_box_result` gives the CSV too).

Rules where the data say nothing (the README's "Box localisation" section repeats them):

- Ground truth: a file without a reader column (or with one reader) is used as it is;
  with two readers the default is their consensus (:func:`merge_readers`), and
  ``reader=NAME`` scores against one reader. A problem in any ground-truth row is an
  error (a left-out GT box would change every number).
- Predictions: a row with a problem is left out with a warning naming file and line
  (``strict=True``: an error). A file without a confidence column gives every box
  confidence 1 (warning: AP then follows the file order).
- Repeated rows (same image, box, confidence, category and reader as an earlier row)
  are kept, with a warning naming the file, their count and the first one. In the
  ground truth a repeat is another box to find (a file written twice halves every
  recall). In predictions COCO scores each row as its own detection, so a repeat is a
  false positive; that is legal, hence a warning, never an error (not even ``strict``).
- Categories: scored per category (COCO) only when both the ground truth and the
  predictions have a label column; otherwise every box is one category, "anomaly".
- Score maps: ``maps/NAME/IMAGE.png`` (or ``.npy``) -> boxes at ``threshold``; an image
  without a map, or with a map of another size, has no predicted box (warning).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from napari_mood.core import boxes as box_rules
from napari_mood.core.boxes import (
    DEFAULT_LABEL,
    BoxEvaluation,
    BoxSet,
    box_outcomes,
)
from napari_mood.core.boxes.consensus import CONSENSUS, MergeRule, merge_readers, readers_of
from napari_mood.core.boxes.from_scores import boxes_from_score_map
from napari_mood.io.boxes import (
    MAPS_FOLDER,
    BoxDataset,
    BoxFile,
    discover_box_dataset,
    find_box_predictions,
    image_id_of,
    read_box_file,
    read_score_map,
)
from napari_mood.io.errors import MoodInputError, MoodInputWarning

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BoxSet",
    "readers_of",
    "BoxBenchmark",
    "BoxMethod",
    "BoxView",
    "box_view",
    "GroundTruth",
    "evaluate_boxes",
    "find_box_methods",
    "format_box_result",
    "load_ground_truth",
    "load_method",
]

BoxFormat = Literal["table", "csv", "json"]
PathLike = str | os.PathLike[str]
SHOWN_PROBLEMS = 5


@dataclass(frozen=True)
class GroundTruth:
    """The ground-truth boxes scored against, and where they came from."""

    boxes: BoxSet
    file: BoxFile
    reader: str
    """``"consensus"``, a reader's name, or ``""`` (the file as it is)."""
    readers: tuple[str, ...]


def load_ground_truth(
    dataset: BoxDataset,
    *,
    reader: str | None = None,
    merge: MergeRule = "mean",
    merge_iou: float = 0.3,
    keep_single: bool = True,
) -> GroundTruth:
    """Read the dataset's boxes and choose the readers (see the module's rules).

    Parameters
    ----------
    dataset : BoxDataset
        The box dataset (its ground-truth file and image sizes).
    reader : str, optional
        One reader's name, or ``"consensus"``; None takes the consensus of exactly two
        readers, else the file as it is.
    merge : {"mean", "union"}
        How a consensus pair becomes one box.
    merge_iou : float
        The IoU from which two readers' boxes are a pair.
    keep_single : bool
        Whether a box only one reader marked stays in the consensus.

    Returns
    -------
    GroundTruth
        The boxes scored against, the file, the reader chosen and every reader.

    Raises
    ------
    MoodInputError
        A row with a problem (all listed, up to five, with their count), a file that
        holds no box (empty or header only: every AP would be NaN), an unknown
        ``reader``, or more than two readers without ``reader``.
    ValueError
        An empty ``reader`` (None means the default choice).
    """
    if reader is not None and not reader.strip():
        raise ValueError("reader must be a reader's name or 'consensus', not empty")
    read = read_box_file(dataset.boxes_file, sizes=dataset.sizes)
    if read.problems:
        raise MoodInputError(None, _problem_list(read.problems), "fix these ground-truth rows")
    if not len(read.boxes):
        raise MoodInputError(
            read.path,
            "holds no box",
            "give the ground-truth boxes: one row per box under the header",
        )
    readers = tuple(r for r in readers_of(read.boxes) if r) if read.has_readers else ()
    chosen = reader if reader is not None else (CONSENSUS if len(readers) == 2 else "")
    if chosen == CONSENSUS and len(readers) >= 2:
        try:
            boxes = merge_readers(read.boxes, min_iou=merge_iou, how=merge, keep_single=keep_single)
        except ValueError as exc:
            raise MoodInputError(read.path, str(exc), "choose one reader with --reader") from exc
    elif chosen in ("", CONSENSUS):
        if len(readers) > 2:
            raise MoodInputError(
                read.path,
                f"has {len(readers)} readers ({', '.join(readers)})",
                "choose one with --reader",
            )
        boxes, chosen = read.boxes, ""
    elif chosen in readers:
        boxes = read.boxes.take([r == chosen for r in read.boxes.readers])
    else:
        raise MoodInputError(
            read.path, f"has no reader {chosen!r} (readers: {', '.join(readers) or 'none named'})",
            f"give --reader {CONSENSUS} or one of the readers",
        )  # fmt: skip
    return GroundTruth(boxes, read, chosen, readers)


def _problem_list(problems: Sequence[str]) -> str:
    shown = "; ".join(problems[:SHOWN_PROBLEMS])
    more = len(problems) - SHOWN_PROBLEMS
    return f"{len(problems)} row(s) cannot be used: {shown}" + (
        f"; and {more} more" if more > 0 else ""
    )


@dataclass(frozen=True)
class BoxMethod:
    """A method's predictions: a box file, or a folder of score maps (``maps``)."""

    name: str
    path: Path
    kind: Literal["boxes", "maps"]


def find_box_methods(
    dataset: BoxDataset,
    *,
    preds: Sequence[tuple[str, Path]] = (),
    maps: Sequence[tuple[str, Path]] = (),
) -> dict[str, BoxMethod]:
    """Return the methods to score: those given, else the dataset's predictions/ and maps/.

    Parameters
    ----------
    dataset : BoxDataset
        The box dataset.
    preds : sequence of (str, pathlib.Path)
        Named box files (``--pred``).
    maps : sequence of (str, pathlib.Path)
        Named score-map folders (``--maps``).

    Returns
    -------
    dict of str to BoxMethod
        The methods by name.

    Raises
    ------
    MoodInputError
        When a name is given twice or no method is found.
    """
    found = [BoxMethod(n, p, "boxes") for n, p in preds] + [
        BoxMethod(n, p, "maps") for n, p in maps
    ]
    if not found:
        found = [BoxMethod(n, p, "boxes") for n, p in find_box_predictions(dataset.root).items()]
        folder = dataset.root / MAPS_FOLDER
        if folder.is_dir():
            subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
            found += [BoxMethod(p.name, p, "maps") for p in subs]
    methods: dict[str, BoxMethod] = {}
    for method in found:
        if method.name in methods:
            raise MoodInputError(
                method.path, f"method name {method.name!r} is given twice", "rename one"
            )
        methods[method.name] = method
    if not methods:
        raise MoodInputError(
            dataset.root, "no predictions found (looked in predictions/ and maps/)",
            "give --pred [NAME=]FILE (.csv or .json) or --maps [NAME=]DIR",
        )  # fmt: skip
    return methods


@dataclass(frozen=True)
class LoadedMethod:
    """A method's boxes on the dataset's images and what went wrong reading them."""

    name: str
    boxes: BoxSet
    has_labels: bool
    problems: tuple[str, ...]


def load_method(
    method: BoxMethod, dataset: BoxDataset, *, threshold: float = 0.5, strict: bool = False
) -> LoadedMethod:
    """Read a method's boxes (a file) or make them from its score maps at ``threshold``.

    Parameters
    ----------
    method : BoxMethod
        A box file or a score-map folder.
    dataset : BoxDataset
        The dataset (image sizes, slices).
    threshold : float
        The score from which a map's voxels make boxes.
    strict : bool
        Whether a problem row of a box file is an error rather than a note.

    Returns
    -------
    LoadedMethod
        The boxes and the problems found reading them.

    Raises
    ------
    MoodInputError
        With ``strict``, when a row has a problem; when a file or map cannot be read.
    """
    if method.kind == "maps":
        return _from_maps(method, dataset, threshold)
    read = read_box_file(method.path, sizes=dataset.sizes)
    if read.problems and strict:
        raise MoodInputError(
            None, _problem_list(read.problems), "fix these rows (or drop --strict)"
        )
    problems = list(read.problems)
    repeat = read.repeat_note()
    if repeat is not None:
        problems.append(
            f"{repeat}: COCO scores each as another detection, so every repeat is a false "
            "positive (remove the repeats if the file was written twice)"
        )
    if not read.has_scores and len(read.boxes):
        problems.append(
            f"{read.path}: no confidence column: every box has confidence 1, so AP follows the "
            "file order (add a score column)"
        )
    return LoadedMethod(method.name, read.boxes, read.has_labels, tuple(problems))


def _from_maps(method: BoxMethod, dataset: BoxDataset, threshold: float) -> LoadedMethod:
    if not method.path.is_dir():
        raise MoodInputError(method.path, "is not a folder of score maps", "give --maps [NAME=]DIR")
    files = {
        image_id_of(p.name.removesuffix(".npy")): p
        for p in sorted(method.path.iterdir())
        if p.suffix.lower() in (".png", ".npy") and not p.name.startswith(".")
    }
    parts, problems = [], []
    for image in dataset.order:
        path = files.get(image)
        if path is None:
            problems.append(f"{method.path}: no map for {image} (it has no predicted box)")
            continue
        try:
            score = read_score_map(path)
        except MoodInputError as exc:
            problems.append(f"{exc} (image {image} has no predicted box)")
            continue
        width, height = dataset.sizes[image]
        if score.shape != (height, width):
            problems.append(
                f"{path}: map is {score.shape[1]} x {score.shape[0]}, the image {width} x {height} "
                f"(image {image} has no predicted box)"
            )
            continue
        parts.append(boxes_from_score_map(score, threshold=threshold, image=image))
    return LoadedMethod(method.name, BoxSet.concat(parts), False, tuple(problems))


def _one_category(boxes: BoxSet) -> BoxSet:
    return replace(boxes, labels=(DEFAULT_LABEL,) * len(boxes))


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
        return _to_dict(self)

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
        """
        import pandas as pd

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
    ValueError
        ``iou`` outside (0, 1].

    Examples
    --------
    >>> import napari_mood
    >>> bench = napari_mood.evaluate_boxes(napari_mood.sample_data_dir() / "nova", warn=False)
    >>> bench.ranked(), round(float(bench.to_frame().loc["oracle_noisy", "map50"]), 4)
    (['oracle_noisy', 'residual'], 0.802)
    """
    if not 0.0 < iou <= 1.0:
        raise ValueError(f"iou must be in (0, 1] (at 0 any two boxes match), got {iou}")
    found = dataset if isinstance(dataset, BoxDataset) else discover_box_dataset(dataset)
    if methods is None:
        methods = find_box_methods(
            found,
            preds=[(name, Path(path)) for name, path in (preds or {}).items()],
            maps=[(name, Path(path)) for name, path in (maps or {}).items()],
        )
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


def format_box_result(result: BoxBenchmark, fmt: BoxFormat, *, per_image: bool = False) -> str:
    """Return the result as text in one of the formats.

    ``table``: a summary, plus detected / missed per image with ``per_image``; ``csv``:
    one row per image x method; ``json``: everything, NaN as null.

    Parameters
    ----------
    result : BoxBenchmark
        A box evaluation.
    fmt : {"table", "csv", "json"}
        The format.
    per_image : bool
        With ``table``, whether the per-image table follows the summary.

    Returns
    -------
    str
        The text, ending with a line break.
    """
    if fmt == "json":
        return json.dumps(_to_dict(result), indent=2, allow_nan=False) + "\n"
    if fmt == "csv":
        return _csv(result)
    text = _summary_table(result)
    return text + ("\n" + _image_table(result) if per_image else "")


def _f(value: float, digits: int = 4) -> str:
    return "nan" if math.isnan(value) else f"{value:.{digits}f}"


def _iou_tag(iou: float) -> str:
    return f"{round(iou * 100):d}"


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _summary_table(result: BoxBenchmark) -> str:
    truth = result.truth
    who = f", reader {truth.reader}" if truth.reader else ""
    head = (
        f"dataset {result.dataset.root.name}: {len(result.images)} images, "
        f"{len(truth.boxes)} GT boxes ({truth.file.path.name}{who})"
    )
    tag = _iou_tag(next(iter(result.results.values())).count_iou) if result.results else "30"
    rows = [
        [
            "method",
            "mAP@30",
            "mAP@50",
            "mAP@[50:95]",
            "ACC50",
            f"TP{tag}",
            f"FP{tag}",
            f"FN{tag}",
            "boxes",
        ]
    ]
    for name in result.ranked():
        r = result.results[name]
        rows.append(
            [name, _f(r.map30), _f(r.map50), _f(r.map50_95), _f(r.acc50),
             f"{r.tp}/{r.n_gt}", str(r.fp), str(r.fn), str(r.n_pred)]
        )  # fmt: skip
    return head + "\n" + _aligned(rows)


def _image_table(result: BoxBenchmark) -> str:
    """Images sorted by total misses (most first), detected/missed/FP per method."""
    names = result.ranked()
    counts = {n: {c.image: c for c in result.results[n].per_image} for n in names}
    missed = {i: sum(counts[n][i].missed for n in names) for i in result.images}
    order = sorted(result.images, key=lambda i: (-missed[i], result.images.index(i)))
    first = counts[names[0]] if names else {}
    rows = [["image", "GT"] + [f"{n} det/miss/FP" for n in names]]
    for image in order:
        gt = str(first[image].gt) if first else "0"
        cells = [
            f"{counts[n][image].detected}/{counts[n][image].missed}/{counts[n][image].false_positives}"
            for n in names
        ]
        rows.append([image, gt, *cells])
    return "per image (sorted by misses)\n" + _aligned(rows)


CSV_COLUMNS = (
    "image",
    "method",
    "gt_boxes",
    "predicted_boxes",
    "detected",
    "missed",
    "false_positives",
    "top_iou",
    "count_iou",
)


def _csv(result: BoxBenchmark) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for name in result.ranked():
        r = result.results[name]
        for c in r.per_image:
            top = "" if math.isnan(c.top_iou) else f"{c.top_iou:.6g}"
            writer.writerow(
                [
                    c.image,
                    name,
                    c.gt,
                    c.predictions,
                    c.detected,
                    c.missed,
                    c.false_positives,
                    top,
                    r.count_iou,
                ]
            )
    return out.getvalue()


def _nan_none(value: float) -> float | None:
    return None if math.isnan(value) else value


def _method_dict(r: BoxEvaluation) -> dict[str, Any]:
    return {
        "map30": _nan_none(r.map30), "map50": _nan_none(r.map50), "map50_95": _nan_none(r.map50_95),
        "acc50": _nan_none(r.acc50),
        "ap": {f"{t:.2f}": _nan_none(v) for t, v in r.ap.items()},
        "recall": {f"{t:.2f}": _nan_none(v) for t, v in r.recall.items()},
        "ap_per_category": {c: {f"{t:.2f}": _nan_none(v) for t, v in a.items()} for c, a in r.ap_per_category.items()},
        "count_iou": r.count_iou, "tp": r.tp, "fp": r.fp, "fn": r.fn,
        "gt_boxes": r.n_gt, "predicted_boxes": r.n_pred,
    }  # fmt: skip


def _to_dict(result: BoxBenchmark) -> dict[str, Any]:
    truth = result.truth
    return {
        "dataset": str(result.dataset.root),
        "images": list(result.images),
        "ground_truth": {
            "file": str(truth.file.path), "reader": truth.reader or None,
            "readers": list(truth.readers), "boxes": len(truth.boxes),
        },
        "score_map_threshold": result.threshold,
        "methods": {n: _method_dict(result.results[n]) for n in result.ranked()},
        "per_image": [
            {"image": c.image, "method": n, "gt_boxes": c.gt, "predicted_boxes": c.predictions,
             "detected": c.detected, "missed": c.missed, "false_positives": c.false_positives,
             "top_iou": _nan_none(c.top_iou)}
            for n in result.ranked() for c in result.results[n].per_image
        ],
        "problems": list(result.problems),
    }  # fmt: skip


@dataclass(frozen=True)
class BoxView:
    """What a viewer shows of one method at a confidence threshold and an IoU."""

    pred_shown: np.ndarray
    """``(len(pred),)`` bool: confidence ``>= min_confidence``."""
    pred_tp: np.ndarray
    """``(len(pred),)`` bool: shown and matched (TP); shown and not matched: FP."""
    gt_detected: np.ndarray
    """``(len(gt),)`` bool: matched by a shown prediction."""
    misses: dict[str, int]
    false_positives: dict[str, int]

    def images_by_misses(self, order: Sequence[str]) -> list[str]:
        """Images, most missed GT boxes first, then most FPs, then ``order``.

        Parameters
        ----------
        order : sequence of str
            The images in their usual order (ties keep it).

        Returns
        -------
        list of str
            The same images, worst first.
        """
        rank = {image: i for i, image in enumerate(order)}
        return sorted(
            order, key=lambda i: (-self.misses.get(i, 0), -self.false_positives.get(i, 0), rank[i])
        )


def box_view(gt: BoxSet, pred: BoxSet, *, min_confidence: float = 0.0, iou: float = 0.3) -> BoxView:
    """TP / FP / FN of every box when only predictions ``>= min_confidence`` count.

    Parameters
    ----------
    gt : BoxSet
        The ground-truth boxes.
    pred : BoxSet
        A method's boxes with confidences.
    min_confidence : float
        The confidence from which a prediction is shown and matched.
    iou : float
        The IoU from which a prediction detects a GT box.

    Returns
    -------
    BoxView
        Per box whether it is shown, a TP or detected; per image its misses and FPs.

    Examples
    --------
    >>> gt = BoxSet.build(["a"], [[0, 0, 10, 10]])
    >>> pred = BoxSet.build(["a", "a"], [[0, 0, 10, 10], [20, 20, 30, 30]], scores=[0.3, 0.9])
    >>> view = box_view(gt, pred, min_confidence=0.5)
    >>> view.pred_shown.tolist(), view.gt_detected.tolist(), view.misses
    ([False, True], [False], {'a': 1})
    """
    shown = pred.scores >= min_confidence
    found = box_outcomes(gt, pred.take(shown), iou_threshold=iou)
    tp = np.zeros(len(pred), dtype=bool)
    tp[np.flatnonzero(shown)] = found.pred_matched
    misses = {image: 0 for image in dict.fromkeys((*gt.images, *pred.images))}
    fps = dict(misses)
    for image, hit in zip(gt.images, found.gt_detected, strict=True):
        misses[image] += int(not hit)
    for image, show, hit in zip(pred.images, shown, tp, strict=True):
        fps[image] += int(show and not hit)
    return BoxView(shown, tp, found.gt_detected, misses, fps)
