"""The built documentation site shows what its pages include.

``mkdocs build --strict`` passes when a snippet line is mangled into plain text (a formatter
once turned ``--8<-- "evaluate_mood.py"`` into ``--8 < --"evaluate_mood.py"``, and the Python
API page showed that line instead of the code), so the site is built here and read as a
reader's browser gets it: each page that includes a file contains that file's code.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SNIPPETS = DOCS / "examples"  # mkdocs.yml: pymdownx.snippets base_path
# a snippet line as written (--8<-- "file") or as a formatter leaves it (--8 < --"file")
SNIPPET_LINE = re.compile(r"""^\s*-+\s*8\s*<\s*-+\s*["']([^"']+)["']\s*$""")
SNIPPET_FENCE = re.compile(r"^\s*-+\s*8\s*<\s*-+\s*$")  # opens and closes a block of names


def included_files(page: Path) -> list[str]:
    """The files that ``page`` includes with pymdownx.snippets, in the order it names them."""
    names: list[str] = []
    in_block = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if SNIPPET_FENCE.match(line):
            in_block = not in_block
        elif in_block and line.strip():
            names.append(line.strip())
        elif match := SNIPPET_LINE.match(line):
            names.append(match.group(1))
    return names


PAGES_WITH_SNIPPETS = {
    page: included_files(page) for page in sorted(DOCS.rglob("*.md")) if included_files(page)
}


def page_text(site: Path, page: Path) -> str:
    """The text a browser shows for ``page`` of the built ``site`` (tags dropped, entities read)."""
    built = site / page.relative_to(DOCS).with_suffix("") / "index.html"
    return html.unescape(re.sub(r"<[^>]+>", "", built.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The documentation site, built as docs/install.md says (strict, banners off)."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(out)]
    done = subprocess.run(build, cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def test_the_python_api_page_includes_the_three_examples():
    page = DOCS / "reference" / "python-api.md"
    expected = ["evaluate_mood.py", "evaluate_boxes.py", "evaluate_recon.py"]
    assert PAGES_WITH_SNIPPETS.get(page) == expected


@pytest.mark.parametrize(
    "page", list(PAGES_WITH_SNIPPETS), ids=lambda page: str(page.relative_to(DOCS))
)
def test_a_built_page_shows_the_code_of_every_file_it_includes(site: Path, page: Path):
    text = page_text(site, page)
    for name in PAGES_WITH_SNIPPETS[page]:
        for line in (SNIPPETS / name).read_text(encoding="utf-8").splitlines():
            assert line.strip() in text, f"{page.name}: {name}'s line {line!r} is not shown"
    assert "8<--" not in text and "8 < --" not in text, f"{page.name}: a snippet line is shown"


def test_the_built_front_page_shows_the_readmes_pictures_and_pages_from_the_site(site: Path):
    # the README's links and pictures are absolute (PyPI, napari hub); the site's copy of it
    # (docs/_gen/root_files.py) points into the site itself, where mkdocs checks them
    front = (site / "index.html").read_text(encoding="utf-8")
    assert 'src="demo.png"' in front and "raw.githubusercontent.com" not in front
    assert 'href="install/"' in front and "blob/main/docs/" not in front
