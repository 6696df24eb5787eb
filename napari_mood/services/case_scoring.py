"""evaluate_case / summarise_dataset: the rules under :func:`napari_mood.evaluate`.

Reproduces the official MOOD scorer (MIC-DKFZ/mood ``scripts/evalresults.py``) in its
default ``mood`` mode, with the edge-case policy decided here, in one place:

pixel task
    cases = files of ``toy_label/pixel``; label = ``clip(rint(x), 0, 1) == 1``; scores read
    as float16 and clipped to [0, 1]. A missing map, a map of another shape or an
    unreadable map scores the whole case as zeros (a warning; ``strict`` raises). NaN
    raises unless ``nan_policy="zero"``. An unreadable label skips the case (the official
    scorer skips it too). AP over all voxels of all cases pooled.
sample task
    cases = files of ``toy_label/sample``; label = ``int`` of the first line (an
    unparsable label skips the case); score = ``float`` of the first line, clipped; a
    missing or unparsable score counts as 0 (a warning; ``strict`` raises).
object task
    the MOOD connected-component rule of :mod:`napari_mood.core.objects`.

Every file is decoded once per run, whatever the number of tasks that need it. When the
pixel task is the only one that needs the maps (no object task, no sample score derived
from them, ``mood`` mode), a plain map is streamed through its histograms
(:mod:`napari_mood.io.streamed`) and never held whole; any other map is read whole.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from napari_mood.core import objects as obj
from napari_mood.core.curves import CurveAccumulator, merge_accumulators
from napari_mood.core.metrics import (
    auroc_from_curve,
    average_precision_from_curve,
    best_threshold,
    confusion_at,
    fpr_at_tpr,
    sample_score_from_pixel,
)
from napari_mood.core.problems import Problem, Severity
from napari_mood.core.results import (
    DEFAULT_OPTIONS,
    CaseEvaluation,
    CaseRow,
    DatasetEvaluation,
    EvaluationOptions,
    MethodCase,
    MethodSummary,
    NanPolicy,
    ObjectSummary,
    PixelSummary,
    SampleSummary,
    Status,
)
from napari_mood.core.scores import ONE_CODE, ScoreMode, code_values
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset, read_sample_label, read_sample_score
from napari_mood.io.nifti import Grid, LabelRead, ScoreRead, read_grid, read_label
from napari_mood.io.streamed import read_map, stream_code_histograms
from napari_mood.io.validate import (
    NAN_ZERO,
    check_affine,
    check_label,
    check_scan_affine,
    check_scores,
    check_shape,
    ignored_problems,
    unscored_problems,
)

__all__ = ["as_evaluated", "case_maps", "evaluate_case", "summarise_dataset"]


def _then(hint: str, consequence: str) -> str:
    """Return what to do, then what happens to the case meanwhile."""
    return f"{hint}; {consequence}" if hint else consequence


def _problem(
    kind: Any, path: Path | None, message: str, hint: str, case: str, method: str | None
) -> Problem:
    return Problem(kind, "error", path, message, hint, case, method)


def _retag(problems: Sequence[Problem], case: str, method: str | None) -> list[Problem]:
    return [Problem(p.kind, p.severity, p.path, p.message, p.hint, case, method) for p in problems]


def _read_map(
    path: Path | None,
    label: LabelRead,
    case: str,
    method: str,
    options: EvaluationOptions,
    scan_shape: tuple[int, ...] | None = None,
) -> tuple[np.ndarray | None, Status, list[Problem]]:
    """Read one map with the policy; None scores mean 'all zeros'."""
    if path is None:
        hint = "the case scores as zeros"
        problem = _problem(
            "missing", None, f"{method}: no pixel map for case {case}", hint, case, method
        )
        return _fail(problem, options)
    try:
        read = read_map(path, mode=options.mode)
    except MoodInputError as exc:
        hint = _then(exc.hint, "the case scores as zeros")
        return _fail(_problem("unreadable", exc.path, exc.problem, hint, case, method), options)
    shape = check_shape(read.scores.shape, label.mask.shape, path)
    if shape:
        return _fail(
            _label_is_off(_retag(shape, case, method)[0], read, label, scan_shape), options
        )
    problems = _retag(
        check_affine(read.affine, label.affine, path) + check_scores(read), case, method
    )
    if read.n_nan:
        if options.nan_policy == "error":
            raise MoodInputError(path, f"{read.n_nan} NaN voxels", f"fix the method, or {NAN_ZERO}")
        read.scores[np.isnan(read.scores)] = 0
        problems = [p if p.kind != "nan" else _nan_zeroed(p) for p in problems]
    return read.scores, "ok", problems


def _label_is_off(
    problem: Problem, read: ScoreRead, label: LabelRead, scan: tuple[int, ...] | None
) -> Problem:
    """When the map matches the scan but the label does not, say that the label is off."""
    if scan is None or tuple(read.scores.shape) != scan or scan == label.mask.shape:
        return problem
    message = (
        f"shape {tuple(read.scores.shape)} matches the scan but not the label "
        f"{label.path} {tuple(label.mask.shape)}"
    )
    hint = "the label is on another grid than its scan: fix the label (the case scores as zeros)"
    return Problem(
        problem.kind, problem.severity, problem.path, message, hint, problem.case, problem.method
    )


def _nan_zeroed(problem: Problem) -> Problem:
    return Problem(
        "nan",
        "warning",
        problem.path,
        problem.message + " (counted as 0)",
        "",
        problem.case,
        problem.method,
    )


def as_evaluated(
    problems: Sequence[Problem], *, strict: bool = False, nan_policy: NanPolicy = "error"
) -> list[Problem]:
    """Return ``problems`` with the severity the evaluator gives them: one rule for both.

    A method's problem is an error only when ``evaluate`` (with the same options) stops on
    it: a NaN score with ``nan_policy="error"``, any of its errors with ``strict``. Without
    ``strict`` a missing, unreadable or misshapen map or score is a warning: the case
    scores as zeros, as the official scorer does. A problem of the dataset itself (a
    label) keeps its severity.

    Parameters
    ----------
    problems : sequence of Problem
        What :func:`~napari_mood.io.validate.validate_dataset` found.
    strict : bool
        Whether missing or invalid predictions stop the evaluation.
    nan_policy : {"error", "zero"}
        What NaN scores mean.

    Returns
    -------
    list of Problem
        The same problems, each with its severity under these options.

    Examples
    --------
    >>> missing = Problem("missing", "error", None, "no map for case c1", "", "c1", "ae")
    >>> [p.severity for p in as_evaluated([missing])]
    ['warning']
    >>> [p.severity for p in as_evaluated([missing], strict=True)]
    ['error']
    """
    return [replace(p, severity=_evaluated_severity(p, strict, nan_policy)) for p in problems]


def _evaluated_severity(problem: Problem, strict: bool, nan_policy: NanPolicy) -> Severity:
    if problem.method is None or problem.severity == "warning":
        return problem.severity
    if problem.kind == "nan":
        return "error" if nan_policy == "error" or strict else "warning"
    return "error" if strict else "warning"


def _fail(problem: Problem, options: EvaluationOptions) -> tuple[None, Status, list[Problem]]:
    if options.strict:
        raise MoodInputError(
            problem.path, problem.message, "strict mode: fix or remove the prediction"
        )
    status: Status = "missing" if problem.kind == "missing" else "invalid"
    return None, status, [problem]


def _score_method(
    scores: np.ndarray | None,
    status: Status,
    label: LabelRead,
    method: str,
    case: str,
    options: EvaluationOptions,
) -> MethodCase:
    if scores is None:
        scores = np.zeros(
            label.mask.shape, dtype=np.float16 if options.mode == "mood" else np.float32
        )
    accumulator = None
    if "pixel" in options.tasks:
        accumulator = CurveAccumulator(mode=options.mode)
        accumulator.add(scores, label.mask)
    objects = None
    if "object" in options.tasks:
        objects = obj.describe_case(
            scores,
            label.mask,
            thresholds=options.thresholds_for(method),
            connectivity=options.connectivity,
            mode=options.mode,
            name=case,
        )
    derived = None
    if options.sample_from_pixel is not None and status == "ok":
        derived = sample_score_from_pixel(scores, how=options.sample_from_pixel)
    return MethodCase(method, status, accumulator, objects, derived, _max_score(scores))


def _max_score(scores: np.ndarray) -> float:
    """Return the largest score (0 for no voxel).

    Clipped float16 is compared on its codes: numpy's float16 ``max`` is ~20x slower
    than the uint16 one.
    """
    if not scores.size:
        return 0.0
    if scores.dtype == np.float16:
        top = int(scores.view(np.uint16).max())
        if top <= ONE_CODE:  # no negative value, -0.0 or NaN: codes order like values
            return float(code_values()[top])
    return float(scores.max())


def _streamable(options: EvaluationOptions) -> bool:
    """Only the pixel task needs the maps, and it needs only their histograms."""
    return (
        options.mode == "mood"
        and "pixel" in options.tasks
        and "object" not in options.tasks
        and options.sample_from_pixel is None
    )


def _streamed_method(
    path: Path | None, label: LabelRead, case: str, method: str, options: EvaluationOptions
) -> tuple[MethodCase, list[Problem]] | None:
    """Score a plain map from its streamed histograms (None: read it whole instead)."""
    if path is None or not _streamable(options):
        return None
    counts = stream_code_histograms(path, label.mask)
    if counts is None:
        return None
    accumulator = CurveAccumulator.from_histogram(code_values(), counts.pos, counts.total)
    problems = _retag(check_affine(counts.affine, label.affine, path), case, method)
    top = float(code_values()[counts.top_code])
    return MethodCase(method, "ok", accumulator, None, None, top), problems


def _scan_grid(path: Path | None) -> Grid | None:
    """Return a scan's grid from its header (None if there is no scan or it cannot be read)."""
    try:
        return None if path is None else read_grid(path)
    except MoodInputError:
        return None


def _scan_problems(grid: Grid | None, label: LabelRead, scan_path: Path | None) -> list[Problem]:
    """Report a scan on the label's grid whose affine differs from the label's."""
    if grid is None or scan_path is None or grid.shape != label.mask.shape:
        return []
    return check_scan_affine(grid, label, scan_path)


def evaluate_case(
    case: str,
    label_path: Path,
    maps: Mapping[str, Path | None],
    *,
    options: EvaluationOptions = DEFAULT_OPTIONS,
    scan_path: Path | None = None,
) -> CaseEvaluation:
    """Read one case's label and every method's map once, and score them.

    This is the unit of work of :func:`napari_mood.evaluate` (serial or in worker
    processes: it takes paths and returns small, picklable results).

    Parameters
    ----------
    case : str
        Case name (label file name, e.g. ``toy_0.nii.gz``).
    label_path : Path
        The pixel label file.
    maps : mapping of method name -> Path or None
        Each method's map for this case (None: the method has none).
    options : EvaluationOptions
        Tasks, score mode, object rule and NaN policy.
    scan_path : Path, optional
        The case's scan: only its header is read, to report a scan whose affine differs
        from its label's and to say whether the label or a map is on the wrong grid.

    Returns
    -------
    CaseEvaluation
        The case's GT voxel count, every method's results and the problems found.

    Examples
    --------
    >>> ev = evaluate_case("toy_0.nii.gz", label, {"m": m_path})  # doctest: +SKIP
    >>> ev.methods["m"].accumulator.n_pos  # doctest: +SKIP
    """
    try:
        label = read_label(label_path)
    except MoodInputError as exc:
        if options.strict:
            raise
        hint = _then(exc.hint, "the case is skipped")
        problem = Problem("unreadable", "error", exc.path, exc.problem, hint, case)
        return CaseEvaluation(case, None, {}, (problem,))
    grid = _scan_grid(scan_path)
    problems = _retag(check_label(label) + _scan_problems(grid, label, scan_path), case, None)
    scan_shape = grid.shape if grid is not None else None
    results: dict[str, MethodCase] = {}
    for method, path in maps.items():
        streamed = _streamed_method(path, label, case, method, options)
        if streamed is not None:
            results[method], found = streamed
        else:
            scores, status, found = _read_map(path, label, case, method, options, scan_shape)
            results[method] = _score_method(scores, status, label, method, case, options)
            del scores
        problems += found
    return CaseEvaluation(case, int(np.count_nonzero(label.mask)), results, tuple(problems))


# --------------------------------------------------------------------------- results


# --------------------------------------------------------------------------- dataset


def _quiet_ap(acc: CurveAccumulator) -> tuple[float, float]:
    if acc.n_pos == 0 or acc.n_pos == acc.n_total:
        return math.nan, math.nan
    curve = acc.curve()
    return average_precision_from_curve(curve), auroc_from_curve(curve)


def _pixel_summary(
    evaluations: Sequence[CaseEvaluation], method: str, mode: ScoreMode
) -> tuple[PixelSummary, dict[str, CurveAccumulator]]:
    scored = [ev for ev in evaluations if ev.gt_voxels is not None]
    accs = {ev.case: a for ev in scored if (a := ev.methods[method].accumulator) is not None}
    pooled = merge_accumulators(accs.values()) if accs else CurveAccumulator(mode=mode)
    curve = pooled.curve()
    ap = average_precision_from_curve(curve)
    roc = auroc_from_curve(curve)
    best_t, best_d = (
        best_threshold(curve, by="dice") if curve.thresholds.size else (math.nan, math.nan)
    )
    statuses = [(ev.case, ev.methods[method].status) for ev in scored]
    summary = PixelSummary(
        ap=ap,
        auroc=roc,
        fpr95=fpr_at_tpr(curve, tpr=0.95),
        best_dice=best_d,
        best_dice_threshold=best_t,
        n_cases=len(scored),
        missing=tuple(c for c, s in statuses if s == "missing"),
        invalid=tuple(c for c, s in statuses if s == "invalid"),
    )
    return summary, accs


@dataclass(frozen=True)
class _SampleCase:
    label: int
    score: float
    status: Status
    from_pixel: bool


def _sample_cases(
    dataset: MoodDataset,
    method: MethodFolder,
    derived: Mapping[str, float],
    options: EvaluationOptions,
) -> tuple[dict[str, _SampleCase], list[Problem]]:
    out: dict[str, _SampleCase] = {}
    problems: list[Problem] = []
    for case, label_path in sorted(dataset.sample_labels.items()):
        try:
            label = read_sample_label(label_path)
        except MoodInputError as exc:
            if options.strict:
                raise
            hint = _then(exc.hint, "the case is skipped")
            problems.append(Problem("unreadable", "error", exc.path, exc.problem, hint, case))
            continue
        label, found = _binary_sample_label(label, label_path, case)
        problems += found
        score, status, problem = _sample_score(method.sample.get(case), case, method.name, options)
        if status != "ok" and case in derived:
            out[case] = _SampleCase(label, derived[case], "ok", True)
            continue
        problems += problem
        out[case] = _SampleCase(label, score, status, False)
    return out, problems


def _binary_sample_label(label: int, path: Path, case: str) -> tuple[int, list[Problem]]:
    """Labels other than 0/1 are clipped, as pixel labels are (the official scorer crashes)."""
    if label in (0, 1):
        return label, []
    clipped = min(max(label, 0), 1)
    message = f"sample label {label} is not 0 or 1 (read as {clipped}, clipped like pixel labels)"
    return clipped, [Problem("nonbinary", "warning", path, message, 'write "0" or "1"', case)]


def _sample_score(
    path: Path | None, case: str, method: str, options: EvaluationOptions
) -> tuple[float, Status, list[Problem]]:
    if path is None:
        problem = _problem(
            "missing",
            None,
            f"{method}: no sample score for case {case}",
            "counts as 0",
            case,
            method,
        )
        _fail(problem, options)
        return 0.0, "missing", [problem]
    try:
        value = read_sample_score(path, clip=False)
    except MoodInputError as exc:
        hint = _then(exc.hint, "counts as 0")
        problem = _problem("unreadable", exc.path, exc.problem, hint, case, method)
        _fail(problem, options)
        return 0.0, "invalid", [problem]
    if not math.isnan(value) and not 0.0 <= value <= 1.0:
        clipped = min(max(value, 0.0), 1.0)
        message = f"sample score {value!r} is outside [0, 1] (clipped to {clipped!r})"
        warning = Problem(
            "range", "warning", path, message, "write a score in [0, 1]", case, method
        )
        return clipped, "ok", [warning]
    if math.isnan(value):
        if options.nan_policy == "error":
            raise MoodInputError(
                path, "sample score is NaN", f"write a number in [0, 1], or {NAN_ZERO}"
            )
        return (
            0.0,
            "ok",
            [
                Problem(
                    "nan", "warning", path, "sample score is NaN (counted as 0)", "", case, method
                )
            ],
        )
    return value, "ok", []


def _sample_summary(cases: Mapping[str, _SampleCase]) -> SampleSummary:
    acc = CurveAccumulator(mode="exact")
    if cases:
        scores = np.array([c.score for c in cases.values()], dtype=np.float64)
        labels = np.array([c.label == 1 for c in cases.values()])
        acc.add(scores, labels)
    curve = acc.curve()
    return SampleSummary(
        ap=average_precision_from_curve(curve),
        auroc=auroc_from_curve(curve),
        n_cases=len(cases),
        missing=tuple(c for c, s in cases.items() if s.status != "ok"),
        from_pixel=tuple(c for c, s in cases.items() if s.from_pixel),
    )


def _object_summary(
    evaluations: Sequence[CaseEvaluation], method: str, options: EvaluationOptions
) -> ObjectSummary | None:
    described = [ev.methods[method].objects for ev in evaluations if ev.gt_voxels is not None]
    cases = [d for d in described if d is not None]
    if not cases:  # no readable label: nothing to count
        return None
    auto = options.object_threshold == "auto"
    if auto:
        counts = obj.best_object_threshold(cases, size_window=options.size_window)
    else:
        counts = obj.count_objects(
            cases, threshold=options.thresholds_for(method)[0], size_window=options.size_window
        )
    return ObjectSummary(counts, auto)


def case_maps(
    dataset: MoodDataset, methods: Mapping[str, MethodFolder], case: str
) -> dict[str, Path | None]:
    """Return each method's pixel map path for ``case`` (None where it has none).

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    methods : mapping of str to MethodFolder
        The methods.
    case : str
        The case.

    Returns
    -------
    dict of str to pathlib.Path or None
        Per method, its map of ``case``.
    """
    return {name: m.pixel.get(case) for name, m in methods.items()}


def summarise_dataset(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    evaluations: Sequence[CaseEvaluation],
    *,
    options: EvaluationOptions,
    warn: bool = True,
) -> DatasetEvaluation:
    """Merge per-case results (in case order) into dataset metrics; reads sample files.

    ``evaluations`` are :func:`evaluate_case` results for the sorted pixel cases, from
    any process: merging integer histograms and counts makes the result independent of
    where and in which order cases were computed.

    Parameters
    ----------
    dataset : MoodDataset
        The dataset.
    methods : mapping of str to MethodFolder
        The methods evaluated.
    evaluations : sequence of CaseEvaluation
        The per-case results.
    options : EvaluationOptions
        The evaluation's options.
    warn : bool
        Whether the problems found are also emitted as warnings.

    Returns
    -------
    DatasetEvaluation
        The dataset's metrics per method, the per-case rows and the problems.
    """
    summaries, rows, problems, accs = _summarise(dataset, methods, evaluations, options)
    result = DatasetEvaluation(
        dataset=dataset.name,
        cases=dataset.cases,
        methods=summaries,
        per_case=tuple(rows),
        problems=tuple(problems),
        options=options,
        case_accumulators=accs,
    )
    if warn:
        for problem in result.problems:
            warnings.warn(problem.marked(), MoodInputWarning, stacklevel=2)
    return result


def _summarise(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    evaluations: Sequence[CaseEvaluation],
    options: EvaluationOptions,
) -> tuple[
    dict[str, MethodSummary], list[CaseRow], list[Problem], dict[str, dict[str, CurveAccumulator]]
]:
    problems = ignored_problems(dataset, methods)
    problems += unscored_problems(
        dataset, methods, pixel=options.needs_maps, sample="sample" in options.tasks
    )
    problems += [p for ev in evaluations for p in ev.problems]
    summaries: dict[str, MethodSummary] = {}
    rows: list[CaseRow] = []
    accs: dict[str, dict[str, CurveAccumulator]] = {}
    for name, method in methods.items():
        pixel = objects = sample = None
        if "pixel" in options.tasks:
            pixel, accs[name] = _pixel_summary(evaluations, name, options.mode)
        if "object" in options.tasks:
            objects = _object_summary(evaluations, name, options)
        sample_cases: dict[str, _SampleCase] = {}
        if "sample" in options.tasks:
            derived = {
                ev.case: v
                for ev in evaluations
                if ev.gt_voxels is not None
                and (v := ev.methods[name].pixel_sample_score) is not None
            }
            sample_cases, found = _sample_cases(dataset, method, derived, options)
            problems += found
            sample = _sample_summary(sample_cases)
        summaries[name] = MethodSummary(name, pixel, sample, objects)
        rows += _case_rows(name, evaluations, pixel, objects, sample_cases)
    return summaries, rows, _unique(problems), accs


def _unique(problems: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(problems))


def _case_rows(
    method: str,
    evaluations: Sequence[CaseEvaluation],
    pixel: PixelSummary | None,
    objects: ObjectSummary | None,
    sample_cases: Mapping[str, _SampleCase],
) -> list[CaseRow]:
    per_object = {c[0]: c for c in objects.counts.per_case} if objects else {}
    rows = []
    seen = set()
    for ev in evaluations:
        seen.add(ev.case)
        mc = ev.methods.get(method)
        ap = roc = dice = math.nan
        if mc is not None and mc.accumulator is not None:
            ap, roc = _quiet_ap(mc.accumulator)
            if pixel is not None and not math.isnan(pixel.best_dice_threshold):
                dice = confusion_at(mc.accumulator.curve(), pixel.best_dice_threshold).dice
        oc = per_object.get(ev.case)
        sc = sample_cases.get(ev.case)
        rows.append(
            CaseRow(
                case=ev.case,
                method=method,
                status=mc.status if mc else "skipped",
                gt_voxels=ev.gt_voxels,
                pixel_ap=ap,
                pixel_auroc=roc,
                dice=dice,
                max_score=mc.max_score if mc else math.nan,
                sample_label=sc.label if sc else None,
                sample_score=sc.score if sc else None,
                object_tp=oc[1] if oc else None,
                object_fp=oc[2] if oc else None,
                object_fn=oc[3] if oc else None,
            )
        )
    for case, sc in sorted(sample_cases.items()):
        if case not in seen:
            rows.append(
                CaseRow(
                    case,
                    method,
                    sc.status,
                    None,
                    math.nan,
                    math.nan,
                    math.nan,
                    math.nan,
                    sc.label,
                    sc.score,
                    None,
                    None,
                    None,
                )
            )
    return rows
