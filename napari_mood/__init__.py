"""napari-mood: see, score and compare medical anomaly-detection outputs.

Importing this package never imports napari or Qt; the viewer lives in private modules
loaded by the napari plugin manifest and the ``napari-mood`` command line.
"""

from __future__ import annotations

from napari_mood._version import __version__

__all__ = ["__version__"]
