"""Write ``reference/cli.md`` at build time from the ``napari-mood`` argument parser.

Run by mkdocs-gen-files (``mkdocs.yml``): the page is the parser's own ``--help`` text of
every command and subcommand, so it cannot drift from the code.
"""

from __future__ import annotations

import argparse
import inspect
import os
from collections.abc import Iterator

import mkdocs_gen_files

from napari_mood.cli import parser as cli_parser

PAGE = "reference/cli.md"
WIDTH = "80"  # argparse wraps at $COLUMNS: fixed, so the page does not depend on the terminal


def full_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand's options added."""
    build = cli_parser.build_parser
    if "complete" in inspect.signature(build).parameters:
        return build(complete=True)
    return build()


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of ``parser`` by name (none for a leaf command)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def walk(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every parser under ``parser``, depth first, with its command path."""
    yield path, parser
    for name, child in subparsers(parser).items():
        yield from walk(child, (*path, name))


def page_text() -> str:
    """The Markdown of the CLI reference page."""
    os.environ["COLUMNS"] = WIDTH
    lines = [
        "# CLI reference",
        "",
        "Generated from the parser (`napari_mood.cli.parser.build_parser`) when the site is",
        "built: this is exactly what `napari-mood COMMAND --help` prints. For exit codes, output",
        "formats and the JSON shape see [Command line](command-line.md).",
        "",
    ]
    for path, parser in walk(full_parser()):
        title = " ".join(("napari-mood", *path))
        lines += [f"## `{title}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


with mkdocs_gen_files.open(PAGE, "w") as page:
    page.write(page_text())
