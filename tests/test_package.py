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
# what napari brings besides its Qt wing: a plain install into napari has them, a core-only
# install must not need them (scripts/check_install.py --core installs none of them)
NAPARI_STACK = ("superqt", "psygnal", "npe2", "app_model", "pydantic", "pandas", "typer", "rich")


def _stub_imports() -> dict[str, str]:
    """``{name: module}`` of the stub's ``from .module import (name as name, ...)``."""
    tree = ast.parse((PACKAGE / "__init__.pyi").read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            assert node.level == 1 and node.module, "the stub imports from the package only"
            for alias in node.names:
                assert alias.asname == alias.name, f"{alias.name}: re-export as itself"
                found[alias.name] = f"napari_mood.{node.module}"
    return found


def test_the_stub_is_the_public_api():
    names = _stub_imports()
    assert set(napari_mood.__all__) == set(names)
    assert set(dir(napari_mood)) >= set(names)
    for name, module in names.items():
        assert getattr(napari_mood, name) is getattr(importlib.import_module(module), name)
    assert (PACKAGE / "py.typed").is_file()


def test_one_entry_point_per_benchmark():
    for entry, result in (
        ("evaluate", "MoodEvaluation"),
        ("evaluate_boxes", "BoxBenchmark"),
        ("evaluate_recon", "ReconEvaluation"),
    ):
        assert callable(getattr(napari_mood, entry))
        for method in ("to_table", "to_dict", "to_json", "to_frame", "__str__"):
            assert method in vars(getattr(napari_mood, result)), (result, method)
    for gone in ("evaluate_dataset", "evaluate_folder", "run_evaluation", "evaluate_case"):
        assert gone not in napari_mood.__all__
        with pytest.raises(AttributeError):
            getattr(napari_mood, gone)


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


def test_the_base_dependencies_hold_nothing_napari_brings():
    """A core-only install (`pip install napari-mood`) carries nothing of the napari stack:
    napari brings it to a plugin-manager install, the [napari] extra to the others."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    stack = _spec_names((*GUI_MODULES, *NAPARI_STACK))
    assert _spec_names(project["dependencies"]) & stack == set(), "move them to [napari]"
    wing = {"qtpy", "psygnal", "npe2", "pandas"}  # what the napari wing imports of it
    assert wing <= _spec_names(project["optional-dependencies"]["napari"])


def _spec_names(specs) -> set[str]:
    """Normalised distribution names of requirement specifiers."""
    return {re.split(r"[\[<>=!~; ]", s, maxsplit=1)[0].lower().replace("_", "-") for s in specs}


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
        f"print(json.dumps([m for m in {(*GUI_MODULES, *NAPARI_STACK)!r} if m in sys.modules]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == []


def test_the_wheel_lists_every_package_of_the_source_tree():
    """setuptools' package list is explicit (sample_data maps to another folder): a new
    package left out of it is missing from every real install (`napari_mood.io` was)."""
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "napari_mood").rglob("__init__.py")
    }
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def test_the_citation_file_cites_this_software_as_pyproject_describes_it():
    yaml = pytest.importorskip("yaml")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert citation["type"] == "software" and citation["title"].startswith("napari-mood")
    assert citation["version"] == napari_mood.__version__
    assert citation["license"] == project["license"] == "BSD-3-Clause"  # SPDX (PEP 639)
    assert citation["repository-code"] == project["urls"]["Source Code"]
    assert citation["url"] == project["urls"]["Documentation"]
    assert citation["abstract"] and citation["authors"]


def test_the_project_urls_carry_the_labels_napari_plugins_use():
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert {"Bug Tracker", "Documentation", "Source Code", "User Support"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())
    site = re.search(r"^site_url: (\S+)$", (ROOT / "mkdocs.yml").read_text(), re.M)
    assert site and urls["Documentation"] == site.group(1)  # the built site, not docs/


def test_the_manifest_icon_is_a_square_png_shipped_in_the_package():
    from PIL import Image

    manifest = (PACKAGE / "napari.yaml").read_text(encoding="utf-8")
    icon = re.search(r"^icon: napari_mood:(\S+)", manifest, re.M)
    assert icon, "napari.yaml: no icon"
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert icon.group(1) in package_data["package-data"]["napari_mood"]
    with Image.open(PACKAGE / icon.group(1)) as image:
        assert image.format == "PNG" and image.width == image.height >= 128
