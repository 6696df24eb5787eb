"""Messages name options in words; only the command line spells them as flags.

The jobs, readers and panels below the command line make messages that every front end
shows (panels, notebooks, results files, caches): an option they name is marked with
:func:`napari_mood.io.errors.option`, so ``str()`` says it in words and the command line
alone prints the flag. A bare ``--flag`` in their texts is the bug these tests catch.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import napari_mood
from napari_mood.cli import main
from napari_mood.core.recon import check_recon_case
from napari_mood.io.errors import MoodInputError, MoodInputWarning, option, with_flags
from napari_mood.io.methods import MethodFolder, find_methods
from napari_mood.io.mood import MoodDataset, discover_dataset
from napari_mood.io.recon import ReconFolders, missing_regions
from napari_mood.io.validate import emit, validate_dataset
from napari_mood.services.rankings import read_rankings
from napari_mood.services.recon import evaluate_recon
from napari_mood.services.recon_report import ReconOutputs, write_recon_evaluation
from napari_mood.services.staging import staged_folder
from tests.conftest import make_mood_folder, write_nifti

PACKAGE = Path(napari_mood.__file__).parent
BELOW_THE_COMMAND_LINE = ("core", "io", "services", "_napari")
BARE_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")

ALLOWED = {
    # the note in a generated dataset: a file a person reads in the folder, not a message
    ("services/staging.py", "--force"),
}
"""(module, flag) pairs a text may hold: texts that are not messages."""


def _docstrings(tree: ast.AST) -> set[int]:
    """Return the ids of the string nodes that are docstrings (modules, classes, functions)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(id(value))
    # an attribute's docstring: a bare string right after an assignment
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, after in zip(body, body[1:], strict=False):
            if (
                isinstance(before, ast.Assign | ast.AnnAssign)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                found.add(id(after.value))
    return found


def _marked(tree: ast.AST) -> set[int]:
    """Return the ids of the string nodes inside an ``option(flag, words)`` call's flag."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "option"
            and node.args
        ):
            found.update(id(part) for part in ast.walk(node.args[0]))
    return found


def bare_flags(path: Path) -> list[tuple[int, str]]:
    """Return ``(line, flag)`` for each bare flag in the module's texts (not docstrings)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree) | _marked(tree)
    return [
        (node.lineno, flag)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in skipped
        for flag in BARE_FLAG.findall(node.value)
    ]


def test_texts_below_the_command_line_name_no_bare_flag():
    found = [
        f"{module}:{line}: {flag}"
        for layer in BELOW_THE_COMMAND_LINE
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for module in [path.relative_to(PACKAGE).as_posix()]
        for line, flag in bare_flags(path)
        if (module, flag) not in ALLOWED
    ]
    assert found == []


PLACEHOLDER = re.compile(r"(--[a-z][a-z0-9-]*) ([A-Z][A-Z_\[\]=.,]*)")


def _marked_placeholders() -> list[tuple[str, str, str]]:
    """Return ``(module, flag, placeholder)`` for each ``option('--flag VALUE', ...)``."""
    found = []
    for layer in BELOW_THE_COMMAND_LINE:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "option"
                    and node.args
                ):
                    continue
                for part in ast.walk(node.args[0]):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        module = path.relative_to(PACKAGE).as_posix()
                        found += [(module, *pair) for pair in PLACEHOLDER.findall(part.value)]
    return found


def _metavars() -> dict[str, set[str]]:
    """Return each flag's placeholders over every subcommand of the command line."""
    import argparse

    from napari_mood.cli.parser import build_parser

    found: dict[str, set[str]] = {}
    parsers = [build_parser(complete=True)]
    while parsers:
        parser = parsers.pop()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                parsers += list(action.choices.values())
            for flag in action.option_strings:
                found.setdefault(flag, set()).add(str(action.metavar or action.dest.upper()))
    return found


def test_a_marked_option_spells_its_value_as_the_help_does():
    """``--toy DATASET`` in a hint and ``--toy DATASET`` in ``--help``: one placeholder."""
    metavars = _metavars()
    marked = _marked_placeholders()
    assert marked, "no option(...) with a placeholder found"
    wrong = [
        f"{module}: {flag} {value} (help: {sorted(metavars.get(flag, ()))})"
        for module, flag, value in marked
        if value not in metavars.get(flag, {value})
    ]
    assert wrong == []


# -- the examples: each message as the command line prints it and as the others show it


def _nan_scores(tmp_path: Path) -> tuple[str, str]:
    """A NaN voxel in a method's map, as ``validate`` finds it (a problem record)."""
    problem = next(p for p in validate_dataset(*_nan_dataset(tmp_path)) if p.kind == "nan")
    return problem.marked(), str(problem)


def _nan_dataset(tmp_path: Path) -> tuple[MoodDataset, dict[str, MethodFolder]]:
    mask = np.zeros((4, 5, 6), bool)
    mask[1:3, 1:3, 1:3] = True
    scores = mask.astype(np.float32)
    scores[0, 0, 0] = np.nan
    root, preds = make_mood_folder(tmp_path, {"c0": mask}, {"m": {"c0": scores}})
    return discover_dataset(root), find_methods(root, preds=preds)


def _no_brain(tmp_path: Path) -> tuple[str, str]:
    """A healthy original that is all zero, without a brain mask (a rule of core)."""
    ok = np.arange(1.0, 9.0)
    found = check_recon_case(ok, np.zeros(8), ok)
    assert found is not None
    error = MoodInputError(tmp_path / "healthy.nii.gz", found.problem, found.hint)
    return str(error.args[0]), str(error)


def _no_region(tmp_path: Path) -> tuple[str, str]:
    """The PET dataset's region folder is missing (a warning and a result's problem)."""
    folders = ReconFolders(tmp_path, tmp_path, tmp_path, region=tmp_path / "region")
    text = missing_regions(folders)
    assert text is not None
    return text, str(MoodInputWarning(text))


def _no_case(tmp_path: Path) -> tuple[str, str]:
    """No case of a PET dataset without its region folder could be measured (an error).

    The error gives the case's own reason, not the dataset-wide note on the region folder.
    """
    data = tmp_path / "data"
    write_nifti(data / "toy" / "s_r_deg00.nii.gz", np.ones((4, 4, 4), np.float32))
    write_nifti(data / "healthy" / "s_r_deg00.nii.gz", np.zeros((4, 4, 4), np.float32))
    write_nifti(tmp_path / "recon" / "s_r_deg00.nii.gz", np.ones((4, 4, 4), np.float32))
    with pytest.warns(MoodInputWarning):
        return _raised(evaluate_recon, data, tmp_path / "recon")


def _no_results(tmp_path: Path) -> tuple[str, str]:
    """``rank`` given a results file that is not there."""
    return _raised(read_rankings, tmp_path / "missing.json")


def _not_results(tmp_path: Path) -> tuple[str, str]:
    """``rank`` given a JSON that is not an evaluation's result."""
    path = tmp_path / "list.json"
    path.write_text("[1]", encoding="utf-8")
    return _raised(read_rankings, path)


def _nothing_to_plot(tmp_path: Path) -> tuple[str, str]:
    """``evaluate-recon --plot`` on reconstructions of cases that are not simulated."""
    data = tmp_path / "data"
    for folder in ("toy", "healthy", "recon"):
        write_nifti(data / folder / "case.nii.gz", np.ones((3, 3, 3), np.float32))
    folders = ReconFolders(data / "toy", data / "healthy", data / "recon")
    outputs = ReconOutputs(plot=tmp_path / "plot.png")
    return _raised(write_recon_evaluation, folders, outputs)


def _not_generated(tmp_path: Path) -> tuple[str, str]:
    """Replacing a folder napari-mood did not generate, as a generated dataset."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("kept", encoding="utf-8")

    def stage() -> None:
        with staged_folder(out, force=True, what=option("--out", "the output")):
            pass

    return _raised(stage)


def _raised(call: Callable[..., object], *args: object) -> tuple[str, str]:
    with pytest.raises(MoodInputError) as info:
        call(*args)
    return str(info.value.args[0]), str(info.value)


EXAMPLES = {
    "nan policy": (_nan_scores, "--nan-policy zero", "score NaN as zero"),
    "brain mask": (_no_brain, "give a brain mask", "give a brain mask"),
    "region": (_no_region, "or --region DIR", "or another folder of regions"),
    "recon, no case": (_no_case, "give a brain mask", "give a brain mask"),  # the case's reason
    "rank, no file": (_no_results, "evaluate --format json", "an evaluation's JSON result"),
    "rank, not results": (_not_results, "--format json --out FILE", "an evaluation's JSON"),
    "recon plot": (_nothing_to_plot, "drop --plot", "ask for no plot"),
    "not generated": (_not_generated, "--force replaces only", "only a generated dataset is"),
}


@pytest.mark.parametrize("example", EXAMPLES.values(), ids=EXAMPLES)
def test_a_message_says_words_and_the_command_line_prints_the_flag(tmp_path, example):
    make, flagged, words = example
    raw, shown = make(tmp_path)
    assert words in shown
    assert BARE_FLAG.search(shown) is None, shown  # a panel, a notebook, a results file
    assert flagged in with_flags(raw)  # the command line


def test_validate_prints_the_nan_policy_as_its_flag(tmp_path, capsys):
    dataset, methods = _nan_dataset(tmp_path)
    code = main(["validate", str(dataset.root), "--preds", str(methods["m"].path.parent)])
    out = capsys.readouterr().out
    assert code == 1
    assert "1 NaN voxels -> replace NaN by 0 in the method, or use --nan-policy zero" in out


def test_an_api_user_is_warned_about_nan_scores_in_words(tmp_path):
    dataset, methods = _nan_dataset(tmp_path)
    with pytest.warns(MoodInputWarning) as caught:
        emit(validate_dataset(dataset, methods))
    assert "score NaN as zero" in str(caught[0].message)
    assert "--" not in str(caught[0].message)
    assert "use --nan-policy zero" in with_flags(str(caught[0].message.args[0]))
