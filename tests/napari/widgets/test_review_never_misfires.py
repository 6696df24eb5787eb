"""Review that never misfires (issue 36): keys wherever focus is, never in text fields,
blind review hiding earlier verdicts, the end of the queue said, Objects' N / P.

Driven as a user: clicks on the canvas, keys to the focused widget, a floated panel.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from qtpy.QtCore import QPoint, Qt
from qtpy.QtWidgets import (
    QApplication,
    QDockWidget,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from napari_mood._napari.viewer import load_into_viewer
from napari_mood._napari.widgets.objects import ObjectsWidget
from napari_mood._napari.widgets.review import ReviewWidget
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.review_store import read_journal, read_reviews
from tests.napari.widgets.test_review import (
    _control,
    _open,
    _verdict_button,
    _wait,
    needs_sample,
)

SHOTS: Path | None = None  # the running test's tmp_path: set by _shots_in_tmp_path


@pytest.fixture(autouse=True)
def _shots_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Screenshots go to the test's own tmp_path, never to a shared folder."""
    monkeypatch.setitem(globals(), "SHOTS", tmp_path)


def _canvas(viewer):
    return viewer.window._qt_viewer.canvas.native


def _activate(qtbot, window) -> None:
    window.activateWindow()
    window.raise_()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)


def _click_canvas(viewer, qtbot) -> None:
    """Click the canvas as a user does: its window becomes active, the canvas has focus."""
    _activate(qtbot, viewer.window._qt_window)
    canvas = _canvas(viewer)
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(20, 20))
    canvas.setFocus()  # a real click gives focus; QTest's synthetic one may not
    qtbot.waitUntil(lambda: QApplication.focusWidget() is canvas, timeout=3000)


def _press(qtbot, key: Qt.Key) -> None:
    """A key typed to the widget with the keyboard focus (where Qt sends it)."""
    target = QApplication.focusWidget() or QApplication.activeWindow()
    qtbot.keyClick(target, key)
    qtbot.wait(20)


def _dock_of(viewer, widget: QWidget) -> QDockWidget:
    window = viewer.window._qt_window
    return next(d for d in window.findChildren(QDockWidget) if d.isAncestorOf(widget))


def _rows(widget: ReviewWidget) -> int:
    path = widget.review_path
    return 0 if path is None or not path.exists() else len(read_journal(path))


def _shot(widget: QWidget, name: str) -> None:
    """Save a picture of ``widget`` in the test's tmp_path (a module using it imports the fixture)."""
    assert SHOTS is not None, "import _shots_in_tmp_path next to _shot: pictures go to tmp_path"
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / name))


# --------------------------------------------------------------------------- keys


@needs_sample
def test_keys_work_from_the_canvas_with_the_review_panel_floated(
    make_napari_viewer, qtbot, review_dir
):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    dock = _dock_of(viewer, widget)
    dock.setFloating(True)
    qtbot.waitUntil(dock.isFloating, timeout=3000)
    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_T)
    qtbot.waitUntil(lambda: _rows(widget) == 1, timeout=3000)  # was 0: keys on the float
    assert read_reviews(widget.review_path)[0].verdict == "true finding"
    assert widget.current_index == 1
    _press(qtbot, Qt.Key.Key_N)
    assert widget.current_index == 2

    _activate(qtbot, dock)  # the floated panel's own window
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus, timeout=3000)
    _press(qtbot, Qt.Key.Key_F)
    assert _rows(widget) == 2 and widget.current_index == 3
    _press(qtbot, Qt.Key.Key_P)
    assert widget.current_index == 2
    _press(qtbot, Qt.Key.Key_Z)  # undo: the false alarm is taken back
    assert len(read_reviews(widget.review_path)) == 1
    _shot(dock, "review-floated.png")

    dock.setFloating(False)  # docked again: still from the canvas
    qtbot.waitUntil(lambda: not dock.isFloating(), timeout=3000)
    _click_canvas(viewer, qtbot)
    before = widget.current_index
    _press(qtbot, Qt.Key.Key_N)
    assert widget.current_index == before + 1


def _text_dock(viewer) -> tuple[QLineEdit, QPlainTextEdit, QSpinBox]:
    holder = QWidget()
    fields = (QLineEdit(holder), QPlainTextEdit(holder), QSpinBox(holder))
    layout = QVBoxLayout(holder)
    for field in fields:
        layout.addWidget(field)
    viewer.window.add_dock_widget(holder, name="Text fields", area="left")
    return fields


@needs_sample
def test_keys_never_fire_inside_a_text_field(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    line, text, spin = _text_dock(viewer)
    dock = _dock_of(viewer, widget)
    dock.setFloating(True)
    qtbot.waitUntil(dock.isFloating, timeout=3000)
    _activate(qtbot, dock)
    note = _control(
        widget, "note"
    )  # in the floated panel (the reviewer field is remembered: left alone)
    note.setFocus()
    qtbot.waitUntil(note.hasFocus, timeout=3000)
    for key in (Qt.Key.Key_T, Qt.Key.Key_N, Qt.Key.Key_Z):
        _press(qtbot, key)
    _activate(qtbot, viewer.window._qt_window)
    for field in (line, text, spin):  # in the main window
        field.setFocus()
        qtbot.waitUntil(field.hasFocus, timeout=3000)
        for key in (Qt.Key.Key_F, Qt.Key.Key_P, Qt.Key.Key_U):
            _press(qtbot, key)
    assert _rows(widget) == 0 and widget.current_index == 0
    assert _control(widget, "note").text() == "tnz" and line.text() == "fpu"
    assert text.toPlainText() == "fpu"
    _click_canvas(viewer, qtbot)  # out of the text field: the keys work again
    _press(qtbot, Qt.Key.Key_U)
    assert _rows(widget) == 1


@needs_sample
def test_objects_keys_work_from_the_canvas_and_review_keys_win(
    make_napari_viewer, qtbot, review_dir
):
    viewer = make_napari_viewer(show=True)
    load_into_viewer(viewer, [sample_data_dir()])
    _, objects = viewer.window.add_plugin_dock_widget("napari-mood", "Object matching")
    assert isinstance(objects, ObjectsWidget)
    objects._method.setCurrentText("residual")  # 22 flagged regions
    qtbot.waitUntil(
        lambda: [r.method for r in objects.results] == ["residual"] and not objects.busy,
        timeout=15000,
    )
    table = objects._table
    assert table.rowCount() > 2
    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_N)
    assert table.currentRow() == 0  # was -1: N / P only with focus in the panel
    _press(qtbot, Qt.Key.Key_N)
    assert table.currentRow() == 1
    _press(qtbot, Qt.Key.Key_P)
    assert table.currentRow() == 0

    _, review = viewer.window.add_plugin_dock_widget("napari-mood", "Review flagged regions")
    review.select_method("residual")
    _wait(qtbot, review, "residual")
    objects_dock = _dock_of(viewer, objects)
    objects_dock.setFloating(True)  # both shown: Objects beside, floated
    qtbot.waitUntil(objects_dock.isFloating, timeout=3000)
    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_N)
    assert review.current_index == 1 and table.currentRow() == 0  # the review's N
    _activate(qtbot, objects_dock)
    table.setFocus()  # focus in the Objects panel: its own N / P
    qtbot.waitUntil(table.hasFocus, timeout=3000)
    _press(qtbot, Qt.Key.Key_N)
    assert table.currentRow() == 1 and review.current_index == 1
    _dock_of(viewer, review).hide()  # review hidden: N / P are the Objects' again
    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_N)
    assert table.currentRow() == 2 and review.current_index == 1


@needs_sample
def test_two_viewers_keys_go_to_the_active_one(make_napari_viewer, qtbot, review_dir, mood_dataset):
    first, first_review = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    second, second_review = _open(make_napari_viewer, qtbot, mood_dataset, "a")
    assert first_review.review_path != second_review.review_path  # one file per dataset
    for viewer, review in ((second, second_review), (first, first_review)):
        _click_canvas(viewer, qtbot)
        _press(qtbot, Qt.Key.Key_U)  # not ambiguous: only the active window's keys are on
        assert _rows(review) == 1
    assert _rows(second_review) == 1 and _rows(first_review) == 1


# --------------------------------------------------------------------------- blind


@needs_sample
def test_blind_review_hides_earlier_verdicts_notes_and_names(make_napari_viewer, qtbot, review_dir):
    viewer, widget = _open(make_napari_viewer, qtbot, sample_data_dir(), "residual")
    session = widget.session
    target = widget.current_region
    _control(widget, "note").setText("seen open: obvious lesion")
    assert widget.set_verdict("true finding")
    widget.step(1)
    _control(widget, "note").setText("a draft typed before blind review")
    draft_region = widget.current_region
    viewer.layers.selection.active = session.method("residual").layer  # as the issue saw

    widget.set_blind(True)
    _wait(qtbot, widget, "residual")
    ids = [r.object_id for r in widget.regions]
    widget.go_to(ids.index(target.object_id))
    assert widget.verdicts == {}  # the non-blind verdict is not this read's
    assert (
        _control(widget, "current").text() == "Verdict: —" and _control(widget, "note").text() == ""
    )
    verdicts = ("true finding", "false alarm", "unsure")
    assert not any(_verdict_button(widget, v).isChecked() for v in verdicts)
    assert _control(widget, "progress").text().startswith("Reviewed 0 of")
    _shot(widget, "review-blind.png")
    widget.go_to(ids.index(draft_region.object_id))
    assert _control(widget, "note").text() == ""  # nor the note drafted before
    widget.go_to(ids.index(target.object_id))
    _check_no_name_shown(viewer, widget, qtbot)

    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_F)  # the blind verdict: a row like any other
    blind = [r for r in read_reviews(widget.review_path) if r.blind_seed is not None]
    assert [(r.object_id, r.verdict, r.blind_seed) for r in blind] == [
        (target.object_id, "false alarm", widget.blind_seed)
    ]
    assert blind[0].method == "residual"  # the real method, for the report only
    _press(qtbot, Qt.Key.Key_Z)  # undo: the earlier open verdict is kept
    (kept,) = read_reviews(widget.review_path)
    assert (kept.verdict, kept.note, kept.blind_seed) == (
        "true finding",
        "seen open: obvious lesion",
        None,
    )
    widget.set_blind(False)
    _wait(qtbot, widget, "residual")
    assert widget.verdicts[target.object_id].verdict == "true finding"
    widget.go_to([r.object_id for r in widget.regions].index(draft_region.object_id))
    assert _control(widget, "note").text() == "a draft typed before blind review"
    assert session.blind is False
    assert viewer.layers.selection.active is session.method("residual").layer  # given back


def _check_no_name_shown(viewer, widget: ReviewWidget, qtbot) -> None:
    """Nothing on screen names the reviewed method: panel texts and the status bar."""
    names = widget.session.method_names
    canvas = _canvas(viewer)
    centre = QPoint(canvas.width() // 2, canvas.height() // 2)
    for dx in (0, 4, 8):
        qtbot.mouseMove(canvas, centre + QPoint(dx, dx))
        qtbot.wait(30)
    qtbot.wait(200)  # napari's own status thread answers a moment later
    texts = [str(viewer.status), viewer.title, _control(widget, "position").text()]
    texts += [
        _control(widget, "method").itemText(i) for i in range(_control(widget, "method").count())
    ]
    texts += [_control(widget, "queue_label").text(), _control(widget, "current").text()]
    for name in names:
        assert not any(name in text for text in texts), (name, texts)


# --------------------------------------------------------------------------- queue end


def test_next_at_the_last_region_of_the_last_case_says_so(
    make_napari_viewer, qtbot, review_dir, mood_dataset
):
    viewer, widget = _open(make_napari_viewer, qtbot, mood_dataset, "a")
    last = "case_1.nii.gz"  # the queue is sorted: case_0, case_1
    if widget.session.case != last:
        widget.step_case(1)
        qtbot.waitUntil(lambda: widget.session.case == last, timeout=20000)
        _wait(qtbot, widget, "a")
    assert len(widget.regions) == 1 and widget.current_index == 0
    _click_canvas(viewer, qtbot)
    _press(qtbot, Qt.Key.Key_N)
    qtbot.wait(300)
    assert widget.session.case == last and widget.current_index == 0
    shown = _control(widget, "queue_label").text()
    assert "End of the queue" in shown, shown  # was the plain "Case 2 of 2 (sorted)"
    assert "End of the queue" in str(viewer.status)
    _shot(widget, "review-end-of-queue.png")
    _press(qtbot, Qt.Key.Key_P)  # moving on clears it
    qtbot.waitUntil(lambda: widget.session.case != last, timeout=20000)
    _wait(qtbot, widget, "a")
    assert "End of the queue" not in _control(widget, "queue_label").text()
