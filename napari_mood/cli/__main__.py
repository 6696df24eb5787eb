"""``python -m napari_mood.cli``: the ``napari-mood`` command."""

import sys

from napari_mood.cli import main

sys.exit(main())
