"""napari-mood: see, score and compare medical anomaly-detection outputs.

The public API is GUI-free: importing this package never imports napari or Qt (the viewer
lives in the private ``napari_mood._napari`` wing, loaded by the napari plugin manifest and
by ``napari-mood demo`` / ``view``). The names are listed once, in ``__init__.pyi``: they
are imported on first use (``lazy_loader.attach_stub``), and type checkers read the stub.

One entry point per benchmark: :func:`evaluate` (MOOD dataset folders),
:func:`evaluate_boxes` (NOVA-style box datasets) and :func:`evaluate_recon`
(reconstructions of a simulated PET set), each returning a result that prints as a table
and converts to JSON (``to_json``) and a pandas DataFrame (``to_frame``).

Examples
--------
>>> import numpy as np
>>> import napari_mood
>>> napari_mood.average_precision(np.array([0.1, 0.9, 0.4]), np.array([False, True, False]))
1.0
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
