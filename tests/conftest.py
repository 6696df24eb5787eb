"""Shared fixtures: tiny NIfTI files and MOOD-layout folders written to tmp_path."""

from __future__ import annotations

import gc
import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# CI machines are small and shared: no per-example deadline, no "too slow" health check
settings.register_profile(
    "napari-mood", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("napari-mood")

# Started in the background (`nohup ... &`), Ctrl-C arrives ignored and every child would
# inherit that: the tests that send SIGINT to a command must see it as a user's terminal does
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

WriteNifti = Callable[..., Path]

# The screen xvfb-run gives (its default server arguments): a worker's own display is the same
XVFB_SCREEN = "1280x1024x24"
# This worker's Xvfb (see _own_display): the pipe end that keeps it, and its process id
_DISPLAYS_KEPT: list[tuple[int, int]] = []


def pytest_configure(config: pytest.Config) -> None:
    """Give each pytest-xdist worker its own virtual display (see :func:`_own_display`)."""
    if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("DISPLAY"):
        _own_display()


def _own_display() -> None:
    """Start an Xvfb for this worker and point ``DISPLAY`` at it (before Qt is imported).

    Workers sharing the display ``xvfb-run`` made would share one keyboard focus: one
    worker's window activated takes the focus from the other's, and a test that clicks the
    canvas and presses keys sees them land elsewhere. Xvfb writes its display number to
    ``-displayfd`` once it accepts clients, so nothing is waited on but that. It ends with
    the worker: a detached shell stops it when the pipe the worker keeps open (a bare file
    descriptor, closed only by the worker's exit, after Qt's own connection is gone) reaches
    its end; stopped earlier, Qt exits with "The X11 connection broke". Without Xvfb (a
    desktop), the workers share the desktop's display.
    """
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        return
    ready, number_end = os.pipe()
    alive, keep = os.pipe()
    script = (  # the pipe is the shell's standard input, fd 3 in its detached part
        f'exec 3<&0; ("$0" -displayfd {number_end} -screen 0 {XVFB_SCREEN} -nolisten tcp'
        " >/dev/null 2>&1 & echo $!; read _ <&3; kill $!) &"
    )
    with subprocess.Popen(
        ["sh", "-c", script, xvfb],
        pass_fds=(number_end,),
        stdin=alive,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C sent to the test run's group is not Xvfb's to hear
    ) as starter:
        assert starter.stdout is not None
        pid = int(starter.stdout.readline())
    os.close(number_end)
    os.close(alive)
    with os.fdopen(ready) as answer:
        number = answer.readline().strip()  # "" when Xvfb ended without a display
    if not number:
        raise pytest.UsageError(f"{xvfb} could not start a display for this test worker")
    os.environ["DISPLAY"] = f":{number}"
    _DISPLAYS_KEPT.append((keep, pid))


TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
# Where a test needs a display (and napari): the napari wing's tests and doctests
GUI_FOLDERS = (TESTS / "napari", ROOT / "napari_mood" / "_napari")
GUI_FIXTURES = frozenset({"make_napari_viewer", "qtbot"})
# The slowest non-GUI tests (modules or test functions, all their parameters): about 1 s or
# more each on an idle 2-core machine, measured with `--durations=60` on the fast subset.
# `python -m pytest -m "not gui and not slow"` leaves them out (the full suite runs them).
SLOW_TESTS: frozenset[str] = frozenset(
    {
        "tests/services/test_figures.py",
        "tests/services/test_journal_figures.py",
        "tests/cli/test_analyses.py::test_categories_command",
        "tests/cli/test_analyses.py::test_sweep_then_report",
        "tests/cli/test_cli.py::test_batches_equal_official_bootstrap_dir",
        "tests/cli/test_cli.py::test_json_equals_official_on_sample_data",
        "tests/cli/test_cli.py::test_object_auto_threshold_warns_optimistic_and_toy_is_used",
        "tests/cli/test_vocabulary.py::test_a_missing_dependency_is_one_line_before_any_work",
        "tests/core/test_metrics.py::test_exact_mode_equals_sklearn_on_float32",
        "tests/core/test_objects.py::test_describe_and_count_equal_match_objects",
        "tests/core/test_objects.py::test_labelled_match_equals_match_objects_and_object_labels",
        "tests/io/test_streamed.py::test_any_unit_range_float32_map",
        "tests/services/test_cache.py::test_content_change_that_keeps_size_and_mtime_is_seen",
        "tests/services/test_cache.py::test_every_damaged_entry_is_a_miss_never_a_wrong_number",
        "tests/services/test_categories.py::test_local_category_pixel_ap_equals_sklearn",
        "tests/services/test_display.py::test_float16_display_range_equals_the_finite_min_and_max",
        "tests/services/test_engine.py::test_cache_entries_depend_on_options",
        "tests/services/test_engine.py::test_cache_recomputes_only_what_changed",
        "tests/services/test_notebook_examples.py::test_mood_example_prints_the_official_scorers_ap",
        "tests/services/test_recon.py::test_formats_and_plot",
        "tests/services/test_report.py::test_report_files_and_html",
        "tests/services/test_review.py::test_processes_writing_at_once_lose_nothing",
        "tests/services/test_run_method.py::test_existing_output_needs_force",
        "tests/services/test_run_method.py::test_statuses_outputs_and_inputs_untouched",
        "tests/services/test_sweep.py::test_contrast_sweep_is_a_bathtub",
        "tests/services/test_sweep.py::test_size_sweep_ap_by_hand",
        "tests/test_bad_inputs.py::test_a_bit_flipped_map_costs_only_its_case",
        "tests/test_bad_inputs.py::test_an_interrupted_run_leaves_no_output_folder",
        "tests/test_bad_inputs_cli.py::test_a_reader_that_goes_away_is_not_an_error",
        "tests/test_bad_inputs_cli.py::test_the_maxima_themselves_are_accepted",
        "tests/test_bad_inputs_cli.py::test_unwritable_standard_output_is_one_line_and_exit_1",
        "tests/test_bad_inputs_files.py::test_a_case_repeated_in_one_category_is_accepted",
        "tests/test_bad_inputs_run.py::test_a_map_with_nan_is_unreadable",
        "tests/test_bad_inputs_run.py::test_every_process_of_a_case_ends_with_it",
        "tests/test_bad_inputs_sweep_options.py::test_categories_run_has_no_matplotlib_warning",
        "tests/test_docs_site.py",  # builds the documentation site
        "tests/test_nova_sample_reproducible.py::test_nova_sample_regenerates_bit_for_bit",
        "tests/test_package.py::test_every_import_is_declared",
        "tests/test_package.py::test_gui_free_layers_import_no_gui",
    }
)
# Set on tests marked gui only for living under a GUI folder (not for a viewer fixture or an
# explicit mark): they need napari but no display (tests/napari/conftest.py skips the others)
HEADLESS_GUI = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark GUI tests ``gui`` and the slowest ``slow``, so ``-m`` can select a fast subset."""
    for item in items:
        if _needs_gui(item):
            item.stash[HEADLESS_GUI] = not (_uses_viewer(item) or item.get_closest_marker("gui"))
            item.add_marker(pytest.mark.gui)
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)


def _needs_gui(item: pytest.Item) -> bool:
    path = Path(str(item.path)).resolve()
    in_gui_folder = any(folder == path or folder in path.parents for folder in GUI_FOLDERS)
    return in_gui_folder or _uses_viewer(item)


def _is_slow(item: pytest.Item) -> bool:
    test = item.nodeid.split("[")[0]
    return test in SLOW_TESTS or test.split("::")[0] in SLOW_TESTS


def _uses_viewer(item: pytest.Item) -> bool:
    return bool(GUI_FIXTURES & set(getattr(item, "fixturenames", ())))


@pytest.fixture(autouse=True)
def _long_lived_objects_frozen(request: pytest.FixtureRequest) -> None:
    """Before a GUI test, freeze what exists: napari collects garbage per removed layer.

    napari runs a full ``gc.collect()`` for every layer removed from a canvas (a Windows
    OpenGL workaround in ``VispyCanvas._clean_and_update_scenegraph``). A full collection
    walks every object the test session has made so far (the modules and leftovers of
    ~2,800 tests: 0.5 s or more each), many times per viewer closed: 17-38 s teardowns
    in a whole run. Frozen (:func:`gc.freeze`, as napari-mood's window does at start),
    the objects made before the test are skipped; the test's own objects are collected
    as before.
    """
    if request.node.get_closest_marker("gui") is not None:
        gc.collect()
        gc.freeze()


def write_nifti(path: Path, data: np.ndarray, affine: np.ndarray | None = None) -> Path:
    """Write ``data`` as NIfTI at ``path`` (parents created) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(np.asarray(data), np.eye(4) if affine is None else affine), str(path))
    return path


@pytest.fixture
def nifti(tmp_path: Path) -> WriteNifti:
    """Write a NIfTI file under tmp_path: ``nifti("a/b.nii.gz", data, affine=None)``."""

    def _write(name: str, data: np.ndarray, affine: np.ndarray | None = None) -> Path:
        return write_nifti(tmp_path / name, data, affine)

    return _write


def make_mood_folder(
    root: Path,
    labels: Mapping[str, np.ndarray],
    methods: Mapping[str, Mapping[str, np.ndarray]],
    *,
    sample_labels: Mapping[str, str] | None = None,
    sample_scores: Mapping[str, Mapping[str, str]] | None = None,
    affine: np.ndarray | None = None,
) -> tuple[Path, Path]:
    """Write a MOOD dataset (toy/, toy_label/) and methods under ``root/preds``.

    ``labels`` and ``methods[m]`` are keyed by case stem (``case`` -> ``case.nii.gz``);
    sample files hold the given text verbatim. Returns ``(dataset_dir, preds_dir)``.
    """
    dataset, preds = root / "data", root / "preds"
    for case, mask in labels.items():
        write_nifti(dataset / "toy" / f"{case}.nii.gz", mask.astype(np.float32), affine)
        write_nifti(
            dataset / "toy_label" / "pixel" / f"{case}.nii.gz", mask.astype(np.uint8), affine
        )
    for case, text in (sample_labels or {}).items():
        _write_text(dataset / "toy_label" / "sample" / f"{case}.nii.gz.txt", text)
    for method, maps in methods.items():
        (preds / method).mkdir(parents=True, exist_ok=True)
        for case, data in maps.items():
            write_nifti(preds / method / f"{case}.nii.gz", data, affine)
    for method, scores in (sample_scores or {}).items():
        for case, text in scores.items():
            _write_text(preds / method / f"{case}.nii.gz.txt", text)
    return dataset, preds


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
