"""The one-line form of a Problem (core.problems) and the option message (core._checks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood.core._checks import check_choice
from napari_mood.core.problems import Problem


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
