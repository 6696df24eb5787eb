"""Build the sample MOOD-style dataset shipped in ``sample_data/`` (bit for bit).

Usage::

    python scripts/make_sample_data.py            # (re)write sample_data/
    python scripts/make_sample_data.py --check    # rebuild in a temp dir, compare bytes
    python scripts/make_sample_data.py --out DIR  # write elsewhere

Source: the MNI ICBM152 2009a nonlinear symmetric T1 template shipped inside the nilearn
wheel (see ``sample_data/LICENSE_MNI.txt``). nilearn is imported by this script only.
Everything random comes from ``SEED``; files are written with a deterministic gzip, so a
rerun gives identical bytes (given the same nilearn template, numpy, scipy and zlib).
``--check`` exits with status 1 when a generated file differs, is missing or is extra.
"""

from __future__ import annotations

import argparse
import filecmp
import gzip
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nibabel as nib
import numpy as np
from scipy import ndimage as ndi

from napari_mood.core import simulate as sim
from napari_mood.core.regions import flagged_regions
from napari_mood.services.review import review_record
from napari_mood.services.review_store import ReviewFile
from napari_mood.services.writers import write_method_case, write_mood_case

SEED = 20240601
TEMPLATE = "mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz"
REPO = Path(__file__).resolve().parents[1]
GENERATED = ("toy", "toy_label", "methods", "cases.json", "categories.csv", "reviews")
SCAN_LEVELS = 255  # scans: uint8, slope ~1/255
MAP_LEVELS = 255  # score maps: uint8, slope ~1/255 (as the scans)
MISSING = {"binary": "brain_004"}  # method -> case it did not submit
# the anomaly categories of the cases (``napari-mood categories``: DATASET/categories.csv)
CATEGORIES = {
    "brain_000": ("normal", "", ""),
    "brain_005": ("normal", "", ""),
    "brain_001": ("local", "sphere+cube", "1"),
    "brain_003": ("local", "slab+sphere", "2"),
    "brain_006": ("local", "cube+pet", "3"),
    "brain_002": ("texture", "shuffle", "4"),
    "brain_004": ("intensity", "pet", "5"),
}
# three readers' review journals of one method's flagged regions (``review-report``)
REVIEWED, REVIEW_THRESHOLD = "oracle_noisy", 0.5
READERS = {"ana": 25.0, "ben": 40.0, "cy": 30.0}  # reader -> seconds per region


# ------------------------------------------------------------------------ the brain


def load_template() -> nib.Nifti1Image:
    """The 1 mm MNI template from the installed nilearn wheel."""
    import nilearn

    path = Path(nilearn.__file__).parent / "datasets" / "data" / TEMPLATE
    image = nib.load(path)
    assert isinstance(image, nib.Nifti1Image)
    return image


def downsample(image: nib.Nifti1Image) -> tuple[np.ndarray, np.ndarray]:
    """Anti-alias (Gaussian, sigma 1 voxel), keep every 2nd voxel, scale to [0, 1].

    Voxel ``i`` of the result is voxel ``2 i`` of the source, so the affine's columns are
    doubled and its origin is unchanged: world coordinates stay correct.
    """
    data = np.asarray(image.dataobj, dtype=np.float64)
    smooth = ndi.gaussian_filter(data, 1.0, mode="constant")[::2, ::2, ::2]
    smooth[smooth < 0.5] = 0.0  # keep the background exactly 0
    affine = image.affine @ np.diag([2.0, 2.0, 2.0, 1.0])
    return smooth / smooth.max(), affine


def make_header(affine: np.ndarray) -> nib.Nifti1Header:
    header = nib.Nifti1Header()
    header.set_qform(affine, code="mni")
    header.set_sform(affine, code="mni")
    header.set_xyzt_units("mm")
    header["descrip"] = b"napari-mood sample data (MNI ICBM152 2009a)"
    return header


def subject_scan(healthy: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A 'subject': the template with a smooth bias field and mild noise in the head."""
    axes = [np.linspace(-1.0, 1.0, n) for n in healthy.shape]
    coeffs = rng.uniform(-0.06, 0.06, size=3)
    bias = 1.0 + coeffs[0] * axes[0][:, None, None] + coeffs[1] * axes[1][None, :, None]
    bias = bias + coeffs[2] * axes[2][None, None, :]
    noise = rng.normal(0.0, 0.012, size=healthy.shape) * (healthy > 0)
    scan = np.clip(healthy * bias + noise, 0.0, 1.0)
    return np.rint(scan * SCAN_LEVELS) / SCAN_LEVELS


# -------------------------------------------------------------------------- the cases


@dataclass(frozen=True)
class Case:
    name: str
    scan: np.ndarray
    mask: np.ndarray
    anomalies: tuple[sim.Anomaly, ...]


Recipe = Callable[[np.ndarray, np.ndarray, np.random.Generator], tuple[sim.Anomaly, ...]]


def _chain(*steps: Callable[..., sim.Anomaly]) -> Recipe:
    """Apply anomalies one after the other, each away from the earlier ones."""

    def recipe(
        scan: np.ndarray, body: np.ndarray, rng: np.random.Generator
    ) -> tuple[sim.Anomaly, ...]:
        done: list[sim.Anomaly] = []
        avoid = np.zeros(scan.shape, dtype=bool)
        for step in steps:
            anomaly = step(scan, body_mask=body, avoid=avoid, seed=rng)
            done.append(anomaly)
            scan, avoid = anomaly.scan, avoid | anomaly.mask
        return tuple(done)

    return recipe


def _with(function: Callable[..., sim.Anomaly], **options: object) -> Callable[..., sim.Anomaly]:
    return lambda scan, **rest: function(scan, **options, **rest)


RECIPES: dict[str, Recipe | None] = {
    "brain_000": None,
    "brain_001": _chain(
        _with(sim.add_sphere, size=8, intensity=0.4),
        _with(sim.add_cube, size=2, intensity=0.1),
    ),
    "brain_002": _chain(_with(sim.add_pixel_shuffle, region="sphere", size=7, patch_size=4)),
    "brain_003": _chain(
        _with(sim.add_image_slab, axis=2, size=16, thickness=3),
        _with(sim.add_sphere, size=3, intensity=0.2),
    ),
    "brain_004": _chain(_with(sim.add_pet_change, size=10, degree=0.6, sigma=2.0)),
    "brain_005": None,
    "brain_006": _chain(
        _with(sim.add_cube, size=6, intensity=0.75),
        _with(sim.add_pet_change, region="cube", size=4, degree=0.5, sigma=1.5),
    ),
}


def make_cases(healthy: np.ndarray, rng: np.random.Generator) -> list[Case]:
    body = ndi.binary_erosion(healthy > 0.15, iterations=2)
    cases = []
    for (name, recipe), child in zip(RECIPES.items(), rng.spawn(len(RECIPES)), strict=True):
        scan = subject_scan(healthy, child)
        anomalies = () if recipe is None else recipe(scan, body, child)
        final = anomalies[-1].scan if anomalies else scan
        final = np.rint(final * SCAN_LEVELS) / SCAN_LEVELS
        mask = np.zeros(scan.shape, dtype=bool)
        for anomaly in anomalies:
            mask |= anomaly.mask
        cases.append(Case(name, final, mask, anomalies))
    return cases


# ------------------------------------------------------------------------ the methods


def _quantize_map(values: np.ndarray) -> np.ndarray:
    return np.rint(np.clip(values, 0.0, 1.0) * MAP_LEVELS) / MAP_LEVELS


def residual_map(case: Case, healthy: np.ndarray) -> tuple[np.ndarray, float]:
    """|scan - smoothed template|: edges everywhere, plus the anomalies."""
    reference = ndi.gaussian_filter(healthy, 1.5)
    residual = ndi.gaussian_filter(np.abs(case.scan - reference), 1.0)
    head = ndi.binary_dilation(healthy > 0, iterations=2)
    score_map = _quantize_map(residual / 0.25 * head)
    return score_map, float(np.quantile(score_map[head], 0.999))


def oracle_noisy_map(
    case: Case, healthy: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, float]:
    """Smoothed ground truth plus noise and a few false-positive blobs."""
    head = healthy > 0
    truth = ndi.gaussian_filter(case.mask.astype(np.float64), 1.2)
    blobs = ndi.gaussian_filter(rng.normal(size=healthy.shape), 2.5)
    blobs /= blobs.std()
    speckle = np.abs(rng.normal(0.0, 0.05, size=healthy.shape)) * (rng.random(healthy.shape) < 0.1)
    values = 0.8 * truth + 0.45 * np.clip(blobs - 1.8, 0.0, None) + speckle
    score_map = _quantize_map(values * head)
    return score_map, float(score_map.max())


def binary_map(
    case: Case, oracle: np.ndarray, healthy: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, float]:
    """Threshold of the noisy oracle; misses brain_001's small cube, one extra blob."""
    flagged = oracle >= 0.5
    if case.name == "brain_001":
        flagged &= ~case.anomalies[1].mask
    if case.name == "brain_005":
        blob = sim.add_sphere(
            np.zeros(oracle.shape), size=3, intensity=1.0, body_mask=healthy > 0.15, seed=rng
        )
        flagged |= blob.mask
    return flagged.astype(np.float64), float(flagged.any())


def method_outputs(
    cases: list[Case], healthy: np.ndarray, rng: np.random.Generator
) -> dict[str, dict[str, tuple[np.ndarray, float]]]:
    """{method: {case name: (map, sample score)}}."""
    outputs: dict[str, dict[str, tuple[np.ndarray, float]]] = {
        "residual": {},
        "oracle_noisy": {},
        "binary": {},
    }
    for case, child in zip(cases, rng.spawn(len(cases)), strict=True):
        outputs["residual"][case.name] = residual_map(case, healthy)
        oracle = oracle_noisy_map(case, healthy, child)
        outputs["oracle_noisy"][case.name] = oracle
        outputs["binary"][case.name] = binary_map(case, oracle[0], healthy, child)
    for method, name in MISSING.items():
        del outputs[method][name]
    return outputs


# -------------------------------------------------------------------------- writing


def manifest(cases: list[Case], affine: np.ndarray) -> dict[str, object]:
    return {
        "source": f"nilearn/datasets/data/{TEMPLATE} (MNI ICBM152 2009a), 2 mm",
        "seed": SEED,
        "affine": affine.tolist(),
        "cases": [
            {
                "name": f"{case.name}.nii.gz",
                "label": int(case.mask.any()),
                "anomalies": [
                    {
                        "kind": a.kind,
                        "center": list(a.center),
                        "size": a.size,
                        "voxels": int(a.mask.sum()),
                        "params": dict(a.params),
                    }
                    for a in case.anomalies
                ],
            }
            for case in cases
        ],
        "methods": {
            "residual": "|scan - smoothed template|, smoothed, / 0.25; sample = 99.9th pct",
            "oracle_noisy": "smoothed GT + speckle + false-positive blobs; sample = max",
            "binary": "noisy oracle >= 0.5, one anomaly missed, one FP blob; sample = any",
        },
        "missing": {method: f"{name}.nii.gz" for method, name in MISSING.items()},
    }


def build(out: Path) -> None:
    """Write the whole dataset to ``out`` (existing generated files are replaced)."""
    rng = np.random.default_rng(SEED)
    case_rng, method_rng = rng.spawn(2)
    template = load_template()
    healthy, affine = downsample(template)
    header = make_header(affine)
    cases = make_cases(healthy, case_rng)
    for case in cases:
        write_mood_case(
            out,
            case.name,
            case.scan,
            case.mask,
            affine,
            header,
            scan_levels=SCAN_LEVELS,
            force=True,
        )
    outputs = method_outputs(cases, healthy, method_rng)
    for method, results in outputs.items():
        levels = 1 if method == "binary" else MAP_LEVELS
        for name, (score_map, score) in results.items():
            write_method_case(
                out / "methods" / method,
                name,
                score_map,
                score,
                affine,
                header,
                map_levels=levels,
                force=True,
            )
    text = json.dumps(manifest(cases, affine), indent=1, sort_keys=True) + "\n"
    (out / "cases.json").write_text(text)
    rows = ["case,category,subcategory,order"]
    rows += [",".join((name, *CATEGORIES[name])) for name in RECIPES]
    (out / "categories.csv").write_text("\n".join(rows) + "\n")
    write_reviews(out / "reviews", cases, outputs[REVIEWED])


def write_reviews(
    folder: Path, cases: list[Case], maps: dict[str, tuple[np.ndarray, float]]
) -> None:
    """Three readers' journals of ``REVIEWED``'s regions: ana right, ben and cy not always.

    ana says what the ground truth says; ben turns every fourth verdict round; cy is
    unsure of every third region. Each reader takes ``READERS[reader]`` seconds a region.
    """
    folder.mkdir(parents=True, exist_ok=True)
    regions = []
    for case in cases:
        score = maps[f"{case.name}"][0]
        for region in flagged_regions(
            score, case.mask, threshold=REVIEW_THRESHOLD, spacing=(2.0, 2.0, 2.0)
        ):
            box = tuple(slice(lo, hi) for lo, hi in region.bbox)
            hit = bool((case.mask[box] & (score[box] >= REVIEW_THRESHOLD)).any())
            regions.append((case.name, region, hit))
    start = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
    for reader, step in READERS.items():
        path = folder / f"{reader}.csv"
        path.unlink(missing_ok=True)
        journal = ReviewFile(path)
        for k, (name, region, hit) in enumerate(regions):
            verdict = "true finding" if hit else "false alarm"
            if reader == "ben" and k % 4 == 3:
                verdict = "false alarm" if hit else "true finding"
            if reader == "cy" and k % 3 == 2:
                verdict = "unsure"
            record = review_record(
                region,
                case=f"{name}.nii.gz",
                method=REVIEWED,
                threshold=REVIEW_THRESHOLD,
                centroid_world_mm=tuple(2.0 * c for c in region.centroid_voxel),
                verdict=verdict,  # type: ignore[arg-type]
                time=(start + timedelta(seconds=step * k)).isoformat(timespec="seconds"),
                reviewer=reader,
            )
            journal.save(record)


# ------------------------------------------------------------------------- checking


def generated_files(root: Path) -> set[str]:
    files = set()
    for entry in GENERATED:
        path = root / entry
        if path.is_file():
            files.add(entry)
        elif path.is_dir():
            files |= {p.relative_to(root).as_posix() for p in path.rglob("*") if p.is_file()}
    return files


def compare(expected: Path, actual: Path) -> list[str]:
    """Differences between the generated files of two dataset folders."""
    want, have = generated_files(expected), generated_files(actual)
    problems = [f"missing: {name}" for name in sorted(want - have)]
    problems += [f"extra: {name}" for name in sorted(have - want)]
    for name in sorted(want & have):
        if filecmp.cmp(expected / name, actual / name, shallow=False):
            continue
        note = ""
        if name.endswith(".gz"):
            same = gzip.decompress((expected / name).read_bytes()) == gzip.decompress(
                (actual / name).read_bytes()
            )
            note = " (same NIfTI content: compressor differs)" if same else " (content differs)"
        problems.append(f"differs: {name}{note}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "sample_data")
    parser.add_argument("--check", action="store_true", help="compare a rebuild with --out")
    args = parser.parse_args(argv)
    if not args.check:
        build(args.out)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        problems = compare(Path(tmp), args.out)
    for problem in problems:
        print(problem, file=sys.stderr)
    print("sample data: " + ("DIFFERS" if problems else "identical"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
