"""``napari-mood demo`` and ``napari-mood view``: open napari (imported only here, lazily)."""

from __future__ import annotations

import argparse

__all__ = ["demo", "view"]


def demo(args: argparse.Namespace) -> int:
    """Open the bundled sample dataset in napari with every widget docked."""
    from napari_mood._napari.viewer import run_demo

    return run_demo(screenshot=args.screenshot)


def view(args: argparse.Namespace) -> int:
    """Open files, a case or a dataset in napari."""
    from napari_mood._napari.viewer import open_viewer

    return open_viewer(args.paths, preds=dict(args.pred), screenshot=args.screenshot)
