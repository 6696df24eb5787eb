"""Benchmark the parallel engine: 2 workers vs 1, memory per worker, cached rerun.

Writes a synthetic MOOD dataset (default 16 cases of 256^3, 4 methods) and measures in
one run:

* speed-up of ``napari_mood.evaluate(workers=2)`` over ``workers=1`` (target >= 1.6x on 2 cores);
* peak resident memory of a worker on half the cases and on all of them (target: equal);
* a cached rerun after changing one map file vs the first cached run (target >= 10x);
* that every run gives the same JSON.

    python benchmarks/bench_engine.py [--cases 16] [--methods 4] [--size 256]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np

from napari_mood.core.results import EvaluationOptions
from napari_mood.io.errors import MoodInputWarning
from napari_mood.io.methods import discover_methods
from napari_mood.services.evaluation import evaluate

sys.path.insert(0, str(Path(__file__).parent))
from bench_evaluate import make_dataset  # noqa: E402

OPTIONS = EvaluationOptions(tasks=("pixel", "object"), object_threshold=0.5)


def _run(root: Path, **kwargs):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MoodInputWarning)
        found = evaluate(root, methods=discover_methods(root / "preds"), options=OPTIONS, **kwargs)
    return time.perf_counter() - start, json.dumps(found.to_dict(), sort_keys=True), found.stats


def _half(root: Path, out: Path) -> Path:
    """A copy of the dataset's first half of cases (hard links: no extra disk)."""
    labels = sorted((root / "toy_label" / "pixel").iterdir())
    keep = {p.name for p in labels[: len(labels) // 2]}
    for path in root.rglob("*.nii.gz"):
        if path.name in keep:
            target = out / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.hardlink_to(path)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=16)
    parser.add_argument("--methods", type=int, default=4)
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args(argv)
    shape = (args.size,) * 3
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "full"
        t0 = time.perf_counter()
        make_dataset(root, n_cases=args.cases, n_methods=args.methods, shape=shape)
        half = _half(root, Path(tmp) / "half")
        print(
            f"wrote {args.cases} cases of {shape} x {args.methods} methods in {time.perf_counter() - t0:.0f}s"
        )

        t_one, json_one, stats_one = _run(root, workers=1)
        t_two, json_two, stats_two = _run(root, workers=2)
        _, _, stats_half = _run(half, workers=2)
        cache = Path(tmp) / "cache"
        t_first, json_first, _ = _run(root, workers=2, cache=cache)
        target = root / "preds" / "method_0" / "case_000.nii.gz"
        img = nib.load(target)
        nib.save(nib.Nifti1Image(np.asarray(img.dataobj) * 0.5, img.affine), str(target))
        t_rerun, _, stats_rerun = _run(root, workers=2, cache=cache)
        shutil.rmtree(cache)

    print(f"1 worker : {t_one:7.1f} s   (peak {stats_one.peak_memory_mb:6.0f} MiB, in-process)")
    print(f"2 workers: {t_two:7.1f} s   (peak per worker {stats_two.peak_memory_mb:6.0f} MiB)")
    print(f"speed-up 2 vs 1 worker: {t_one / t_two:.2f}x (target >= 1.6x)")
    print(
        f"peak memory per worker, {args.cases // 2} vs {args.cases} cases: "
        f"{stats_half.peak_memory_mb:.0f} vs {stats_two.peak_memory_mb:.0f} MiB "
        f"(ratio {stats_two.peak_memory_mb / stats_half.peak_memory_mb:.2f}, target ~1)"
    )
    print(
        f"cached rerun after one change: {t_rerun:.2f} s vs first run {t_first:.1f} s "
        f"-> {t_first / t_rerun:.1f}x (target >= 10x); recomputed {stats_rerun.computed}, "
        f"from cache {stats_rerun.cached}"
    )
    same = json_one == json_two == json_first
    print(f"serial, parallel and cached JSON identical: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
