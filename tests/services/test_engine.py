"""Parallel, cluster and cached evaluation give the serial numbers, bit for bit."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.core.results import EvaluationOptions
from napari_mood.io.errors import MoodInputWarning
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.evaluation import evaluate

OPTIONS = EvaluationOptions(tasks=("pixel", "sample", "object"), object_threshold=0.4)


def _json(result) -> str:
    return json.dumps(result.to_dict(), sort_keys=True, allow_nan=False)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(sample_data_dir(), root, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def _run(root: Path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MoodInputWarning)
        found = evaluate(root, options=OPTIONS, **kwargs)
    return found.result, found.stats


@pytest.fixture
def serial_json(dataset: Path) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MoodInputWarning)
        result = evaluate(dataset, options=OPTIONS, workers=1).result
    return _json(result)


@pytest.mark.slow
def test_local_processes_equal_serial(dataset, serial_json):
    result, stats = _run(dataset, workers=2)
    assert stats.scheduler == "processes" and stats.workers == 2 and stats.computed == 21
    assert _json(result) == serial_json
    assert stats.peak_memory_mb > 0


@pytest.mark.slow
def test_distributed_local_cluster_equals_serial(dataset, serial_json):
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cluster start-up chatter is not ours to judge
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
    try:
        result, stats = _run(dataset, scheduler=cluster.scheduler_address)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cluster.close()
    assert stats.scheduler == cluster.scheduler_address
    assert _json(result) == serial_json


def test_cache_recomputes_only_what_changed(dataset, serial_json, tmp_path):
    cache = tmp_path / "cache"
    first, stats = _run(dataset, workers=1, cache=cache)
    assert (stats.computed, stats.cached) == (21, 0) and _json(first) == serial_json
    again, stats = _run(dataset, workers=1, cache=cache)
    assert (stats.computed, stats.cached, stats.cases_read) == (21 - 21, 21, 0)
    assert _json(again) == serial_json

    # change one map: only that (case, method) is recomputed, and the numbers follow
    target = dataset / "methods" / "residual" / "brain_001.nii.gz"
    img = nib.load(target)
    nib.save(nib.Nifti1Image(np.zeros(img.shape, np.float32), img.affine), str(target))
    changed, stats = _run(dataset, workers=1, cache=cache)
    assert (stats.computed, stats.cached, stats.cases_read) == (1, 20, 1)
    fresh, _ = _run(dataset, workers=1)
    assert _json(changed) == _json(fresh) != serial_json

    # a new method: only its cases are computed
    shutil.copytree(dataset / "methods" / "oracle_noisy", dataset / "methods" / "copy")
    _, stats = _run(dataset, workers=1, cache=cache)
    assert (stats.computed, stats.cached) == (7, 21)


def test_cache_entries_depend_on_options(dataset, tmp_path):
    cache = tmp_path / "cache"
    _run(dataset, workers=1, cache=cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MoodInputWarning)
        options = EvaluationOptions(tasks=("pixel", "sample", "object"), object_threshold=0.6)
        stats = evaluate(dataset, options=options, workers=1, cache=cache).stats
    assert stats.cached == 0 and stats.computed == 21
