"""The `slow` list in tests/conftest.py names tests that exist (a stale name would silently
put a slow test back into the fast subset, or hide a typo)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT, SLOW_TESTS


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


@pytest.mark.parametrize("entry", sorted(SLOW_TESTS))
def test_slow_entry_names_an_existing_test(entry: str):
    module, _, function = entry.partition("::")
    path = ROOT / module
    assert path.is_file(), f"{entry}: no such test module"
    if function:
        assert function in _test_names(path), f"{entry}: no such test function"
