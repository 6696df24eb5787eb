"""What an evaluation is asked for and what it returns: options, per-case and dataset results.

:class:`DatasetEvaluation` is what ``napari-mood evaluate`` prints; ``to_dict`` gives the
stable JSON documented in the README. The computations are in
:mod:`napari_mood.services.case_scoring`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

import numpy as np

from napari_mood.core import objects as obj
from napari_mood.core._checks import check_choice
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.metrics import SampleHow
from napari_mood.core.problems import Problem
from napari_mood.core.scores import ScoreMode, check_mode

__all__ = [
    "DEFAULT_OPTIONS",
    "CaseEvaluation",
    "CaseRow",
    "DatasetEvaluation",
    "EvaluationOptions",
    "MethodCase",
    "MethodSummary",
    "NanPolicy",
    "ObjectSummary",
    "ObjectThreshold",
    "PixelSummary",
    "Progress",
    "SampleSummary",
    "Status",
    "Task",
]


Task = Literal["pixel", "sample", "object"]


NanPolicy = Literal["error", "zero"]


Status = Literal["ok", "missing", "invalid"]


Progress = Callable[[int, int, str], None]


ObjectThreshold = float | Literal["auto"] | Mapping[str, float]


@dataclass(frozen=True)
class EvaluationOptions:
    """How to evaluate (defaults reproduce the official scorer).

    Parameters
    ----------
    tasks : tuple of {"pixel", "sample", "object"}
    mode : {"mood", "exact"}
        ``mood`` quantises scores to float16 like the official scorer.
    strict : bool
        Missing or invalid predictions raise instead of scoring as zeros.
    nan_policy : {"error", "zero"}
        NaN scores raise (the official scorer crashes) or count as 0.
    sample_from_pixel : {"max", "mean", "top1"} or None
        Derive a missing sample score from the pixel map (off: it counts as 0).
    object_threshold : float, "auto" or mapping of method -> float
        Object task threshold (``auto``: best F1 on the evaluated cases).
    size_window : (lo, hi) or None
        Object size window in voxels (default: from the dataset's GT objects).
    connectivity : {"full", "face"}
    """

    tasks: tuple[Task, ...] = ("pixel", "sample")
    mode: ScoreMode = "mood"
    strict: bool = False
    nan_policy: NanPolicy = "error"
    sample_from_pixel: SampleHow | None = None
    object_threshold: ObjectThreshold = 0.5
    size_window: tuple[float, float] | None = None
    connectivity: obj.Connectivity = "full"

    def __post_init__(self) -> None:
        """Refuse an unknown task, mode, NaN policy, sample rule, connectivity or threshold."""
        for task in self.tasks:
            check_choice("task", task, get_args(Task))
        check_mode(self.mode)
        check_choice("nan_policy", self.nan_policy, get_args(NanPolicy))
        check_choice("sample_from_pixel", self.sample_from_pixel, (None, "max", "mean", "top1"))
        check_choice("connectivity", self.connectivity, ("full", "face"))
        if isinstance(self.object_threshold, str):
            check_choice("object_threshold", self.object_threshold, ("auto",))

    @property
    def needs_maps(self) -> bool:
        """Whether pixel maps must be read."""
        return "pixel" in self.tasks or "object" in self.tasks or self.sample_from_pixel is not None

    def thresholds_for(self, method: str) -> tuple[float, ...]:
        """Object thresholds to describe a method's cases at.

        Parameters
        ----------
        method : str
            The method.

        Returns
        -------
        tuple of float
            The method's own threshold, the fixed one, or the default grid (``"auto"``).
        """
        if isinstance(self.object_threshold, Mapping):
            return (float(self.object_threshold[method]),)
        if self.object_threshold == "auto":
            return tuple(float(t) for t in obj.default_threshold_grid())
        return (float(self.object_threshold),)


DEFAULT_OPTIONS = EvaluationOptions()


@dataclass(frozen=True)
class MethodCase:
    """What one method scored on one case (small; what a worker sends back)."""

    method: str
    status: Status
    accumulator: CurveAccumulator | None
    objects: obj.CaseObjects | None
    pixel_sample_score: float | None
    max_score: float


@dataclass(frozen=True)
class CaseEvaluation:
    """All methods on one case. ``gt_voxels`` is None when the label was unreadable."""

    case: str
    gt_voxels: int | None
    methods: Mapping[str, MethodCase]
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class PixelSummary:
    """Pixel task of one method: pooled metrics over the scored cases."""

    ap: float
    auroc: float
    fpr95: float
    best_dice: float
    best_dice_threshold: float
    n_cases: int
    missing: tuple[str, ...]
    invalid: tuple[str, ...]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SampleSummary:
    """Sample task of one method."""

    ap: float
    auroc: float
    n_cases: int
    missing: tuple[str, ...]
    from_pixel: tuple[str, ...]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ObjectSummary:
    """Object task of one method (MOOD rule, counts summed over cases)."""

    counts: obj.ObjectCounts
    auto: bool


@dataclass(frozen=True)
class MethodSummary:
    """Every task's summary for one method (None where the task was not run)."""

    name: str
    pixel: PixelSummary | None
    sample: SampleSummary | None
    object: ObjectSummary | None


@dataclass(frozen=True)
class CaseRow:
    """One case x one method, for per-case tables."""

    case: str
    method: str
    status: str
    gt_voxels: int | None
    pixel_ap: float
    pixel_auroc: float
    dice: float
    max_score: float
    sample_label: int | None
    sample_score: float | None
    object_tp: int | None
    object_fp: int | None
    object_fn: int | None


@dataclass(frozen=True)
class DatasetEvaluation:
    """The metrics of :func:`napari_mood.evaluate`; ``to_dict`` gives the documented JSON shape."""

    dataset: str
    cases: tuple[str, ...]
    methods: Mapping[str, MethodSummary]
    per_case: tuple[CaseRow, ...]
    problems: tuple[Problem, ...]
    options: EvaluationOptions
    case_accumulators: Mapping[str, Mapping[str, CurveAccumulator]] = field(
        default_factory=dict, repr=False
    )

    def ranked_methods(self) -> list[str]:
        """Return the method names by decreasing pixel AP (else sample AP, else object F1).

        Returns
        -------
        list of str
            The methods, best first.
        """
        return sorted(self.methods, key=lambda name: -_headline(self.methods[name]))

    def to_dict(self) -> dict[str, Any]:
        """Return the stable JSON-able structure documented in the README.

        Returns
        -------
        dict
            The dataset, cases, score mode, each method's summary (best first), the per-case
            rows and the problems; NaN as None.
        """
        methods = {name: _summary_dict(self.methods[name]) for name in self.ranked_methods()}
        return {
            "dataset": self.dataset,
            "cases": list(self.cases),
            "mode": self.options.mode,
            "methods": methods,
            "per_case": [_json_safe(asdict(row)) for row in self.per_case],
            "problems": [str(p) for p in self.problems],
        }


def _json_safe(value: Any) -> Any:
    """NaN and infinities become None (JSON null); tuples become lists."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.generic):
        return _json_safe(value.item())
    return value


def _summary_dict(summary: MethodSummary) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if summary.pixel is not None:
        pixel = asdict(summary.pixel)
        pixel.update(pixel.pop("extra"))
        out["pixel"] = _json_safe(pixel)
    if summary.sample is not None:
        sample = asdict(summary.sample)
        sample.update(sample.pop("extra"))
        out["sample"] = _json_safe(sample)
    if summary.object is not None:
        c = summary.object.counts
        out["object"] = _json_safe(
            {
                "threshold": c.threshold,
                "tp": c.tp,
                "fp": c.fp,
                "fn": c.fn,
                "discarded": c.discarded,
                "f1": c.f1,
                "precision": c.precision,
                "recall": c.recall,
                "size_window": list(c.size_window) if c.size_window is not None else None,
                "auto_threshold": summary.object.auto,
            }
        )
    return out


def _headline(summary: MethodSummary) -> float:
    for value in (
        summary.pixel.ap if summary.pixel else None,
        summary.sample.ap if summary.sample else None,
        summary.object.counts.f1 if summary.object else None,
    ):
        if value is not None and not math.isnan(value):
            return value
    return -math.inf
