"""The result cache: plain data, checksummed, content-stamped; a bad entry is a miss."""

from __future__ import annotations

import os
import shutil
import stat
import warnings
from pathlib import Path

import numpy as np
import pytest

from napari_mood.core.results import EvaluationOptions
from napari_mood.io.errors import MoodInputWarning
from napari_mood.io.methods import find_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.cache import ResultCache, file_stamp
from napari_mood.services.case_scoring import evaluate_case
from napari_mood.services.evaluation import evaluate
from napari_mood.services.formats import format_json
from tests.conftest import make_mood_folder

OPTIONS = EvaluationOptions(tasks=("pixel", "sample", "object"), object_threshold="auto")


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    rng = np.random.default_rng(3)
    labels, maps = {}, {}
    for i in range(3):
        mask = np.zeros((10, 11, 12), bool)
        mask[3:6, 4:7, 2 + i : 6 + i] = True
        labels[f"c{i}"] = mask
        maps[f"c{i}"] = np.clip(mask * 0.7 + rng.normal(0.2, 0.15, mask.shape), 0, 1)
    root, preds = make_mood_folder(
        tmp_path,
        labels,
        {"m": {k: v.astype(np.float32) for k, v in maps.items()}},
        sample_labels={f"c{i}": str(int(i > 0)) for i in range(3)},
        sample_scores={"m": {f"c{i}": f"0.{i + 3}" for i in range(3)}},
    )
    preds.rename(root / "methods")
    return root


def _json(dataset: Path, cache: Path | None, mode: str = "mood") -> tuple[str, object]:
    options = EvaluationOptions(tasks=OPTIONS.tasks, object_threshold="auto", mode=mode)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MoodInputWarning)
        found = evaluate(dataset, options=options, workers=1, cache=cache)
    return format_json(found.result), found.stats


@pytest.mark.parametrize("mode", ["mood", "exact"])
def test_cached_results_equal_computed_ones(dataset: Path, tmp_path: Path, mode: str):
    fresh, _ = _json(dataset, None, mode)
    first, stats = _json(dataset, tmp_path / "cache", mode)
    again, hits = _json(dataset, tmp_path / "cache", mode)
    assert fresh == first == again
    assert (stats.computed, stats.cached) == (3, 0) and (hits.computed, hits.cached) == (0, 3)
    assert not list((tmp_path / "cache").rglob("*.pkl"))  # plain data only


def test_round_trip_of_one_case(dataset: Path, tmp_path: Path):
    ds, methods = discover_dataset(dataset), find_methods(dataset)
    case = "c1.nii.gz"
    evaluation = evaluate_case(
        case, ds.pixel_labels[case], {"m": methods["m"].pixel[case]}, options=OPTIONS
    )
    cache = ResultCache(tmp_path / "c")
    key = ResultCache.key("k")
    cache.put_method(key, (evaluation.methods["m"], evaluation.problems))
    result, problems = cache.get_method(key)
    original = evaluation.methods["m"]
    for a, b in zip(result.accumulator.histogram(), original.accumulator.histogram(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert result.objects.thresholds == original.objects.thresholds
    assert [lvl.n_flagged for lvl in result.objects.levels] == [
        lvl.n_flagged for lvl in original.objects.levels
    ]
    assert problems == evaluation.problems


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.npz"))


def test_every_damaged_entry_is_a_miss_never_a_wrong_number(dataset: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    truth, _ = _json(dataset, cache)
    pristine = {p: p.read_bytes() for p in _entries(cache)}
    rng = np.random.default_rng(0)
    for trial in range(40):
        path = list(pristine)[trial % len(pristine)]
        blob = bytearray(pristine[path])
        position = int(rng.integers(len(blob)))
        blob[position] ^= 1 << int(rng.integers(8))  # one flipped bit
        path.write_bytes(bytes(blob))
        result, _ = _json(dataset, cache)
        assert result == truth, f"trial {trial}: flipped bit at {position} of {path.name}"
        path.write_bytes(pristine[path])
    for damage in (b"", b"random bytes" * 9, pristine[next(iter(pristine))][:100]):
        for path in pristine:
            path.write_bytes(damage)
        result, stats = _json(dataset, cache)
        assert result == truth and stats.computed == 3


def test_content_change_that_keeps_size_and_mtime_is_seen(dataset: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    _json(dataset, cache)
    a = dataset / "methods" / "m" / "c0.nii.gz"
    b = dataset / "methods" / "m" / "c1.nii.gz"
    before = file_stamp(a)
    backup = tmp_path / "c0.bak"
    shutil.copy2(a, backup)
    shutil.copy2(b, a)  # cp -p: other content, other mtime
    os.utime(a, ns=(before[2], before[2]))  # touch -r: the old mtime back
    assert file_stamp(a)[2] == before[2]
    changed, stats = _json(dataset, cache)
    fresh, _ = _json(dataset, None)
    assert changed == fresh and stats.computed == 1


def test_unwritable_cache_is_a_warning_and_the_run_goes_on(dataset: Path, tmp_path: Path):
    if os.geteuid() == 0:
        pytest.skip("root can write anywhere")
    cache = tmp_path / "ro"
    cache.mkdir()
    cache.chmod(stat.S_IRUSR | stat.S_IXUSR)
    with pytest.warns(MoodInputWarning, match="cannot be written"):
        result = evaluate(dataset, options=OPTIONS, workers=1, cache=cache).result
    assert result.methods["m"].pixel.ap > 0


def test_cache_folder_that_is_a_file_is_a_warning(dataset: Path, tmp_path: Path):
    cache = tmp_path / "file"
    cache.write_text("x")
    with pytest.warns(MoodInputWarning, match="cannot be written"):
        evaluate(dataset, options=OPTIONS, workers=1, cache=cache)
    assert cache.read_text() == "x"


def test_keys_depend_on_the_package_version(monkeypatch):
    import napari_mood.services.cache as module

    first = ResultCache.key("m", 1)
    monkeypatch.setattr(module, "__version__", "0.0.0-other")
    assert ResultCache.key("m", 1) != first
