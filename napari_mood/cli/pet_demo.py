"""``napari-mood pet-sample`` and ``napari-mood reconstruct``: simulated PET-like demo data.

``pet-sample`` writes PET-like healthy scans, a template and a box atlas made from the
bundled brain (simulated, see :mod:`napari_mood.services.pet_sample`); ``reconstruct``
runs the toy template reconstruction on a folder of inputs. Together with ``simulate
--kind pet --mask`` and ``evaluate-recon`` they make the whole reconstruction framework
run on the package's own data.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from napari_mood.io.errors import MoodInputError
from napari_mood.services.output import Inputs, check_output_folder, staged_folder
from napari_mood.services.pet_sample import iter_pet_sample_files, template_reconstruction_files
from napari_mood.services.writers import write_files

__all__ = ["pet_sample", "reconstruct"]


def _relative(files: dict[Path, bytes], root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path in files]


def pet_sample(args: argparse.Namespace) -> int:
    """Write the simulated PET-like sample into ``--out``, whole or not at all.

    ``--out`` is checked before anything is made (new, empty, or with ``--force`` a
    sample napari-mood generated); the files are made one at a time into a staged folder
    that becomes ``--out`` when complete.
    """
    check_output_folder(args.out, force=args.force, what="--out")
    with staged_folder(args.out, force=args.force, what="--out") as folder:
        for path, blob in iter_pet_sample_files(
            folder, subjects=args.subjects, step=args.step, seed=args.seed
        ):
            write_files({path: blob})
    print(
        f"{args.out}: {args.subjects} PET-like scans (simulated from the bundled brain), template, atlas"
    )
    return 0


def reconstruct(args: argparse.Namespace) -> int:
    """Write the toy template reconstruction of every input of ``DATASET/toy``."""
    inputs_dir = args.dataset / (args.scans or "toy")
    if not inputs_dir.is_dir():
        raise MoodInputError(
            inputs_dir, "no such folder of inputs", "give a dataset made by simulate"
        )
    inputs = Inputs.of(folders=(args.dataset, inputs_dir), files=(args.template,))
    check_output_folder(args.out, inputs=inputs, force=args.force, what="--out")
    files = template_reconstruction_files(inputs_dir, args.template, args.out)
    check_output_folder(
        args.out, inputs=inputs, force=args.force, names=_relative(files, args.out), what="--out"
    )
    write_files(files, inputs=inputs, force=args.force)
    print(f"{args.out}: {len(files)} reconstructions (toy template method)")
    return 0
