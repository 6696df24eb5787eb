"""Fixtures shared by the widget tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from napari_mood.services.review_location import ENV_REVIEW_DIR


@pytest.fixture
def review_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh default review folder (``$NAPARI_MOOD_REVIEW_DIR``)."""
    folder = tmp_path / "reviews"
    monkeypatch.setenv(ENV_REVIEW_DIR, str(folder))
    return folder
