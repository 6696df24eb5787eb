"""The one default random seed of every drawing napari-mood makes."""

DEFAULT_SEED = 123
"""The MOOD challenge's ``bootstrap_dir`` seed: ``evaluate --batches`` draws the official
batches, and every bootstrap, baseline and simulation repeats unless a seed is given."""
