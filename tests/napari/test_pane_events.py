"""The wheel's notch accounting (issue 46, item 4): n notches page n slices, parts add up."""

from __future__ import annotations

import pytest

from napari_mood._napari.pane_events import NOTCH, wheel_steps


@pytest.mark.parametrize("notches", [1, 2, 3, -1, -3])
def test_one_event_of_n_notches_pages_n_slices(notches: int):
    assert wheel_steps(0, notches * NOTCH) == (notches, 0)


@pytest.mark.parametrize("part", [NOTCH // 4, -NOTCH // 4, NOTCH // 8])
def test_parts_of_a_notch_page_one_slice_once_they_add_up_to_a_notch(part: int):
    pending, paged = 0, []
    for _ in range(NOTCH // abs(part)):
        steps, pending = wheel_steps(pending, part)
        paged.append(steps)
    assert paged[:-1] == [0] * (len(paged) - 1)  # a touchpad's quarter notch pages nothing
    assert paged[-1] == (1 if part > 0 else -1) and pending == 0


def test_a_turn_back_takes_the_part_of_a_notch_back_first():
    steps, pending = wheel_steps(0, 90)
    assert (steps, pending) == (0, 90)
    assert wheel_steps(pending, -120) == (0, -30)
    assert wheel_steps(pending, -210) == (-1, 0)
