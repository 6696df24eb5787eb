"""The review queue reads its next case ahead and hands it over."""

from __future__ import annotations

from napari_mood._napari import prefetch as prefetch_module
from napari_mood.services.datasets import sample_data_dir
from tests.napari.test_prefetch import reads  # noqa: F401  (fixture)
from tests.napari.widgets.test_review import _open, _wait

SAMPLE = sample_data_dir()


def test_the_review_queue_reads_its_next_case_ahead(
    make_napari_viewer,
    qtbot,
    review_dir,
    reads,  # noqa: F811
):
    viewer, widget = _open(make_napari_viewer, qtbot, SAMPLE, "residual")
    widget.step_case(1)  # a case opened from the queue
    qtbot.waitUntil(
        lambda: widget.queue is not None and widget.session.case in reads, timeout=30_000
    )
    shown = widget.session.case
    after = widget.queue.step(shown, 1)
    prefetch = prefetch_module.prefetch_for(widget.session)
    qtbot.waitUntil(lambda: prefetch.case == after and prefetch.ready, timeout=30_000)
    _wait(qtbot, widget, "residual")
    widget.step_case(1)
    qtbot.waitUntil(lambda: widget.session.case == after, timeout=30_000)
    assert reads.count(after) == 1  # read ahead, handed over, not read again
