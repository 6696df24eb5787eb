"""Streamed scans: :func:`read_scan` equals :func:`read_volume` bit for bit, or hands over.

The oracle is the whole-file reader (nibabel's ``get_fdata(dtype=np.float32)`` on the
decoded file); a file the stream declines must reach it, so its errors and warnings are
the reader's own.
"""

from __future__ import annotations

import gzip
import os
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from napari_mood.io import streamed as streamed_module
from napari_mood.io.case import load_case
from napari_mood.io.errors import MoodInputError
from napari_mood.io.mood import discover_dataset
from napari_mood.io.nifti import Volume, read_volume
from napari_mood.io.streamed import read_scan

SHAPE = (9, 8, 7)
AFFINE = np.diag([-1.5, 2.0, 0.7, 1.0])


def _save(img: nib.Nifti1Image, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(img, str(path))
    return path


def _read(path: Path) -> tuple[object, bool]:
    """What read_scan returns (or raises), and whether it streamed (never asked read_volume)."""
    calls: list[Path] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            streamed_module, "read_volume", lambda p: calls.append(Path(p)) or read_volume(p)
        )
        try:
            got: object = read_scan(path)
        except MoodInputError as exc:
            got = exc
    return got, not calls


def _check_same(path: Path, *, streamed: bool) -> None:
    got, did_stream = _read(path)
    assert did_stream is streamed
    want = read_volume(path)
    assert not isinstance(got, MoodInputError)
    assert got.data.dtype == want.data.dtype == np.float32
    assert got.data.shape == want.data.shape
    np.testing.assert_array_equal(got.data.view(np.uint32), want.data.view(np.uint32))
    assert got.data.flags.f_contiguous == want.data.flags.f_contiguous
    np.testing.assert_array_equal(got.affine, want.affine)
    assert got.path == want.path == path


def _image(data: np.ndarray, dtype: str) -> nib.Nifti1Image:
    header = nib.Nifti1Header()
    header.set_data_dtype(np.dtype(dtype))
    img = nib.Nifti1Image(data, AFFINE, header)
    img.header.set_slope_inter(1.0, 0.0)
    return img


@pytest.mark.parametrize("dtype", ["u1", "<i2", ">i2", "<u2", "<i4", ">i4", "<f4", ">f4", "<f8"])
@pytest.mark.parametrize("suffix", [".nii.gz", ".nii"])
def test_plain_scans_equal_the_whole_read(tmp_path, dtype, suffix) -> None:
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else np.finfo(np.float32)
    rng = np.random.default_rng(1)
    data = rng.uniform(float(info.min) / 2, float(info.max) / 2, SHAPE).astype(dtype)
    _check_same(_save(_image(data, dtype), tmp_path / f"scan{suffix}"), streamed=True)


def test_values_float32_rounds_or_cannot_hold(tmp_path) -> None:
    """float64 beyond float32 (inf), subnormals, NaN, -0.0; int32/int64 that float32 rounds."""
    wide = np.array([1e300, -1e300, 1e-310, np.nan, -0.0, np.inf, 1 / 3, 2**24 + 1, 3.4e38, 3.5e38])
    data = np.resize(wide, SHAPE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _check_same(_save(_image(data, ">f8"), tmp_path / "f8.nii.gz"), streamed=True)
    ints = np.resize(np.array([2**24 + 1, 2**31 - 1, -(2**31), 16777219]), SHAPE)
    _check_same(_save(_image(ints.astype("<i4"), "<i4"), tmp_path / "i4.nii.gz"), streamed=True)
    big = np.resize(np.array([2**62 + 2**38 + 1, -(2**63), 2**53 + 1]), SHAPE)
    _check_same(_save(_image(big.astype("<i8"), "<i8"), tmp_path / "i8.nii.gz"), streamed=True)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, SHAPE, elements=st.floats(allow_nan=True, allow_infinity=True)))
def test_any_float64_scan(tmp_path_factory, data) -> None:
    path = _save(_image(data, "<f8"), tmp_path_factory.mktemp("h") / "s.nii.gz")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _check_same(path, streamed=True)


def test_several_steps_and_inflate_calls(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("napari_mood.io.streamed.READ_CHUNK", 7000)  # 4 steps, last short
    monkeypatch.setattr("napari_mood.io.streamed.INFLATE_BLOCK", 4096)
    data = np.random.default_rng(3).normal(100, 30, (40, 30, 20)).astype(np.int16)
    _check_same(_save(_image(data, "<i2"), tmp_path / "big.nii.gz"), streamed=True)


def test_2d_4d_singleton_nifti2_and_extensions(tmp_path) -> None:
    rng = np.random.default_rng(4)
    _check_same(_save(_image(rng.random((6, 5)), "<f4"), tmp_path / "two.nii.gz"), streamed=True)
    four = _image(rng.random((*SHAPE, 1)), "<f4")
    _check_same(_save(four, tmp_path / "four.nii.gz"), streamed=True)
    img = nib.Nifti2Image(rng.random(SHAPE).astype(np.float32), AFFINE)
    img.header.extensions.append(nib.nifti1.Nifti1Extension("comment", b"made by a test"))
    _check_same(_save(img, tmp_path / "n2.nii.gz"), streamed=True)


def test_scaled_rgb_and_several_volumes_go_to_the_reader(tmp_path) -> None:
    data = np.arange(np.prod(SHAPE), dtype=np.int16).reshape(SHAPE)
    scaled = nib.Nifti1Image(data, AFFINE)
    scaled.header.set_slope_inter(2.5, -3.0)
    _check_same(_save(scaled, tmp_path / "scaled.nii.gz"), streamed=False)
    rgb = np.zeros(SHAPE, dtype=[("R", "u1"), ("G", "u1"), ("B", "u1")])
    got, did_stream = _read(_save(nib.Nifti1Image(rgb, AFFINE), tmp_path / "rgb.nii.gz"))
    assert not did_stream and isinstance(got, MoodInputError)
    volumes = _save(_image(np.zeros((*SHAPE, 2)), "<f4"), tmp_path / "t.nii.gz")
    got, did_stream = _read(volumes)
    assert not did_stream and isinstance(got, MoodInputError)


def test_damaged_files_reach_the_reader_and_its_message(tmp_path) -> None:
    good = _save(_image(np.ones(SHAPE), "<f4"), tmp_path / "good.nii.gz")
    content = gzip.decompress(good.read_bytes())
    cases = {
        "truncated.nii.gz": gzip.compress(content[:-10]),
        "after.nii.gz": gzip.compress(content + b"\1" * 64),
        "cut.nii.gz": good.read_bytes()[:-20],
        "plain.nii.gz": content,  # not gzip although named .gz
        "empty.nii.gz": b"",
    }
    for name, payload in cases.items():
        path = tmp_path / name
        path.write_bytes(payload)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            got, did_stream = _read(path)
        assert not did_stream, name
        if name != "after.nii.gz":  # data after the voxels: read, with the reader's warning
            assert isinstance(got, MoodInputError) and got.path == path, name


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_never_opened(tmp_path) -> None:
    fifo = tmp_path / "scan.nii.gz"
    os.mkfifo(fifo)
    got, did_stream = _read(fifo)
    assert not did_stream and isinstance(got, MoodInputError)


def test_the_viewer_case_reader_streams_the_scan(tmp_path, monkeypatch) -> None:
    root = tmp_path / "data"
    scan = np.random.default_rng(5).normal(0, 1, SHAPE).astype(np.float32)
    _save(_image(scan, "<f4"), root / "toy" / "c1.nii.gz")
    calls: list[Path] = []
    monkeypatch.setattr(
        streamed_module, "read_volume", lambda p: calls.append(Path(p)) or read_volume(p)
    )
    case = load_case(discover_dataset(root), "c1.nii.gz")
    assert calls == [] and case.scan is not None
    np.testing.assert_array_equal(case.scan.data, read_volume(root / "toy" / "c1.nii.gz").data)


def _read_small(path: Path, small_above: int | None = 0) -> tuple[object, bool]:
    """read_scan(small_above) (or what it raises), and whether it streamed."""
    calls: list[Path] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            streamed_module, "read_volume", lambda p: calls.append(Path(p)) or read_volume(p)
        )
        got: object = read_scan(path, small_above=small_above)
    return got, not calls


@pytest.mark.parametrize(
    ("dtype", "kept"),
    [
        ("u1", "u1"),
        ("<i2", "i2"),
        (">i2", "i2"),
        ("<u2", "u2"),
        ("<i4", "f4"),
        ("<f4", "f2"),
        (">f8", "f2"),
    ],
)
def test_a_large_scan_is_read_small(tmp_path, dtype, kept) -> None:
    """Integers of up to 16 bits stay the same numbers in their own type; floats become
    float32's values rounded to float16; wider integers stay float32."""
    rng = np.random.default_rng(6)
    data = (
        rng.uniform(-1000, 1000, SHAPE)
        if np.dtype(dtype).kind != "u"
        else rng.uniform(0, 250, SHAPE)
    )
    path = _save(_image(data.astype(dtype), dtype), tmp_path / "scan.nii.gz")
    got, did_stream = _read_small(path)
    want = read_volume(path).data
    assert did_stream and isinstance(got, Volume)
    assert got.data.dtype == np.dtype(kept) and got.data.flags.f_contiguous
    np.testing.assert_array_equal(got.data, want.astype(kept))  # float16: the nearest value
    np.testing.assert_array_equal(got.affine, read_volume(path).affine)


@pytest.mark.parametrize("dtype", ["<f4", "<i2"])
def test_a_scan_read_into_its_own_mapping_reads_the_same(tmp_path, monkeypatch, dtype) -> None:
    """Large scans are read into an anonymous mapping (``io._pages``): forced here."""
    monkeypatch.setattr("napari_mood.io._pages.KEPT_MIN_BYTES", 1)
    data = np.random.default_rng(9).uniform(-1000, 1000, SHAPE).astype(dtype)
    path = _save(_image(data, dtype), tmp_path / "scan.nii.gz")
    want = read_volume(path).data
    for small_above in (None, 0):
        got, did_stream = _read_small(path, small_above=small_above)
        assert did_stream and isinstance(got, Volume) and got.data.flags.f_contiguous
        np.testing.assert_array_equal(got.data, want.astype(got.data.dtype))


def test_a_scan_at_or_under_the_size_stays_float32(tmp_path) -> None:
    data = np.random.default_rng(7).normal(0, 1, SHAPE).astype(np.float32)
    path = _save(_image(data, "<f4"), tmp_path / "scan.nii.gz")
    got, _ = _read_small(path, small_above=int(np.prod(SHAPE)))
    assert isinstance(got, Volume) and got.data.dtype == np.float32
    np.testing.assert_array_equal(got.data, read_volume(path).data)


def test_values_float16_cannot_hold_keep_the_scan_float32(tmp_path, monkeypatch) -> None:
    """A finite value beyond +-65504 (in the last step read): read again as float32, with
    no full read; infinity and NaN alone fit."""
    monkeypatch.setattr("napari_mood.io.streamed.READ_CHUNK", 100)
    fits = np.resize(np.array([np.inf, -np.inf, np.nan, 65504.0, -0.0, 1e-8]), SHAPE)
    path = _save(_image(fits.astype(np.float32), "<f4"), tmp_path / "fits.nii.gz")
    got, did_stream = _read_small(path)
    assert did_stream and isinstance(got, Volume) and got.data.dtype == np.float16
    np.testing.assert_array_equal(got.data, fits.astype(np.float16))
    hot = np.zeros(SHAPE, dtype=np.float32)
    hot[-1, -1, -1] = 70000.0  # a PET hot spot in Bq/ml
    path = _save(_image(hot, "<f4"), tmp_path / "hot.nii.gz")
    got, did_stream = _read_small(path)
    assert did_stream and isinstance(got, Volume) and got.data.dtype == np.float32
    np.testing.assert_array_equal(got.data, hot)


def test_a_scaled_scan_is_read_whole_then_made_small(tmp_path) -> None:
    data = np.arange(np.prod(SHAPE), dtype=np.int16).reshape(SHAPE)
    scaled = nib.Nifti1Image(data, AFFINE)
    scaled.header.set_slope_inter(1.0, -1024.0)  # CT stored as unsigned, shifted to HU
    path = _save(scaled, tmp_path / "ct.nii.gz")
    got, did_stream = _read_small(path)
    assert not did_stream and isinstance(got, Volume) and got.data.dtype == np.float16
    np.testing.assert_array_equal(got.data, read_volume(path).data.astype(np.float16))
    hot = nib.Nifti1Image(data, AFFINE)
    hot.header.set_slope_inter(1000.0, 0.0)
    got, _ = _read_small(_save(hot, tmp_path / "hot.nii.gz"))
    assert isinstance(got, Volume) and got.data.dtype == np.float32


def test_load_case_reads_a_large_scan_small(tmp_path) -> None:
    root = tmp_path / "data"
    scan = np.random.default_rng(8).normal(0, 1, SHAPE).astype(np.float32)
    _save(_image(scan, "<f4"), root / "toy" / "c1.nii.gz")
    small = load_case(discover_dataset(root), "c1.nii.gz", small_scan_above=100)
    exact = load_case(discover_dataset(root), "c1.nii.gz")
    assert small.scan is not None and exact.scan is not None
    assert small.scan.data.dtype == np.float16 and exact.scan.data.dtype == np.float32
    np.testing.assert_array_equal(small.scan.data, scan.astype(np.float16))


@pytest.mark.parametrize("seed", range(6))
def test_overflow_is_a_finite_value_made_infinite(seed):
    rng = np.random.default_rng(seed)
    values = (rng.standard_normal((5, 6, 7)) * 40000).astype(np.float32)
    values.flat[rng.integers(0, values.size, 3)] = [np.nan, np.inf, -np.inf][: seed % 4]
    if seed % 3 == 0:
        values = np.clip(values, -65504, 65504)  # fits, but NaN and +-inf may be there
    values = np.asfortranarray(values) if seed % 2 else values
    with np.errstate(over="ignore"):
        small = values.astype(np.float16, order="K")
    expected = bool((np.isinf(small) & np.isfinite(values)).any())
    assert streamed_module._overflowed(small, values) is expected
