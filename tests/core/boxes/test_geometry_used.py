"""The area of a box has one owner, ``box_areas``, and the package uses it.

``box_areas`` was once defined, exported and tested, while ``box_iou`` computed the same
areas again its own way: two owners of "the area of a box". Now ``box_iou`` calls it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import napari_mood
from napari_mood.core.boxes import geometry

PACKAGE = Path(napari_mood.__file__).resolve().parent


def _calls(name: str) -> list[str]:
    """Where the package calls ``name`` (as ``name(...)`` or ``module.name(...)``)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if called == name:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_box_areas_is_called_by_the_package():
    assert _calls("box_areas"), "core.boxes.box_areas is never called by the package"


def test_box_iou_union_uses_the_areas_by_hand():
    # 2x3 and 4x4 boxes overlapping in a 1x2 strip: union 6 + 16 - 2 = 20
    iou = geometry.box_iou([[0, 0, 2, 3]], [[1, 1, 5, 5]])
    assert iou.tolist() == [[pytest.approx(2 / 20)]]
    assert geometry.box_areas([[0, 0, 2, 3], [1, 1, 5, 5]]).tolist() == [6.0, 16.0]
