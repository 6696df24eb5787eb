"""Benchmark ``napari_mood.evaluate`` against the official MOOD procedure, in one run.

Writes a synthetic MOOD dataset (default 8 cases of 197 x 233 x 189, 5 methods) to a
temporary folder (or reuses the one in ``--data``), then measures, each in a fresh
process:

* official: for each method, load every case with ``get_fdata(dtype=np.float16)``,
  concatenate, ``sklearn.metrics.average_precision_score`` (as ``evalresults.py``);
* decode (ISA-L): every file read and gunzipped once with ISA-L, nothing else: the floor
  for any scorer reading these files whole;
* decode-s (ISA-L, streamed): every file gunzipped into one reused 1 MiB buffer: the
  floor for a scorer that never holds a decoded file, as ``evaluate`` streams plain maps;
* decode (nibabel): nibabel decoding every file as the official scorer does;
* ours: ``napari_mood.evaluate(..., workers=1)`` (pixel task, serial);
* ours on twice the cases, to show peak memory does not grow with the dataset;
* cli: what ``napari-mood evaluate`` runs by default (worker processes).

Prints times (best of ``--repeat`` fresh processes for the fast runs), peak resident
memory above the post-import baseline and absolute, and the ratios the targets are
stated in (>= 15x faster, <= 1/8 memory, flat memory, within 1.3x of ISA-L decoding).

    python benchmarks/bench_evaluate.py [--cases 8] [--methods 5] [--shape 197,233,189]
    python benchmarks/bench_evaluate.py --data /tmp/mood-bench   # write once, reuse
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path

import nibabel as nib
import numpy as np


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return float(line.split()[1]) / 1024.0
    raise RuntimeError(f"{field} not in /proc/self/status")


def _rss_mb() -> float:
    """Current resident memory; also resets the peak (VmHWM) so it counts from now."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:  # pragma: no cover - old kernels: peak includes the imports
        pass
    return _status_mb("VmRSS")


def _peak_mb(base: float) -> float:
    """Peak resident memory since :func:`_rss_mb` was called, above that baseline."""
    return _status_mb("VmHWM") - base


def make_dataset(
    root: Path, *, n_cases: int, n_methods: int, shape: tuple[int, int, int], seed: int = 0
) -> None:
    """Write toy_label/pixel and method folders with smooth noisy maps (float32)."""
    from scipy import ndimage

    rng = np.random.default_rng(seed)
    affine = np.eye(4)
    (root / "toy_label" / "pixel").mkdir(parents=True)
    for i in range(n_cases):
        name = f"case_{i:03d}.nii.gz"
        mask = np.zeros(shape, np.uint8)
        c = [rng.integers(s // 4, 3 * s // 4) for s in shape]
        r = int(rng.integers(5, 15))
        zz, yy, xx = np.ogrid[: shape[0], : shape[1], : shape[2]]
        mask[(zz - c[0]) ** 2 + (yy - c[1]) ** 2 + (xx - c[2]) ** 2 <= r * r] = 1
        nib.save(nib.Nifti1Image(mask, affine), str(root / "toy_label" / "pixel" / name))
        base = ndimage.zoom(
            rng.random(tuple(s // 8 + 1 for s in shape)).astype(np.float32), 8, order=1
        )
        base = base[: shape[0], : shape[1], : shape[2]]
        for m in range(n_methods):
            noise = rng.normal(0, 0.05, shape).astype(np.float32)
            scores = np.clip(0.4 * base + noise + (0.2 + 0.1 * m) * mask, 0, 1).astype(np.float32)
            folder = root / "preds" / f"method_{m}"
            folder.mkdir(parents=True, exist_ok=True)
            nib.save(nib.Nifti1Image(scores, affine), str(folder / name))


def _official(root: str, queue: mp.Queue) -> None:
    from sklearn.metrics import average_precision_score

    base = _rss_mb()
    start = time.perf_counter()
    label_dir = Path(root) / "toy_label" / "pixel"
    aps = {}
    for method in sorted((Path(root) / "preds").iterdir()):
        preds, labels = [], []
        for name in sorted(p.name for p in label_dir.iterdir()):
            label = np.clip(np.rint(nib.load(label_dir / name).get_fdata()).astype(int), 0, 1) == 1
            pred = np.clip(nib.load(method / name).get_fdata(dtype=np.float16), 0, 1)
            preds.append(pred.ravel())
            labels.append(label.ravel())
        aps[method.name] = float(
            average_precision_score(np.concatenate(labels), np.concatenate(preds))
        )
    queue.put(("official", time.perf_counter() - start, _peak_mb(base), aps))


def _decode_isal(root: str, queue: mp.Queue) -> None:
    """Read and gunzip every file once with ISA-L: no parsing, no conversion."""
    from isal import igzip

    base = _rss_mb()
    start = time.perf_counter()
    n_bytes = 0
    for path in sorted(Path(root).rglob("*.nii.gz")):
        n_bytes += len(igzip.decompress(path.read_bytes()))
    elapsed = time.perf_counter() - start
    queue.put(("decode", elapsed, _peak_mb(base), {"bytes": n_bytes}))


def _decode_isal_streamed(root: str, queue: mp.Queue) -> None:
    """Gunzip every file with ISA-L into one reused 1 MiB buffer: the floor of a scorer
    that never holds a decoded file (as ``evaluate`` streams plain maps)."""
    from isal import igzip

    buffer = memoryview(bytearray(1 << 20))
    base = _rss_mb()
    start = time.perf_counter()
    n_bytes = 0
    for path in sorted(Path(root).rglob("*.nii.gz")):
        with igzip.open(path, "rb") as stream:
            while got := stream.readinto(buffer):
                n_bytes += got
    elapsed = time.perf_counter() - start
    queue.put(("decode-s", elapsed, _peak_mb(base), {"bytes": n_bytes}))


def _decode(root: str, queue: mp.Queue) -> None:
    base = _rss_mb()
    start = time.perf_counter()
    for path in sorted(Path(root).rglob("*.nii.gz")):
        img = nib.load(path)
        if "toy_label" in path.parts:
            np.asarray(img.dataobj)
        else:
            img.get_fdata(dtype=np.float16)
    queue.put(("nib-decode", time.perf_counter() - start, _peak_mb(base), {}))


def _ours(root: str, queue: mp.Queue, tag: str = "ours") -> None:
    """Serial, in this process: the memory-bounded pipeline itself."""
    from napari_mood.core.results import EvaluationOptions
    from napari_mood.io.methods import discover_methods
    from napari_mood.services.evaluation import evaluate

    base = _rss_mb()
    start = time.perf_counter()
    result = evaluate(
        root,
        methods=discover_methods(Path(root) / "preds"),
        options=EvaluationOptions(tasks=("pixel",)),
        workers=1,
    ).result
    aps = {name: s.pixel.ap for name, s in result.methods.items() if s.pixel is not None}
    queue.put((tag, time.perf_counter() - start, _peak_mb(base), aps))


def _cli(root: str, queue: mp.Queue) -> None:
    """What ``napari-mood evaluate`` runs by default (local worker processes)."""
    from napari_mood.core.results import EvaluationOptions
    from napari_mood.io.methods import discover_methods
    from napari_mood.services.evaluation import evaluate

    base = _rss_mb()
    start = time.perf_counter()
    found = evaluate(
        root,
        methods=discover_methods(Path(root) / "preds"),
        options=EvaluationOptions(tasks=("pixel",)),
    )
    result, stats = found.result, found.stats
    aps = {name: s.pixel.ap for name, s in result.methods.items() if s.pixel is not None}
    workers = stats.workers * stats.peak_memory_mb if stats.scheduler != "serial" else 0.0
    total = _peak_mb(base) + workers  # worker peaks are absolute (imports included)
    queue.put((f"cli({stats.workers}w)", time.perf_counter() - start, total, aps))


def _measure(target, *args) -> tuple[str, float, float, dict]:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    out = queue.get()
    proc.join()
    return out


def _best(repeat: int, target, *args) -> tuple[str, float, float, dict]:
    """The fastest of ``repeat`` fresh-process runs (the machine may be shared)."""
    runs = [_measure(target, *args) for _ in range(repeat)]
    return min(runs, key=lambda r: r[1])


def _ours_tagged(root: str, tag: str, queue: mp.Queue) -> None:
    _ours(root, queue, tag)


def _datasets(folder: Path, args: argparse.Namespace) -> tuple[Path, Path]:
    shape = tuple(int(s) for s in args.shape.split(","))
    small, large = folder / "small", folder / "large"
    t0 = time.perf_counter()
    for root, n_cases in ((small, args.cases), (large, 2 * args.cases)):
        if not (root / "preds").is_dir():
            make_dataset(root, n_cases=n_cases, n_methods=args.methods, shape=shape)
    print(
        f"datasets ready in {time.perf_counter() - t0:.1f}s: {args.cases} and "
        f"{2 * args.cases} cases of {shape}, {args.methods} methods ({folder})"
    )
    return small, large


def _run_all(small: Path, large: Path, args: argparse.Namespace) -> dict[str, tuple]:
    results = {
        "decode": _best(args.repeat, _decode_isal, str(small)),
        "decode-s": _best(args.repeat, _decode_isal_streamed, str(small)),
        "nib-decode": _measure(_decode, str(small)),
        "ours": _best(args.repeat, _ours, str(small)),
    }
    results["ours_2x"] = _measure(_ours_tagged, str(large), "ours_2x")
    results["cli"] = _best(args.repeat, _cli, str(small))
    if not args.skip_official:
        results["official"] = _measure(_official, str(small))
    return results


def _report(results: dict[str, tuple], baseline_mb: float) -> int:
    for tag, seconds, peak, _ in results.values():
        print(
            f"{tag:>10}: {seconds:8.2f} s   peak +{peak:8.1f} MB "
            f"(about {peak + baseline_mb:7.1f} MB resident)"
        )
    ours, decode, cli = results["ours"], results["decode"], results["cli"]
    print(f"ISA-L decode-only: {decode[3]['bytes'] / 1e6 / decode[1]:.0f} MB/s of voxels")
    print(f"serial evaluate vs ISA-L decode-only time: {ours[1] / decode[1]:.2f}x (target <= 1.3x)")
    print(
        "serial evaluate vs ISA-L streamed decode-only time (into one reused buffer): "
        f"{ours[1] / results['decode-s'][1]:.2f}x"
    )
    print(f"default (parallel) evaluate vs ISA-L decode-only time: {cli[1] / decode[1]:.2f}x")
    print(f"serial evaluate vs nibabel decode time: {ours[1] / results['nib-decode'][1]:.2f}x")
    print(
        "peak memory 2x cases / 1x cases (serial): "
        f"{results['ours_2x'][2] / max(ours[2], 1e-9):.2f} (target ~1)"
    )
    if "official" not in results:
        return 0
    off = results["official"]
    diffs = [abs(off[3][m] - r[3][m]) for r in (ours, cli) for m in off[3]]
    print(f"AP max |ours - official| = {max(diffs):.3g} over {len(off[3])} methods")
    print(
        f"speed-up vs official: serial {off[1] / ours[1]:.1f}x, "
        f"default evaluate {off[1] / cli[1]:.1f}x (target >= 15x)"
    )
    print(
        f"peak memory vs official: serial {ours[2] / off[2]:.3f}, default evaluate "
        f"(all processes) {cli[2] / off[2]:.3f} (target <= 1/8 = 0.125)"
    )
    if max(diffs) > 1e-9:
        print("MISMATCH against the official procedure", file=sys.stderr)
        return 1
    return 0


def _baseline_mb(queue: mp.Queue) -> None:
    """Resident memory of a fresh process after the imports every run makes."""
    import sklearn.metrics  # noqa: F401

    import napari_mood.services.case_scoring  # noqa: F401

    queue.put(("baseline", 0.0, _rss_mb(), {}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=8)
    parser.add_argument("--methods", type=int, default=5)
    parser.add_argument("--shape", default="197,233,189")
    parser.add_argument("--repeat", type=int, default=2, help="fresh runs of the fast steps")
    parser.add_argument("--data", type=Path, help="folder to write the datasets once and reuse")
    parser.add_argument("--skip-official", action="store_true", help="skip the slow official run")
    args = parser.parse_args(argv)
    baseline = _measure(_baseline_mb)[2]
    if args.data is not None:
        results = _run_all(*_datasets(args.data, args), args)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            results = _run_all(*_datasets(Path(tmp), args), args)
    print("(2-core machine shared with other jobs: times are the best of the runs made)")
    return _report(results, baseline)


if __name__ == "__main__":
    sys.exit(main())
