"""Rules on arrays (scores, GT voxels, thresholds, curves, metrics) and the MOOD file readers."""
