"""Benchmark voxel AP against scikit-learn on one MOOD-sized score map, per input dtype.

Builds a smooth-noise score map with a brighter spherical anomaly (the label) and, for
each input dtype (float16, float32 as methods save maps, float64 as nibabel's
``get_fdata`` returns them), times ``napari_mood.core.metrics.average_precision`` on the
array as given and the official procedure in this process: the map read as the MOOD
scorer reads it (``astype(float16)``, clipped to [0, 1]) then
``sklearn.metrics.average_precision_score``. Checks the values are equal (to 1e-12) and
prints the speed ratio per dtype against the target (>= 60x). Also times ``slice_scores``.

    python benchmarks/bench_ap.py              # 256^3, as the MOOD brain data
    python benchmarks/bench_ap.py --size 128   # quicker
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np
from scipy import ndimage
from sklearn.metrics import average_precision_score, roc_auc_score

from napari_mood.core.metrics import auroc, average_precision, slice_scores


def make_volume(size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Smooth noise in [0, 1] (float32, not float16 values) plus a sphere whose scores are
    raised."""
    rng = np.random.default_rng(seed)
    noise = ndimage.gaussian_filter(rng.standard_normal((size,) * 3, dtype=np.float32), 4)
    noise = (noise - noise.min()) / (noise.max() - noise.min())
    grid = np.ogrid[tuple(slice(0, size) for _ in range(3))]
    centre, radius = 0.6 * size, 0.08 * size
    labels = np.asarray(sum((g - centre) ** 2 for g in grid) <= radius**2)
    scores = noise * 0.7
    scores[labels] += 0.3 * rng.random(int(np.sum(labels)), dtype=np.float32)
    return scores.astype(np.float32), labels


def official_ap(scores: np.ndarray, labels: np.ndarray) -> float:
    """The MOOD scorer's procedure on an array: float16, clipped, then scikit-learn."""
    read = np.clip(scores.astype(np.float16), 0, 1)
    return float(average_precision_score(labels.ravel(), read.ravel()))


def best_of(repeat: int, func: Callable[[], object]) -> tuple[float, object]:
    """Smallest wall time over ``repeat`` runs and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="edge of the cubic volume")
    parser.add_argument("--repeat", type=int, default=3, help="runs of our functions (best)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--auroc", action="store_true", help="also compare AUROC")
    args = parser.parse_args()

    scores32, labels = make_volume(args.size, args.seed)
    print(f"volume {scores32.shape}, {int(labels.sum())} positive voxels")
    print("(2-core machine shared with other jobs: ours is the best of --repeat runs)")
    for dtype in (np.float16, np.float32, np.float64):
        scores = scores32.astype(dtype)
        ours_t, ours = best_of(args.repeat, partial(average_precision, scores, labels))
        sk_t, sk = best_of(1, partial(official_ap, scores, labels))
        same = abs(float(ours) - float(sk)) <= 1e-12  # type: ignore[arg-type]
        print(
            f"AP {np.dtype(dtype).name:>7}: ours {ours_t:7.3f} s   official+sklearn {sk_t:7.3f} s"
            f"   ratio {sk_t / ours_t:6.1f}x (target >= 60x)   value {ours:.15f}"
            f" {'==' if same else '!='} {sk:.15f}"
        )
        assert same, (ours, sk)
    scores = scores32.astype(np.float16)

    if args.auroc:
        ours_t, ours = best_of(args.repeat, lambda: auroc(scores, labels))
        sk_t, sk = best_of(1, lambda: roc_auc_score(labels.ravel(), scores.ravel()))
        assert abs(float(ours) - float(sk)) <= 1e-9, (ours, sk)  # type: ignore[arg-type]
        print(f"AUROC ours {ours_t:7.3f} s   sklearn {sk_t:8.3f} s   ratio {sk_t / ours_t:6.1f}x")

    for axis in range(3):
        per_slice = partial(slice_scores, scores, labels, axis=axis, threshold=0.5)
        elapsed, _ = best_of(args.repeat, per_slice)
        print(f"slice_scores axis {axis}: {elapsed:.3f} s")
    elapsed, _ = best_of(
        1, lambda: slice_scores(scores, labels, axis=0, threshold=0.5, mode="exact")
    )
    print(f"slice_scores axis 0, exact mode: {elapsed:.3f} s")


if __name__ == "__main__":
    main()
