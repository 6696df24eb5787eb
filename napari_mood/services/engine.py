"""Batch evaluation at scale: parallel (dask), on a cluster, with a per-case cache.

The unit of work is one case: a worker reads the case's label and every method map it
has to compute itself (paths are shipped, not arrays), so a worker holds one case at a
time. Per-case results are small (two integer histograms and object counts per method)
and are merged in case order by :func:`napari_mood.services.case_scoring.summarise_dataset`, so
a parallel run gives the same numbers as a serial one, bit for bit.

The cache (:mod:`napari_mood.services.cache`) stores each (case, method) result under a
key made of the files' content stamps and of every option that changes the result; a
rerun after adding a method or a case, or changing one file, recomputes only that.

Local worker processes die with the main process, whatever ends it (Ctrl-C, SIGTERM,
``kill -9``): they ignore SIGINT (the main process stops them) and ask Linux to send
them SIGTERM when their parent dies (``PR_SET_PDEATHSIG``). An unreachable scheduler
fails within :data:`SCHEDULER_TIMEOUT_S` seconds with a message.

GUI-free; dask is required, ``dask.distributed`` only for ``scheduler=ADDRESS``.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from napari_mood.core.results import (
    CaseEvaluation,
    DatasetEvaluation,
    EvaluationOptions,
    Progress,
)
from napari_mood.io.errors import MoodInputError, option
from napari_mood.io.methods import MethodFolder
from napari_mood.io.mood import MoodDataset
from napari_mood.services.cache import (
    CacheKey,
    LabelEntry,
    MethodEntry,
    ResultCache,
    file_stamp,
)
from napari_mood.services.case_scoring import case_maps, evaluate_case, summarise_dataset
from napari_mood.services.options import usable_cores

__all__ = ["EngineStats", "default_workers"]

SCHEDULER_TIMEOUT_S = 5
"""How long to try to reach a ``--scheduler`` before giving up."""
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class EngineStats:
    """What a run did: work computed vs read from the cache, workers, peak memory."""

    computed: int
    cached: int
    cases_read: int
    workers: int
    scheduler: str
    peak_memory_mb: float


@dataclass(frozen=True)
class _Task:
    case: str
    label_path: Path
    maps: Mapping[str, Path | None]
    scan_path: Path | None = None


@dataclass(frozen=True)
class _TaskResult:
    evaluation: CaseEvaluation
    peak_memory_mb: float
    warned: tuple[tuple[str, type[Warning]], ...] = ()  # re-emitted by the caller's process


def default_workers() -> int:
    """Return the number of local worker processes by default: the usable cores.

    Returns
    -------
    int
        The cores this process may run on (at least 1).
    """
    return usable_cores()


def peak_memory_mb() -> float:
    """Peak resident memory of this process in MiB (Linux ``VmHWM``; 0.0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return float(line.split()[1]) / 1024.0
    except OSError:  # pragma: no cover - not Linux
        pass
    return 0.0


def _marked(message: Warning | str) -> str:
    """Return a warning's text with its :func:`option` marks (the command line prints flags)."""
    if isinstance(message, Warning) and message.args:
        return str(message.args[0])
    return str(message)


def _run_task(task: _Task, options: EvaluationOptions) -> _TaskResult:
    """One case; its warnings are returned (a worker process would print them raw)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluation = evaluate_case(
            task.case, task.label_path, task.maps, options=options, scan_path=task.scan_path
        )
    warned = tuple((_marked(w.message), w.category) for w in caught)
    return _TaskResult(evaluation, peak_memory_mb(), warned)


# --------------------------------------------------------------------------- cache


def _options_key(options: EvaluationOptions, method: str) -> dict[str, Any]:
    return {
        "tasks": sorted(options.tasks),
        "mode": options.mode,
        "strict": options.strict,
        "nan_policy": options.nan_policy,
        "sample_from_pixel": options.sample_from_pixel,
        "object_thresholds": list(options.thresholds_for(method))
        if "object" in options.tasks
        else None,
        "connectivity": options.connectivity,
    }


@dataclass(frozen=True)
class _CaseKeys:
    label: CacheKey
    methods: Mapping[str, CacheKey]


def _case_keys(
    case: str,
    label_path: Path,
    maps: Mapping[str, Path | None],
    options: EvaluationOptions,
    scan_path: Path | None,
) -> _CaseKeys:
    label_stamp = file_stamp(label_path)
    scan_stamp = file_stamp(scan_path)  # the label's and a map's problems may name the scan
    label_key = ResultCache.key("label", case, label_stamp, scan_stamp, options.strict)
    method_keys = {
        name: ResultCache.key(
            "method",
            case,
            name,
            label_stamp,
            scan_stamp,
            file_stamp(path),
            _options_key(options, name),
        )
        for name, path in maps.items()
    }
    return _CaseKeys(label_key, method_keys)


def _from_cache(
    cache: ResultCache | None, keys: _CaseKeys
) -> tuple[LabelEntry | None, dict[str, MethodEntry]]:
    if cache is None:
        return None, {}
    label = cache.get_label(keys.label)
    found = {
        name: hit
        for name, key in keys.methods.items()
        if (hit := cache.get_method(key)) is not None
    }
    return label, found


def _store(cache: ResultCache, keys: _CaseKeys, evaluation: CaseEvaluation) -> None:
    label_problems = tuple(p for p in evaluation.problems if p.method is None)
    cache.put_label(keys.label, (evaluation.gt_voxels, label_problems))
    if evaluation.gt_voxels is None:
        return
    for name, result in evaluation.methods.items():
        problems = tuple(p for p in evaluation.problems if p.method == name)
        cache.put_method(keys.methods[name], (result, problems))


def _assemble(
    case: str,
    maps: Mapping[str, Path | None],
    label: LabelEntry,
    found: Mapping[str, MethodEntry],
) -> CaseEvaluation:
    gt_voxels, problems = label
    if gt_voxels is None:
        return CaseEvaluation(case, None, {}, problems)
    methods = {name: found[name][0] for name in maps}
    all_problems = problems + tuple(p for name in maps for p in found[name][1])
    return CaseEvaluation(case, gt_voxels, methods, all_problems)


def _split(
    evaluation: CaseEvaluation,
) -> tuple[LabelEntry, dict[str, MethodEntry]]:
    label = (evaluation.gt_voxels, tuple(p for p in evaluation.problems if p.method is None))
    found = {
        name: (result, tuple(p for p in evaluation.problems if p.method == name))
        for name, result in evaluation.methods.items()
    }
    return label, found


# --------------------------------------------------------------------------- schedulers

Runner = Callable[[Sequence[_Task], EvaluationOptions, Callable[[int, _TaskResult], None]], None]


def _run_serial(
    tasks: Sequence[_Task], options: EvaluationOptions, done: Callable[[int, _TaskResult], None]
) -> None:
    for i, task in enumerate(tasks):
        done(i, _run_task(task, options))


def _die_with_parent(parent: int) -> None:
    """Worker start-up: leave Ctrl-C to the parent; get SIGTERM when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel queued tasks and end its processes."""
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)


def _run_local(workers: int) -> Runner:
    def run(
        tasks: Sequence[_Task], options: EvaluationOptions, done: Callable[[int, _TaskResult], None]
    ) -> None:
        import dask
        from dask.callbacks import Callback

        delayed = [
            dask.delayed(_run_task, pure=False)(task, options, dask_key_name=f"case-{i}")
            for i, task in enumerate(tasks)
        ]

        # dask's callback signature; only the key and the result are needed
        def posttask(key: Any, result: Any, *_: Any) -> None:
            if isinstance(key, str) and key.startswith("case-"):
                done(int(key[5:]), result)

        pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_die_with_parent,
            initargs=(os.getpid(),),
        )
        try:
            with Callback(posttask=posttask):
                dask.compute(*delayed, scheduler="processes", pool=pool)
        except BaseException:
            _stop(pool)  # Ctrl-C, SIGTERM or an error: no worker is left running
            raise
        pool.shutdown(wait=True)

    return run


def _run_distributed(address: str) -> Runner:
    def run(
        tasks: Sequence[_Task], options: EvaluationOptions, done: Callable[[int, _TaskResult], None]
    ) -> None:
        try:
            from distributed import Client, as_completed
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError(  # words: the command line checks before it gets here
                "a dask scheduler needs dask.distributed: pip install 'napari-mood[cluster]'"
            ) from exc
        try:
            client = Client(address, timeout=f"{SCHEDULER_TIMEOUT_S}s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise MoodInputError(
                None,
                f"cannot reach the dask scheduler at {address!r} ({exc})",
                f"start it (`dask scheduler`) or check {option('--scheduler ADDRESS', 'its address')}",
            ) from exc
        with client:
            futures = client.map(_run_task, list(tasks), options=options, pure=False)
            index = {future.key: i for i, future in enumerate(futures)}
            for future in as_completed(futures):
                done(index[future.key], future.result())

    return run


AUTO_PARALLEL_MIN_BYTES = (
    64 * 2**20
)  # below this much compressed input, processes cost more than they save


def _task_bytes(tasks: Sequence[_Task]) -> int:
    paths = [t.label_path for t in tasks] + [
        p for t in tasks for p in t.maps.values() if p is not None
    ]
    return sum(p.stat().st_size for p in paths if p.is_file())


def _choose_runner(
    tasks: Sequence[_Task], workers: int | None, scheduler: str | None
) -> tuple[Runner, int, str]:
    if scheduler is not None:
        return _run_distributed(scheduler), 0, scheduler
    if workers is None:  # auto: parallel when there is enough to read to pay for the processes
        n = default_workers() if _task_bytes(tasks) >= AUTO_PARALLEL_MIN_BYTES else 1
    else:
        n = workers
    n = max(1, min(n, len(tasks)))
    if n == 1:
        return _run_serial, 1, "serial"
    return _run_local(n), n, "processes"


# --------------------------------------------------------------------------- the engine


def run_evaluation(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    *,
    options: EvaluationOptions,
    workers: int | None,
    scheduler: str | None,
    cache: str | os.PathLike[str] | None,
    progress: Progress | None,
    warn: bool,
) -> tuple[DatasetEvaluation, EngineStats]:
    """Evaluate ``methods`` on ``dataset``: the engine under :func:`napari_mood.evaluate`.

    Every argument is required: the defaults are :func:`napari_mood.evaluate`'s, decided
    there once. ``workers=None`` runs in processes when the files to read add up to at
    least :data:`AUTO_PARALLEL_MIN_BYTES` (starting processes costs about a second).

    Returns
    -------
    DatasetEvaluation
        The metrics, merged in case order (identical for any workers and cache).
    EngineStats
        What the run did.
    """
    store = ResultCache(cache) if cache is not None else None
    cases = sorted(dataset.pixel_labels) if options.needs_maps else []
    labels, found, tasks, keys = _plan(dataset, methods, cases, options, store)
    n_cached = sum(len(f) for f in found.values())
    runner, n_workers, kind = _choose_runner(tasks, workers, scheduler)
    peaks: list[float] = []
    finished = [0]

    def done(i: int, result: _TaskResult) -> None:
        task = tasks[i]
        for message, category in result.warned:  # through this process's filters and printer
            warnings.warn(message, category, stacklevel=2)
        labels[task.case], new = _split(result.evaluation)
        found[task.case].update(new)
        peaks.append(result.peak_memory_mb)
        if store is not None:
            _store(store, keys[task.case], result.evaluation)
        finished[0] += 1
        if progress is not None:
            progress(finished[0], len(tasks), task.case)

    if tasks:
        runner(tasks, options, done)
    evaluations = [_assemble(c, case_maps(dataset, methods, c), labels[c], found[c]) for c in cases]
    result = summarise_dataset(dataset, methods, evaluations, options=options, warn=warn)
    computed = sum(len(t.maps) for t in tasks)
    stats = EngineStats(computed, n_cached, len(tasks), n_workers, kind, max(peaks, default=0.0))
    return result, stats


def _plan(
    dataset: MoodDataset,
    methods: Mapping[str, MethodFolder],
    cases: Sequence[str],
    options: EvaluationOptions,
    store: ResultCache | None,
) -> tuple[dict, dict, list[_Task], dict[str, _CaseKeys]]:
    labels: dict[str, Any] = {}
    found: dict[str, dict[str, Any]] = {}
    tasks: list[_Task] = []
    keys: dict[str, _CaseKeys] = {}
    for case in cases:
        label_path = dataset.pixel_labels[case]
        maps = case_maps(dataset, methods, case)
        scan_path = dataset.scans.get(case)
        keys[case] = _case_keys(case, label_path, maps, options, scan_path)
        label, hits = _from_cache(store, keys[case])
        found[case] = dict(hits)
        if label is not None and (label[0] is None or len(hits) == len(maps)):
            labels[case] = label
            continue
        todo = {name: path for name, path in maps.items() if name not in hits}
        tasks.append(_Task(case, label_path, todo or maps, scan_path))
    return labels, found, tasks, keys
