"""load_case and path layouts: one case on the scan's grid, every problem reported."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood.io.case import first_anomalous_case, load_case, methods_from_files
from napari_mood.io.errors import MoodInputError
from napari_mood.io.layout import find_case_folder_layout, guess_file_role
from napari_mood.io.methods import discover_methods, methods_beside
from napari_mood.io.mood import discover_dataset
from tests.conftest import make_mood_folder, write_nifti

SHAPE = (6, 7, 5)
CASE = "toy_1.nii.gz"


def _mask() -> np.ndarray:
    mask = np.zeros(SHAPE, bool)
    mask[2:4, 3:5, 1:3] = True
    return mask


@pytest.fixture
def dataset(tmp_path: Path):
    """A healthy and an anomalous case, methods ``m1`` and ``m2`` (m2 lacks toy_0)."""
    mask = _mask()
    labels = {"toy_0": np.zeros(SHAPE, bool), "toy_1": mask}
    methods = {"m1": {c: m * 0.8 for c, m in labels.items()}, "m2": {"toy_1": mask * 0.6}}
    root, preds = make_mood_folder(
        tmp_path, labels, methods, sample_labels={"toy_0": "0", "toy_1": "1"}
    )
    return discover_dataset(root), discover_methods(preds)


def test_loads_scan_gt_and_maps_on_one_grid(dataset):
    ds, methods = dataset
    case = load_case(ds, CASE, methods=methods)
    assert case.name == CASE and case.stem == "toy_1"
    assert case.scan is not None and case.scan.shape == SHAPE
    np.testing.assert_array_equal(case.gt, _mask())
    assert case.methods == ("m1", "m2")
    assert case.maps["m1"].dtype == np.float16
    assert case.map_paths["m2"] == methods["m2"].pixel[CASE]
    assert case.transform.file_shape == SHAPE
    assert case.dataset == ds.root
    assert case.problems == ()


def test_exact_mode_keeps_float32_and_bad_mode_is_refused(dataset):
    ds, methods = dataset
    assert load_case(ds, CASE, methods=methods, mode="exact").maps["m1"].dtype == np.float32
    with pytest.raises(ValueError, match="'mood', 'exact'"):
        load_case(ds, CASE, mode="fast")  # type: ignore[arg-type]


def test_missing_map_is_reported(dataset):
    ds, methods = dataset
    case = load_case(ds, "toy_0.nii.gz", methods=methods)
    assert case.methods == ("m1",)
    (problem,) = case.problems
    assert problem.kind == "missing" and problem.method == "m2"
    assert "m2/toy_0.nii.gz: method m2 has no map for this case" in str(problem)


def test_map_on_another_grid_is_skipped(dataset, tmp_path: Path):
    ds, _ = dataset
    bad = write_nifti(tmp_path / "bad" / CASE, np.zeros((6, 7, 4), np.float32))
    case = load_case(ds, CASE, methods=methods_from_files(CASE, {"bad": bad}))
    assert case.maps == {}
    (problem,) = case.problems
    assert problem.kind == "shape" and problem.path == bad
    assert "(6, 7, 4) differs from the scan (6, 7, 5); not shown" in problem.message


def test_gt_on_another_grid_is_skipped(dataset, tmp_path: Path):
    ds, _ = dataset
    bad = write_nifti(tmp_path / "gt.nii.gz", np.zeros((3, 3, 3), np.uint8))
    case = load_case(ds, CASE, label_path=bad)
    assert case.gt is None and case.gt_path is None
    assert [p.kind for p in case.problems] == ["shape"]


def test_affine_deviation_is_reported_but_aligned_voxelwise(dataset, tmp_path: Path):
    ds, _ = dataset
    shifted = np.eye(4)
    shifted[0, 3] = 2.5
    path = write_nifti(tmp_path / "m" / CASE, np.full(SHAPE, 0.7, np.float32), shifted)
    case = load_case(ds, CASE, methods=methods_from_files(CASE, {"m": path}))
    assert case.maps["m"].shape == SHAPE
    (problem,) = case.problems
    assert problem.kind == "affine" and problem.severity == "warning"
    assert str(path) in str(problem) and "2.5" in problem.message


def test_nan_is_shown_as_zero_and_counted(dataset, tmp_path: Path):
    ds, _ = dataset
    data = np.full(SHAPE, 0.25, np.float32)
    data[0, 0, :3] = np.nan
    path = write_nifti(tmp_path / "m" / CASE, data)
    case = load_case(ds, CASE, methods=methods_from_files(CASE, {"m": path}))
    assert not np.isnan(case.maps["m"]).any()
    assert case.maps["m"][0, 0, 0] == 0
    (problem,) = case.problems
    assert problem.kind == "nan" and "3 NaN voxels (shown as 0)" in problem.message


def test_out_of_range_and_nonbinary_are_reported(tmp_path: Path):
    scores = write_nifti(tmp_path / "m" / "c.nii.gz", np.full((3, 4), 2.0, np.float32))
    label = write_nifti(tmp_path / "gt.nii.gz", np.full((3, 4), 3, np.uint8))
    case = load_case(
        None, "c.nii.gz", methods=methods_from_files("c.nii.gz", {"m": scores}), label_path=label
    )
    assert sorted(p.kind for p in case.problems) == ["nonbinary", "range"]
    assert case.maps["m"].max() == 1


def test_maps_alone_use_the_first_map_grid(tmp_path: Path):
    affine = np.diag([1.0, 2.0, 3.0, 1.0])
    path = write_nifti(tmp_path / "m" / CASE, np.zeros(SHAPE, np.float32), affine)
    case = load_case(None, CASE, methods=methods_from_files(CASE, {"m": path}))
    assert case.scan is None and case.gt is None
    assert case.transform.spacing == (3.0, 2.0, 1.0)


def test_nothing_readable_is_an_error(tmp_path: Path):
    broken = tmp_path / "scan.nii.gz"
    broken.write_bytes(b"not a gzip file")
    with pytest.raises(MoodInputError, match=f"nothing could be read for case {CASE}.*gzip"):
        load_case(None, CASE, scan_path=broken)


def test_unreadable_map_is_reported_and_the_rest_loads(dataset, tmp_path: Path):
    ds, _ = dataset
    broken = tmp_path / "m" / CASE
    broken.parent.mkdir()
    broken.write_bytes(b"")
    case = load_case(ds, CASE, methods=methods_from_files(CASE, {"m": broken}))
    assert case.scan is not None and case.maps == {}
    assert [p.kind for p in case.problems] == ["unreadable"]


def test_first_anomalous_case_uses_sample_labels(dataset):
    ds, _ = dataset
    assert first_anomalous_case(ds) == CASE


def test_first_anomalous_case_falls_back_to_pixel_labels_then_first(tmp_path: Path):
    labels = {"a": np.zeros(SHAPE, bool), "b": _mask(), "c": np.zeros(SHAPE, bool)}
    root, _ = make_mood_folder(tmp_path / "x", labels, {})
    assert first_anomalous_case(discover_dataset(root)) == "b.nii.gz"
    healthy, _ = make_mood_folder(tmp_path / "y", {"a": np.zeros(SHAPE, bool)}, {})
    assert first_anomalous_case(discover_dataset(healthy)) == "a.nii.gz"


def test_first_anomalous_case_of_one_case_reads_no_label(tmp_path: Path, monkeypatch):
    root, _ = make_mood_folder(tmp_path / "x", {"a": _mask()}, {})
    monkeypatch.setattr("napari_mood.io.case.read_label", lambda p: pytest.fail(str(p)))
    monkeypatch.setattr("napari_mood.io.case.read_sample_label", lambda p: pytest.fail(str(p)))
    assert first_anomalous_case(discover_dataset(root)) == "a.nii.gz"


def test_methods_beside(dataset, tmp_path: Path):
    ds, _ = dataset
    assert methods_beside(ds.root) == {}
    write_nifti(ds.root / "methods" / "ae" / CASE, np.zeros(SHAPE, np.float32))
    assert list(methods_beside(ds.root)) == ["ae"]


# ----------------------------------------------------------------------- layouts


def test_layout_of_dataset_and_its_parts(dataset):
    ds, _ = dataset
    assert find_case_folder_layout(ds.root).kind == "dataset"
    toy = find_case_folder_layout(ds.root / "toy")
    assert toy.kind == "dataset" and toy.path == ds.root


def test_layout_of_case_folder(tmp_path: Path):
    for name in ("scan", "label", "autoencoder", "zscore"):
        write_nifti(tmp_path / "c1" / f"{name}.nii.gz", np.zeros((2, 3), np.float32))
    layout = find_case_folder_layout(tmp_path / "c1")
    assert layout.kind == "case"
    assert layout.scan == tmp_path / "c1" / "scan.nii.gz"
    assert layout.label == tmp_path / "c1" / "label.nii.gz"
    assert list(layout.maps) == ["autoencoder", "zscore"]


def test_layout_of_methods_folder(dataset):
    _, methods = dataset
    assert find_case_folder_layout(methods["m1"].path.parent).kind == "methods"


def test_layout_of_unrelated_paths(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("hi")
    (tmp_path / "table.csv.gz").write_bytes(b"\x1f\x8b")
    for name in ("empty", "notes.txt", "table.csv.gz", "does-not-exist"):
        assert find_case_folder_layout(tmp_path / name).kind == "unknown"


def test_layout_of_file_has_a_role(dataset):
    ds, _ = dataset
    layout = find_case_folder_layout(ds.pixel_labels[CASE])
    assert (layout.kind, layout.role) == ("file", "gt")


@pytest.mark.parametrize(
    ("relative", "role"),
    [
        ("data/toy_label/pixel/brain.nii.gz", "gt"),
        ("data/toy/brain.nii.gz", "scan"),
        ("methods/ae/brain.nii.gz", "method"),
        ("submission/brain.nii.gz", "method"),  # next to *.nii.gz.txt scores
        ("case1/label.nii.gz", "gt"),
        ("case1/ae.nii.gz", "method"),
        ("case1/scan.nii.gz", "scan"),
        ("downloads/brain.nii", "scan"),
    ],
)
def test_guess_file_role(tmp_path: Path, relative: str, role: str):
    (tmp_path / "data" / "toy_label").mkdir(parents=True)
    write_nifti(tmp_path / "case1" / "scan.nii.gz", np.zeros((2, 2), np.float32))
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "brain.nii.gz.txt").write_text("0.3")
    assert guess_file_role(tmp_path / relative) == role


def test_focus_voxel_is_inside_the_largest_object():
    from napari_mood.io.case import focus_voxel

    gt = np.zeros((20, 20, 20), np.uint8)
    gt[2:4, 2:4, 2:4] = 1  # small object
    ring = np.zeros((20, 20), bool)
    yy, xx = np.mgrid[:20, :20]
    ring[(np.hypot(yy - 12, xx - 12) > 4) & (np.hypot(yy - 12, xx - 12) < 6)] = True
    gt[10:13][:, ring] = 1  # a hollow tube: its centroid is outside it
    voxel = focus_voxel(gt)
    assert voxel is not None and gt[voxel] == 1 and 10 <= voxel[0] < 13
    assert focus_voxel(np.zeros((3, 3, 3))) is None


def test_the_scan_and_gt_are_handed_over_before_any_map_is_read(dataset, monkeypatch):
    """``on_grid`` gets the scan and GT while the maps are still being read: here every
    map read waits for it (it would time out if the maps were awaited first)."""
    import threading

    from napari_mood.io import case as case_module

    ds, methods = dataset
    handed = threading.Event()
    read_map = case_module.read_map

    def map_after_grid(*args, **kwargs):
        assert handed.wait(timeout=20), "the maps were awaited before on_grid was called"
        return read_map(*args, **kwargs)

    seen: list = []

    def on_grid(grid):
        seen.append(grid)
        handed.set()

    monkeypatch.setattr(case_module, "read_map", map_after_grid)
    case = load_case(ds, CASE, methods=methods, on_grid=on_grid)
    assert len(seen) == 1 and seen[0].maps == {} and seen[0].name == CASE
    assert seen[0].scan is case.scan and seen[0].gt is case.gt
    assert seen[0].transform == case.transform and case.methods == ("m1", "m2")


def test_on_grid_is_not_called_without_a_scan_or_gt(tmp_path: Path):
    path = write_nifti(tmp_path / "m" / CASE, np.zeros(SHAPE, np.float32))
    seen: list = []
    case = load_case(None, CASE, methods=methods_from_files(CASE, {"m": path}), on_grid=seen.append)
    assert seen == [] and case.methods == ("m",)


def _focus_with_scipy(gt: np.ndarray) -> tuple[int, ...] | None:
    """An independent reading of the rule: scipy's labels over the whole volume."""
    from scipy import ndimage

    mask = np.asarray(gt) > 0
    labels, count = ndimage.label(mask, structure=np.ones((3,) * mask.ndim, bool))
    if not count:
        return None
    sizes = np.bincount(labels.ravel())
    sizes[0] = 0
    voxels = np.argwhere(labels == int(np.argmax(sizes)))
    return tuple(int(v) for v in voxels[np.argmin(((voxels - voxels.mean(0)) ** 2).sum(1))])


@pytest.mark.parametrize("seed", range(12))
def test_focus_voxel_equals_an_independent_scipy_reading(seed: int):
    """Ties between equally large objects go to the first in raster order, as scipy's."""
    from napari_mood.io.case import focus_voxel

    rng = np.random.default_rng(seed)
    shape = (9, 8, 7) if seed % 3 else (1, 9, 8)
    gt = rng.random(shape) < (0.05 + 0.02 * seed)
    view = gt.T[::-1] if seed % 2 else gt  # display views are flipped and transposed
    assert focus_voxel(view) == _focus_with_scipy(view)
    assert focus_voxel(view.astype(np.uint8)) == _focus_with_scipy(view)
