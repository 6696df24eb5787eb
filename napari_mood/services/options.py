"""The options the jobs take: the words and checks a front end applies before starting one.

Light on purpose (numpy and nibabel only): the command line's option parsers import it at
parse time, so a usage error is refused before any file is read, and the viewer's panels
check what the user typed with the same rules. Each name is defined once in the core
rules; this module is the front ends' door to them.
"""

from __future__ import annotations

from napari_mood.core.orientation import CONVENTIONS, PLANES, Convention, Plane
from napari_mood.core.recon_study import TESTS
from napari_mood.core.scores import (
    SCORE_MODES,
    ScoreMode,
    check_threshold,
    display_threshold,
    threshold_limits,
)
from napari_mood.core.seed import DEFAULT_SEED

__all__ = [
    "CONVENTIONS",
    "DEFAULT_SEED",
    "PLANES",
    "SCORE_MODES",
    "TESTS",
    "Convention",
    "Plane",
    "ScoreMode",
    "check_threshold",
    "display_threshold",
    "threshold_limits",
]
