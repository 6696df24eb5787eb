"""Rules on arrays: scores, GT voxels, thresholds, curves, metrics, objects, boxes, rankings.

Pure: arrays in, values out. Files are read and written by :mod:`napari_mood.io`.
"""
