"""Build sample_data/nova/: a small NOVA-shaped 2-D box dataset derived from sample_data.

    python scripts/make_nova_sample.py            # (re)write sample_data/nova/
    python scripts/make_nova_sample.py --check    # rebuild in a temp dir, compare bytes

Everything is derived from the bundled MOOD-style sample (itself derived from the MNI
template) and **simulated**: the "radiologists" are the simulated anomalies' pixel
labels with seeded jitter, the predictions come from the sample methods' maps. Nothing
here is NOVA data. What is made (see sample_data/nova/README.md):

- images/CASE_zNN.png: one axial slice per case (the slice with the largest GT area; a
  normal case: the middle slice), in radiological view (anterior up, the patient's right
  on the left), padded to a square and resampled (linear) to 480 x 480, 8-bit gray.
- boxes.csv: image_id, x, y, width, height, reader. The box of every connected GT region
  of the slice (resampled with nearest neighbours), drawn by two readers R1 and R2, each
  corner moved by a seeded integer jitter (sd 2 px); R2 skips GT regions of fewer than
  500 px (a small finding one reader missed). The slice of a case is the one with the
  most GT regions, then the largest GT area.
- predictions/oracle_noisy.json: COCO results list, boxes of the oracle_noisy map at 0.5
  (components of >= 20 px, confidence = the maximum inside).
- maps/residual/CASE_zNN.png: the residual method's map on the same grid (8-bit), for
  ``--maps`` / ``--threshold``.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import io
import json
import sys
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np
from PIL import Image
from scipy import ndimage

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "sample_data"
SIZE = 480
SEED = 16
JITTER_SD = 2.0
SMALL_FOR_R2 = 500
CASES = ("brain_000", "brain_001", "brain_003", "brain_004", "brain_006")


def _load(path: Path) -> np.ndarray:
    return np.asarray(nib.load(path).get_fdata(dtype=np.float32))


def _axial(volume: np.ndarray, z: int) -> np.ndarray:
    """Radiological axial view of RAS voxels: rows anterior -> posterior, columns right -> left."""
    return volume[::-1, ::-1, z].T


def _square(slice_: np.ndarray, order: int) -> np.ndarray:
    rows, cols = slice_.shape
    side = max(rows, cols)
    pad_r, pad_c = side - rows, side - cols
    square = np.pad(slice_, ((pad_r // 2, pad_r - pad_r // 2), (pad_c // 2, pad_c - pad_c // 2)))
    return ndimage.zoom(square, SIZE / side, order=order, grid_mode=True, mode="grid-constant")


def _png_bytes(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG", optimize=True)
    return out.getvalue()


def _to_uint8(values: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(values * 255), 0, 255).astype(np.uint8)


def _gt_boxes(label: np.ndarray) -> list[tuple[list[int], int]]:
    """Box (x1, y1, x2, y2) and pixel count of every connected GT region (8-neighbours)."""
    labels, n = ndimage.label(label > 0.5, structure=np.ones((3, 3)))
    boxes = []
    for index, found in enumerate(ndimage.find_objects(labels), start=1):
        if found is None:
            continue
        rows, cols = found
        size = int((labels[found] == index).sum())
        boxes.append(([cols.start, rows.start, cols.stop, rows.stop], size))
    return boxes


def _jitter(box: list[int], rng: np.random.Generator) -> list[int]:
    moved = np.asarray(box) + np.rint(rng.normal(0, JITTER_SD, 4)).astype(int)
    x1, y1 = np.clip(moved[:2], 0, SIZE - 1)
    x2, y2 = np.clip(moved[2:], [x1 + 1, y1 + 1], SIZE)
    return [int(x1), int(y1), int(x2), int(y2)]


def _prediction_boxes(score: np.ndarray, image: str) -> list[dict]:
    labels, _ = ndimage.label(score >= 0.5, structure=np.ones((3, 3)))
    found = []
    for index, region in enumerate(ndimage.find_objects(labels), start=1):
        inside = labels[region] == index
        if region is None or inside.sum() < 20:
            continue
        rows, cols = region
        peak = float(score[region][inside].max())
        bbox = [cols.start, rows.start, cols.stop - cols.start, rows.stop - rows.start]
        found.append({"image_id": image, "bbox": [int(v) for v in bbox], "score": round(peak, 4)})
    return found


def _slice_index(label: np.ndarray) -> int:
    """The axial slice with the most GT regions, then the largest GT area (normal: middle)."""
    mask = label > 0.5
    if not mask.any():
        return label.shape[2] // 2
    regions = [
        ndimage.label(mask[:, :, z], structure=np.ones((3, 3)))[1] for z in range(mask.shape[2])
    ]
    areas = mask.sum(axis=(0, 1))
    return max(range(mask.shape[2]), key=lambda z: (regions[z], areas[z], -z))


def build(out: Path) -> None:
    rng = np.random.default_rng(SEED)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "predictions").mkdir(exist_ok=True)
    (out / "maps" / "residual").mkdir(parents=True, exist_ok=True)
    rows: list[list[object]] = []
    predictions: list[dict] = []
    for case in CASES:
        name = f"{case}.nii.gz"
        label = _load(SOURCE / "toy_label" / "pixel" / name)
        z = _slice_index(label)
        image = f"{case}_z{z:02d}"
        scan = _square(_axial(_load(SOURCE / "toy" / name), z), order=1)
        (out / "images" / f"{image}.png").write_bytes(_png_bytes(_to_uint8(scan)))
        gt = _square(_axial(label, z), order=0)
        for box, size in _gt_boxes(gt):
            rows.append([image, *_xywh(_jitter(box, rng)), "R1"])
            if size >= SMALL_FOR_R2:
                rows.append([image, *_xywh(_jitter(box, rng)), "R2"])
        oracle = _square(_axial(_load(SOURCE / "methods" / "oracle_noisy" / name), z), order=1)
        predictions += _prediction_boxes(np.clip(oracle, 0, 1), image)
        residual = _square(_axial(_load(SOURCE / "methods" / "residual" / name), z), order=1)
        (out / "maps" / "residual" / f"{image}.png").write_bytes(_png_bytes(_to_uint8(residual)))
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["image_id", "x", "y", "width", "height", "reader"])
    writer.writerows(sorted(rows, key=lambda r: (str(r[0]), str(r[-1]))))
    (out / "boxes.csv").write_text(text.getvalue())
    lines = ",\n".join(" " + json.dumps(item) for item in predictions)
    (out / "predictions" / "oracle_noisy.json").write_text("[\n" + lines + "\n]\n")


def _xywh(box: list[int]) -> list[int]:
    return [box[0], box[1], box[2] - box[0], box[3] - box[1]]


GENERATED = ("images", "maps", "predictions", "boxes.csv")


def _files(root: Path) -> set[str]:
    found = set()
    for entry in GENERATED:
        path = root / entry
        if path.is_file():
            found.add(entry)
        elif path.is_dir():
            found |= {p.relative_to(root).as_posix() for p in path.rglob("*") if p.is_file()}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "sample_data" / "nova")
    parser.add_argument("--check", action="store_true", help="compare a rebuild with --out")
    args = parser.parse_args(argv)
    if not args.check:
        build(args.out)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        want, have = _files(Path(tmp)), _files(args.out)
        problems = [f"missing: {n}" for n in sorted(want - have)]
        problems += [f"extra: {n}" for n in sorted(have - want)]
        problems += [
            f"differs: {n}"
            for n in sorted(want & have)
            if not filecmp.cmp(Path(tmp) / n, args.out / n, shallow=False)
        ]
    for problem in problems:
        print(problem, file=sys.stderr)
    print("nova sample: " + ("DIFFERS" if problems else "identical"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
