"""Tests for napari_mood.core.simulate, napari_mood.io.writers and the shipped sample data."""

from __future__ import annotations

import gzip
import json
import math
from importlib.resources import files
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage as ndi

from napari_mood.core import simulate as sim
from napari_mood.core.simulate import kinds as sim_kinds
from napari_mood.io.writers import nifti_gz_bytes

FAST = settings(max_examples=60, deadline=None)
SHAPE = (32, 34, 30)
CENTER = (16, 17, 15)


@pytest.fixture(scope="module")
def scan() -> np.ndarray:
    """A smooth random 'head': values in [0.2, 0.9] inside a ball, 0 outside."""
    rng = np.random.default_rng(123)
    texture = ndi.gaussian_filter(rng.random(SHAPE), 1.0)
    texture = 0.2 + 0.7 * (texture - texture.min()) / np.ptp(texture)
    head = sim.make_region_mask(SHAPE, CENTER, 14, region="sphere")
    return np.where(head, texture, 0.0).astype(np.float32)


def _apply(kind: str, scan: np.ndarray, **options: object) -> sim.Anomaly:
    adders = {
        "sphere": sim.add_sphere,
        "cube": sim.add_cube,
        "shuffle": sim.add_pixel_shuffle,
        "slab": sim.add_image_slab,
        "pet": sim.add_pet_change,
    }
    if "size" not in options:
        options.setdefault("size_range", (3, 6))
    return adders[kind](scan, **options)  # type: ignore[operator]


# ---------------------------------------------------------------- every kind alike


@pytest.mark.parametrize("kind", sim.KINDS)
def test_kind_keeps_input_range_dtype_and_gives_mask(kind: str, scan: np.ndarray) -> None:
    before = scan.copy()
    anomaly = _apply(kind, scan, seed=1)
    np.testing.assert_array_equal(scan, before)
    assert anomaly.scan is not scan and anomaly.scan.dtype == scan.dtype
    assert anomaly.scan.shape == scan.shape and anomaly.mask.shape == scan.shape
    assert anomaly.mask.dtype == bool and anomaly.mask.any()
    assert 0.0 <= anomaly.scan.min() and anomaly.scan.max() <= 1.0
    assert anomaly.kind == kind and anomaly.mask[anomaly.center]


@pytest.mark.parametrize("kind", sim.KINDS)
def test_random_region_lies_inside_the_body(kind: str, scan: np.ndarray) -> None:
    anomaly = _apply(kind, scan, size=4, seed=7)
    assert np.all(scan[anomaly.mask] > 0)


@pytest.mark.parametrize("kind", sim.KINDS)
def test_same_seed_same_anomaly_other_seed_other(kind: str, scan: np.ndarray) -> None:
    first, again = _apply(kind, scan, seed=5), _apply(kind, scan, seed=5)
    np.testing.assert_array_equal(first.scan, again.scan)
    np.testing.assert_array_equal(first.mask, again.mask)
    assert first.center == again.center and first.params == again.params
    other = _apply(kind, scan, seed=6)
    assert not np.array_equal(first.scan, other.scan)


@pytest.mark.parametrize("kind", ["sphere", "cube", "shuffle", "slab"])
def test_only_the_region_changes(kind: str, scan: np.ndarray) -> None:
    anomaly = _apply(kind, scan, seed=2)
    np.testing.assert_array_equal(anomaly.scan[~anomaly.mask], scan[~anomaly.mask])
    assert not np.array_equal(anomaly.scan[anomaly.mask], scan[anomaly.mask])


@pytest.mark.parametrize("kind", ["sphere", "cube", "shuffle", "pet"])
def test_two_dimensional_scans_work(kind: str) -> None:
    image = np.full((40, 40), 0.5)
    anomaly = _apply(kind, image, center=(20, 20), size=6, seed=0)
    assert anomaly.mask.shape == image.shape and anomaly.mask[20, 20]
    assert anomaly.mask.sum() > 50


def test_random_size_is_drawn_from_the_range(scan: np.ndarray) -> None:
    sizes = {sim.add_sphere(scan, size_range=(3, 5), seed=s).size for s in range(40)}
    assert sizes == {3.0, 4.0, 5.0}


def test_generator_seed_is_consumed(scan: np.ndarray) -> None:
    rng = np.random.default_rng(0)
    first, second = sim.add_sphere(scan, seed=rng), sim.add_sphere(scan, seed=rng)
    assert first.center != second.center or first.size != second.size


# ------------------------------------------------------------------- region masks


@pytest.mark.parametrize("radius", [2.0, 3.5, 6.0])
def test_sphere_volume_matches_radius(radius: float) -> None:
    mask = sim.make_region_mask((30, 30, 30), (15, 15, 15), radius, region="sphere")
    expected = 4.0 / 3.0 * math.pi * radius**3
    assert abs(mask.sum() - expected) / expected < 0.2
    assert mask[15, 15, 15 + int(radius)] and not mask[15, 15, 16 + int(radius)]


def test_cube_side_is_twice_the_half_width_plus_one() -> None:
    mask = sim.make_region_mask((20, 20, 20), (10, 10, 10), 3, region="cube")
    assert mask.sum() == 7**3
    assert np.array_equal(np.argwhere(mask).min(0), [7, 7, 7])


def test_region_is_cut_at_the_border() -> None:
    mask = sim.make_region_mask((10, 10, 10), (0, 5, 5), 2, region="cube")
    assert mask.sum() == 3 * 5 * 5


@FAST
@given(
    center=st.tuples(*[st.integers(0, 11)] * 3),
    size=st.floats(0, 6, allow_nan=False),
)
def test_sphere_inside_cube_and_contains_center(center: tuple[int, int, int], size: float) -> None:
    ball = sim.make_region_mask((12, 12, 12), center, size, region="sphere")
    box = sim.make_region_mask((12, 12, 12), center, size, region="cube")
    assert ball[center] and box[center]
    assert not np.any(ball & ~box)


# ------------------------------------------------------------------ specific kinds


@pytest.mark.parametrize("region", ["sphere", "cube"])
def test_blob_given_center_size_and_intensity(region: str, scan: np.ndarray) -> None:
    add = sim.add_sphere if region == "sphere" else sim.add_cube
    anomaly = add(scan, center=CENTER, size=3, intensity=0.25)
    expected = sim.make_region_mask(SHAPE, CENTER, 3, region=region)  # type: ignore[arg-type]
    np.testing.assert_array_equal(anomaly.mask, expected)
    assert np.all(anomaly.scan[expected] == np.float32(0.25))
    assert anomaly.center == CENTER and anomaly.size == 3.0
    assert anomaly.params == {"intensity": 0.25}


def test_random_intensity_is_constant_in_unit_range(scan: np.ndarray) -> None:
    anomaly = sim.add_cube(scan, size=2, seed=3)
    values = np.unique(anomaly.scan[anomaly.mask])
    assert values.size == 1 and 0.0 <= values[0] <= 1.0


def test_shuffle_permutes_within_patches(scan: np.ndarray) -> None:
    anomaly = sim.add_pixel_shuffle(scan, center=CENTER, size=6, patch_size=3, seed=0)
    corner = np.asarray(CENTER) - 6
    coords = np.argwhere(anomaly.mask)
    cells = (coords - corner) // 3
    for cell in np.unique(cells, axis=0):
        rows = tuple(coords[np.all(cells == cell, axis=1)].T)
        np.testing.assert_array_equal(np.sort(anomaly.scan[rows]), np.sort(scan[rows]))
    assert anomaly.params == {"region": "sphere", "patch_size": 3}


def test_slab_writes_the_resized_image(scan: np.ndarray) -> None:
    image = np.tile(np.linspace(0.0, 1.0, 9), (9, 1))  # columns ramp 0 -> 1
    anomaly = sim.add_image_slab(scan, image, axis=1, center=CENTER, size=4, thickness=3)
    assert anomaly.mask.sum() == 3 * 9 * 9
    planes = anomaly.scan[12:21, 16:19, 11:20]
    np.testing.assert_allclose(planes[:, 0, :], planes[:, 2, :])
    np.testing.assert_allclose(planes[0, 1, :], np.linspace(0.0, 1.0, 9), atol=1e-6)
    assert anomaly.params == {"axis": 1, "thickness": 3}


def test_slab_default_image_and_texture_are_in_unit_range() -> None:
    image = sim.natural_image()
    assert image.ndim == 2 and 0.0 <= image.min() and image.max() <= 1.0 and image.std() > 0.1
    texture = sim_kinds._procedural_texture(64)
    assert texture.shape == (64, 64) and 0.0 <= texture.min() and texture.max() <= 1.0


def test_slab_needs_a_3d_scan() -> None:
    with pytest.raises(ValueError, match="3-D"):
        sim.add_image_slab(np.zeros((20, 20)))


@pytest.mark.parametrize("degree", [0.3, 0.6])
def test_pet_dims_by_degree_at_center_and_not_far_away(degree: float) -> None:
    flat = np.full((48, 48, 48), 0.8)
    anomaly = sim.add_pet_change(flat, center=(24, 24, 24), size=10, degree=degree, sigma=2.0)
    assert anomaly.scan[24, 24, 24] == pytest.approx(0.8 * (1 - degree), rel=1e-3)
    assert np.all(anomaly.scan[:, :, :5] == 0.8) and np.all(anomaly.scan[:5] == 0.8)
    assert np.all(anomaly.scan <= 0.8)
    np.testing.assert_array_equal(
        anomaly.mask, sim.make_region_mask(flat.shape, (24, 24, 24), 10, region="sphere")
    )
    edge = anomaly.scan[24, 24, 34]
    assert 0.8 * (1 - degree) < edge < 0.8


def test_pet_sigma_zero_is_a_sharp_edge() -> None:
    flat = np.full((20, 20, 20), 0.5)
    anomaly = sim.add_pet_change(flat, center=(10, 10, 10), size=4, degree=0.5, sigma=0)
    np.testing.assert_allclose(anomaly.scan[anomaly.mask], 0.25)
    np.testing.assert_array_equal(anomaly.scan[~anomaly.mask], 0.5)


# ------------------------------------------------------------ several anomalies


@pytest.mark.parametrize("kind", ["sphere", "pet", "mixed"])
def test_add_anomalies_gives_separate_objects(kind: str, scan: np.ndarray) -> None:
    before = scan.copy()
    result = sim.add_anomalies(scan, kind=kind, count=3, size_range=(2, 3), seed=4)  # type: ignore[arg-type]
    np.testing.assert_array_equal(scan, before)
    assert len(result.anomalies) == 3
    union = np.logical_or.reduce([a.mask for a in result.anomalies])
    np.testing.assert_array_equal(result.mask, union)
    _, n_objects = ndi.label(result.mask, structure=np.ones((3, 3, 3)))
    assert n_objects == 3
    np.testing.assert_array_equal(result.scan, result.anomalies[-1].scan)


def test_add_anomalies_zero_count_is_a_normal_copy(scan: np.ndarray) -> None:
    result = sim.add_anomalies(scan, count=0, seed=0)
    np.testing.assert_array_equal(result.scan, scan)
    assert result.scan is not scan and not result.mask.any() and result.anomalies == ()


def test_add_anomalies_mixed_skips_slab_in_2d() -> None:
    image = np.full((64, 64), 0.5)
    result = sim.add_anomalies(image, kind="mixed", count=4, size_range=(2, 3), seed=1)
    assert all(a.kind != "slab" for a in result.anomalies)


def test_add_anomalies_says_when_there_is_no_room() -> None:
    with pytest.raises(ValueError, match="no room"):
        sim.add_anomalies(np.full((12, 12, 12), 0.5), kind="cube", count=5, size_range=(3, 3))


def test_simulate_cases_normal_first_then_anomalous(scan: np.ndarray) -> None:
    cases = sim.simulate_cases(scan, kind="cube", count=2, n_anomalous=2, size_range=(2, 2), seed=9)
    assert [c.name for c in cases] == ["case_000", "case_001", "case_002"]
    assert [c.label for c in cases] == [0, 1, 1]
    np.testing.assert_array_equal(cases[0].scan, scan)
    assert all(len(c.anomalies) == 2 for c in cases[1:])
    again = sim.simulate_cases(scan, kind="cube", count=2, n_anomalous=2, size_range=(2, 2), seed=9)
    for one, two in zip(cases, again, strict=True):
        np.testing.assert_array_equal(one.scan, two.scan)


def test_iter_simulated_cases_gives_the_same_cases_one_at_a_time(scan: np.ndarray) -> None:
    options = {"kind": "sphere", "count": 1, "n_anomalous": 3, "size_range": (2, 3), "seed": 4}
    cases = sim.iter_simulated_cases(scan, **options)
    assert not isinstance(cases, tuple)
    for one, two in zip(cases, sim.simulate_cases(scan, **options), strict=True):
        assert one.name == two.name
        np.testing.assert_array_equal(one.mask, two.mask)
        np.testing.assert_array_equal(one.scan, two.scan)


def test_iter_simulated_cases_checks_before_the_first_case(scan: np.ndarray) -> None:
    with pytest.raises(ValueError, match="prefix"):
        sim.iter_simulated_cases(scan, prefix="a/b")  # no next() needed


# ------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: sim.add_sphere(s * 2 + 0.5), r"\[0, 1\]"),
        (lambda s: sim.add_sphere(s[0, 0]), "2-D or 3-D"),
        (lambda s: sim.add_sphere(s, center=(99, 0, 0)), "outside"),
        (lambda s: sim.add_sphere(s, center=(1, 2)), "3 coordinates"),
        (lambda s: sim.add_sphere(s, size=-1), "positive"),
        (lambda s: sim.add_sphere(s, size=20), "no room"),
        (lambda s: sim.add_sphere(s, intensity=2.0), "intensity"),
        (lambda s: sim.add_sphere(s, body_mask=np.ones((3, 3, 3))), "body_mask shape"),
        (lambda s: sim.add_pixel_shuffle(s, region="ball"), "'sphere', 'cube'"),
        (lambda s: sim.add_pixel_shuffle(s, patch_size=1), "patch_size"),
        (lambda s: sim.add_image_slab(s, axis=3), "axis"),
        (lambda s: sim.add_image_slab(s, np.zeros(5)), "2-D"),
        (lambda s: sim.add_pet_change(s, degree=1.5), "degree"),
        (lambda s: sim.add_pet_change(s, sigma=-1), "sigma"),
        (lambda s: sim.add_anomalies(s, kind="blob"), "'mixed'"),
        (lambda s: sim.add_anomalies(s, count=-1), "count"),
        (lambda s: sim.simulate_cases(s, prefix="a/b"), "prefix"),
    ],
)
def test_invalid_options_raise_value_error(call, message: str, scan: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call(scan)


# ----------------------------------------------------------------------- writers


def _load(path: Path) -> nib.Nifti1Image:
    image = nib.load(path)
    assert isinstance(image, nib.Nifti1Image)
    return image


def test_nifti_bytes_are_deterministic() -> None:
    data = np.random.default_rng(0).random((5, 6, 7))
    first, second = (
        nifti_gz_bytes(data, np.eye(4), levels=255),
        nifti_gz_bytes(data, np.eye(4), levels=255),
    )
    assert first == second
    assert first[4:8] == b"\x00\x00\x00\x00"  # gzip mtime 0
    assert first[3] & 0x08 == 0  # no file name in the gzip header
    assert nib.Nifti1Image.from_bytes(gzip.decompress(first)).shape == (5, 6, 7)


# ------------------------------------------------------------- shipped sample data

SAMPLE = Path(str(files("napari_mood.sample_data")))


def _names(folder: Path, suffix: str) -> set[str]:
    return {p.name[: -len(suffix)] for p in folder.iterdir() if p.name.endswith(suffix)}


def test_sample_data_layout_is_complete_and_consistent() -> None:
    manifest = json.loads((SAMPLE / "cases.json").read_text())
    cases = _names(SAMPLE / "toy", ".nii.gz")
    assert len(cases) >= 5 and cases == {c["name"][: -len(".nii.gz")] for c in manifest["cases"]}
    assert _names(SAMPLE / "toy_label" / "pixel", ".nii.gz") == cases
    assert _names(SAMPLE / "toy_label" / "sample", ".nii.gz.txt") == cases
    shapes, labels = {}, {}
    for case in sorted(cases):
        scan = _load(SAMPLE / "toy" / f"{case}.nii.gz")
        label = _load(SAMPLE / "toy_label" / "pixel" / f"{case}.nii.gz")
        mask = np.asarray(label.dataobj)
        assert scan.shape == label.shape and np.allclose(scan.affine, label.affine)
        assert set(np.unique(mask)) <= {0, 1}
        values = scan.get_fdata()
        assert values.min() >= 0.0 and values.max() <= 1.0
        sample = (SAMPLE / "toy_label" / "sample" / f"{case}.nii.gz.txt").read_text()
        assert sample == f"{int(mask.any())}\n"
        shapes[case], labels[case] = scan.shape, int(mask.any())
    assert 0 in labels.values() and 1 in labels.values()
    kinds = {a["kind"] for c in manifest["cases"] for a in c["anomalies"]}
    assert kinds == set(sim.KINDS)
    assert any(len(c["anomalies"]) >= 2 for c in manifest["cases"])
    _check_methods(shapes, manifest["missing"])


def _check_methods(shapes: dict[str, tuple[int, ...]], missing: dict[str, str]) -> None:
    methods = sorted(p for p in (SAMPLE / "methods").iterdir() if p.is_dir())
    assert len(methods) >= 3
    for method in methods:
        gone = {missing[method.name][: -len(".nii.gz")]} if method.name in missing else set()
        assert _names(method, ".nii.gz") == set(shapes) - gone
        assert _names(method, ".nii.gz.txt") == set(shapes) - gone
        for case in set(shapes) - gone:
            image = _load(method / f"{case}.nii.gz")
            assert image.shape == shapes[case]
            values = image.get_fdata(dtype=np.float32)
            assert values.min() >= 0.0 and values.max() <= 1.0
            assert math.isfinite(float((method / f"{case}.nii.gz.txt").read_text()))
    assert missing, "one method should miss one case"


def test_sample_data_is_small() -> None:
    total = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert total < 10_000_000
    assert (SAMPLE / "LICENSE_MNI.txt").read_text().count("Louis Collins") == 1
