"""The one default seed and the one default resample count of every drawing napari-mood makes."""

DEFAULT_SEED = 123
"""The MOOD challenge's ``bootstrap_dir`` seed: ``evaluate --batches`` draws the official
batches, and every bootstrap, baseline and simulation repeats unless a seed is given."""

DEFAULT_RESAMPLES = 1000
"""Resamples of a bootstrap when none are asked for: the comparison table's and the
report's 95 % intervals, and the default of every bootstrap function."""
