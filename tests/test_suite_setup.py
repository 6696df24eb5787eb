"""The test run's own set-up (tests/conftest.py): each pytest-xdist worker has a virtual
display of its own, which ends with the worker."""

from __future__ import annotations

import os
import select
import shutil

import pytest

from tests import conftest


@pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is not installed")
def test_a_worker_display_is_its_own_and_ends_with_the_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DISPLAY", ":shared")
    kept: list[tuple[int, int]] = []
    monkeypatch.setattr(conftest, "_DISPLAYS_KEPT", kept)
    conftest._own_display()
    ((keep, pid),) = kept
    assert os.environ["DISPLAY"] not in (":shared", "")
    ended = os.pidfd_open(pid)
    try:
        assert select.select([ended], [], [], 0)[0] == []  # running
        os.close(keep)  # what the worker's exit does
        assert select.select([ended], [], [], 120)[0] == [ended]  # Xvfb ended
    finally:
        os.close(ended)
