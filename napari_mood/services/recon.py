"""Evaluate a reconstruction method on a simulated set: metrics, statistics, score maps.

Layout (what ``napari-mood simulate --kind pet --mask ...`` writes; every folder is keyed
by case name, ``.nii.gz`` or ``.nii``)::

    DATASET/toy/CASE          the inputs the method reconstructed (healthy and diseased)
    DATASET/healthy/CASE      the healthy original of each input (ground truth image)
    DATASET/region/CASE       the anomaly region (the GT mask, also for healthy inputs)
    DATASET/toy_label/pixel/CASE   pixel labels (used as region when region/ has no CASE)
    RECON/CASE                the method's reconstruction of each input

Rules:

- brain mask: ``--brain-mask FILE`` (its nonzero voxels, one mask for every case), else
  the healthy original's voxels above 0 (PET uptake is positive, the background 0); the
  file is checked once before any case (:func:`~napari_mood.core.recon.brain_mask_problem`:
  finite, not empty, 0 and one other value, on the grid of the inputs): a bad one is an
  error naming it;
- anomaly region: ``region/CASE``, else the case's pixel label when it has a voxel, else
  none (the case has brain metrics only); a missing ``region/`` folder is a warning
  naming it (the healthy inputs' labels are empty, so the anomaly rows lose their 0%
  baseline);
- ``data_range`` of PSNR and SSIM: the healthy original's ``max - min`` in the brain;
- a case whose input, healthy original, reconstruction or masks cannot be read or do not
  share one grid, or cannot give finite metrics (NaN or infinite voxels, an all-zero or
  constant healthy original: :func:`~napari_mood.core.recon.check_recon_case`), is
  skipped with a warning naming the file (a broken file costs only its own case); every
  count (table, JSON, t-tests) is of the cases measured;
- an anomaly region with no voxel inside the brain mask gives brain metrics only, with a
  warning naming the region file;
- score maps: ``|input - recon| / scale`` clipped to [0, 1], 0 outside the brain, with
  ``scale`` the largest per-case 99.9th percentile of the residual in the brain over the
  whole set (``dataset``, default: one scale, so pooled pixel AP equals the AP of the raw
  residuals), each case's own (``case``), or a number; the sample score is the mean of
  the score map in the brain.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from napari_mood.core._checks import check_instance, check_path
from napari_mood.core.recon import (
    healthy_data_range,
    recon_metrics,
    residual_map,
    residual_scale,
    residual_scores,
    ssim_map,
)
from napari_mood.core.recon_study import CaseRecon, DegreeRow, TTest, summarise_recon
from napari_mood.core.simulate.hypometabolism import parse_degree_case
from napari_mood.core.slices import BODY_MARGIN, body_mask
from napari_mood.io.case import case_transform
from napari_mood.io.errors import MoodInputError, MoodInputWarning, in_words
from napari_mood.io.mood import case_stem
from napari_mood.io.nifti import read_volume
from napari_mood.io.recon import (
    ReconCase,
    ReconFolders,
    ReconReader,
    find_recon_cases,
    missing_regions,
)
from napari_mood.io.writers import method_case_files
from napari_mood.services.formats import require_pandas
from napari_mood.services.output import Inputs
from napari_mood.services.writers import write_files

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ReconView",
    "ReconEvaluation",
    "ReconOptions",
    "evaluate_recon",
    "recon_inputs",
    "body_ranges",
    "load_recon_view",
    "write_score_maps",
]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class ReconOptions:
    """How to summarise: the t-test, its level, the score maps' scale rule."""

    test: TTest = "welch"
    alpha: float = 0.05
    scale: str | float = "dataset"


@dataclass(frozen=True, repr=False)
class ReconEvaluation:
    """Per-case metrics, the per-region / per-degree table, and what went wrong.

    Print it for the per-degree table; :meth:`to_dict`, :meth:`to_json` and
    :meth:`to_frame` give the same numbers as plain data, JSON text and a DataFrame.
    """

    dataset: str
    cases: tuple[CaseRecon, ...]
    rows: tuple[DegreeRow, ...]
    problems: tuple[str, ...]
    options: ReconOptions
    skipped: tuple[str, ...] = ()
    """Input names of the cases left out (their reasons are among ``problems``)."""

    def dataset_scale(self) -> float:
        """Return the largest per-case robust maximum of the residual (0 without cases).

        Returns
        -------
        float
            The scale used with ``scale="dataset"``.
        """
        return max((c.scale for c in self.cases), default=0.0)

    def scale_of(self, case: CaseRecon) -> float:
        """Return the scale that divides ``case``'s residual in its score map.

        Parameters
        ----------
        case : CaseRecon
            One evaluated case.

        Returns
        -------
        float
            The dataset's scale, the case's own, or the fixed one, as the options say.
        """
        if self.options.scale == "dataset":
            return self.dataset_scale()
        if self.options.scale == "case":
            return case.scale
        return float(self.options.scale)

    def __str__(self) -> str:
        """Show the summary table (:meth:`to_table`)."""
        return self.to_table()

    def __repr__(self) -> str:
        """Show the dataset and the numbers of cases, skipped cases and summary rows."""
        return (
            f"<ReconEvaluation {self.dataset}: {len(self.cases)} cases, "
            f"{len(self.skipped)} skipped, {len(self.rows)} summary rows>"
        )

    def to_table(self) -> str:
        """Return the per-region / per-degree summary as an aligned text table.

        Returns
        -------
        str
            The table.
        """
        from napari_mood.services.recon_report import format_recon

        return format_recon(self, "table")

    def to_dict(self) -> dict[str, Any]:
        """Return every number as plain data (NaN and infinities as None).

        Returns
        -------
        dict
            JSON-able data: the dataset, options, cases skipped, the metrics per case and the
            summary per region and degree.
        """
        return recon_json(self)

    def to_json(self) -> str:
        """Return :meth:`to_dict` as JSON text.

        Returns
        -------
        str
            Indented JSON.
        """
        from napari_mood.services.recon_report import format_recon

        return format_recon(self, "json")

    def to_frame(self, *, per_case: bool = False) -> pd.DataFrame:
        """Return a pandas DataFrame of the summary, or of the cases.

        Parameters
        ----------
        per_case : bool
            One row per case (``brain_*`` and ``anomaly_*`` metrics, the CSV's rows)
            instead of one per region, mask and degree.

        Returns
        -------
        pandas.DataFrame
            The summary's columns (``region``, ``where``, ``degree``, ``n_cases``, ``mse`` ...,
            the t-test's as ``test_*``), or the per-case columns.

        Raises
        ------
        ImportError
            pandas is not installed (napari brings it; the core does not).
        """
        pd = require_pandas("to_frame")

        if per_case:
            return pd.DataFrame(case_rows(self))
        rows = []
        for row in self.to_dict()["summary"]:
            test = row.pop("test") or {}
            rows.append({**row, **{f"test_{k}": v for k, v in test.items()}})
        return pd.DataFrame(rows)


def _case_recon(name: str, loaded: ReconCase) -> CaseRecon:
    data_range = healthy_data_range(loaded.healthy, loaded.brain)
    full = ssim_map(loaded.healthy, loaded.recon, data_range=data_range) if data_range > 0 else None
    brain = recon_metrics(
        loaded.healthy, loaded.recon, loaded.brain, data_range=data_range, ssim=full
    )
    anomaly = None
    inside = None if loaded.region is None else loaded.region & loaded.brain
    if inside is not None and inside.any():  # else brain metrics only (and a note)
        anomaly = recon_metrics(
            loaded.healthy, loaded.recon, inside, data_range=data_range, ssim=full
        )
    scale = residual_scale(residual_map(loaded.scan, loaded.recon), loaded.brain)
    parsed = parse_degree_case(name)
    stem = case_stem(name)
    if parsed is None:
        return CaseRecon(name, stem, "-", None, brain, anomaly, scale)
    return CaseRecon(name, parsed.subject, parsed.region, parsed.degree, brain, anomaly, scale)


def _cases(
    folders: ReconFolders, names: list[str], progress: Callable[[int, int, str], None] | None
) -> Iterator[tuple[str, ReconCase | str]]:
    reader = ReconReader(folders)
    reader.check_brain_mask(names)  # one file for every case: bad is an error, before any case
    for index, name in enumerate(names):
        try:
            yield name, reader.load(name)
        except MoodInputError as exc:
            yield name, f"{name}: skipped: {exc}"
        if progress is not None:
            progress(index + 1, len(names), name)


def recon_inputs(folders: ReconFolders) -> Inputs:
    """Every folder and file the evaluation reads (outputs may not land there)."""
    found = (folders.inputs.parent, folders.inputs, folders.healthy, folders.recon, folders.region)
    return Inputs.of(folders=(*found, folders.labels), files=(folders.brain_mask,))


def evaluate_recon(
    dataset: PathLike | ReconFolders,
    recon: PathLike | None = None,
    *,
    options: ReconOptions | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> ReconEvaluation:
    """Measure every reconstruction against its healthy original; summarise by degree.

    Parameters
    ----------
    dataset : path-like or ReconFolders
        A simulated set (the module's layout: ``toy/``, ``healthy/``, ``region/``), or
        the folders spelled out (:meth:`ReconFolders.of_dataset`: other input folder,
        healthy originals, regions or a brain mask).
    recon : path-like
        The method's reconstructions (``RECON/CASE``); required with a dataset path,
        ignored with ``ReconFolders``.
    options : ReconOptions, optional
        The t-test, its level and the score maps' scale rule (default Welch, 0.05,
        ``"dataset"``).
    progress : callable(done, total, case), optional
        Called after each case.

    Returns
    -------
    ReconEvaluation
        Prints as the per-degree table; ``to_dict``, ``to_json``, ``to_frame`` convert it.

    Raises
    ------
    MoodInputError
        The input folder is missing or empty, the brain mask cannot be read or is not a
        brain mask of the inputs' grid, or no case could be evaluated. A single case that
        cannot be read or give finite metrics is a warning, a problem and a skipped name.
    TypeError
        A dataset path without ``recon``.

    Examples
    --------
    >>> found = evaluate_recon("sim", "recon")  # doctest: +SKIP
    >>> found.to_frame()[["region", "where", "degree", "normalised_mse"]]  # doctest: +SKIP
    """
    if options is not None:
        check_instance("options", options, ReconOptions, "a ReconOptions")
    if isinstance(dataset, ReconFolders):
        folders = dataset
    else:
        check_path("dataset", dataset)
        if recon is None:
            raise TypeError("evaluate_recon(dataset, recon): give the reconstructions' folder")
        folders = ReconFolders.of_dataset(dataset, check_path("recon", recon))
    chosen = options or ReconOptions()
    names = find_recon_cases(folders)
    cases, problems, skipped, reasons = [], [], [], []
    missing = missing_regions(folders)
    if missing is not None:
        problems.append(missing)  # in words in the result, with its flag in an error
        warnings.warn(missing, MoodInputWarning, stacklevel=2)
    for name, loaded in _cases(folders, names, progress):
        if isinstance(loaded, str):
            skipped.append(name)
            reasons.append(loaded)
            texts = [loaded]
        else:
            cases.append(_case_recon(name, loaded))
            texts = [f"{name}: {note}" for note in loaded.notes]
        for text in texts:
            problems.append(text)
            warnings.warn(text, MoodInputWarning, stacklevel=2)
    if not cases:
        raise MoodInputError(folders.inputs, "no case could be evaluated", _why_none(reasons))
    rows = summarise_recon(cases, test=chosen.test, alpha=chosen.alpha)
    dataset = folders.inputs.parent.name
    return ReconEvaluation(
        dataset, tuple(cases), rows, tuple(map(in_words, problems)), chosen, skipped=tuple(skipped)
    )


def _why_none(reasons: list[str]) -> str:
    """Say why no case was evaluated: the first case's reason (not a dataset-wide note)."""
    more = len(reasons) - 1
    told = f"; {more} other case(s) skipped too, each named in a warning" if more > 0 else ""
    return (reasons[0] if reasons else "") + told


def planned_map_names(names: list[str]) -> list[str]:
    """Return the files :func:`write_score_maps` writes into its folder."""
    return [f"{case_stem(n)}{suffix}" for n in names for suffix in (".nii.gz", ".nii.gz.txt")]


def write_score_maps(
    result: ReconEvaluation,
    folders: ReconFolders,
    out: PathLike,
    *,
    force: bool = False,
) -> tuple[Path, ...]:
    """Write each evaluated case's residual score map and sample score into ``out``.

    ``out`` becomes a MOOD method folder (``CASE.nii.gz`` + ``CASE.nii.gz.txt``) that
    ``napari-mood evaluate DATASET --pred NAME=OUT`` scores. The caller has checked
    ``out`` (:func:`napari_mood.services.output.check_output_folder`).

    Parameters
    ----------
    result : ReconEvaluation
        The evaluation whose cases are written.
    folders : ReconFolders
        Its folders (the cases are read again).
    out : path-like
        The method folder to write.
    force : bool
        Whether existing files are replaced.

    Returns
    -------
    tuple of pathlib.Path
        The files written.
    """
    reader, written = ReconReader(folders), list[Path]()
    for case in result.cases:
        loaded = reader.load(case.case)
        scale = result.scale_of(case)
        scores = residual_scores(residual_map(loaded.scan, loaded.recon), loaded.brain, scale=scale)
        inside = scores[loaded.brain]
        sample = float(inside.mean()) if inside.size else 0.0
        affine = read_volume(folders.inputs / case.case).affine
        files = method_case_files(out, case.case, scores, sample, affine)
        written += write_files(files, inputs=recon_inputs(folders), force=force)
    return tuple(written)


def _number(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else value


def recon_json(result: ReconEvaluation) -> dict[str, object]:
    """Return the evaluation as plain data (NaN and infinities as None)."""

    def metrics(m: object) -> dict[str, object] | None:
        if m is None:
            return None
        return {k: (_number(v) if isinstance(v, float) else v) for k, v in vars(m).items()}

    return {
        "dataset": result.dataset,
        "options": {
            "test": result.options.test,
            "alpha": result.options.alpha,
            "scale": result.options.scale,
            "data_range": "healthy max - min in the brain mask",
        },
        "n_cases": len(result.cases),
        "skipped": list(result.skipped),
        "cases": [
            {
                "case": c.case,
                "subject": c.subject,
                "region": c.region,
                "degree": c.degree,
                "brain": metrics(c.brain),
                "anomaly": metrics(c.anomaly),
                "residual_p999": c.scale,
            }
            for c in result.cases
        ],  # fmt: skip
        "summary": [
            {
                **{
                    k: (_number(v) if isinstance(v, float) else v)
                    for k, v in vars(r).items()
                    if k != "test"
                },
                "test": metrics(r.test),
            }
            for r in result.rows
        ],
        "problems": list(result.problems),
    }


def case_rows(result: ReconEvaluation) -> list[Mapping[str, object]]:
    """One flat row per case (CSV): brain_* and anomaly_* metrics."""
    rows: list[Mapping[str, object]] = []
    for c in result.cases:
        row: dict[str, object] = {
            "case": c.case,
            "subject": c.subject,
            "region": c.region,
            "degree": c.degree,
        }
        for where, m in (("brain", c.brain), ("anomaly", c.anomaly)):
            for key in ("mse", "mae", "psnr", "ssim", "n_voxels"):
                row[f"{where}_{key}"] = None if m is None else getattr(m, key)
        row["data_range"] = c.brain.data_range
        row["residual_p999"] = c.scale
        rows.append(row)
    return rows


@dataclass(frozen=True, eq=False)
class ReconView:
    """One case for the viewer, in display order (S, A, R; see the README's orientation).

    ``scores`` is the residual score map (:func:`~napari_mood.core.recon.residual_scores`
    with ``scale``); ``gt`` the anomaly region (None without one); ``body`` the voxel
    range ``(first, last)`` of the healthy original's body along each axis
    (:func:`body_ranges`; None: the whole volume).
    """

    case: str
    scan: np.ndarray
    recon: np.ndarray
    scores: np.ndarray
    healthy: np.ndarray
    gt: np.ndarray | None
    spacing: tuple[float, ...]
    scale: float
    body: tuple[tuple[int, int], ...] | None = None


def body_ranges(volume: np.ndarray) -> tuple[tuple[int, int], ...]:
    """Return the voxel range ``(first, last)`` of a volume's body along each axis.

    The body is :func:`~napari_mood.core.slices.body_mask`, grown by
    :data:`~napari_mood.core.slices.BODY_MARGIN` voxels (clipped); a volume without a
    body gives its whole extent.

    Examples
    --------
    >>> volume = np.zeros((20, 20, 20))
    >>> volume[8:12, 5:15, 6:15] = 1.0
    >>> body_ranges(volume)
    ((4, 15), (1, 18), (2, 18))
    """
    body = body_mask(volume)
    ranges = []
    for axis, size in enumerate(body.shape):
        others = tuple(a for a in range(body.ndim) if a != axis)
        inside = np.flatnonzero(body.any(axis=others))
        if inside.size == 0:
            ranges.append((0, size - 1))
            continue
        ranges.append(
            (max(int(inside[0]) - BODY_MARGIN, 0), min(int(inside[-1]) + BODY_MARGIN, size - 1))
        )
    return tuple(ranges)


def load_recon_view(folders: ReconFolders, case: str, *, scale: float | None = None) -> ReconView:
    """Read one case (input, reconstruction, healthy original, region) for the viewer.

    ``scale`` divides the residual (default: the case's own robust maximum,
    :func:`~napari_mood.core.recon.residual_scale`). Raises MoodInputError naming a
    file that cannot be used.

    Parameters
    ----------
    folders : ReconFolders
        The evaluation's folders.
    case : str
        The input file name.
    scale : float, optional
        The residual's divisor.

    Returns
    -------
    ReconView
        The case's volumes in display order, its spacing and the scale used.
    """
    loaded = ReconReader(folders).load(case)
    residual = residual_map(loaded.scan, loaded.recon)
    chosen = residual_scale(residual, loaded.brain) if scale is None else float(scale)
    scores = residual_scores(residual, loaded.brain, scale=chosen)
    affine = read_volume(folders.inputs / case).affine
    shown = case_transform(loaded.scan.shape, affine)
    region = None if loaded.region is None else shown.to_display(loaded.region)
    return ReconView(
        case, shown.to_display(loaded.scan), shown.to_display(loaded.recon), shown.to_display(scores),
        shown.to_display(loaded.healthy), region, shown.spacing, chosen,
        body_ranges(shown.to_display(loaded.healthy)),
    )  # fmt: skip
