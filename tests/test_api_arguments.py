"""The public API's errors name the argument: TypeError for a wrong type, ValueError for a wrong value.

One table of valid calls of every public function of ``napari_mood/__init__.pyi`` (the
file-reading jobs where a call is quick); each argument in turn is replaced by garbage
(None, a number, text, a path, a NaN, arrays of NaN, empty or of another shape, objects,
lists, dicts). Whatever the function does with it, it never fails with AttributeError,
IndexError, KeyError or MemoryError, and an error names the argument.
"""

from __future__ import annotations

import inspect
import math
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import napari_mood as nm
from napari_mood.core import curves
from napari_mood.core.curves import CurveAccumulator, curve_from_arrays
from napari_mood.io.errors import MoodInputError
from napari_mood.services.simulation import write_toy_dataset

DATA = nm.sample_data_dir()
RNG = np.random.default_rng(0)
SCORES = RNG.random((4, 5, 6)).astype(np.float32)
GT = np.zeros((4, 5, 6), bool)
GT[1:3, 1:3, 1:3] = True
CURVE = curve_from_arrays(SCORES, GT)
ACC = CurveAccumulator()
ACC.add(SCORES, GT)
CASE = nm.describe_case(SCORES, GT, thresholds=[0.5])

# name -> (args, kwargs) of a valid call
CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "auroc": ((SCORES, GT), {}),
    "average_precision": ((SCORES, GT), {}),
    "curve_from_arrays": ((SCORES, GT), {}),
    "batch_average_precision": (([ACC] * 4,), {}),
    "listing_batch_ap": ((["a", "b", "c", "d"], {k: ACC for k in "abcd"}), {}),
    "mood_splits": ((4,), {}),
    "best_object_threshold": (([CASE],), {}),
    "count_objects": (([CASE],), {"threshold": 0.5}),
    "best_threshold": ((CURVE,), {}),
    "confusion_at": ((CURVE, 0.5), {}),
    "fpr_at_tpr": ((CURVE,), {}),
    "bootstrap_ap": (([ACC] * 3,), {"n_boot": 5}),
    "consensus_rank": (([{"a": 1, "b": 2}],), {}),
    "describe_case": ((SCORES, GT), {"thresholds": [0.5]}),
    "flag": ((SCORES, 0.5), {}),
    "gt_mask": ((GT,), {}),
    "kendall_tau_b": (({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2}), {}),
    "match_objects": ((SCORES, GT), {"threshold": 0.5}),
    "rank_methods": (({"a": 1.0, "b": 2.0},), {}),
    "sample_score_from_pixel": ((SCORES,), {}),
    "slice_scores": ((SCORES, GT), {"axis": 0, "threshold": 0.5}),
    "discover_dataset": ((DATA,), {}),
    "discover_methods": ((DATA / "methods",), {}),
    "find_methods": ((DATA,), {}),
    "method_folder": ((DATA / "methods" / "residual",), {}),
}
READERS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "read_label": ((DATA / "toy_label" / "pixel" / "brain_001.nii.gz",), {}),
    "read_scores": ((DATA / "methods" / "residual" / "brain_002.nii.gz",), {}),
    "read_volume": ((DATA / "toy" / "brain_001.nii.gz",), {}),
}

NAN_SCORES = SCORES.copy()
NAN_SCORES[0, 0, 0] = np.nan
GARBAGE: dict[str, Any] = {
    "None": None,
    "int": 123,
    "negative": -3,
    "text": "x",
    "path": DATA / "toy" / "brain_001.nii.gz",
    "nan": math.nan,
    "nan array": NAN_SCORES,
    "empty array": np.array([]),
    "other shape": np.zeros((2, 2)),
    "object": object(),
    "list": [1, 2],
    "dict": {"a": "b"},
}
NOT_ALLOWED = (AttributeError, IndexError, KeyError, MemoryError)
SAID_AS = {("gt_mask", "values"): "labels"}  # the values of a label map


def _arguments(name: str) -> list[str]:
    return list(inspect.signature(getattr(nm, name)).parameters)


def _call_with(name: str, argument: str, value: Any) -> None:
    args, kwargs = CALLS[name]
    names = _arguments(name)
    position = names.index(argument)
    args, kwargs = list(args), dict(kwargs)
    if position < len(args):
        args[position] = value
    else:
        kwargs[argument] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(nm, name)(*args, **kwargs)


def _check_error(name: str, argument: str, value: Any) -> None:
    try:
        _call_with(name, argument, value)
    except NOT_ALLOWED as error:  # pragma: no cover - the failure this test is for
        pytest.fail(f"{name}({argument}={value!r}) raised {type(error).__name__}: {error}")
    except MoodInputError:
        pass  # a data error: names the file by construction (a path that is no folder, ...)
    except (TypeError, ValueError) as error:
        said = str(error)
        word = SAID_AS.get((name, argument), argument)
        named = word in said or word.rstrip("s") in said
        assert named, f"{name}({argument}={value!r}): {type(error).__name__}: {said}"


def test_every_public_function_has_a_valid_call_here():
    functions = {
        n for n in dir(nm) if not n.startswith("_") and inspect.isfunction(getattr(nm, n, None))
    }
    jobs = {"evaluate", "evaluate_boxes", "evaluate_recon", "validate_dataset", "sample_data_dir"}
    assert functions - jobs == set(CALLS) | set(READERS)
    for name, (args, kwargs) in CALLS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(nm, name)(*args, **kwargs)


@pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
@pytest.mark.parametrize("name", sorted(CALLS))
def test_garbage_arguments_raise_an_error_naming_the_argument(name, garbage):
    for argument in _arguments(name):
        _check_error(name, argument, GARBAGE[garbage])


@pytest.mark.parametrize("name", sorted(READERS))
def test_the_nifti_readers_name_a_path_that_is_not_one(name):
    CALLS[name] = READERS[name]
    try:
        _check_error(name, "path", None)
    finally:
        del CALLS[name]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(CALLS)),
    data=st.data(),
    value=st.one_of(
        st.none(),
        st.integers(-(10**6), 10**6),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=5),
        st.lists(st.integers(-3, 3), max_size=3),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
        st.booleans(),
    ),
)
def test_any_value_for_any_argument_fails_only_with_an_error_naming_it(name, data, value):
    argument = data.draw(st.sampled_from(_arguments(name)))
    _check_error(name, argument, value)


# the cases of issue 47, item 4, one by one


@pytest.mark.parametrize("dataset", [123, None])
def test_evaluate_names_a_dataset_that_is_not_a_path(dataset):
    with pytest.raises(TypeError, match=r"^dataset must be a path \(str or os.PathLike\); got"):
        nm.evaluate(dataset)


@pytest.mark.parametrize(
    ("workers", "error", "message"),
    [
        ("2", TypeError, r"^workers must be an integer; got a str \('2'\)$"),
        (0, ValueError, r"^workers must be an integer in \[1, \d+\]; got 0$"),
        (2.0, TypeError, r"^workers must be an integer; got a float"),
    ],
)
def test_evaluate_checks_workers_before_reading_anything(tmp_path, workers, error, message):
    with pytest.raises(error, match=message):
        nm.evaluate(tmp_path / "nothing here", workers=workers)


def test_workers_0_is_refused_by_the_command_line_with_the_same_rule(capsys):
    from napari_mood.cli import main

    with pytest.raises(SystemExit) as caught:
        main(["evaluate", str(DATA), "--workers", "0"])
    assert caught.value.code == 2
    assert "--workers" in capsys.readouterr().err


def test_one_task_named_alone_is_that_task():
    found = nm.evaluate(DATA, tasks="sample", warn=False)
    assert found.result.options.tasks == ("sample",)


def test_an_unknown_task_named_alone_is_named_whole():
    with pytest.raises(ValueError, match="got 'pixels'"):
        nm.evaluate(DATA, tasks="pixels")


def test_fpr_at_tpr_names_a_curve_that_is_missing():
    with pytest.raises(TypeError, match=r"^curve must be a Curve .*; got None$"):
        nm.fpr_at_tpr(None)


def test_evaluate_boxes_names_preds_given_as_one_file():
    with pytest.raises(TypeError, match=r"^preds must be a mapping of names to a box file"):
        nm.evaluate_boxes(DATA / "nova", preds="x.json")


def test_evaluate_boxes_blames_merge_not_the_box_file():
    with pytest.raises(ValueError, match=r"^merge must be one of 'mean', 'union'; got 'max'$"):
        nm.evaluate_boxes(DATA / "nova", merge="max")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scan": None}, TypeError, r"^scan must be a path"),
        ({"out": 5}, TypeError, r"^out must be a path"),
        ({"count": -3}, ValueError, r"^count must be an integer >= 0; got -3$"),
        ({"normal": -1}, ValueError, r"^normal must be an integer >= 0; got -1$"),
        ({"per_case": 0}, ValueError, r"^per_case must be an integer >= 1; got 0$"),
        ({"count": "3"}, TypeError, r"^count must be an integer; got a str"),
    ],
)
def test_write_toy_dataset_names_the_bad_argument(tmp_path, kwargs, error, message):
    call = {"scan": DATA / "toy" / "brain_001.nii.gz", "out": tmp_path / "toy", **kwargs}
    with pytest.raises(error, match=message):
        write_toy_dataset(call.pop("scan"), call.pop("out"), **call)
    assert not (tmp_path / "toy").exists()


def test_batch_ap_names_n_runs_before_the_empty_cases():
    with pytest.raises(ValueError, match=r"^n_runs must be an integer >= 1; got -3$"):
        nm.batch_average_precision([], n_runs=-3)
    with pytest.raises(ValueError, match=r"^accumulators_per_case must hold one"):
        nm.batch_average_precision([])


def test_average_precision_of_a_huge_view_reads_slab_by_slab(monkeypatch):
    shape = (256, 256, 256)  # 16 Mi voxels: one slab by default
    scores = np.broadcast_to(np.linspace(0, 1, 256, dtype=np.float32), shape)
    labels = np.broadcast_to(np.arange(256) > 200, shape)
    whole = nm.average_precision(np.ascontiguousarray(scores), np.ascontiguousarray(labels))
    monkeypatch.setattr(curves, "_STREAM_VOXELS", 256 * 256)  # one plane per slab
    tracemalloc.start()
    try:
        streamed = nm.average_precision(scores, labels)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert streamed == whole
    assert peak < scores.size // 4  # a quarter byte per voxel: no full-size temporary


def test_a_nan_in_a_streamed_array_is_counted_over_every_slab(monkeypatch):
    monkeypatch.setattr(curves, "_STREAM_VOXELS", 4)
    scores = np.zeros((6, 4), np.float32)
    scores[1, 0] = scores[4, 2] = np.nan
    with pytest.raises(ValueError, match="scores contain 2 NaN value"):
        nm.average_precision(scores, np.zeros((6, 4), bool))


def test_a_path_where_an_array_is_expected_says_to_read_it():
    with pytest.raises(TypeError, match=r"^scores must be an array of numbers; got a PosixPath"):
        nm.average_precision(Path("map.nii.gz"), GT)


def _jobs() -> list[tuple[str, Any, str]]:
    from napari_mood.services import figure_job, hypometabolism, pet_sample, sweep

    found = nm.discover_dataset(DATA)
    return [
        ("evaluate_recon", lambda: nm.evaluate_recon(None), "dataset"),
        ("evaluate_recon", lambda: nm.evaluate_recon(DATA, "r", options="x"), "options"),
        ("validate_dataset", lambda: nm.validate_dataset(None, {}), "dataset"),
        ("validate_dataset", lambda: nm.validate_dataset(found, None), "methods"),
        ("validate_dataset", lambda: nm.validate_dataset(found, {}, read_maps="x"), "read_maps"),
        (
            "write_hypometabolism_dataset",
            lambda: hypometabolism.write_hypometabolism_dataset(None, "m", "o"),
            "scans",
        ),
        (
            "write_sweep_dataset",
            lambda: sweep.write_sweep_dataset(None, "o", [1.0], kind="size"),
            "scan",
        ),
        ("write_pet_sample", lambda: pet_sample.write_pet_sample(None), "out"),
        ("write_pet_sample", lambda: pet_sample.write_pet_sample("o", subjects=-3), "subjects"),
        ("write_figure", lambda: figure_job.write_figure(None, {}, "f.png"), "dataset"),
        ("evaluate", lambda: nm.evaluate(DATA, options="x"), "options"),
        ("evaluate", lambda: nm.evaluate(DATA, methods=[1]), "methods"),
        ("evaluate_boxes", lambda: nm.evaluate_boxes(None), "dataset"),
        ("evaluate_boxes", lambda: nm.evaluate_boxes(DATA / "nova", iou="0.5"), "iou"),
        ("evaluate_boxes", lambda: nm.evaluate_boxes(DATA / "nova", merge_iou=1.0), "merge_iou"),
    ]


@pytest.mark.parametrize("index", range(15))
def test_the_jobs_name_a_wrong_argument_before_any_work(tmp_path, monkeypatch, index):
    monkeypatch.chdir(tmp_path)
    name, call, argument = _jobs()[index]
    with pytest.raises((TypeError, ValueError)) as caught:
        call()
    assert not isinstance(caught.value, MoodInputError), name
    assert str(caught.value).startswith(argument), (name, str(caught.value))
    assert list(tmp_path.iterdir()) == []  # nothing written
