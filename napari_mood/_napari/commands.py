"""``napari-mood demo`` and ``napari-mood view``: the napari wing's two commands.

The command line declares them and their options (:mod:`napari_mood.cli.parser_mood`) and
names these handlers by module string, so ``cli`` never imports the napari wing; napari
itself is imported only when a handler opens the window.

Everything that can be refused is refused before napari starts: no display, a
``--screenshot`` among the inputs or replacing a file without ``--force``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from napari_mood.io.errors import MoodInputError, option
from napari_mood.io.layout import check_openable
from napari_mood.services.output import Inputs, check_output_file

__all__ = ["demo", "view"]


def demo(args: argparse.Namespace) -> int:
    """Open the bundled sample dataset in napari with every widget docked."""
    from napari_mood.services.datasets import sample_data_dir

    _check_before_napari(args, [sample_data_dir()])
    from napari_mood._napari.viewer import run_demo

    return run_demo(screenshot=args.screenshot, force=args.force)


def view(args: argparse.Namespace) -> int:
    """Open files, a case or a dataset in napari."""
    preds = [folder for _, folder in args.pred]
    _check_before_napari(args, [*args.paths, *preds], opened=list(args.paths))
    from napari_mood._napari.viewer import open_viewer

    return open_viewer(
        args.paths, preds=dict(args.pred), screenshot=args.screenshot, force=args.force
    )


def _check_before_napari(
    args: argparse.Namespace, inputs: Iterable[Path], *, opened: Sequence[Path] = ()
) -> None:
    inputs = list(inputs)
    for path in inputs:  # named as missing, not as an output refused beside it
        if not path.exists():
            raise MoodInputError(path, "not found", "give an existing file or folder")
    check_openable(list(opened))
    if args.screenshot is not None:
        check_output_file(
            args.screenshot,
            inputs=Inputs.around(inputs),
            force=args.force,
            what=option("--screenshot", "the screenshot"),
        )
    check_display()


def check_display() -> None:
    """Refuse to start napari on Linux without an X or Wayland display (Qt would abort).

    Raises
    ------
    MoodInputError
        Naming what to do: run under ``xvfb-run -a``, or set a display.
    """
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    raise MoodInputError(
        None,
        "no display to open the napari window on (DISPLAY and WAYLAND_DISPLAY are not set)",
        "run it under a virtual display: xvfb-run -a napari-mood ...",
    )
