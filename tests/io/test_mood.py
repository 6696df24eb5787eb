"""Reading volumes, scores, labels and MOOD folders."""

from __future__ import annotations

import gzip
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.io.errors import MoodInputError
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import case_stem, discover_dataset, read_sample_label, read_sample_score
from napari_mood.io.nifti import read_label, read_scores, read_volume
from tests.conftest import make_mood_folder


def test_read_volume_keeps_affine_and_spacing(nifti):
    affine = np.diag([0.8, 1.5, 3.0, 1.0])
    path = nifti("a.nii.gz", np.ones((4, 5, 6), np.float32), affine)
    vol = read_volume(path)
    assert vol.shape == (4, 5, 6)
    assert vol.spacing == pytest.approx((0.8, 1.5, 3.0))
    np.testing.assert_allclose(vol.affine, affine, atol=1e-6)  # stored as float32


def test_read_volume_2d_and_uncompressed(nifti):
    vol = read_volume(nifti("a.nii", np.arange(12, dtype=np.float32).reshape(3, 4)))
    assert vol.shape == (3, 4)
    assert vol.data[2, 3] == 11


def test_single_volume_4d_is_squeezed(nifti):
    assert read_volume(nifti("a.nii.gz", np.zeros((3, 4, 5, 1), np.float32))).shape == (3, 4, 5)


def test_multi_volume_4d_is_a_clear_error(nifti):
    path = nifti("a.nii.gz", np.zeros((3, 4, 5, 2), np.float32))
    with pytest.raises(MoodInputError, match=r"a\.nii\.gz.*shape \(3, 4, 5, 2\).*split"):
        read_volume(path)


def test_corrupt_gzip_names_the_file(tmp_path: Path, nifti):
    good = nifti("good.nii.gz", np.zeros((3, 3, 3), np.float32))
    bad = tmp_path / "bad.nii.gz"
    bad.write_bytes(good.read_bytes()[:40])
    with pytest.raises(MoodInputError, match="bad.nii.gz.*(gzip|truncated)"):
        read_scores(bad)


def test_not_gzip_at_all(tmp_path: Path):
    bad = tmp_path / "x.nii.gz"
    bad.write_text("hello")
    with pytest.raises(MoodInputError, match="x.nii.gz"):
        read_scores(bad)


def test_gzip_but_not_nifti(tmp_path: Path):
    bad = tmp_path / "x.nii.gz"
    bad.write_bytes(gzip.compress(b"\0" * 400))
    with pytest.raises(MoodInputError, match="x.nii.gz.*NIfTI"):
        read_scores(bad)


def test_empty_and_missing_file(tmp_path: Path):
    (tmp_path / "e.nii.gz").write_bytes(b"")
    with pytest.raises(MoodInputError, match="empty"):
        read_scores(tmp_path / "e.nii.gz")
    with pytest.raises(MoodInputError, match="not found"):
        read_scores(tmp_path / "nope.nii.gz")


def test_read_scores_mood_equals_official_float16_read(nifti):
    rng = np.random.default_rng(0)
    data = rng.normal(0.5, 0.6, (6, 7, 8))
    data[0, 0, 0] = np.inf
    data[0, 0, 1] = -np.inf
    path = nifti("m.nii.gz", data)  # float64 on disk
    read = read_scores(path)
    official = np.clip(nib.load(path).get_fdata(dtype=np.float16), 0, 1)
    assert read.scores.dtype == np.float16
    np.testing.assert_array_equal(read.scores, official)
    assert read.n_posinf == 1 and read.n_neginf == 1
    assert read.n_below == int((data < 0).sum()) and read.n_above == int((data > 1).sum())
    assert not np.signbit(read.scores).any()  # -0.0 normalised


def test_read_scores_keeps_nan_and_counts_it(nifti):
    data = np.full((3, 3, 3), 0.5, np.float32)
    data[1, 1, 1] = np.nan
    read = read_scores(nifti("m.nii.gz", data))
    assert read.n_nan == 1 and np.isnan(read.scores[1, 1, 1])


def test_read_scores_exact_mode_is_float32(nifti):
    data = np.full((2, 2, 2), 0.1234567, np.float32)
    read = read_scores(nifti("m.nii.gz", data), mode="exact")
    assert read.scores.dtype == np.float32 and read.scores[0, 0, 0] == np.float32(0.1234567)
    with pytest.raises(ValueError, match="mode must be one of"):
        read_scores(nifti("n.nii.gz", data), mode="float16")


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_read_label_rounds_and_clips_like_official(nifti, dtype):
    values = np.array([0, 1, 2, -1, 0.4, 0.6, 1.49, 0.5, 1.5, 2.5], dtype=np.float64)
    data = values.astype(dtype).reshape(2, 5, 1)
    path = nifti("l.nii.gz", data)
    read = read_label(path)
    official = np.clip(np.rint(nib.load(path).get_fdata()).astype(np.int64), 0, 1) == 1
    np.testing.assert_array_equal(
        read.mask, official[..., 0] if official.ndim == 3 and read.mask.ndim == 2 else official
    )
    rounded = np.rint(data.astype(np.float64))
    assert read.n_nonbinary == int(((rounded != 0) & (rounded != 1)).sum())


def test_sample_files(tmp_path: Path):
    (tmp_path / "l.txt").write_text("1\n")
    (tmp_path / "s.txt").write_text("1.7\nignored")
    (tmp_path / "bad.txt").write_text("high")
    (tmp_path / "lf.txt").write_text("1.0")
    assert read_sample_label(tmp_path / "l.txt") == 1
    assert read_sample_score(tmp_path / "s.txt") == 1.0
    with pytest.raises(MoodInputError, match="bad.txt.*not a number"):
        read_sample_score(tmp_path / "bad.txt")
    with pytest.raises(MoodInputError, match="lf.txt.*not an integer"):
        read_sample_label(tmp_path / "lf.txt")  # int("1.0") fails in the official scorer too


def test_case_stem():
    assert case_stem("a.nii.gz.txt") == "a" and case_stem("a.nii") == "a" and case_stem("a") == "a"


def test_discover_dataset(tmp_path: Path):
    mask = np.zeros((4, 4, 4), bool)
    mask[1, 1, 1] = True
    data, _ = make_mood_folder(
        tmp_path,
        {"c0": mask, "c1": mask},
        {"m1": {"c0": mask.astype(np.float32)}, "m2": {"c1": mask.astype(np.float32)}},
        sample_labels={"c0": "1", "c1": "0"},
        sample_scores={"m1": {"c0": "0.9"}},
    )
    (data / "toy_label" / "pixel" / ".DS_Store").write_text("x")
    (data / "toy_label" / "pixel" / "notes.md").write_text("x")
    ds = discover_dataset(data)
    assert ds.cases == ("c0.nii.gz", "c1.nii.gz")
    assert set(ds.sample_labels) == {"c0.nii.gz", "c1.nii.gz"}
    assert [p.name for p in ds.ignored] == ["notes.md"]


def test_empty_folders_are_clear_errors(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(MoodInputError, match="empty.*no MOOD data"):
        discover_dataset(tmp_path / "empty")
    with pytest.raises(MoodInputError, match="is not a folder"):
        discover_dataset(tmp_path / "missing")


def test_reading_never_writes(tmp_path: Path):
    mask = np.ones((3, 3, 3), bool)
    data, preds = make_mood_folder(tmp_path, {"c": mask}, {"m": {"c": mask.astype(np.float32)}})
    before = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.rglob("*")}
    ds = discover_dataset(data)
    read_label(ds.pixel_labels["c.nii.gz"])
    read_scores(discover_methods(preds)["m"].pixel["c.nii.gz"])
    after = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in tmp_path.rglob("*")}
    assert before == after


def test_values_beyond_float16_range_clip_to_one_without_warning(nifti):
    data = np.array([[[1e6, -1e6, 0.5]]], dtype=np.float32)
    read = read_scores(nifti("big.nii.gz", data))
    np.testing.assert_array_equal(read.scores, np.array([[[1.0, 0.0, 0.5]]], np.float16))
    assert read.n_posinf == 1 and read.n_neginf == 1  # as float16 they are infinite
