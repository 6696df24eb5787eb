"""Write the plugin's icon, ``napari_mood/icon.png`` (napari.yaml ``icon:``), from the sample data.

An axial slice of the bundled sample case ``brain_001`` (grey) under the ``oracle_noisy``
method's score map (hot, where it flags) and the ground truth's outline (green), cropped
square and drawn at 256 x 256 px, as napari's plugin manager and the napari hub show it.
Run from the repository's root: ``python scripts/make_icon.py``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib
import nibabel as nib
import numpy as np
from PIL import Image
from scipy import ndimage

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"
OUT = ROOT / "napari_mood" / "icon.png"
CASE = "brain_001"
SIZE = 256


def _volume(path: Path) -> np.ndarray:
    return np.asarray(nib.load(str(path)).dataobj, dtype=np.float32)


def main() -> None:
    scan = _volume(SAMPLE / "toy" / f"{CASE}.nii.gz")
    score = _volume(SAMPLE / "methods" / "oracle_noisy" / f"{CASE}.nii.gz")
    truth = _volume(SAMPLE / "toy_label" / "pixel" / f"{CASE}.nii.gz") > 0
    z = int(np.argmax(truth.sum(axis=(0, 1))))  # the slice with the most anomaly
    grey = scan[:, :, z] / max(float(scan[:, :, z].max()), 1e-6)
    rgb = np.repeat(grey[..., None], 3, axis=2)
    hot = matplotlib.colormaps["hot"](0.25 + 0.6 * np.clip(score[:, :, z], 0, 1))[..., :3]
    flagged = (score[:, :, z] > 0.2)[..., None]
    rgb = np.where(flagged, 0.15 * rgb + 0.85 * hot, rgb)
    outline = truth[:, :, z] & ~ndimage.binary_erosion(truth[:, :, z], iterations=2)
    rgb[outline] = (0.2, 1.0, 0.3)
    brain = np.argwhere(scan[:, :, z] > 0.05 * scan[:, :, z].max())
    (x0, y0), (x1, y1) = brain.min(axis=0), brain.max(axis=0) + 1
    side = max(x1 - x0, y1 - y0)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    square = np.zeros((side, side, 3), dtype=np.float32)
    xs = slice(max(cx - side // 2, 0), min(cx - side // 2 + side, rgb.shape[0]))
    ys = slice(max(cy - side // 2, 0), min(cy - side // 2 + side, rgb.shape[1]))
    patch = rgb[xs, ys]
    square[: patch.shape[0], : patch.shape[1]] = patch
    picture = np.fliplr(np.rot90(square))  # as the viewer shows it: anterior up, radiological
    image = Image.fromarray((np.clip(picture, 0, 1) * 255).astype(np.uint8), "RGB")
    image.resize((SIZE, SIZE), Image.Resampling.LANCZOS).save(OUT, optimize=True)
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
