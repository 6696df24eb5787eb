"""Challenge rankings from ``napari-mood evaluate --format json`` results (MOOD paper, Sec. V).

Each (dataset, task) gives one ranking: methods ranked by the challenge score, the mean
batch AP (``batch_ap.mean``; with no batches in the file, the pooled ``ap`` with a
warning), a missing method or score counting 0 and ties sharing the minimum rank. The
rankings are merged by :func:`~napari_mood.core.ranking.consensus_rank` (rank sum: the
consensus with the least summed squared rank distance). Rank stability: the batches of
every ranking are resampled (:func:`~napari_mood.core.ranking.bootstrap_consensus`) and
the consensus recomputed. Toy-vs-test agreement: Kendall's tau-b between the consensus of
the toy results and that of the test results, over the methods both hold.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import rc_context
from matplotlib.figure import Figure

from napari_mood.core.ranking import (
    bootstrap_consensus,
    consensus_rank,
    kendall_tau_b,
    score_ranks,
)
from napari_mood.core.seed import DEFAULT_SEED
from napari_mood.io.errors import MoodInputError, MoodInputWarning, check_regular_file, option
from napari_mood.io.json_input import read_json
from napari_mood.services.analysis_plots import new_figure, save_formats
from napari_mood.services.atomic_files import write_text_atomic
from napari_mood.services.figures import FIGURE_RC
from napari_mood.services.output import Inputs, check_output_folder

__all__ = [
    "RankAnalysis",
    "RankingInput",
    "analyse_rankings",
    "plot_rank_stability",
    "rankings_csv",
    "rank_results",
    "read_rankings",
]

PathLike = str | os.PathLike[str]
TASKS = ("pixel", "sample")


@dataclass(frozen=True)
class RankingInput:
    """One ranking's input: ``{method: challenge score}`` and ``{method: batch scores}``."""

    label: str
    scores: Mapping[str, float | None]
    batches: Mapping[str, Sequence[float]] = field(default_factory=dict)


_HINT = option(
    "write it with evaluate --format json --out FILE", "write it as an evaluation's JSON result"
)


def _kind(value: object) -> str:
    """Return what a JSON value is, in JSON's words."""
    if value is None:
        return "null"
    names = {bool: "a boolean", str: "a string", list: "a list", dict: "an object"}
    return next((n for t, n in names.items() if isinstance(value, t)), "a number")


def _bad(path: Path, where: str, value: object, want: str) -> MoodInputError:
    short = isinstance(value, int | float) or (isinstance(value, str) and len(value) <= 40)
    shown = repr(value) if short else _kind(value)
    return MoodInputError(path, f"field {where} is {shown}, not {want}", _HINT)


def _object(path: Path, where: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _bad(path, where, value, "an object")
    return value


def _ap(path: Path, where: str, value: object) -> float | None:
    """Return an AP as results hold it: a number in [0, 1], or null (no score: counts 0)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(path, where, value, "a number in [0, 1] or null")
    if not 0.0 <= value <= 1.0:  # NaN and infinities too
        raise MoodInputError(path, f"field {where} is {value!r}, outside [0, 1]", _HINT)
    return float(value)


def _batch_aps(path: Path, where: str, value: object) -> list[float]:
    """Return the APs of the batches (null: a batch without a positive, NaN)."""
    if not isinstance(value, list):
        raise _bad(path, where, value, "a list of APs")
    aps = [_ap(path, f"{where}[{i}]", v) for i, v in enumerate(value)]
    return [math.nan if v is None else v for v in aps]


def _task_input(
    label: str, methods: Mapping[str, Any], task: str, path: Path
) -> RankingInput | None:
    scores: dict[str, float | None] = {}
    batches: dict[str, list[float]] = {}
    without = []
    for name, summary in methods.items():
        where = f"methods.{name}.{task}"
        part = _object(path, f"methods.{name}", summary).get(task)
        if part is None:
            continue
        part = _object(path, where, part)
        batch = part.get("batch_ap")
        if batch is not None:
            batch = _object(path, f"{where}.batch_ap", batch)
            scores[name] = _ap(path, f"{where}.batch_ap.mean", batch.get("mean"))
            batches[name] = _batch_aps(path, f"{where}.batch_ap.aps", batch.get("aps"))
        else:
            scores[name] = _ap(path, f"{where}.ap", part.get("ap"))
            without.append(name)
    if not scores:
        return None
    if without:
        warnings.warn(
            f"{path}: no batch AP for {', '.join(without)} ({task}): ranked by the pooled AP "
            f"({option('run evaluate with --batches K or --splits FILE', 'evaluate in batches or with the official splits')} "
            "for the challenge score)",
            MoodInputWarning,
            stacklevel=3,
        )
    return RankingInput(f"{label} {task}", scores, batches)


def read_rankings(
    path: str | os.PathLike[str], *, label: str | None = None, tasks: Sequence[str] = TASKS
) -> list[RankingInput]:
    """Return the rankings of one ``evaluate --format json`` file (one per task it scored).

    The file's schema is checked where it is used: ``methods`` an object; per method and
    task an object whose ``ap`` (or ``batch_ap.mean``) is a number in [0, 1] or null and
    whose ``batch_ap.aps`` is a list of them (null items: NaN).

    Parameters
    ----------
    path : str or os.PathLike
        An ``evaluate --format json`` file.
    label : str, optional
        The rankings' label (default: the dataset the file names, else the file's stem).
    tasks : sequence of str
        The tasks to read.

    Returns
    -------
    list of RankingInput
        One ranking per task the file scored.

    Raises
    ------
    MoodInputError
        When the file is not such a JSON, naming the file and the field.
    """
    path = Path(path)
    if not path.exists():
        raise MoodInputError(
            path,
            "not found",
            option(
                "give the JSON of napari-mood evaluate --format json",
                "give an evaluation's JSON result",
            ),
        )
    check_regular_file(path, what="results file")
    data = read_json(path, hint=_HINT)
    if not isinstance(data, Mapping):
        raise MoodInputError(
            path, f"is not a napari-mood evaluate JSON (it holds {_kind(data)})", _HINT
        )
    if "methods" not in data:
        raise MoodInputError(path, "is not a napari-mood evaluate JSON (no field methods)", _HINT)
    methods = _object(path, "methods", data["methods"])
    dataset = data.get("dataset")
    name = label or (dataset if isinstance(dataset, str) and dataset else path.stem)
    found = [_task_input(name, methods, task, path) for task in tasks]
    return [f for f in found if f is not None]


@dataclass(frozen=True, eq=False)
class RankAnalysis:
    """Rankings, their consensus, its bootstrap and the toy-vs-test Kendall tau-b."""

    methods: tuple[str, ...]
    rankings: Mapping[str, Mapping[str, int]]
    scores: Mapping[str, Mapping[str, float]]
    consensus: Mapping[str, int]
    bootstrap: np.ndarray | None = None
    seed: int = DEFAULT_SEED
    toy_consensus: Mapping[str, int] | None = None
    tau_b: float | None = None

    def ordered(self) -> list[str]:
        """Methods by consensus rank.

        Returns
        -------
        list of str
            The methods, best first (ties by name).
        """
        return sorted(self.methods, key=lambda m: (self.consensus[m], m))

    def rank_counts(self) -> np.ndarray:
        """``(methods in consensus order, ranks 1..n)`` bootstrap frequencies (rows sum to 1).

        Returns
        -------
        numpy.ndarray
            One row per method, one column per rank.

        Raises
        ------
        ValueError
            When the analysis has no bootstrap.
        """
        if self.bootstrap is None:
            raise ValueError("no bootstrap was run")
        order = [self.methods.index(m) for m in self.ordered()]
        n = len(self.methods)
        counts = np.stack([np.bincount(self.bootstrap[:, i] - 1, minlength=n) for i in order])
        return counts / self.bootstrap.shape[0]

    def to_dict(self) -> dict[str, Any]:
        """Return the analysis as plain data (what ``ranks.json`` holds; NaN tau as None).

        Returns
        -------
        dict
            The rankings, scores, consensus, toy consensus, Kendall tau-b and bootstrap
            rank frequencies (None without a bootstrap).
        """
        tau = self.tau_b
        boot = None
        if self.bootstrap is not None:
            boot = {
                "n_boot": int(self.bootstrap.shape[0]),
                "seed": self.seed,
                "methods": self.ordered(),
                "rank_frequencies": self.rank_counts().tolist(),
            }
        return {
            "rankings": self.rankings,
            "scores": self.scores,
            "consensus": self.consensus,
            "toy_consensus": self.toy_consensus,
            "kendall_tau_b": None if tau is None or math.isnan(tau) else tau,
            "bootstrap": boot,
        }


def _methods(inputs: Sequence[RankingInput]) -> tuple[str, ...]:
    return tuple(sorted({m for i in inputs for m in i.scores}))


def _consensus(inputs: Sequence[RankingInput], methods: Sequence[str]) -> tuple[dict, dict]:
    rankings = {i.label: score_ranks(i.scores, methods) for i in inputs}
    if len(set(rankings)) != len(inputs):
        raise ValueError("two rankings have the same label: give each results file a LABEL=")
    return rankings, consensus_rank(list(rankings.values()))


def analyse_rankings(
    tests: Sequence[RankingInput],
    *,
    toys: Sequence[RankingInput] = (),
    n_boot: int = 0,
    seed: int = DEFAULT_SEED,
) -> RankAnalysis:
    """Rank, merge, bootstrap and compare with the toy ranking (see module).

    Parameters
    ----------
    tests : sequence of RankingInput
        The rankings merged into the consensus.
    toys : sequence of RankingInput
        Rankings on toy data, merged into a toy consensus to compare with.
    n_boot : int
        Bootstrap resamples of the consensus (0: none).
    seed : int
        Seed of the resampling.

    Returns
    -------
    RankAnalysis
        The rankings, their consensus, the bootstrap and the Kendall tau-b.

    Raises
    ------
    ValueError
        With no ranking, or two rankings of the same label.
    """
    if not tests:
        raise ValueError("need at least one ranking")
    methods = _methods(tests)
    rankings, consensus = _consensus(tests, methods)
    scores = {
        i.label: {
            m: (0.0 if i.scores.get(m) is None else float(i.scores[m] or 0.0)) for m in methods
        }
        for i in tests
    }
    boot = None
    if n_boot:
        boot = bootstrap_consensus([i.batches for i in tests], methods, n_boot=n_boot, seed=seed)
    toy_consensus, tau = None, None
    if toys:
        toy_methods = _methods(toys)
        _, toy_consensus = _consensus(toys, toy_methods)
        common = [m for m in methods if m in toy_consensus]
        tau = kendall_tau_b(
            {m: toy_consensus[m] for m in common}, {m: consensus[m] for m in common}
        )
    return RankAnalysis(methods, rankings, scores, consensus, boot, seed, toy_consensus, tau)


def rankings_csv(analysis: RankAnalysis) -> str:
    """Return ``method, <label> score, <label> rank ..., consensus[, toy consensus]`` rows.

    Parameters
    ----------
    analysis : RankAnalysis
        The analysis.

    Returns
    -------
    str
        CSV text, one row per method.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    labels = list(analysis.rankings)
    head = [
        "method",
        *(f"{lab} {what}" for lab in labels for what in ("score", "rank")),
        "consensus",
    ]
    toy = analysis.toy_consensus
    writer.writerow(head + (["toy consensus"] if toy is not None else []))
    for m in analysis.ordered():
        cells: list[object] = [m]
        for lab in labels:
            cells += [f"{analysis.scores[lab][m]:.6f}", analysis.rankings[lab][m]]
        cells.append(analysis.consensus[m])
        if toy is not None:
            cells.append(toy.get(m, ""))
        writer.writerow(cells)
    return buffer.getvalue()


def plot_rank_stability(analysis: RankAnalysis) -> Figure:
    """Blob plot: for each method (consensus order) the bootstrap frequency of each rank.

    Parameters
    ----------
    analysis : RankAnalysis
        An analysis with a bootstrap.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    freq = analysis.rank_counts()
    order = analysis.ordered()
    n = len(order)
    fig = new_figure(height=2.2 + 0.12 * n)
    ax = fig.axes[0]
    with rc_context(FIGURE_RC):
        xs, ys = np.meshgrid(np.arange(n), np.arange(1, n + 1), indexing="ij")
        keep = freq > 0
        ax.scatter(xs[keep], ys[keep], s=120 * freq[keep], color="#1f5fa8", alpha=0.8, linewidths=0)
        for x, y, f in zip(xs[keep], ys[keep], freq[keep], strict=True):
            ax.annotate(
                f"{100 * f:.1f}%",
                (x, y),
                xytext=(9, 0),
                textcoords="offset points",
                va="center",
                fontsize=6,
            )
        ax.plot(
            np.arange(n),
            [analysis.consensus[m] for m in order],
            "x",
            color="black",
            markersize=4,
            label="consensus rank",
        )
        ax.set_xticks(
            np.arange(n), order, rotation=45 if n > 4 else 0, ha="right" if n > 4 else "center"
        )
        ax.set(ylabel="rank", ylim=(n + 0.6, 0.4), xlim=(-0.6, n - 0.4))
        ax.set_yticks(np.arange(1, n + 1))
        n_boot = 0 if analysis.bootstrap is None else analysis.bootstrap.shape[0]
        ax.set_title(f"Rank stability ({n_boot} batch resamples)")
        ax.grid(alpha=0.3, linewidth=0.5)
        ax.legend(frameon=False, loc="lower right")
    return fig


def rank_results(
    results: Sequence[tuple[str, PathLike]],
    *,
    toys: Sequence[tuple[str, PathLike]] = (),
    tasks: Sequence[str] = TASKS,
    n_boot: int = 0,
    seed: int = DEFAULT_SEED,
    out: PathLike | None = None,
    formats: Sequence[str] = ("png",),
    dpi: float = 300,
    force: bool = False,
) -> RankAnalysis:
    """Rank the methods of ``evaluate --format json`` files; write the analysis to ``out``.

    ``out`` (when given) is checked before any file is read; it receives ``ranks.csv``,
    ``ranks.json`` and, with a bootstrap, the rank-stability figure in each format.

    Parameters
    ----------
    results : sequence of (str, path-like)
        ``(label, file)`` of each test ranking (label ``""``: from the file).
    toys : sequence of (str, path-like)
        ``(label, file)`` of the toy rankings compared with the test consensus.
    tasks : sequence of str
        The tasks read from each file.
    n_boot : int
        Bootstrap resamples of the consensus (0: none).
    seed : int
        Seed of the resampling.
    out : path-like, optional
        The folder written.
    formats : sequence of str
        The figure's formats.
    dpi : float
        The figure's resolution.
    force : bool
        Whether existing files in ``out`` are replaced.

    Returns
    -------
    RankAnalysis
        The rankings, their consensus, the bootstrap and the Kendall tau-b.

    Raises
    ------
    MoodInputError
        When a file cannot be read, holds none of the tasks, two rankings share a
        label, or ``out`` cannot take the files.
    """
    files = [Path(p) for _, p in (*results, *toys)]
    names = ["ranks.csv", "ranks.json"] + (
        [f"rank_stability.{f}" for f in formats] if n_boot else []
    )
    if out is not None:
        check_output_folder(
            out,
            inputs=Inputs(files=tuple(files)),
            force=force,
            names=names,
            what=option("--out", "the output"),
        )
    tests = _read_all(results, tasks)
    if not tests:
        raise MoodInputError(
            files[0],
            f"holds no {' or '.join(tasks)} results",
            f"check {option('--task', 'the tasks')}",
        )
    try:
        analysis = analyse_rankings(tests, toys=_read_all(toys, tasks), n_boot=n_boot, seed=seed)
    except ValueError as exc:
        raise MoodInputError(None, str(exc), "give each results file its own LABEL=") from exc
    if out is not None:
        _write_analysis(analysis, Path(out), formats=formats, dpi=dpi, force=force)
    return analysis


def _read_all(pairs: Sequence[tuple[str, PathLike]], tasks: Sequence[str]) -> list[RankingInput]:
    found = []
    for label, path in pairs:
        found += read_rankings(path, label=label or None, tasks=tasks)
    return found


def _write_analysis(
    analysis: RankAnalysis, out: Path, *, formats: Sequence[str], dpi: float, force: bool
) -> None:
    write_text_atomic(out / "ranks.csv", rankings_csv(analysis), replace=force)
    text = json.dumps(analysis.to_dict(), indent=2) + "\n"
    write_text_atomic(out / "ranks.json", text, replace=force)
    if analysis.bootstrap is not None:
        save_formats(plot_rank_stability(analysis), out / "rank_stability", formats, dpi=dpi)
