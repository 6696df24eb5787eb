"""One command-line vocabulary, a fast ``--help``, missing optional dependencies in one line.

The vocabulary (``docs/cli-vocabulary.md``) is checked over every subcommand's parser;
each old spelling is shown to work once, hidden from ``--help``, with one note on stderr.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.cli import main
from napari_mood.cli._args import DEFAULT_SEED
from napari_mood.cli.parser import COMMANDS, CommandParser, build_parser

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
HEAVY = ("numpy", "scipy", "nibabel", "matplotlib", "dask", "napari", "qtpy", "pandas")
"""Modules ``napari-mood --help`` must not import (each costs 0.1 to 0.5 s)."""


def _imported_by(argv: list[str], prefixes: tuple[str, ...]) -> list[str]:
    """Modules starting with ``prefixes`` imported by ``main(argv)`` in a fresh Python."""
    code = (
        "import contextlib, io, json, sys\n"
        "from napari_mood.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(run.stdout.splitlines()[-1])


def test_top_level_help_imports_no_subcommand_and_nothing_heavy():
    """``napari-mood --help`` reads the command table only (the parser module itself)."""
    found = _imported_by(["--help"], (*HEAVY, "napari_mood"))
    assert found == ["napari_mood", "napari_mood._version", "napari_mood.cli",
                     "napari_mood.cli.parser"]  # fmt: skip


def test_a_subcommand_help_imports_its_options_not_its_code():
    found = _imported_by(
        ["rank", "--help"], ("matplotlib", "napari_mood.cli.", "napari_mood.services")
    )
    assert "matplotlib" not in found and "napari_mood.cli.rank" not in found
    assert "napari_mood.cli.parser_analyses" in found


def subcommand_parsers(parser: argparse.ArgumentParser) -> dict[str, CommandParser]:
    """Return the subcommand parsers of ``parser`` by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    return subcommand_parsers(build_parser(complete=True))


def _visible(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a for a in parser._actions
        if a.help is not argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)
    ]  # fmt: skip


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in _visible(parser) for s in a.option_strings}


def test_every_command_is_in_the_table_with_an_example():
    parsers = _subparsers()
    assert list(parsers) == [c.name for c in COMMANDS]
    for name, parser in parsers.items():
        assert parser.formatter_class is argparse.RawDescriptionHelpFormatter
        assert (parser.epilog or "").startswith(f"example:\n  napari-mood {name}"), name
        assert "example:\n  napari-mood" in parser.format_help()


def test_every_argument_has_help_and_a_chosen_metavar():
    """No argument without help; none named by argparse from its dest (``--out OUT``)."""
    for name, parser in _subparsers().items():
        for action in _visible(parser):
            label = f"{name} {action.option_strings or action.dest}"
            assert action.help, f"{label}: no help text"
            takes_value = action.nargs != 0
            if takes_value and action.choices is None:
                assert action.metavar is not None, f"{label}: default metavar"


def test_one_meaning_per_word():
    seeds, quiet_helps = set(), set()
    for name, parser in _subparsers().items():
        options = _options(parser)
        if "--seed" in options:
            seeds.add(options["--seed"].default)
        if "--quiet" in options:
            quiet_helps.add(options["--quiet"].help)
        if "--format" in options:
            assert options["--format"].choices == ("table", "csv", "json"), name
        if "--plot" in options or "--plot-formats" in options or name == "figure":
            assert "--dpi" in options, f"{name} writes a figure without --dpi"
        if "--out" in options:
            assert "--force" in options, name
        for old in ("--output", "--input", "--json", "--formats", "--thresholds", "--figure",
                    "--figure-method", "--figure-images", "--overwrite"):  # fmt: skip
            assert old not in options, f"{name} shows the old spelling {old}"
        if "--labels" in options:  # the label folder of a MOOD dataset, nothing else
            assert options["--labels"].metavar == "DIR", name
        if "--maps" in options:  # read: a method's score maps
            assert name == "evaluate-boxes", name
    assert seeds == {DEFAULT_SEED} == {123}  # the MOOD challenge's bootstrap_dir seed
    assert len(quiet_helps) == 1


def test_every_printed_result_has_format():
    for name in ("evaluate", "validate", "rank", "run", "evaluate-boxes", "evaluate-recon",
                 "categories", "sweep-report", "review-report"):  # fmt: skip
        assert "--format" in _options(_subparsers()[name]), name


ALIASES = [
    (["run", "cmd", "--input", "in", "--out", "o"], "input", Path("in"), "--input",
     "the positional INPUT"),
    (["run", "cmd", "in", "--output", "o"], "out", Path("o"), "--output", "--out"),
    (["run", "cmd", "in", "--out", "o", "--json", "r.json"], "report", Path("r.json"), "--json",
     "--report"),
    (["evaluate", "d", "--overwrite"], "force", True, "--overwrite", "--force"),
    (["rank", "r.json", "--formats", "png"], "plot_formats", ("png",), "--formats",
     "--plot-formats"),
    (["figure", "d", "--out", "f.png", "--thresholds", "0.3"], "thresholds", 0.3,
     "--thresholds", "--threshold"),
    (["evaluate-boxes", "d", "--figure", "f.png"], "plot", Path("f.png"), "--figure", "--plot"),
    (["evaluate-boxes", "d", "--figure-method", "m"], "plot_method", "m", "--figure-method",
     "--plot-method"),
    (["evaluate-recon", "d", "--recon", "r", "--maps", "m"], "save_maps", Path("m"), "--maps",
     "--save-maps"),
    (["simulate", "s.nii", "--out", "o", "--labels", "3,4"], "atlas_labels", [3, 4], "--labels",
     "--atlas-labels"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "dest", "value", "old", "new"), ALIASES)
def test_old_spellings_work_with_one_note(capsys, argv, dest, value, old, new):
    args = build_parser().parse_args(argv)
    assert getattr(args, dest) == value
    err = capsys.readouterr().err
    assert err.splitlines() == [f"napari-mood: note: {old} is deprecated, use {new}"]


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "s.nii", "--out", "o", "--atlas-labels", "3", "--labels", "4"],
        ["simulate", "s.nii", "--out", "o", "--labels", "4", "--atlas-labels", "3"],
        ["evaluate", "d", "--force", "--overwrite"],
        ["evaluate-boxes", "d", "--plot", "a.png", "--figure", "b.png"],
    ],
)
def test_an_option_and_its_old_spelling_together_are_a_usage_error(capsys, argv):
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(argv)
    assert caught.value.code == 2
    assert "or its deprecated spelling" in capsys.readouterr().err


@pytest.mark.parametrize("command", sorted({a[0][0] for a in ALIASES}))
def test_old_spellings_are_hidden_from_help(capsys, command):
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    shown = capsys.readouterr().out
    olds = {a[3] for a in ALIASES if a[0][0] == command} | {"--overwrite"}
    assert not [old for old in olds if f"{old} " in shown or f"{old}\n" in shown]


def test_a_required_option_given_by_its_old_spelling_counts(capsys):
    args = build_parser().parse_args(["run", "cmd", "--input", "in", "--output", "o"])
    assert (args.input, args.out) == (Path("in"), Path("o"))
    assert len(capsys.readouterr().err.splitlines()) == 2  # one note each
    for argv, missing in ((["run", "cmd", "--out", "o"], "INPUT"), (["run", "cmd", "in"], "--out"),
                          (["simulate", "s.nii"], "--out")):  # fmt: skip
        with pytest.raises(SystemExit) as caught:
            build_parser().parse_args(argv)
        assert caught.value.code == 2
        assert f"the following arguments are required: {missing}" in capsys.readouterr().err


def test_run_with_the_old_spellings_end_to_end(capsys, tmp_path):
    scans = tmp_path / "scans"
    scans.mkdir()
    nib.save(nib.Nifti1Image(np.zeros((2, 2, 2), np.float32), np.eye(4)), scans / "a.nii.gz")
    method = tmp_path / "m.sh"
    method.write_text('#!/bin/sh\ncp "$1"/* "$2/"\n')
    method.chmod(0o755)
    out, report = tmp_path / "o", tmp_path / "run.json"
    argv = ["run", str(method), "--input", str(scans), "--output", str(out), "--json", str(report)]
    # no --quiet: it would hide the notes (tests/cli/test_quiet_and_report_dpi.py)
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert (out / "a.nii.gz").read_bytes() == (scans / "a.nii.gz").read_bytes()
    assert json.loads(report.read_text())["failed"] == []
    notes = [line for line in captured.err.splitlines() if "is deprecated" in line]
    assert len(notes) == 3 and len(captured.err.splitlines()) == 3


# optional dependencies: one line, exit 1, before any work ---------------------------------


def _without(module: str, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\n"
        f"sys.modules[{module!r}] = None\n"  # as if not installed: `import` raises ImportError
        "from napari_mood.cli import main\n"
        f"sys.exit(main({argv!r}))"
    )
    env_run = [sys.executable, "-c", code]
    return subprocess.run(env_run, capture_output=True, text=True, cwd=cwd, timeout=300)


MISSING = [
    ("napari", ["demo"], "demo needs napari", "napari-mood[pyqt6]"),
    ("napari", ["view", str(SAMPLE)], "view needs napari", "napari-mood[pyqt6]"),
    ("distributed", ["evaluate", str(SAMPLE), "--scheduler", "tcp://127.0.0.1:1"],
     "evaluate --scheduler needs distributed", "napari-mood[cluster]"),
    ("matplotlib", ["evaluate", str(SAMPLE), "--report", "rep"],
     "evaluate --report needs matplotlib", "pip install matplotlib"),
    ("matplotlib", ["figure", str(SAMPLE), "--out", "f.png"], "figure needs matplotlib",
     "pip install matplotlib"),
    ("matplotlib", ["evaluate-boxes", str(SAMPLE / "nova"), "--plot", "b.png"],
     "evaluate-boxes --plot needs matplotlib", "pip install matplotlib"),
    ("matplotlib", ["evaluate-recon", "d", "--recon", "r", "--plot", "p.png"],
     "evaluate-recon --plot needs matplotlib", "pip install matplotlib"),
    ("matplotlib", ["review-report", "j.csv", "--out", "o", "--plot", "p.png"],
     "review-report --plot needs matplotlib", "pip install matplotlib"),
    ("matplotlib", ["rank", "r.json"], "rank needs matplotlib", "pip install matplotlib"),
    ("matplotlib", ["categories", str(SAMPLE), "--out", "o"], "categories needs matplotlib",
     "pip install matplotlib"),
    ("matplotlib", ["sweep", "size", "s.nii.gz", "--out", "o"], "sweep needs matplotlib",
     "pip install matplotlib"),
    ("matplotlib", ["sweep-report", str(SAMPLE), "--out", "o"], "sweep-report needs matplotlib",
     "pip install matplotlib"),
]  # fmt: skip


@pytest.mark.parametrize(("module", "argv", "problem", "hint"), MISSING,
                         ids=[" ".join(m[1][:1] + [m[0]]) for m in MISSING])  # fmt: skip
def test_a_missing_dependency_is_one_line_before_any_work(tmp_path, module, argv, problem, hint):
    run = _without(module, argv, tmp_path)
    assert run.returncode == 1, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith(f"napari-mood: error: {problem}: ") and hint in lines[0]
    assert run.stdout == "" and list(tmp_path.iterdir()) == []  # nothing written
