"""napari-mood: see, score and compare medical anomaly-detection outputs.

The public API is GUI-free: importing this package never imports napari or Qt (the viewer
lives in the private ``napari_mood._napari`` wing, loaded by the napari plugin manifest and
by ``napari-mood demo`` / ``view``). Names are imported lazily on first use; type checkers
and IDEs read them from ``__init__.pyi``.

Examples
--------
>>> import numpy as np
>>> import napari_mood
>>> napari_mood.average_precision(np.array([0.1, 0.9, 0.4]), np.array([False, True, False]))
1.0
"""

from __future__ import annotations

import importlib
from typing import Any

from napari_mood._version import __version__

_API = {
    "average_precision": "napari_mood.core.metrics",
    "auroc": "napari_mood.core.metrics",
    "fpr_at_tpr": "napari_mood.core.metrics",
    "confusion_at": "napari_mood.core.metrics",
    "best_threshold": "napari_mood.core.metrics",
    "slice_scores": "napari_mood.core.metrics",
    "sample_score_from_pixel": "napari_mood.core.metrics",
    "CurveAccumulator": "napari_mood.core.curves",
    "Curve": "napari_mood.core.curves",
    "curve_from_arrays": "napari_mood.core.curves",
    "match_objects": "napari_mood.core.objects",
    "describe_case": "napari_mood.core.objects",
    "count_objects": "napari_mood.core.objects",
    "best_object_threshold": "napari_mood.core.objects",
    "EvaluationOptions": "napari_mood.core.results",
    "evaluate_case": "napari_mood.core.evaluate",
    "evaluate_dataset": "napari_mood.core.evaluate",
    "discover_dataset": "napari_mood.core.io",
    "discover_methods": "napari_mood.core.io",
    "method_folder": "napari_mood.core.io",
    "read_scores": "napari_mood.core.nifti",
    "read_label": "napari_mood.core.nifti",
    "read_volume": "napari_mood.core.nifti",
    "MoodInputError": "napari_mood.core.io",
    "validate_dataset": "napari_mood.core.validate",
    "rank_methods": "napari_mood.core.ranking",
    "consensus_rank": "napari_mood.core.ranking",
    "kendall_tau_b": "napari_mood.core.ranking",
    "bootstrap_ap": "napari_mood.core.ranking",
    "batch_average_precision": "napari_mood.core.ranking",
    "listing_batch_ap": "napari_mood.core.ranking",
    "mood_splits": "napari_mood.core.ranking",
    "sample_data_dir": "napari_mood.services.datasets",
    "run_evaluation": "napari_mood.services.engine",
    "evaluate_folder": "napari_mood.services.evaluation",
    "find_methods": "napari_mood.core.io",
    "flag": "napari_mood.core.scores",
    "gt_mask": "napari_mood.core.scores",
    "ScoreMode": "napari_mood.core.scores",
}

__all__ = ["__version__", *sorted(_API)]


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'napari_mood' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
