"""The next case at once: N at the last region shows the case read ahead with its regions.

The review queue reads the next case ahead (:mod:`napari_mood._napari.prefetch`) and the
review panel's job finds that case's flagged regions in the same thread; N then shows the
case without a worker round trip and the panel shows its regions without searching again.
"""

from __future__ import annotations

import pytest
from qtpy.QtCore import Qt

from napari_mood._napari import prefetch as prefetch_module
from napari_mood._napari.widgets import review as review_module
from napari_mood.services.datasets import sample_data_dir
from tests.napari.widgets.test_review import _open, _wait
from tests.napari.widgets.test_review_never_misfires import _click_canvas, _press

SAMPLE = sample_data_dir()
METHOD = "residual"


@pytest.fixture
def searches(monkeypatch) -> list[str]:
    """Cases whose regions the review panel's own worker searched."""
    seen: list[str] = []
    real = review_module._REGIONS_SHOWN

    def counted(snapshot, gt, *, case, **kwargs):
        seen.append(case)
        return real(snapshot, gt, case=case, **kwargs)

    monkeypatch.setattr(review_module, "_REGIONS_SHOWN", counted)
    return seen


def _read_ahead(qtbot, widget):
    """Open the queue's first case; wait until its next case and regions are read ahead."""
    shown = widget.session.case
    assert widget.step_case(1)
    qtbot.waitUntil(lambda: widget.session.case != shown, timeout=30_000)
    _wait(qtbot, widget, METHOD)
    after = widget.queue.step(widget.session.case, 1)
    prefetch = prefetch_module.prefetch_for(widget.session)
    qtbot.waitUntil(lambda: prefetch.case == after and prefetch.ready, timeout=60_000)
    return after


def test_n_at_the_last_region_shows_the_next_case_with_its_regions_made_ahead(
    make_napari_viewer, qtbot, review_dir, searches
):
    viewer, widget = _open(make_napari_viewer, qtbot, SAMPLE, METHOD)
    after = _read_ahead(qtbot, widget)
    assert widget.regions, "the sample's first case has flagged regions"
    widget.go_to(len(widget.regions) - 1)
    searched = list(searches)
    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_N)
    assert widget.session.case == after  # shown in the key press's turn: no worker hop
    qtbot.waitUntil(lambda: bool(widget.regions) and widget.current_region is not None)
    assert widget._found.case == after and widget._found.method == METHOD
    _wait(qtbot, widget, METHOD)  # the panel's own timer ran, and searched nothing
    assert searches == searched
    assert widget._found.case == after


def test_regions_of_another_threshold_are_searched_again(
    make_napari_viewer, qtbot, review_dir, searches
):
    viewer, widget = _open(make_napari_viewer, qtbot, SAMPLE, METHOD)
    after = _read_ahead(qtbot, widget)
    threshold = widget.session.threshold(METHOD)
    widget.session.set_threshold(METHOD, min(threshold + 0.05, 1.0))  # after the read ahead
    _wait(qtbot, widget, METHOD)
    widget.step_case(1)
    qtbot.waitUntil(lambda: widget.session.case == after, timeout=30_000)
    _wait(qtbot, widget, METHOD)
    assert searches[-1] == after  # the held regions are another threshold's
    assert widget._found.threshold == widget.session.threshold(METHOD)
