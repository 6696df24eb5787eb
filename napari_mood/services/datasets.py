"""Where the bundled sample dataset lives (GUI-free)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["sample_data_dir"]


def sample_data_dir() -> Path:
    """Return the folder of the bundled MOOD-style sample dataset (holds ``toy/``, ``toy_label/``).

    Returns
    -------
    pathlib.Path
        The folder inside the installed package.

    Examples
    --------
    >>> (sample_data_dir() / "toy").is_dir()
    True
    """
    return Path(str(resources.files("napari_mood.sample_data")))
