"""The next case is read ahead and handed over once; a different case is read as asked."""

from __future__ import annotations

import threading

import pytest
from qtpy.QtWidgets import QTableView

from napari_mood._napari import prefetch as prefetch_module
from napari_mood._napari.prefetch import CasePrefetch
from napari_mood.io.methods import find_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.datasets import sample_data_dir
from tests.napari import ui

SAMPLE = sample_data_dir()


@pytest.fixture
def sample():
    dataset = discover_dataset(SAMPLE)
    return dataset, find_methods(SAMPLE)


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """Cases actually read from disk (by the prefetch thread or by ``load``)."""
    seen: list[str] = []
    real = prefetch_module.load_case_layers

    def counted(dataset, case, methods):
        seen.append(case)
        return real(dataset, case, methods)

    monkeypatch.setattr(prefetch_module, "load_case_layers", counted)
    return seen


def test_a_case_read_ahead_is_handed_over_without_reading_it_again(sample, reads):
    dataset, methods = sample
    case = dataset.cases[1]
    prefetch = CasePrefetch()
    prefetch.start(dataset, case, methods)
    prefetch.start(dataset, case, methods)  # asked twice: read once
    loaded = prefetch.load(dataset, case, methods)
    assert loaded.case == case and reads == [case]
    assert [kind for *_, kind in loaded.layers][0] == "image"
    assert prefetch.case is None  # handed over once
    prefetch.load(dataset, case, methods)
    assert reads == [case, case]


def test_another_case_is_read_as_asked(sample, reads):
    dataset, methods = sample
    ahead, asked = dataset.cases[1], dataset.cases[2]
    prefetch = CasePrefetch()
    prefetch.start(dataset, ahead, methods)
    loaded = prefetch.load(dataset, asked, methods)
    assert loaded.case == asked and asked in reads


def test_an_error_met_ahead_is_raised_when_the_case_is_asked_for(sample, monkeypatch):
    dataset, methods = sample
    gate = threading.Event()

    def broken(*_):
        gate.wait(5)
        raise OSError("disk gone")

    monkeypatch.setattr(prefetch_module, "load_case_layers", broken)
    prefetch = CasePrefetch()
    prefetch.start(dataset, dataset.cases[0], methods)
    gate.set()
    with pytest.raises(OSError, match="disk gone"):
        prefetch.load(dataset, dataset.cases[0], methods)


def test_the_browser_reads_the_next_row_ahead(make_napari_viewer, qtbot, reads):
    viewer = make_napari_viewer(show=True)
    _, browser = viewer.window.add_plugin_dock_widget("napari-mood", "Dataset browser")
    browser.evaluate(SAMPLE)
    qtbot.waitUntil(lambda: browser.evaluation is not None and not browser.busy, timeout=60_000)
    first = f"{ui.table_cells(ui.control(browser, 'Cases', QTableView))[0][0]}.nii.gz"
    browser.open_case(first)
    after = browser.next_case(first)
    prefetch = prefetch_module.prefetch_for(browser.session)
    qtbot.waitUntil(lambda: prefetch.case == after, timeout=30_000)
    browser.open_case(after)
    qtbot.waitUntil(lambda: browser.session.case == after, timeout=30_000)
    assert reads.count(after) == 1  # read ahead, not again
