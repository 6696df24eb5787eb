"""What a box benchmark scores: the ground truth and each method's predicted boxes.

:func:`load_ground_truth` (reader choice, consensus), :func:`find_box_methods` (which
predictions) and :func:`load_method` (a box file, or score maps turned into boxes) feed
:func:`napari_mood.services.boxes.evaluate_boxes`.

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
- Score maps: ``maps/NAME/IMAGE.png`` (or ``.npy``) -> boxes at ``threshold``; an image
  without a map, or with a map of another size, has no predicted box (warning).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from napari_mood.core._checks import check_choice, check_instance, check_number
from napari_mood.core.boxes import BoxSet
from napari_mood.core.boxes.consensus import CONSENSUS, MergeRule, merge_readers, readers_of
from napari_mood.core.boxes.from_scores import boxes_from_score_map
from napari_mood.io.boxes import (
    MAPS_FOLDER,
    BoxDataset,
    BoxFile,
    find_box_predictions,
    image_id_of,
    read_box_file,
    read_score_map,
)
from napari_mood.io.errors import MoodInputError, option

__all__ = [
    "BoxMethod",
    "GroundTruth",
    "LoadedMethod",
    "find_box_methods",
    "load_ground_truth",
    "load_method",
]

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


def check_merge(*, merge: object, merge_iou: object, keep_single: object) -> None:
    """Check the consensus options up front, each error naming its option.

    Raises
    ------
    TypeError, ValueError
        ``merge`` not "mean" or "union", ``merge_iou`` not a number in [0, 1),
        ``keep_single`` not a bool.
    """
    check_choice("merge", merge, get_args(MergeRule))
    if check_number("merge_iou", merge_iou, minimum=0.0, maximum=1.0) == 1.0:
        raise ValueError("merge_iou must be a number in [0, 1); got 1.0")
    check_instance("keep_single", keep_single, bool, "True or False")


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
    check_merge(merge=merge, merge_iou=merge_iou, keep_single=keep_single)
    if reader is not None and not check_instance("reader", reader, str, "a name (str)").strip():
        raise ValueError("reader must be a reader's name or 'consensus', not empty")
    read = read_box_file(dataset.boxes_file, sizes=dataset.sizes, ground_truth=True)
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
            raise MoodInputError(
                read.path, str(exc), f"choose one reader {option('with --reader', 'by name')}"
            ) from exc
    elif chosen in ("", CONSENSUS):
        if len(readers) > 2:
            raise MoodInputError(
                read.path,
                f"has {len(readers)} readers ({', '.join(readers)})",
                f"choose one {option('with --reader', 'by name')}",
            )
        boxes, chosen = read.boxes, ""
    elif chosen in readers:
        boxes = read.boxes.take([r == chosen for r in read.boxes.readers])
    else:
        raise MoodInputError(
            read.path, f"has no reader {chosen!r} (readers: {', '.join(readers) or 'none named'})",
            f"give {option('--reader ' + CONSENSUS, 'the reader ' + CONSENSUS)} or one of the readers",
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
            f"give {option('--pred [NAME=]FILE', 'box files')} (.csv or .json) or "
            f"{option('--maps [NAME=]DIR', 'score-map folders')}",
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
            None,
            _problem_list(read.problems),
            f"fix these rows (or {option('drop --strict', 'turn strict mode off')})",
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
        raise MoodInputError(
            method.path,
            "is not a folder of score maps",
            f"give {option('--maps [NAME=]DIR', 'a folder of score maps')}",
        )
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
