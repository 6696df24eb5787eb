"""Score reading (core.scores): the NaN message and inputs left as they are (mutation survivors)."""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.scores import check_no_nan, check_threshold, gt_mask, to_exact_values


def test_nan_message_counts_and_says_what_to_do():
    message = (
        "^scores contain 2 NaN value\\(s\\); decide the NaN policy "
        "\\(e\\.g\\. replace NaN by 0\\) before scoring$"
    )
    with pytest.raises(ValueError, match=message):
        check_no_nan(np.array([np.nan, 0.5, np.nan]))


def test_exact_values_leave_a_float32_input_unchanged():
    scores = np.array([-0.5, 0.25, 3.0], dtype=np.float32)
    out = to_exact_values(scores)
    assert out.tolist() == [0.0, 0.25, 1.0]
    assert scores.tolist() == [-0.5, 0.25, 3.0]


@pytest.mark.parametrize("value", [1.5, "abc"])
def test_threshold_message_names_the_threshold(value):
    with pytest.raises(ValueError, match=r"^threshold must be a number in \[0, 1\]"):
        check_threshold(value)


def test_text_labels_are_refused_naming_the_dtype():
    with pytest.raises(TypeError, match=r"^labels must be an array of numbers; got .* dtype <U1$"):
        gt_mask(np.array(["a", "b"]))


def test_strict_labels_hold_only_0_and_1():
    with pytest.raises(
        ValueError, match=r"^labels must contain only 0 and 1 \(or be a bool array\)$"
    ):
        gt_mask(np.array([0, 2]), strict=True)
    assert gt_mask(np.array([0, 2])).tolist() == [False, True]
