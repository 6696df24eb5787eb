"""Drive a panel as a user does: find its controls by the name a user (or a screen reader)
reads, click them, type into them, read what they show.

A control is found by its accessible name or, failing that, its visible text, among the
children of a panel that are not hidden (a panel drops old controls by hiding them at once
and deleting them later). Clicks and keys go through ``QTest``.
"""

from __future__ import annotations

from typing import Any, TypeVar

from qtpy.QtCore import QPoint, Qt
from qtpy.QtTest import QTest
from qtpy.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QStyle,
    QStyleOptionButton,
    QTableView,
    QWidget,
)

W = TypeVar("W", bound=QWidget)
T = TypeVar("T")
# PyQt6's stubs declare QTest's static methods as instance methods: call them untyped
_QTEST: Any = QTest

__all__ = [
    "choose",
    "click",
    "click_row",
    "column_of",
    "control",
    "control_names",
    "double_click_row",
    "shown_texts",
    "sort_by",
    "table_cells",
    "table_headers",
    "type_into",
]


def _label(widget: QWidget) -> str:
    name = widget.accessibleName()
    if name:
        return name
    if isinstance(widget, (QAbstractButton, QLabel)):
        return widget.text().replace("&", "")
    if isinstance(widget, QGroupBox):
        return widget.title().replace("&", "")
    return ""


def _present(value: T | None, what: str) -> T:
    """``value``, which Qt types as optional, asserted to be there."""
    assert value is not None, f"no {what}"
    return value


def _hidden(widget: QWidget) -> bool:
    explicit = widget.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide)
    return explicit and widget.isHidden()


def _shows(panel: QWidget, widget: QWidget) -> bool:
    """Whether ``widget`` shows when ``panel`` does (a child added to a shown panel shows
    once the event loop runs: it counts as shown)."""
    current: QWidget | None = widget
    while current is not None and current is not panel:
        if _hidden(current):
            return False
        current = current.parentWidget()
    return current is panel


def _shown(panel: QWidget, kind: type[W]) -> list[W]:
    return [w for w in panel.findChildren(kind) if _shows(panel, w)]


def control(
    panel: QWidget,
    name: str,
    kind: type[W] = QWidget,  # type: ignore[assignment]
    *,
    hidden_too: bool = False,
) -> W:
    """Return the one control of ``kind`` under ``panel`` named ``name``; fail listing the names.

    ``hidden_too`` also finds a control hidden for now (a progress bar shown while a job runs).
    """
    candidates = panel.findChildren(kind) if hidden_too else _shown(panel, kind)
    found = [w for w in candidates if _label(w) == name]
    if len(found) != 1:
        names = sorted({_label(w) for w in _shown(panel, kind)} - {""})
        raise AssertionError(f"{len(found)} controls named {name!r}; the panel shows {names}")
    return found[0]


def control_names(panel: QWidget, kind: type[QWidget] = QWidget) -> list[str]:
    """Return the names of the controls of ``kind`` the panel shows, in creation order."""
    return [name for w in _shown(panel, kind) if (name := _label(w))]


def shown_texts(panel: QWidget) -> list[str]:
    """Return the texts of the labels the panel shows."""
    return [label.text() for label in _shown(panel, QLabel) if label.text()]


def _click_point(widget: QWidget) -> QPoint:
    if isinstance(widget, QCheckBox):  # the box and its text, not the stretched empty space
        option = QStyleOptionButton()
        widget.initStyleOption(option)
        style = _present(widget.style(), "style")
        return style.subElementRect(QStyle.SubElement.SE_CheckBoxClickRect, option, widget).center()
    return widget.rect().center()


def click(widget: QWidget) -> None:
    """Click ``widget`` with the left button where a user would (its centre)."""
    _QTEST.mouseClick(
        widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _click_point(widget)
    )


def type_into(widget: QWidget, text: str) -> None:
    """Click ``widget``'s text field, select all, type ``text`` and press Enter."""
    field = widget.lineEdit() if isinstance(widget, (QAbstractSpinBox, QComboBox)) else widget
    assert isinstance(field, QLineEdit), type(widget).__name__
    click(field)
    _QTEST.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    _QTEST.keyClicks(field, text)
    _QTEST.keyClick(field, Qt.Key.Key_Return)


def choose(combo: QComboBox, text: str) -> None:
    """Open ``combo``'s list and click the item reading ``text``."""
    index = combo.findText(text)
    assert index >= 0, f"{combo.accessibleName()!r} offers no {text!r}"
    combo.showPopup()
    view = _present(combo.view(), "list view")
    model = _present(view.model(), "list model")
    rect = view.visualRect(model.index(index, combo.modelColumn()))
    viewport = _present(view.viewport(), "list viewport")
    _QTEST.mouseClick(
        viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, rect.center()
    )
    assert combo.currentText() == text


def table_headers(table: QTableView) -> list[str]:
    """Return the column headers the table shows."""
    model = _present(table.model(), "table model")
    return [
        str(model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole))
        for c in range(model.columnCount())
        if not table.isColumnHidden(c)
    ]


def table_cells(table: QTableView) -> list[list[str]]:
    """Return the table's visible cells as displayed, row by row in the order shown."""
    model = _present(table.model(), "table model")
    columns = [c for c in range(model.columnCount()) if not table.isColumnHidden(c)]
    rows = [r for r in range(model.rowCount()) if not table.isRowHidden(r)]
    return [
        [str(model.index(r, c).data(Qt.ItemDataRole.DisplayRole) or "") for c in columns]
        for r in rows
    ]


def column_of(table: QTableView, header: str) -> int:
    """Return the model column whose header reads ``header``."""
    model = _present(table.model(), "table model")
    titles = [
        str(model.headerData(c, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole))
        for c in range(model.columnCount())
    ]
    assert header in titles, f"no column {header!r}; the headers are {titles}"
    return titles.index(header)


def sort_by(table: QTableView, header: str, order: Qt.SortOrder) -> None:
    """Click the column's header until the table is sorted by it in ``order``."""
    column = column_of(table, header)
    bar = _present(table.horizontalHeader(), "table header")
    model = _present(table.model(), "table model")
    for _ in range(3):
        if bar.sortIndicatorSection() == column and bar.sortIndicatorOrder() == order:
            return
        table.scrollTo(model.index(0, column))
        x = bar.sectionViewportPosition(column) + bar.sectionSize(column) // 2
        point = QPoint(x, bar.height() // 2)
        viewport = _present(bar.viewport(), "header viewport")
        _QTEST.mouseClick(
            viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point
        )
    raise AssertionError(f"clicking {header!r} did not sort the table {order}")


def _row_centre(table: QTableView, row: int) -> QPoint:
    """The centre of ``row``'s first shown cell, scrolled into view."""
    model = _present(table.model(), "table model")
    column = next(c for c in range(model.columnCount()) if not table.isColumnHidden(c))
    index = model.index(row, column)
    table.scrollTo(index)
    return table.visualRect(index).center()


def click_row(table: QTableView, row: int) -> None:
    """Click the first shown cell of the shown ``row``."""
    centre = _row_centre(table, row)
    viewport = _present(table.viewport(), "table viewport")
    _QTEST.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)


def double_click_row(table: QTableView, row: int) -> None:
    """Double-click the first shown cell of ``row`` (after a click: Qt 5 needs the press)."""
    centre = _row_centre(table, row)
    viewport = _present(table.viewport(), "table viewport")
    _QTEST.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
    _QTEST.mouseDClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, centre)
