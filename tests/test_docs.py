"""The commands shown in the README and the documentation site still work as written.

Every ``napari-mood ...`` line in a shell code block of ``README.md`` or ``docs/**/*.md``
must parse with the real parser (so a renamed option or subcommand fails here, not in a
reader's terminal) without a deprecation note (the pages show only the current spelling),
and the quick start's ``evaluate`` on the bundled sample data must print the table the
README shows. ``tests/test_examples_docs.py`` runs every shown command.
"""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from napari_mood.cli import main
from napari_mood.cli._args import DEPRECATION_NOTES
from napari_mood.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
SHELL_FENCE = re.compile(r"^```(bash|sh|shell|console)?\s*$")


@dataclass(frozen=True)
class ShownCommand:
    """One ``napari-mood`` command line as a page shows it."""

    page: Path
    line: int
    text: str

    @property
    def argv(self) -> list[str]:
        """The arguments after ``napari-mood`` (comments and shell redirections dropped)."""
        words = shlex.split(self.text, comments=True)
        for stop in ("|", ">", "2>", "&&", ";"):
            if stop in words:
                words = words[: words.index(stop)]
        return words[1:]

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def shown_commands(page: Path) -> list[ShownCommand]:
    """The ``napari-mood`` lines of the shell code blocks of ``page``, continuations joined."""
    found: list[ShownCommand] = []
    fence: str | None = None
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()  # fences may be indented inside a list
        if line.startswith("```"):
            fence = None if fence is not None else (line if SHELL_FENCE.match(line) else "other")
            continue
        if fence is None or fence == "other":
            continue
        if pending is not None:
            start, text = pending
            text = text + " " + line
        elif line.lstrip("$ ").startswith("napari-mood "):
            start, text = number, line.lstrip("$ ")
        else:
            continue
        if text.endswith("\\"):
            pending = (start, text[:-1])
            continue
        pending = None
        found.append(ShownCommand(page, start, text))
    return found


COMMANDS = [command for page in PAGES for command in shown_commands(page)]


def test_the_pages_show_commands():
    pages = {command.page.name for command in COMMANDS}
    assert "README.md" in pages and len(COMMANDS) >= 20


@pytest.mark.parametrize("command", COMMANDS, ids=str)
def test_shown_command_parses(command: ShownCommand):
    parser = build_parser()
    try:
        args = parser.parse_args(command.argv)
    except SystemExit as exit_:
        pytest.fail(f"{command}: `{command.text}` does not parse (exit {exit_.code})")
    except argparse.ArgumentError as error:  # pragma: no cover - exit_on_error is on
        pytest.fail(f"{command}: {error}")
    notes = getattr(args, DEPRECATION_NOTES, [])  # also those --quiet keeps off stderr
    assert not notes, f"{command}: `{command.text}` uses an old spelling: {notes}"


def _block_after(page: Path, command: str) -> str:
    """The plain code block that follows the line ``command`` on ``page``."""
    text = page.read_text(encoding="utf-8")
    after = text[text.index(f"\n{command}\n") :]
    after = after[after.index("\n```") + 4 :]  # past the end of the command's own block
    match = re.search(r"\n```\n(.*?)\n```", after, re.S)
    assert match, f"{page.name}: no output block after {command!r}"
    return match.group(1)


def test_readme_evaluate_prints_what_the_readme_shows(capsys, monkeypatch):
    command = "napari-mood evaluate sample_data --task pixel,sample,object"
    shown = _block_after(ROOT / "README.md", command)
    monkeypatch.chdir(ROOT)
    assert main(shlex.split(command)[1:]) == 0
    printed = capsys.readouterr().out
    assert printed.strip() == shown.strip()


def test_the_readme_links_and_pictures_are_absolute():
    # PyPI and the napari hub show the README outside the repository: a relative link or
    # picture there is broken (docs/_gen/root_files.py makes those into docs/ relative again)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r"<(https?://[^>]+)>", text)
    assert targets
    relative = [target for target in targets if not target.startswith(("https://", "#"))]
    assert not relative, f"README.md: relative links {relative}"
    repository = "https://github.com/napari-mood/napari-mood/blob/main/"
    raw = "https://raw.githubusercontent.com/napari-mood/napari-mood/main/"
    for target in targets:
        for prefix in (repository, raw):
            if target.startswith(prefix):
                path = target.removeprefix(prefix).split("#")[0]
                assert (ROOT / path).exists(), f"README.md links {target}: no {path} here"
