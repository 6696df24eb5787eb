"""The simulation jobs' rules as the ``simulate`` and ``sweep`` commands drive them.

Toy anomalies on a scan (:func:`iter_simulated_cases`, on a scan brought to [0, 1] by
:func:`to_unit_range`), hypometabolism at several degrees (the ``--kind pet --mask``
cases: the profile, the degrees and their case names) and the sweep's kinds and presets.
The command modules read the inputs and write the datasets (:mod:`napari_mood.io.writers`,
:mod:`napari_mood.services.writers`); the rules stay in :mod:`napari_mood.core.simulate`
and :mod:`napari_mood.core.sweep`.
"""

from __future__ import annotations

from napari_mood.core.simulate import iter_simulated_cases, to_unit_range
from napari_mood.core.simulate.hypometabolism import (
    HypometabolismProfile,
    check_region_name,
    degree_case_name,
    degree_percent,
    hypometabolism_profile,
    parse_degree_case,
    region_from_atlas,
    simulate_hypometabolism,
)
from napari_mood.core.sweep import (
    PRESETS,
    SIZE_INTENSITY,
    SWEEP_KINDS,
    check_values,
    default_values,
    parse_values,
)

__all__ = [
    "PRESETS",
    "SIZE_INTENSITY",
    "SWEEP_KINDS",
    "HypometabolismProfile",
    "check_region_name",
    "check_values",
    "default_values",
    "degree_case_name",
    "degree_percent",
    "hypometabolism_profile",
    "iter_simulated_cases",
    "parse_degree_case",
    "parse_values",
    "region_from_atlas",
    "simulate_hypometabolism",
    "to_unit_range",
]
