"""Sample MOOD-style dataset shipped with napari-mood (see README.md in this folder)."""
