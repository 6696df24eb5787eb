"""The package's shape: public API stub, declared imports, module sizes, GUI-free layers.

(The layering itself is checked by ``lint-imports`` in ``.ci/run``; these tests guard what
import-linter does not see.)
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

import napari_mood

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "napari_mood"
GUI_MODULES = ("napari", "qtpy", "PyQt5", "PyQt6", "PySide2", "PySide6", "vispy", "magicgui")


def _stub_names() -> set[str]:
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    } - {"__version__"}


def test_stub_lists_exactly_the_lazy_public_names():
    assert _stub_names() == set(napari_mood._API)
    for name, module in napari_mood._API.items():
        assert getattr(napari_mood, name) is getattr(importlib.import_module(module), name)
    assert (PACKAGE / "py.typed").is_file()


def _third_party_imports() -> dict[str, set[Path]]:
    found: dict[str, set[Path]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top != "napari_mood" and top not in sys.stdlib_module_names:
                    found.setdefault(top, set()).add(path.relative_to(ROOT))
    return found


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra, deps in project["optional-dependencies"].items():
        if extra != "dev":
            specs += deps
    return {re.split(r"[\[<>=!~; ]", spec, maxsplit=1)[0].lower() for spec in specs}


def test_every_import_is_declared():
    distributions = metadata.packages_distributions()
    declared = _declared()
    undeclared = {}
    for module, files in _third_party_imports().items():
        dists = {d.lower() for d in distributions.get(module, [module])}
        # napari[pyqt6] brings the binding; qtpy picks it
        if not dists & (declared | {"napari"} if module == "PyQt6" else declared):
            undeclared[module] = sorted(map(str, files))
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


@pytest.mark.parametrize(
    "modules",
    [
        ["napari_mood"],
        ["napari_mood.cli", "napari_mood.cli.parser"],
        [
            "napari_mood.services.evaluation",
            "napari_mood.services.engine",
            "napari_mood.services.readouts",
            "napari_mood.services.object_views",
            "napari_mood.services.comparison",
            "napari_mood.services.review",
            "napari_mood.services.figures",
            "napari_mood.services.report",
        ],
    ],
)
def test_gui_free_layers_import_no_gui(modules):
    code = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"print(json.dumps([m for m in {GUI_MODULES!r} if m in sys.modules]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == []
