"""Every command the README and the documentation show is run, so the examples cannot rot.

Each shell code block of ``README.md`` and ``docs/**/*.md`` is read line by line (a
``\\`` continuation joined, ``&&`` chains split). Every command in it is either

- **run**: ``napari-mood ...`` lines run in order, page by page, in one temporary
  workspace holding a copy of the bundled sample data and the fixtures the pages name
  (:data:`WORKSPACE_FIXTURES`, listed in docs/developers/testing.md); placeholders such
  as ``DATA`` or ``/data/mood/brain`` stand for those fixtures (:data:`PLACEHOLDERS`).
  ``demo`` and ``view`` run under ``xvfb-run -a`` with ``--screenshot`` (marked
  ``gui``); ``python -c`` snippets run as printed; when a block of one command is
  followed by a plain code block, that block is what the command must print;
- or **not run**, because a pattern of :data:`NOT_RUN` says why (installs are checked
  by ``scripts/check_install.py``, the test suite and benchmarks run elsewhere).

A command that is neither makes :func:`test_every_shown_command_is_run_or_excused`
fail: a new example is run from the day it is written. The notebook examples
(``docs/examples/*.py``) run in ``tests/services/test_notebook_examples.py``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import napari_mood
from napari_mood.cli import main
from tests.shown_commands import expanded, method_script, write_batched_results

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
SHELL_FENCE = re.compile(r"^```(bash|sh|shell|console)\s*$")
SAMPLE = napari_mood.sample_data_dir()

# words of the pages that stand for a folder or file of the workspace (docs say so)
PLACEHOLDERS = {
    "DATA": "sample_data",
    "PREDS": "sample_data/methods",
    "BRAIN": "sample_data",
    "ABDOMEN": "sample_data",
    "BRAIN_PREDS": "sample_data/methods",
    "ABDOMEN_PREDS": "sample_data/methods",
    "/data/mood/brain": "sample_data",
    "/data/submissions": "sample_data/methods",
    "~/.cache/napari-mood": "cache",
}

# (pattern, why it is not run here)
NOT_RUN = (
    (r"^(python3? -m venv|\.venv/bin/pip |pip install|git clone|cd napari-mood)",
     "an install: scripts/check_install.py installs the wheel into new venvs"),
    (r"^(apt-get|sudo apt-get) install", "system packages: .ci/run installs them"),
    (r"(^|/)python -m pytest", "the test suite itself"),
    (r"^(xvfb-run .*)?python benchmarks/", "a benchmark (docs/developers/performance.md)"),
    (r"^napari-mood run \"docker run ", "needs docker and a method's image"),
)  # fmt: skip


@dataclass(frozen=True)
class Shown:
    """One command as a page shows it, with the plain block printed after it (if any)."""

    page: Path
    line: int
    text: str
    output: str | None = None

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def program(self) -> str:
        """``napari-mood`` (any path to it, or under ``xvfb-run -a``), else the first word."""
        words = shlex.split(self.text, comments=True)
        if words[:2] == ["xvfb-run", "-a"]:
            words = words[2:]
        first = words[0] if words else ""
        return "napari-mood" if first.endswith("/napari-mood") else first

    @property
    def argv(self) -> list[str]:
        """The arguments after the program, placeholders replaced."""
        words = shlex.split(self.text, comments=True)
        start = words.index(next(w for w in words if w.endswith("napari-mood"))) + 1
        return [PLACEHOLDERS.get(w, _placeholder_path(w)) for w in words[start:]]


def _placeholder_path(word: str) -> str:
    head, _, rest = word.partition("/")
    return f"{PLACEHOLDERS[head]}/{rest}" if rest and head in PLACEHOLDERS else word


def _blocks(page: Path) -> Iterator[tuple[int, list[tuple[int, str]], str | None]]:
    """Each shell block of ``page``: its first line, its lines, the plain block after it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    k = 0
    while k < len(lines):
        if not SHELL_FENCE.match(lines[k].strip()):
            k = _past_block(lines, k) if lines[k].strip().startswith("```") else k + 1
            continue
        end = _past_block(lines, k)
        body = [(k + 2 + i, line) for i, line in enumerate(lines[k + 1 : end - 1])]
        after = end
        while after < len(lines) and not lines[after].strip():
            after += 1
        output = None
        if after < len(lines) and lines[after].strip() == "```":
            output = "\n".join(lines[after + 1 : _past_block(lines, after) - 1])
        yield k + 1, body, output
        k = end


def _past_block(lines: list[str], start: int) -> int:
    """The index after the closing fence of the block opened at ``start``."""
    k = start + 1
    while k < len(lines) and lines[k].strip() != "```":
        k += 1
    return k + 1


def shown_commands(page: Path) -> list[Shown]:
    """The commands of ``page``'s shell blocks, continuations joined, ``&&`` chains split."""
    found: list[Shown] = []
    for _, body, output in _blocks(page):
        commands: list[tuple[int, str]] = []
        pending: tuple[int, str] | None = None
        for number, raw in body:
            line = raw.strip().removeprefix("$ ")
            start, text = (pending[0], f"{pending[1]} {line}") if pending else (number, line)
            if text.endswith("\\"):
                pending = (start, text[:-1].rstrip())
                continue
            pending = None
            if text and not text.startswith("#"):
                commands += [(start, part.strip()) for part in text.split(" && ")]
        single = output if len(commands) == 1 else None
        found += [Shown(page, number, text, single) for number, text in commands]
    return found


COMMANDS = [command for page in PAGES for command in shown_commands(page)]


UNEXCUSED = "neither run nor excused"


def why_not_run(command: Shown) -> str | None:
    """The reason ``command`` is not run here (:data:`NOT_RUN`), or None when it is run."""
    excuse = next((why for pattern, why in NOT_RUN if re.search(pattern, command.text)), None)
    if excuse is not None:
        return excuse
    runnable = command.program == "napari-mood" or command.text.startswith("python -c ")
    return None if runnable else UNEXCUSED


def _is_gui(command: Shown) -> bool:
    return command.program == "napari-mood" and command.argv[:1] in (["demo"], ["view"])


RUN = [c for c in COMMANDS if why_not_run(c) is None]
RUN_PAGES = sorted({c.page for c in RUN if not _is_gui(c)})
FAST_PAGES = {"README.md", "install.md", "nova-boxes.md", "figures.md", "review.md"}


def test_every_shown_command_is_run_or_excused():
    unknown = [f"{c}: {c.text}" for c in COMMANDS if why_not_run(c) == UNEXCUSED]
    assert not unknown, f"shown, {UNEXCUSED} (see NOT_RUN):\n" + "\n".join(unknown)
    assert len(RUN) >= 20 and any(_is_gui(c) for c in RUN)


# ----------------------------------------------------------------------------- the workspace


def _toy_results(work: Path) -> None:
    """``toy_brain.json`` and ``toy_abdom.json``: results of the sample data, batched."""
    write_batched_results(work / "sample_data", (work / "toy_brain.json", work / "toy_abdom.json"))


WORKSPACE_FIXTURES = {
    "sample_data/": "a copy of the bundled sample data (DATA, PREDS = sample_data/methods)",
    "scans/normal.nii.gz": "a normal scan of the sample data (brain_000)",
    "my_method.py": "a method with MOOD's interface (the scan as its own score map)",
    "categories.csv": "the sample data's anomaly categories (its categories.csv)",
    "toy_brain.json, toy_abdom.json": "evaluate results of the sample data",
}


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding :data:`WORKSPACE_FIXTURES`, the current folder of the commands."""
    shutil.copytree(SAMPLE, tmp_path / "sample_data", ignore=shutil.ignore_patterns("*.py"))
    (tmp_path / "scans").mkdir()
    shutil.copy(SAMPLE / "toy" / "brain_000.nii.gz", tmp_path / "scans" / "normal.nii.gz")
    (tmp_path / "my_method.py").write_text(method_script())
    shutil.copy(SAMPLE / "categories.csv", tmp_path / "categories.csv")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


def _prepare(page: Path, work: Path) -> None:
    """The fixtures that take a while, made for the pages that use them."""
    text = page.read_text(encoding="utf-8")
    if "toy_brain.json" in text:
        _toy_results(work)


# ----------------------------------------------------------------------------- running


def _run_cli(
    command: Shown, cwd: Path, capsys: pytest.CaptureFixture[str], services: dict[str, str]
) -> None:
    capsys.readouterr()
    code = main([services.get(w, w) for w in expanded(command.argv, cwd)])
    printed = capsys.readouterr()
    assert code == 0, f"{command}: `{command.text}` exits {code}:\n{printed.err[-2000:]}"
    if command.output is not None:
        assert printed.out.strip() == command.output.strip(), f"{command}: prints otherwise"


def _run_python(command: Shown, cwd: Path) -> None:
    argv = [sys.executable, *shlex.split(command.text)[1:]]  # this environment's python
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{command}: `{command.text}`:\n{done.stderr[-2000:]}"


def _cluster_address() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False) as cluster:
        yield cluster.scheduler_address


SCHEDULER = "tcp://scheduler:8786"  # a page's scheduler address: a local one is started


@pytest.fixture
def scheduler() -> Iterator[str]:
    """A local dask scheduler, standing for the pages' :data:`SCHEDULER`."""
    yield from _cluster_address()


def _page_param(page: Path) -> object:
    marks = [] if page.name in FAST_PAGES else [pytest.mark.slow]
    return pytest.param(page, id=str(page.relative_to(ROOT)), marks=marks)


# the sample data leave one case of "binary" without a map, on purpose: it warns
@pytest.mark.filterwarnings("ignore::napari_mood.io.errors.MoodInputWarning")
@pytest.mark.parametrize("page", [_page_param(page) for page in RUN_PAGES])
def test_page_commands_run_as_shown(page, workspace, capsys, request):
    _prepare(page, workspace)
    services = {}
    if any(SCHEDULER in c.text for c in RUN if c.page == page):
        services[SCHEDULER] = request.getfixturevalue("scheduler")
    for command in (c for c in RUN if c.page == page and not _is_gui(c)):
        if command.program != "napari-mood":
            _run_python(command, workspace)
        else:
            _run_cli(command, workspace, capsys, services)


def test_sample_data_one_liner_from_the_repository_root():
    one_liner = next(c for c in RUN if c.program != "napari-mood")
    _run_python(one_liner, ROOT)


@pytest.mark.gui
@pytest.mark.slow
@pytest.mark.parametrize(
    "command", list({c.text: c for c in RUN if _is_gui(c)}.values()), ids=str
)  # the same command on two pages runs once
def test_gui_command_renders_under_xvfb(command, tmp_path):
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (.ci/run installs it)")
    shutil.copytree(SAMPLE, tmp_path / "sample_data", ignore=shutil.ignore_patterns("*.py"))
    shot = tmp_path / "shown.png"
    argv = [str(Path(sys.executable).parent / "napari-mood"), *command.argv]
    argv += [] if "--screenshot" in argv else ["--screenshot", str(shot)]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(
        ["xvfb-run", "-a", *argv], cwd=tmp_path, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{command}: `{command.text}`:\n{done.stderr[-2000:]}"
    written = argv[argv.index("--screenshot") + 1]
    assert (tmp_path / written).stat().st_size > 10_000


# ----------------------------------------------------------------------------- python blocks

PYTHON_FENCE = re.compile(r"^```(python|py|pycon)\s*$")  # titled blocks include docs/examples


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """The plain ``python`` code blocks of ``page``: first line and code."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks, k = [], 0
    while k < len(lines):
        end = _past_block(lines, k) if lines[k].strip().startswith("```") else k + 1
        if PYTHON_FENCE.match(lines[k].strip()):
            code = "\n".join(line for line in lines[k + 1 : end - 1])
            blocks.append((k + 1, code))
        k = end
    return blocks


PYTHON_BLOCKS = [
    pytest.param(code, id=f"{page.relative_to(ROOT)}:{line}")
    for page in PAGES
    for line, code in python_blocks(page)
]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::napari_mood.io.errors.MoodInputWarning")
@pytest.mark.parametrize("code", PYTHON_BLOCKS)
def test_python_block_runs(code, workspace, capsys):
    from tests.services.test_recon import _dataset

    _dataset(workspace)  # sim/ and recon/, as the PET page's commands write them
    exec(compile(code, "<docs>", "exec"), {"__name__": "__docs__"})
    assert capsys.readouterr().out.strip()
