"""Every example a ``--help`` prints is run as printed, in a folder holding what it names.

The examples are read from the parser itself (every ``example:`` line of every
subcommand's epilog and of the top-level help), so a new or changed example is run from
the day it is written. They run in one scratch folder, in :data:`ORDER` (an example may
use what an earlier one wrote: ``pet-sample`` before ``simulate pet/...``), the folder
holding :data:`SCRATCH` built from the bundled sample data. ``demo`` and ``view`` run under
``xvfb-run -a`` with ``--screenshot`` (``gui``); :data:`NOT_RUN` lists, with its reason,
each example that is not run (keep it tiny).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import napari_mood
from napari_mood.cli import main
from napari_mood.cli.parser import build_parser
from tests.shown_commands import expanded, method_script, write_batched_results

SAMPLE = napari_mood.sample_data_dir()

# what the scratch folder holds before the first example runs
SCRATCH = {
    "data/": "a copy of the bundled sample data (its categories.csv and reviews/ included)",
    "runs/": "its methods' outputs, a copy of sample_data/methods",
    "nova/": "the bundled NOVA-style box sample",
    "normal.nii.gz": "a normal scan of the sample data (brain_000)",
    "mymethod.py": "a method with MOOD's interface (its scan as its score map)",
    "brain.json, abdom.json": "evaluate --batches 5 --batch-size 3 --format json of data/",
}

# the order the subcommands' examples run in (what each needs is written before it; ""
# is the top-level help's)
ORDER = (
    "", "evaluate", "validate", "figure", "categories", "review-report", "rank", "evaluate-boxes",
    "pet-sample", "simulate", "reconstruct", "evaluate-recon", "sweep", "run", "sweep-report",
)  # fmt: skip

# (example, why it is not run here): keep this tiny
NOT_RUN = {
    "napari-mood demo": "opens a window until it is closed: its --screenshot line is run",
}


def help_examples() -> list[tuple[str, str]]:
    """``(subcommand, example)`` for every example line of every ``--help``, in order."""
    parser = build_parser(complete=True)
    found = [("", line) for line in _example_lines(parser.epilog)]
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in sub.choices.items():  # type: ignore[attr-defined]
        found += [(name, line) for line in _example_lines(command.epilog)]
    return found


def _example_lines(epilog: str | None) -> list[str]:
    lines = (epilog or "").split("example:", 1)[-1].splitlines()
    return [line.strip() for line in lines if "napari-mood " in line and "--help" not in line]


EXAMPLES = help_examples()


def _argv(example: str) -> list[str]:
    words = shlex.split(example)
    return words[words.index("napari-mood") + 1 :]


def _is_gui(example: str) -> bool:
    return _argv(example)[:1] in (["demo"], ["view"])


def _scratch(folder: Path) -> Path:
    """Fill ``folder`` with :data:`SCRATCH`."""
    shutil.copytree(SAMPLE, folder / "data", ignore=shutil.ignore_patterns("*.py", "nova"))
    shutil.copytree(SAMPLE / "methods", folder / "runs")
    shutil.copytree(SAMPLE / "nova", folder / "nova")
    shutil.copy(SAMPLE / "toy" / "brain_000.nii.gz", folder / "normal.nii.gz")
    (folder / "mymethod.py").write_text(method_script())
    write_batched_results(folder / "data", (folder / "brain.json", folder / "abdom.json"))
    return folder


def test_every_help_example_is_run_or_excused():
    names = {name for name, _ in EXAMPLES if name}
    unordered = names - set(ORDER) - {"demo", "view"}
    assert not unordered, f"subcommands whose examples have no place in ORDER: {unordered}"
    assert set(NOT_RUN) <= {example for _, example in EXAMPLES}, "NOT_RUN names a gone example"
    assert len(NOT_RUN) <= 2, "keep the list of examples not run tiny"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::napari_mood.io.errors.MoodInputWarning")
def test_help_examples_run_as_printed(tmp_path, monkeypatch, capsys):
    work = _scratch(tmp_path)
    monkeypatch.chdir(work)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    ran = []
    for name in ORDER:
        for example in (e for n, e in EXAMPLES if n == name and e not in NOT_RUN):
            capsys.readouterr()
            code = main(expanded(_argv(example), work))
            err = capsys.readouterr().err
            assert code == 0, f"napari-mood {name} --help: `{example}` exits {code}:\n{err[-2000:]}"
            ran.append(example)
    not_gui = [e for _, e in EXAMPLES if not _is_gui(e) and e not in NOT_RUN]
    assert set(ran) == set(not_gui)


@pytest.mark.gui
@pytest.mark.slow
@pytest.mark.parametrize(
    "example", sorted({e for _, e in EXAMPLES if _is_gui(e) and e not in NOT_RUN})
)
def test_gui_help_examples_render_under_xvfb(example, tmp_path):
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (.ci/run installs it)")
    shutil.copytree(SAMPLE, tmp_path / "data", ignore=shutil.ignore_patterns("*.py"))
    shutil.copytree(SAMPLE / "methods", tmp_path / "runs")
    argv = [str(Path(sys.executable).parent / "napari-mood"), *_argv(example)]
    argv += [] if "--screenshot" in argv else ["--screenshot", "shown.png"]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    done = subprocess.run(
        ["xvfb-run", "-a", *argv], cwd=tmp_path, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"`{example}`:\n{done.stderr[-2000:]}"
    written = argv[argv.index("--screenshot") + 1]
    assert (tmp_path / written).stat().st_size > 10_000
