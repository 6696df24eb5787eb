"""The documentation's pictures are up to date with what makes them (no napari, no GUI).

``docs/figures.json`` records, per picture, the sha256 of its inputs when it was made by
``scripts/make_docs_figures.py`` and of the PNG it wrote. A changed input (the script, a
sample data file, a module that draws the picture) means the picture may be stale. The
pictures are never rendered here: software OpenGL draws slightly differently on each
machine, so only the recorded hashes are compared.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MANIFEST = DOCS / "figures.json"
REGENERATE = "regenerate with: xvfb-run -a python scripts/make_docs_figures.py"
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)")
RAW_REPOSITORY = "https://raw.githubusercontent.com/napari-mood/napari-mood/main/"


@functools.cache
def _script() -> ModuleType:
    """``scripts/make_docs_figures.py`` as a module (cheap: it imports napari-mood lazily)."""
    name = "make_docs_figures"
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def _manifest() -> dict:
    return json.loads(MANIFEST.read_text())["figures"]


def _referenced() -> dict[str, list[str]]:
    """``{picture file name: [the pages showing it]}`` for README.md and docs/**/*.md."""
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    found: dict[str, list[str]] = {}
    for page in pages:
        for target in PICTURE.findall(page.read_text(encoding="utf-8")):
            # the README shows docs/ pictures by their absolute raw address (PyPI, napari hub)
            local = target.removeprefix(RAW_REPOSITORY) if page.name == "README.md" else target
            picture = (page.parent / local).resolve()
            if picture.parent == DOCS.resolve():  # external or elsewhere: not ours
                found.setdefault(picture.name, []).append(page.relative_to(ROOT).as_posix())
    return found


def test_every_picture_of_the_script_is_in_the_manifest():
    script = _script()
    assert sorted(_manifest()) == sorted(script.BY_NAME), REGENERATE


@pytest.mark.parametrize("name", sorted(_script().BY_NAME))
def test_picture_inputs_unchanged_since_it_was_made(name: str):
    script = _script()
    recorded = _manifest().get(name)
    assert recorded is not None, f"docs/{name} is not in docs/figures.json: {REGENERATE} {name}"
    try:
        now = script.input_hashes(script.BY_NAME[name])
    except FileNotFoundError as exc:  # a module renamed: the script's list is out of date
        pytest.fail(str(exc))
    changed = sorted(
        path
        for path in set(now) | set(recorded["inputs"])
        if now.get(path) != recorded["inputs"].get(path)
    )
    assert not changed, f"docs/{name} is older than {', '.join(changed)}: {REGENERATE} {name}"
    assert (DOCS / name).is_file(), f"docs/{name} is missing: {REGENERATE} {name}"


@pytest.mark.parametrize("name", sorted(_script().BY_NAME))
def test_picture_is_the_one_the_script_made(name: str):
    """The file in docs/ is the one recorded when the script wrote it (not replaced by hand);
    a fresh rendering is never compared (software OpenGL differs between machines)."""
    recorded = _manifest().get(name, {}).get("output")
    assert recorded == _script().sha256(DOCS / name), f"docs/{name} changed by hand: {REGENERATE}"


def test_every_picture_shown_in_the_docs_exists_and_is_made_by_the_script():
    referenced = _referenced()
    assert referenced, "no picture found in README.md or docs/*.md"
    made = _manifest()
    missing = {name: pages for name, pages in referenced.items() if not (DOCS / name).is_file()}
    assert not missing, f"pictures shown but missing: {missing}"
    unmade = {name: pages for name, pages in referenced.items() if name not in made}
    assert not unmade, f"pictures not made by scripts/make_docs_figures.py: {unmade}"


def test_a_changed_input_is_reported(tmp_path: Path):
    """The check itself: one byte more in an input changes its recorded hash."""
    script = _script()
    figure = script.BY_NAME["demo.png"]
    before = script.input_hashes(figure)
    copy = tmp_path / "repo"
    for path in before:
        (copy / path).parent.mkdir(parents=True, exist_ok=True)
        (copy / path).write_bytes((ROOT / path).read_bytes())
    assert script.input_hashes(figure, copy) == before
    source = copy / figure.sources[0]
    source.write_bytes(source.read_bytes() + b"\n")
    after = script.input_hashes(figure, copy)
    assert [p for p in before if after[p] != before[p]] == [figure.sources[0]]
