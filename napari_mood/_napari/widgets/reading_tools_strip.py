"""The reading tools in one row, for the reading layout (its panels are hidden).

:class:`ReadingToolsStrip` shows the window/level preset, the ruler and ROI toggles and
the ROI's statistics in one line (the whole table in its tool tip). It holds no state:
the tools panel
(:meth:`~napari_mood._napari.widgets.reading_tools.ReadingToolsWidget.reading_strip`)
makes it, wires its controls to its own slots and copies its state into it
(:meth:`ReadingToolsStrip.show_state`). The reading layout lays it out in the tool bar
under the four panes, next to the review's strip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from qtpy.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from napari_mood._napari.widgets import _kit as kit

__all__ = ["TOOL_TEXTS", "ReadingToolsStrip"]

TOOL_TEXTS = {"ruler": "Ruler", "box": "Box", "ellipse": "Ellipse"}
"""The strip's toggle per tool (the panel's tools, drawn in the panel's pane)."""
TOOL_TIPS = {
    "ruler": "Ruler: drag a line; its length in mm is written beside it",
    "box": "ROI box: drag a box; its statistics on the right, all of them in their tip",
    "ellipse": "ROI ellipse: drag an ellipse; its statistics on the right",
}
SUMMARY_MIN_WIDTH = 160
"""The ROI's line may be cut to this width (px; the tool tip has all of it)."""
SUMMARY_MAX_WIDTH = 220
"""The ROI's line takes no more (px): the review's strip beside it keeps its room."""


class ReadingToolsStrip(QWidget):
    """Window/level preset, ruler and ROI toggles and the ROI's line in one row.

    Parameters
    ----------
    parent : QWidget, optional
        The Qt parent (the reading layout's tool bar).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reading-tools-strip")
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self.preset = kit.combo(self, "Window/level preset of the scan (Shift+W: the next).")
        self.preset.setAccessibleName("Window/level preset")
        self.preset.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.tool_buttons: dict[str, QPushButton] = {}
        for tool, text in TOOL_TEXTS.items():
            tip = f"{TOOL_TIPS[tool]} (in the pane the Reading tools panel draws in)."
            button = kit.button(self, text, tip)
            button.setCheckable(True)
            button.setObjectName(f"reading-tools-strip-{tool}")
            self.tool_buttons[tool] = button
        self.summary = QLabel(self)
        self.summary.setObjectName("reading-tools-strip-summary")
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setMinimumWidth(SUMMARY_MIN_WIDTH)  # never widen the window: cut short
        self.summary.setMaximumWidth(SUMMARY_MAX_WIDTH)  # the review's strip keeps its room
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.preset)
        for button in self.tool_buttons.values():
            layout.addWidget(button)
        layout.addWidget(self.summary, 1)

    def show_state(
        self,
        presets: Sequence[str],
        current: int,
        checked: Mapping[str, bool],
        summary: tuple[str, str],
    ) -> None:
        """Show the panel's presets (``current`` chosen), tools on and ROI line (and tip)."""
        if [self.preset.itemText(i) for i in range(self.preset.count())] != list(presets):
            self.preset.clear()
            self.preset.addItems(list(presets))
        self.preset.setCurrentIndex(current)
        self.preset.setEnabled(bool(presets))
        for tool, button in self.tool_buttons.items():
            button.setChecked(bool(checked.get(tool)))
        line, tip = summary
        self.summary.setText(line)
        self.summary.setToolTip(tip)
