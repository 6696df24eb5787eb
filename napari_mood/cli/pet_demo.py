"""``napari-mood pet-sample`` and ``napari-mood reconstruct``: simulated PET-like demo data.

``pet-sample`` writes PET-like healthy scans, a template and a box atlas made from the
bundled brain; ``reconstruct`` runs the toy template reconstruction on a folder of
inputs (both jobs in :mod:`napari_mood.services.pet_sample`). Together with ``simulate
--kind pet --mask`` and ``evaluate-recon`` they make the whole reconstruction framework
run on the package's own data.
"""

from __future__ import annotations

import argparse

from napari_mood.services.pet_sample import write_pet_sample, write_template_reconstructions

__all__ = ["pet_sample", "reconstruct"]


def pet_sample(args: argparse.Namespace) -> int:
    """Write the simulated PET-like sample into ``--out``, whole or not at all."""
    write_pet_sample(
        args.out, subjects=args.subjects, step=args.step, seed=args.seed, force=args.force
    )
    print(
        f"{args.out}: {args.subjects} PET-like scans (simulated from the bundled brain), template, atlas"
    )
    return 0


def reconstruct(args: argparse.Namespace) -> int:
    """Write the toy template reconstruction of every input of ``DATASET/toy``."""
    written = write_template_reconstructions(
        args.dataset, args.template, args.out, scans=args.scans, force=args.force
    )
    print(f"{args.out}: {len(written)} reconstructions (toy template method)")
    return 0
