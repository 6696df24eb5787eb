"""A job's message names an option in words; only the command line spells it as a flag.

A service is called by the command line, the panels and notebooks: ``str()`` of its
errors and warnings (what a panel or a notebook shows) says what to change in words,
and the command line alone prints the flag.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pytest

from napari_mood.cli import _run, _WarningPrinter
from napari_mood.core.results import EvaluationOptions
from napari_mood.io.errors import MoodInputError, MoodInputWarning, in_words, option, with_flags
from napari_mood.io.methods import find_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.evaluation_job import MoodOutputs, write_mood_evaluation
from napari_mood.services.output import OutputRefused, Planned, check_outputs
from tests.conftest import make_mood_folder


def test_an_option_reads_as_words_or_as_its_flag():
    text = f"give {option('--toy DATASET', 'a toy dataset')} to choose it"
    assert in_words(text) == "give a toy dataset to choose it"
    assert with_flags(text) == "give --toy DATASET to choose it"


def test_an_error_says_words_and_the_command_line_prints_the_flag(capsys):
    error = MoodInputError(Path("/d"), "no toy set", f"give {option('--toy DATASET', 'a toy set')}")
    assert str(error) == "/d: no toy set (give a toy set)"
    assert error.hint == "give a toy set"

    def job(args: argparse.Namespace) -> int:
        raise error

    assert _run(job, argparse.Namespace()) == 1
    assert capsys.readouterr().err == "napari-mood: error: /d: no toy set (give --toy DATASET)\n"


def test_a_warning_says_words_and_the_command_line_prints_the_flag(capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn(f"f.nii: odd ({option('use --x', 'change x')})", MoodInputWarning, 2)
    assert str(caught[0].message) == "f.nii: odd (change x)"
    _WarningPrinter()(caught[0].message, MoodInputWarning, "f.py", 1)
    assert "f.nii: odd (use --x)" in capsys.readouterr().err


def test_the_output_guard_names_outputs_and_force_in_words(tmp_path):
    out = tmp_path / "r.txt"
    out.write_text("kept")
    with pytest.raises(OutputRefused) as info:
        check_outputs(
            [Planned(out, option("--out", "the output"))], inputs=_no_inputs(), force=False
        )
    assert "--" not in str(info.value)
    assert with_flags(str(info.value.args[0])).endswith(
        "--out exists already (use --force to replace it, or choose another path)"
    )


def _no_inputs():
    from napari_mood.services.output import Inputs

    return Inputs()


def test_the_evaluation_job_warns_about_its_toy_set_in_words(tmp_path):
    mask = np.zeros((4, 5, 6), bool)
    mask[1:3, 1:3, 1:3] = True
    root, preds = make_mood_folder(
        tmp_path / "in", {"c0": mask}, {"m": {"c0": mask.astype(np.float32)}}
    )
    options = EvaluationOptions(tasks=("object",), object_threshold="auto")
    with pytest.warns(MoodInputWarning) as caught:
        write_mood_evaluation(
            discover_dataset(root), find_methods(root, preds=preds), options, MoodOutputs()
        )
    toy = [str(w.message) for w in caught if "object threshold" in str(w.message)]
    assert toy and "a toy dataset" in toy[0] and "--" not in toy[0]
    raw = [w.message.args[0] for w in caught if "object threshold" in str(w.message)]
    assert "--toy DATASET" in with_flags(raw[0])


def test_a_notebook_echoes_errors_and_warnings_in_words():
    marked = f"odd ({option('--x VALUE', 'change x')})"
    assert repr(MoodInputError(None, "bad", marked)) == "MoodInputError('bad (odd (change x))')"
    assert repr(MoodInputWarning(marked)) == "MoodInputWarning('odd (change x)')"


def test_a_case_warning_keeps_its_flag_through_the_engine(capsys):
    """A worker process returns a case's warnings as text; the flag survives the trip."""
    from napari_mood.services.engine import _marked

    warning = MoodInputWarning(f"f.nii: odd ({option('use --x', 'change x')})")
    text = _marked(warning)
    assert str(MoodInputWarning(text)) == "f.nii: odd (change x)"
    _WarningPrinter()(MoodInputWarning(text), MoodInputWarning, "f.py", 1)
    assert "f.nii: odd (use --x)" in capsys.readouterr().err
