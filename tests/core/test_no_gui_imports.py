"""The package, its core and its Qt-free plugin modules never import napari or Qt."""

from __future__ import annotations

import json
import subprocess
import sys

GUI_MODULES = ("napari", "qtpy", "PyQt5", "PyQt6", "PySide2", "PySide6", "vispy", "magicgui")


def _imported_gui_modules(*modules: str) -> list[str]:
    code = (
        "import json, sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"print(json.dumps(sorted(m for m in {GUI_MODULES!r} if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(result.stdout)


def test_package_and_core_import_no_gui():
    modules = ("napari_mood", "napari_mood.core", "napari_mood.io.mood", "napari_mood.io.case")
    assert _imported_gui_modules(*modules) == []


def test_session_and_reader_import_no_gui():
    assert _imported_gui_modules("napari_mood._napari.session", "napari_mood._napari.reader") == []
