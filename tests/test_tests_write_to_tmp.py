"""Tests write only into temporary folders, never into the repository's own folders."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# The repository's screenshot folder joined as a path in a test (`ROOT / "screenshots"`), or a
# fixed folder shared by every run (`Path("/tmp/shots")`): both outlive the test
REPOSITORY_FOLDER = re.compile(r"""/\s*["']screenshots["']|["']/tmp/""")


def test_no_test_joins_a_repository_output_folder():
    offenders = [
        f"{path.relative_to(TESTS)}:{number}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if REPOSITORY_FOLDER.search(line)
    ]
    assert not offenders, "tests must write under tmp_path:\n" + "\n".join(offenders)
