"""Three toy anomaly "methods" with the MOOD docker interface, for the README's analyses.

Usage::

    python scripts/demo_methods.py KIND INPUT_FOLDER OUTPUT_FOLDER

For every scan of INPUT_FOLDER it writes a score map ``CASE.nii.gz`` and a sample score
``CASE.nii.gz.txt`` (the map's maximum) into OUTPUT_FOLDER. KIND:

- ``bright``: flags voxels brighter than 0.9 (a thresholding method);
- ``edges``: local contrast, ``|scan - median_5x5x5(scan)|`` scaled by 2 and clipped (finds
  small anomalies, misses the inside of large ones: the paper's "bathtub");
- ``template``: ``|scan - template|`` against the scan given by ``$TEMPLATE`` (knows the
  healthy anatomy: blind only where an anomaly has the tissue's own intensity).

Not part of the package: run it with ``napari-mood run "python scripts/demo_methods.py
edges" DATA/toy --out PREDS/edges``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nibabel as nib
import numpy as np
from scipy import ndimage as ndi


def score(kind: str, scan: np.ndarray) -> np.ndarray:
    """The score map of one scan."""
    if kind == "bright":
        return (scan > 0.9).astype(np.float32)
    if kind == "edges":
        return np.clip(2 * np.abs(scan - ndi.median_filter(scan, size=5)), 0, 1)
    if kind == "template":
        template = np.asarray(nib.load(os.environ["TEMPLATE"]).dataobj, dtype=np.float32)
        return np.clip(np.abs(scan - template) * 2, 0, 1)
    raise SystemExit(f"unknown kind {kind!r}: bright, edges or template")


def main(kind: str, source: Path, target: Path) -> None:
    """Score every scan of ``source`` into ``target``."""
    for path in sorted(source.glob("*.nii*")):
        img = nib.load(path)
        scan = np.asarray(img.dataobj, dtype=np.float32)
        scan = (scan - scan.min()) / max(float(scan.max() - scan.min()), 1e-6)
        scores = score(kind, scan).astype(np.float32)
        nib.save(nib.Nifti1Image(scores, img.affine), target / path.name)
        (target / f"{path.name}.txt").write_text(f"{float(scores.max()):.6f}\n")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))
