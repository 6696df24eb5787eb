"""Benchmark voxel AP against scikit-learn on one MOOD-sized float16 score map.

Builds a smooth-noise score map with a brighter spherical anomaly (the label), times
``napari_mood.core.metrics.average_precision`` and ``sklearn.metrics.average_precision_score``
on the SAME float16 data in this process, checks the values agree to 1e-9 and prints the
speed ratio. Also times ``slice_scores`` along every axis.

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
    """Smooth noise in [0, 1] (float16) plus a sphere whose scores are raised."""
    rng = np.random.default_rng(seed)
    noise = ndimage.gaussian_filter(rng.standard_normal((size,) * 3, dtype=np.float32), 4)
    noise = (noise - noise.min()) / (noise.max() - noise.min())
    grid = np.ogrid[tuple(slice(0, size) for _ in range(3))]
    centre, radius = 0.6 * size, 0.08 * size
    labels = np.asarray(sum((g - centre) ** 2 for g in grid) <= radius**2)
    scores = noise * 0.7
    scores[labels] += 0.3 * rng.random(int(np.sum(labels)), dtype=np.float32)
    return scores.astype(np.float16), labels


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

    scores, labels = make_volume(args.size, args.seed)
    print(f"volume {scores.shape} float16, {int(labels.sum())} positive voxels")

    ours_t, ours = best_of(args.repeat, lambda: average_precision(scores, labels))
    sk_t, sk = best_of(1, lambda: average_precision_score(labels.ravel(), scores.ravel()))
    assert abs(float(ours) - float(sk)) <= 1e-9, (ours, sk)  # type: ignore[arg-type]
    print(f"AP   ours {ours_t:8.3f} s   sklearn {sk_t:8.3f} s   ratio {sk_t / ours_t:6.1f}x")
    print(f"     value {ours:.12f} (sklearn {sk:.12f})")

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
