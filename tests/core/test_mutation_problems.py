"""The one-line form of a Problem (core.problems), option marks (core.wording) and the option
message (core._checks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood.core._checks import check_choice
from napari_mood.core.problems import Problem
from napari_mood.core.wording import in_words, option, with_flags


@pytest.mark.parametrize(
    ("path", "hint", "text"),
    [
        (Path("a/b.nii.gz"), "re-export it", "a/b.nii.gz: 3 NaN voxels -> re-export it"),
        (Path("a/b.nii.gz"), "", "a/b.nii.gz: 3 NaN voxels"),
        (None, "re-export it", "3 NaN voxels -> re-export it"),
        (None, "", "3 NaN voxels"),
    ],
)
def test_problem_reads_file_message_hint(path, hint, text):
    assert str(Problem("nan", "error", path, "3 NaN voxels", hint)) == text


def test_check_choice_names_the_option_the_values_and_the_value():
    check_choice("mode", "mood", ("mood", "exact"))
    check_choice("mode", "exact", iter(["mood", "exact"]))  # any iterable, read once
    with pytest.raises(ValueError) as info:
        check_choice("mode", "fast", iter(["mood", "exact"]))
    assert str(info.value) == "mode must be one of 'mood', 'exact'; got 'fast'"


def test_a_problem_says_its_options_in_words_and_keeps_their_flags():
    hint = f"fix the method, or {option('use --nan-policy zero', 'score NaN as zero')}"
    problem = Problem("nan", "error", Path("m/c.nii.gz"), "1 NaN voxels", hint)
    assert str(problem) == "m/c.nii.gz: 1 NaN voxels -> fix the method, or score NaN as zero"
    assert with_flags(problem.marked()) == (
        "m/c.nii.gz: 1 NaN voxels -> fix the method, or use --nan-policy zero"
    )


@pytest.mark.parametrize(
    ("text", "words", "flags"),
    [
        ("plain", "plain", "plain"),
        ("{{--a|x}}", "x", "--a"),
        ("{{--a B|an a}} and {{--c|}}.", "an a and .", "--a B and --c."),
        ("{ {--a|x} }", "{ {--a|x} }", "{ {--a|x} }"),  # not a mark: left as it is
    ],
)
def test_an_option_mark_renders_as_words_or_as_flags(text, words, flags):
    assert in_words(text) == words
    assert with_flags(text) == flags


def test_option_marks_a_flag_and_its_words():
    assert option("--toy DATASET", "a toy dataset") == "{{--toy DATASET|a toy dataset}}"
