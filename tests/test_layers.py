"""The layers as pyproject declares them: four contracts, no ignore entry, a core without I/O.

``lint-imports`` (run by ``.ci/run``) checks the imports themselves; these tests keep the
contracts from being loosened and the core from reading or writing files by other means
than an import (a builtin ``open``, a ``Path.read_text``).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "napari_mood" / "core"
FILE_MODULES = {"csv", "glob", "gzip", "imageio", "io", "json", "os", "PIL", "pickle", "shutil",
                "tempfile", "zlib"}  # fmt: skip
FILE_CALLS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "iterdir", "glob",
              "rglob", "load", "save", "savez", "mkdir", "unlink", "stat"}  # fmt: skip


def _contracts() -> list[dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["importlinter"]["contracts"]


def test_the_layers_are_the_front_ends_over_services_over_io_over_core():
    layers = [c for c in _contracts() if c["type"] == "layers"]
    assert [c["layers"] for c in layers] == [
        [
            "napari_mood._napari | napari_mood.cli",
            "napari_mood.services",
            "napari_mood.io",
            "napari_mood.core",
        ]
    ]


def test_no_contract_has_an_exception():
    assert all("ignore_imports" not in contract for contract in _contracts())


def test_the_front_ends_may_not_import_the_core():
    forbidden = {
        (tuple(c["source_modules"]), tuple(c["forbidden_modules"]))
        for c in _contracts()
        if c["type"] == "forbidden"
    }
    assert (("napari_mood._napari", "napari_mood.cli"), ("napari_mood.core",)) in forbidden


def _file_access(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in FILE_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in FILE_MODULES:
                found.append(node.module)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in FILE_CALLS:
                found.append(f"{name}() at line {node.lineno}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in ("nib", "nibabel") and node.attr != "orientations":
                found.append(f"nibabel.{node.attr} at line {node.lineno}")
    return found


def test_the_core_reads_and_writes_no_file():
    found = {
        str(path.relative_to(ROOT)): access
        for path in sorted(CORE.rglob("*.py"))
        if (access := _file_access(path))
    }
    assert found == {}
