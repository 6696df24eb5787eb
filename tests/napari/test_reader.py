"""The npe2 reader: what it accepts, what layers it makes, and that they line up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from napari_mood._napari import layers as layer_rules
from napari_mood._napari.layers import METADATA_KEY
from napari_mood._napari.reader import get_reader, read_paths
from napari_mood.core.orientation import display_transform
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.services.looks import METHOD_COLORS
from tests.conftest import make_mood_folder, write_nifti


def _rotation_z(degrees: float) -> np.ndarray:
    t = np.deg2rad(degrees)
    return np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1.0]])


def _affine(linear: np.ndarray, origin=(10.0, -20.0, 5.0)) -> np.ndarray:
    affine = np.eye(4)
    affine[:3, :3] = linear
    affine[:3, 3] = origin
    return affine


GRIDS = {
    "anisotropic-ras": ((6, 8, 5), _affine(np.diag([2.0, 1.5, 3.0]))),
    "lps": ((6, 8, 5), _affine(np.diag([-1.0, -1.0, 2.0]))),
    "oblique": ((6, 8, 5), _affine(_rotation_z(20) @ np.diag([1.0, 2.0, 1.0]))),
    "permuted-sar": ((5, 8, 6), _affine(np.array([[0, 0, 1.0], [0, -2.0, 0], [3.0, 0, 0]]))),
    "2d": ((7, 9), _affine(np.diag([0.5, 2.0, 1.0]))),
}


def _write_case(tmp_path: Path, shape, affine, marker) -> list[Path]:
    scan = np.zeros(shape, np.float32)
    scan[marker] = 5.0
    gt = np.zeros(shape, np.uint8)
    gt[marker] = 1
    scores = np.full(shape, 0.1, np.float32)
    scores[marker] = 0.9
    return [
        write_nifti(tmp_path / "toy" / "c.nii.gz", scan, affine),
        write_nifti(tmp_path / "toy_label" / "pixel" / "c.nii.gz", gt, affine),
        write_nifti(tmp_path / "methods" / "m" / "c.nii.gz", scores, affine),
    ]


@pytest.mark.parametrize("grid", GRIDS)
def test_scan_gt_and_map_line_up_voxel_for_voxel(tmp_path: Path, grid: str):
    shape, affine = GRIDS[grid]
    marker = tuple(s // 2 - 1 for s in shape)
    layers = read_paths(_write_case(tmp_path, shape, affine, marker))
    assert [kind for _, _, kind in layers] == ["image", "image", "labels"]
    transform = display_transform(shape, affine)
    shown = transform.to_display(
        np.pad(
            np.ones((1,) * len(shape)), [(m, s - m - 1) for m, s in zip(marker, shape, strict=True)]
        )
    )
    expected = tuple(int(i[0]) for i in np.nonzero(shown))
    for data, kwargs, _ in layers:
        assert data.shape == transform.display_shape
        assert kwargs["scale"] == layers[0][1]["scale"] == pytest.approx(transform.spacing)
        assert np.unravel_index(np.argmax(data), data.shape) == expected


@pytest.mark.parametrize("grid", [g for g in GRIDS if g != "2d"])
def test_display_axes_are_superior_posterior_right(tmp_path: Path, grid: str):
    shape, affine = GRIDS[grid]
    transform = display_transform(shape, affine)
    centre = np.array([s // 2 for s in transform.display_shape], float)
    world = transform.file_index_to_world(transform.display_to_file_index(centre))
    for axis, (world_axis, sign) in enumerate([(2, 1), (1, -1), (0, 1)]):  # S, -A, R
        step = centre.copy()
        step[axis] += 1
        moved = transform.file_index_to_world(transform.display_to_file_index(step)) - world
        assert np.argmax(np.abs(moved)) == world_axis
        assert np.sign(moved[world_axis]) == sign


def test_anisotropic_scale_follows_display_order(tmp_path: Path):
    layers = read_paths(_write_case(tmp_path, (6, 8, 5), GRIDS["anisotropic-ras"][1], (1, 1, 1)))
    assert layers[0][1]["scale"] == (3.0, 1.5, 2.0)  # (S, A, R) spacing


def test_files_opened_one_by_one_line_up_when_affines_agree(tmp_path: Path):
    shape, affine = GRIDS["lps"]
    paths = _write_case(tmp_path, shape, affine, (2, 3, 1))
    singles = [read_paths(p) for p in paths]
    assert [kwargs["name"] for _, kwargs, _ in singles[0]] == ["c", "m", "c GT"]  # whole case
    assert [layers[0][1]["metadata"][METADATA_KEY]["role"] for layers in singles[1:]] == [
        "gt",
        "method",
    ]
    peaks = {np.unravel_index(np.argmax(d), d.shape) for d, _, _ in (s[-1] for s in singles)}
    assert len(peaks) == 1


def test_dataset_opens_first_anomalous_case_with_methods(tmp_path: Path):
    mask = np.zeros((4, 5, 6), bool)
    mask[1:3, 2, 2:4] = True
    labels = {"c0": np.zeros_like(mask), "c1": mask}
    maps = {m: {c: v * 0.7 for c, v in labels.items()} for m in ("ae", "zz")}
    root, preds = make_mood_folder(tmp_path, labels, maps)
    preds.rename(root / "methods")
    layers = read_paths(root)
    names = [kwargs["name"] for _, kwargs, _ in layers]
    assert names == ["c1", "ae", "zz", "c1 GT"]
    roles = [kwargs["metadata"][METADATA_KEY] for _, kwargs, _ in layers]
    assert [r["role"] for r in roles] == ["scan", "method", "method", "gt"]
    assert {r["case"] for r in roles} == {"c1.nii.gz"}
    assert {r["dataset"] for r in roles} == {str(root)}
    assert roles[1]["path"] == str(root / "methods" / "ae" / "c1.nii.gz")
    assert [r["color"] for r in roles[1:3]] == list(METHOD_COLORS[:2])


def test_method_layers_are_transparent_below_the_threshold(tmp_path: Path):
    shape, affine = GRIDS["lps"]
    _, kwargs, _ = read_paths(_write_case(tmp_path, shape, affine, (1, 1, 1)))[1]
    assert kwargs["contrast_limits"] == [0.5, 1.0]
    assert kwargs["colormap"]["controls"][0] == 0.0
    assert kwargs["colormap"]["colors"][0][3] == 0.0  # alpha at and below the threshold
    assert kwargs["blending"] == "translucent_no_depth"  # over the scan in 3-D too


def test_preds_add_methods(tmp_path: Path):
    shape, affine = GRIDS["lps"]
    paths = _write_case(tmp_path, shape, affine, (1, 1, 1))
    extra = write_nifti(tmp_path / "other" / "x.nii.gz", np.ones(shape, np.float32), affine)
    layers = read_paths(paths[0], preds={"folder": paths[2].parent, "file": extra})
    assert [kwargs["name"] for _, kwargs, _ in layers] == ["c", "m", "folder", "file", "c GT"]


def test_case_folder_and_methods_folder(tmp_path: Path):
    for name, value in (("scan", 3.0), ("gt", 1), ("ae", 0.7), ("vae", 0.2)):
        write_nifti(tmp_path / "case7" / f"{name}.nii.gz", np.full((3, 4), value, np.float32))
    names = [kwargs["name"] for _, kwargs, _ in read_paths(tmp_path / "case7")]
    assert names == ["case7", "ae", "vae", "case7 GT"]
    (single,) = read_paths(tmp_path / "case7" / "vae.nii.gz")  # one file of a case folder
    assert single[1]["name"] == "vae"
    assert single[1]["metadata"][METADATA_KEY]["case"] == "case7"
    write_nifti(tmp_path / "runs" / "ae" / "k.nii.gz", np.zeros((3, 4), np.float32))
    (layer,) = read_paths(tmp_path / "runs")
    assert layer[1]["name"] == "ae" and layer[1]["metadata"][METADATA_KEY]["case"] == "k.nii.gz"


def test_shape_mismatch_warns_and_skips_the_map(tmp_path: Path):
    scan = write_nifti(tmp_path / "scan" / "c.nii.gz", np.zeros((3, 4, 5), np.float32))
    bad = write_nifti(tmp_path / "bad" / "c.nii.gz", np.zeros((3, 4, 4), np.float32))
    with pytest.warns(MoodInputWarning, match=r"bad.*\(3, 4, 4\) differs.*not shown"):
        layers = read_paths([scan, bad])
    assert [kwargs["name"] for _, kwargs, _ in layers] == ["c"]


def test_several_files_from_one_folder_are_named_after_the_files(tmp_path: Path):
    paths = [
        write_nifti(tmp_path / "x" / f"{n}.nii.gz", np.zeros((2, 3), np.float32))
        for n in ("brain", "ae", "vae")
    ]
    names = [kwargs["name"] for _, kwargs, _ in read_paths(paths)]
    assert names == ["brain", "ae", "vae"]


def test_unreadable_path_is_a_clear_error(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(MoodInputError, match="not a NIfTI file, a MOOD dataset"):
        read_paths(tmp_path / "empty")


# ----------------------------------------------------------------------- get_reader


def test_get_reader_accepts_nifti_files_and_mood_folders(tmp_path: Path):
    shape, affine = GRIDS["lps"]
    paths = _write_case(tmp_path, shape, affine, (1, 1, 1))
    assert get_reader(str(paths[0])) is read_paths
    assert get_reader([str(p) for p in paths]) is read_paths
    assert get_reader(str(tmp_path)) is read_paths  # dataset folder


def test_get_reader_declines_without_raising(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("x")
    (tmp_path / "table.csv.gz").write_bytes(b"\x1f\x8b\x08")
    nifti = write_nifti(tmp_path / "a.nii.gz", np.zeros((2, 2), np.float32))
    for path in ("empty", "junk", "table.csv.gz", "missing.nii.gz"):
        assert get_reader(str(tmp_path / path)) is None
    assert get_reader([str(nifti), str(tmp_path / "table.csv.gz")]) is None
    assert get_reader([]) is None
    assert get_reader(None) is None  # type: ignore[arg-type]


def test_napari_keeps_the_gt_mask_without_a_copy(mood_dataset: Path):
    """The GT layer data is the reader's bool mask seen as uint8 (0 and 1), which napari's
    Labels layer keeps as it is (a bool array it would copy into a new uint8 one)."""
    from napari.layers import Layer

    data, kwargs, kind = next(d for d in read_paths(mood_dataset) if d[2] == "labels")
    layer = Layer.create(data, kwargs, kind)
    assert layer.data is data and data.dtype == np.uint8
    assert set(np.unique(data).tolist()) == {0, 1}
    assert data.base is not None and data.base.dtype == np.bool_


def test_the_gt_array_cannot_be_painted_even_through_a_copy_of_its_layer(mood_dataset: Path):
    """A layer sharing the GT's array (the grid's copies) cannot write a 2 into the mask."""
    from napari.layers import Layer

    from napari_mood._napari.layers import gt_truth

    data, kwargs, kind = next(d for d in read_paths(mood_dataset) if d[2] == "labels")
    layer = Layer.create(data, kwargs, kind)
    copy = Layer.create(*layer.as_layer_data_tuple())
    with pytest.raises(ValueError, match="read-only"):
        copy.paint((1, 1, 1), 2, refresh=False)
    assert set(np.unique(data).tolist()) == {0, 1}
    assert gt_truth(data).dtype == np.bool_
    writeable = np.array(data)  # someone else's uint8 labels: not seen as a mask
    assert gt_truth(writeable) is writeable


@pytest.mark.parametrize("pyramid", [False, True])
def test_a_scan_opens_with_its_finite_range_at_full_resolution(
    tmp_path: Path, monkeypatch, pyramid
):
    """Not napari's guess: a pyramid's coarsest (mean-pooled) level would make one bright
    voxel 1/8^k as bright, and a large volume's three sampled planes could miss it."""
    if pyramid:
        monkeypatch.setattr(layer_rules, "PYRAMID_MIN_VOXELS", 0)
        monkeypatch.setattr(layer_rules, "PYRAMID_SMALLEST_EDGE", 2)
    shape, affine = (8, 8, 8), GRIDS["lps"][1]
    paths = _write_case(tmp_path, shape, affine, (3, 4, 2))  # one voxel of 5.0 in zeros
    scan = np.zeros(shape, np.float32)
    scan[3, 4, 2], scan[1, 1, 1], scan[2, 2, 2], scan[6, 1, 5] = 5.0, -1.5, np.nan, np.inf
    write_nifti(paths[0], scan, affine)
    data, kwargs, _ = read_paths(paths)[0]
    assert kwargs["contrast_limits"] == [-1.5, 5.0]
    if pyramid:
        assert len(data) == 3 and float(np.nanmax(data[-1][np.isfinite(data[-1])])) < 5.0


@pytest.mark.parametrize(
    "drawn", [["residual", "oracle_noisy", "binary"], ["oracle_noisy", "binary", "residual"]]
)
def test_the_figure_draws_each_method_in_its_viewer_colour_whatever_the_methods_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drawn: list[str]
):
    from napari_mood.io.methods import find_methods
    from napari_mood.io.mood import discover_dataset
    from napari_mood.services import figure_job
    from napari_mood.services.datasets import sample_data_dir
    from napari_mood.services.figure_cells import colors_for

    root = sample_data_dir()
    layers = read_paths(root)  # the viewer: the first anomalous case, every method
    shown = {
        info["method"]: info["color"]
        for info in (kwargs["metadata"][METADATA_KEY] for _, kwargs, _ in layers)
        if info["role"] == "method"
    }
    assert len(set(shown.values())) == len(shown) == 3
    drawn_colors: list[dict[str, str]] = []
    make_figure = figure_job.make_figure

    def recording(rows, **kwargs):
        drawn_colors.append(colors_for(kwargs["methods"], kwargs.get("colors")))
        return make_figure(rows, **kwargs)

    monkeypatch.setattr(figure_job, "make_figure", recording)
    dataset = discover_dataset(root)
    figure_job.write_figure(
        dataset, find_methods(root), tmp_path / "fig.png", drawn=drawn,
        cases=["brain_001"], dpi=30,
    )  # fmt: skip
    assert drawn_colors == [{name: shown[name] for name in drawn}]
