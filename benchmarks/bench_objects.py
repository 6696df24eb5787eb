"""Time object-level evaluation on synthetic MOOD-like cases.

Targets (2 cores): one 256^3 case at one threshold < 0.5 s; best threshold over 99
thresholds on 4 cases of 256^3 < 30 s; one 512^3 case at one threshold < 5 s.

``match_objects`` runs on the map in C order (the anchor) and in Fortran order, the order
a NIfTI file is read in; the ratio between them is the cost of the memory order.

Run: ``python benchmarks/bench_objects.py [--skip-512] [--workers 2]``
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy import ndimage

from napari_mood.core.objects import (
    CaseObjects,
    best_object_threshold,
    default_threshold_grid,
    describe_case,
    match_objects,
)


def _ball(where: np.ndarray, reach: float, size: int) -> tuple[tuple[slice, ...], np.ndarray]:
    """Return a box around ``where`` and the squared distance to ``where`` inside it."""
    box = tuple(slice(max(int(c - reach), 0), min(int(c + reach) + 1, size)) for c in where)
    local = np.ogrid[box]
    return box, sum((x - c) ** 2 for x, c in zip(local, where, strict=True))


def make_case(size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Return a float32 score map and a bool GT mask shaped ``(size,) * 3``.

    Brain-like ellipsoid with a smooth noisy background (about 0.2 +- 0.08) and fine
    grain, Gaussian bumps where anomalies are (most of them GT spheres), two GT objects
    the score misses and two bumps without GT (false positives).
    """
    rng = np.random.default_rng(seed)
    coarse = ndimage.gaussian_filter(rng.standard_normal((size // 4,) * 3, dtype=np.float32), 1.5)
    score = ndimage.zoom(coarse / coarse.std(), 4, order=1, output=np.float32)
    score *= 0.08
    score += rng.standard_normal(score.shape, dtype=np.float32) * np.float32(0.03) + 0.2
    grid = np.ogrid[tuple(slice(0, size) for _ in range(3))]
    centre = (size - 1) / 2
    radii = (0.43, 0.39, 0.35)
    brain = sum(((g - centre) / (r * size)) ** 2 for g, r in zip(grid, radii, strict=True)) <= 1
    gt = np.zeros(score.shape, dtype=bool)
    for index in range(9):
        radius = rng.uniform(3, 12) * size / 256
        where = centre + rng.uniform(-0.2, 0.2, 3) * size
        box, d2 = _ball(where, 3 * radius, size)
        if index < 7:  # visible anomaly
            score[box] += rng.uniform(0.4, 0.7) * np.exp(-d2 / (2 * radius**2))
        gt[box] |= d2 <= radius**2
    for _ in range(2):  # bumps without GT
        where = centre + rng.uniform(-0.25, 0.25, 3) * size
        box, d2 = _ball(where, 20, size)
        score[box] += 0.5 * np.exp(-d2 / (2 * 5.0**2))
    score[~brain] = 0.0
    gt &= brain
    return np.clip(score, 0.0, 1.0), gt


def _describe(args: tuple[int, int]) -> tuple[CaseObjects, float]:
    size, seed = args
    score, gt = make_case(size, seed)
    start = time.perf_counter()
    case = describe_case(score, gt, thresholds=default_threshold_grid(), name=str(seed))
    return case, time.perf_counter() - start


def _best_time(score: np.ndarray, gt: np.ndarray, repeats: int) -> tuple[float, object]:
    times, match = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        match = match_objects(score, gt, threshold=0.5)
        times.append(time.perf_counter() - start)
    return min(times), match


def bench_single(size: int, repeats: int = 2) -> None:
    """One case at one threshold, C-ordered (the anchor) and as NIfTI stores it (Fortran)."""
    target = {256: 0.5, 512: 5.0}.get(size, "-")
    score, gt = make_case(size, 0)
    c_time, match = _best_time(score, gt, repeats)
    f_time, f_match = _best_time(np.asfortranarray(score), np.asfortranarray(gt), repeats)
    assert f_match == match, "memory order changed the result"
    print(
        f"match_objects {size}^3 at 0.5: best {c_time:.3f} s C-ordered, {f_time:.3f} s "
        f"Fortran-ordered as read from NIfTI (ratio {f_time / c_time:.2f}; target {target} s) "
        f"(tp={match.counts.tp} fp={match.counts.fp} fn={match.counts.fn} discarded={match.counts.discarded})"
    )


def bench_search(n_cases: int, workers: int) -> None:
    jobs = [(256, seed) for seed in range(n_cases)]
    start = time.perf_counter()
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(_describe, jobs))
    else:
        results = [_describe(job) for job in jobs]
    wall = time.perf_counter() - start
    cases = [case for case, _ in results]
    describe_times = [t for _, t in results]
    start = time.perf_counter()
    best = best_object_threshold(cases)
    count_time = time.perf_counter() - start
    print(
        f"describe_case 256^3 x 99 thresholds: {np.mean(describe_times):.2f} s per case; "
        f"{n_cases} cases with {workers} worker(s): wall {wall:.1f} s incl. data generation; "
        f"sum of describe times {sum(describe_times):.1f} s (target: search < 30 s)"
    )
    print(
        f"best_object_threshold: {count_time:.3f} s -> threshold {best.threshold} "
        f"F1 {best.f1:.3f} (tp={best.tp} fp={best.fp} fn={best.fn})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--skip-512", action="store_true")
    args = parser.parse_args()
    bench_single(256)
    bench_search(args.cases, args.workers)
    if not args.skip_512:
        bench_single(512, repeats=1)


if __name__ == "__main__":
    main()
