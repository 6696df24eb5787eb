"""Pages made from files at the repository's root (run by mkdocs-gen-files).

``index.md`` is the README with its links made relative to ``docs/`` (the README's links
and pictures are absolute, for PyPI and the napari hub: those into ``docs/`` come back to the
site's own pages, so mkdocs checks them), and
``developers/changelog.md`` is CHANGELOG.md: one text each, so the site and the
repository's front page cannot drift apart.
"""

from __future__ import annotations

import re
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parents[2]
REPOSITORY = "https://github.com/napari-mood/napari-mood/blob/main/"
RAW = "https://raw.githubusercontent.com/napari-mood/napari-mood/main/"


def site_links(markdown: str) -> str:
    """README links as the site sees them: ``docs/X`` -> ``X``, other files -> the repository."""
    for absolute in (REPOSITORY, RAW):
        markdown = markdown.replace(f"]({absolute}docs/", "](docs/")
    markdown = markdown.replace(f"]({REPOSITORY}CHANGELOG.md)", "](developers/changelog.md)")
    markdown = markdown.replace("](CHANGELOG.md)", "](developers/changelog.md)")
    markdown = re.sub(r"\]\(docs/", "](", markdown)
    return re.sub(r"\]\((?!https?://|#)([^)]+)\)", _outside_docs, markdown)


def _outside_docs(match: re.Match[str]) -> str:
    target = match.group(1)
    if (ROOT / "docs" / target.split("#")[0]).exists() or target.startswith("developers/"):
        return match.group(0)
    return f"]({REPOSITORY}{target})"


with mkdocs_gen_files.open("index.md", "w") as page:
    page.write(site_links((ROOT / "README.md").read_text(encoding="utf-8")))
mkdocs_gen_files.set_edit_path("index.md", "../README.md")

with mkdocs_gen_files.open("developers/changelog.md", "w") as page:
    page.write((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
mkdocs_gen_files.set_edit_path("developers/changelog.md", "../CHANGELOG.md")
