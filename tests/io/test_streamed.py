"""Streamed pixel histograms: equal to reading the map whole, or declined (None).

The oracle is the whole-file route: :func:`read_scores` then :class:`CurveAccumulator`
(itself checked against the official scorer elsewhere).
"""

from __future__ import annotations

import gzip
import os
import re
import sys
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from napari_mood.core import _float16
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.results import EvaluationOptions
from napari_mood.core.scores import code_values
from napari_mood.io import streamed as streamed_module
from napari_mood.io.case import load_case
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.io.nifti import read_scores
from napari_mood.io.streamed import read_map, stream_code_histograms
from napari_mood.services.case_scoring import _max_score
from napari_mood.services.evaluation import evaluate
from tests.conftest import make_mood_folder

SHAPE = (9, 8, 7)


def _whole(path: Path, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    read = read_scores(path)
    acc = CurveAccumulator()
    acc.add(read.scores, labels)
    _, pos, total = acc.histogram()
    return pos, total, _max_score(read.scores), read.affine


def _check_equal(path: Path, labels: np.ndarray) -> None:
    counts = stream_code_histograms(path, labels)
    assert counts is not None, f"{path.name} was declined"
    _check_read_map(path, streamed=True)
    pos, total, top, affine = _whole(path, labels)
    np.testing.assert_array_equal(counts.pos, pos)
    np.testing.assert_array_equal(counts.total, total)
    assert code_values()[counts.top_code] == top
    np.testing.assert_array_equal(counts.affine, affine)


def _check_read_map(path: Path, *, streamed: bool) -> None:
    """read_map equals read_scores (array, dtype, memory order, affine, counts)."""
    calls: list[Path] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            streamed_module, "read_scores", lambda p, **kw: calls.append(p) or read_scores(p, **kw)
        )
        got = read_map(path)
    want = read_scores(path)
    assert (calls == []) is streamed
    np.testing.assert_array_equal(got.scores, want.scores)
    assert got.scores.dtype == want.scores.dtype == np.float16
    assert got.scores.flags.f_contiguous == want.scores.flags.f_contiguous
    np.testing.assert_array_equal(got.affine, want.affine)
    assert (got.n_nan, got.n_posinf, got.n_neginf, got.n_below, got.n_above) == (
        want.n_nan,
        want.n_posinf,
        want.n_neginf,
        want.n_below,
        want.n_above,
    )


def _save(img: nib.Nifti1Image, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(img, str(path))
    return path


@pytest.fixture
def labels() -> np.ndarray:
    mask = np.zeros(SHAPE, dtype=bool)
    mask[2:5, 3:6, 1:4] = True
    return mask


@pytest.mark.parametrize("dtype", ["<f4", "<f8", ">f4", ">f8"])
@pytest.mark.parametrize("suffix", [".nii.gz", ".nii"])
def test_plain_maps_equal_the_whole_read(tmp_path, labels, dtype, suffix) -> None:
    rng = np.random.default_rng(1)
    data = rng.random(SHAPE).astype(dtype)
    data[0, 0, 0], data[1, 0, 0] = 0.0, 1.0
    affine = np.diag([-1.5, 2.0, 0.7, 1.0])
    img = nib.Nifti1Image(data, affine)
    img.set_data_dtype(np.dtype(dtype))
    _check_equal(_save(img, tmp_path / f"m{suffix}"), labels)


def test_a_map_read_into_its_own_mapping_reads_the_same(tmp_path, labels, monkeypatch) -> None:
    """Large maps are read into an anonymous mapping (``io._pages``): forced here."""
    monkeypatch.setattr("napari_mood.io._pages.KEPT_MIN_BYTES", 1)
    data = np.random.default_rng(4).random(SHAPE).astype(np.float32)
    path = _save(nib.Nifti1Image(data, np.diag([1.0, 2.0, 3.0, 1.0])), tmp_path / "m.nii.gz")
    _check_equal(path, labels)
    assert not read_map(path).scores.flags.owndata or sys.platform != "linux"


def test_nifti2_extensions_qform_and_4d_singleton(tmp_path, labels) -> None:
    data = np.random.default_rng(2).random((*SHAPE, 1)).astype(np.float32)
    img = nib.Nifti2Image(data, np.diag([2.0, 2.0, 2.0, 1.0]))
    img.header.extensions.append(nib.nifti1.Nifti1Extension("comment", b"made by a test"))
    _check_equal(_save(img, tmp_path / "two.nii.gz"), labels)
    qform_only = nib.Nifti1Image(data[..., 0], None)
    qform_only.set_qform(np.diag([3.0, 1.0, 1.0, 1.0]), code=1)
    qform_only.set_sform(None, code=0)
    _check_equal(_save(qform_only, tmp_path / "q.nii.gz"), labels)


def test_several_chunks_and_c_ordered_labels(tmp_path, monkeypatch) -> None:
    shape = (40, 30, 20)
    monkeypatch.setattr("napari_mood.io.streamed.CHUNK", 1000)  # 24 chunks, last one short
    monkeypatch.setattr("napari_mood.io.streamed.READ_CHUNK", 7000)  # read_map: 4, last short
    monkeypatch.setattr("napari_mood.io.streamed.INFLATE_BLOCK", 4096)  # many inflate calls
    rng = np.random.default_rng(3)
    data = rng.random(shape).astype(np.float64)
    labels = np.ascontiguousarray(rng.random(shape) > 0.8)  # C order: copied once, F order
    path = _save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "big.nii.gz")
    _check_equal(path, labels)


@given(
    arrays(
        np.float32,
        SHAPE,
        elements=st.floats(0, 1, width=32) | st.sampled_from([0.0, 1.0, 2.0**-24, 2.0**-14]),
    )
)
def test_any_unit_range_float32_map(tmp_path_factory, data) -> None:
    path = _save(nib.Nifti1Image(data, np.eye(4)), tmp_path_factory.mktemp("h") / "m.nii.gz")
    labels = np.zeros(SHAPE, dtype=bool)
    labels[::2, 1::3] = True
    _check_equal(path, labels)


def _declined(path: Path, labels: np.ndarray) -> None:
    """Not streamed; read_map then says and returns exactly what read_scores does."""
    assert stream_code_histograms(path, labels) is None
    try:
        with warnings.catch_warnings(record=True) as whole:
            warnings.simplefilter("always")
            want = read_scores(path)
    except MoodInputError as exc:
        with pytest.raises(MoodInputError, match=re.escape(str(exc))):
            read_map(path)
        return
    with warnings.catch_warnings(record=True) as mapped:
        warnings.simplefilter("always")
        got = read_map(path)
    assert [str(w.message) for w in mapped] == [str(w.message) for w in whole]
    np.testing.assert_array_equal(got.scores, want.scores)


@pytest.mark.parametrize("value", [np.nan, -0.0, -0.25, 1.5, np.inf])
def test_values_the_reader_counts_or_clips_are_declined(tmp_path, labels, value) -> None:
    data = np.full(SHAPE, 0.5, dtype=np.float32)
    data[4, 4, 4] = value
    _declined(_save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "m.nii.gz"), labels)


def test_scaled_integer_and_off_grid_maps_are_declined(tmp_path, labels) -> None:
    data = np.full(SHAPE, 0.5, dtype=np.float32)
    scaled = nib.Nifti1Image(data, np.eye(4))
    scaled.header.set_slope_inter(0.5, 0.0)
    _declined(_save(scaled, tmp_path / "scaled.nii.gz"), labels)
    ints = nib.Nifti1Image(np.ones(SHAPE, dtype=np.uint8), np.eye(4))
    _declined(_save(ints, tmp_path / "ints.nii.gz"), labels)
    off = nib.Nifti1Image(np.zeros((9, 8, 6), dtype=np.float32), np.eye(4))
    _declined(_save(off, tmp_path / "off.nii.gz"), labels)


def test_damaged_files_are_declined(tmp_path, labels) -> None:
    data = np.full(SHAPE, 0.5, dtype=np.float32)
    good = _save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "good.nii.gz")
    raw = good.read_bytes()
    truncated = tmp_path / "truncated.nii.gz"
    truncated.write_bytes(raw[: len(raw) // 2])
    _declined(truncated, labels)
    content = gzip.decompress(raw)
    extra = tmp_path / "extra.nii.gz"
    extra.write_bytes(gzip.compress(content + b"more"))
    _declined(extra, labels)
    short = tmp_path / "short.nii.gz"
    short.write_bytes(gzip.compress(content[:-4]))
    _declined(short, labels)
    flipped = bytearray(raw)
    flipped[len(raw) // 2] ^= 0xFF
    (tmp_path / "flipped.nii.gz").write_bytes(bytes(flipped))
    _declined(tmp_path / "flipped.nii.gz", labels)
    _declined(tmp_path / "missing.nii.gz", labels)
    (tmp_path / "text.nii.gz").write_text("not a file a method writes")
    _declined(tmp_path / "text.nii.gz", labels)


def test_multi_member_gzip_streams_like_one(tmp_path, labels) -> None:
    data = np.random.default_rng(4).random(SHAPE).astype(np.float32)
    good = _save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "good.nii.gz")
    content = gzip.decompress(good.read_bytes())
    two = tmp_path / "two.nii.gz"
    two.write_bytes(gzip.compress(content[:1000]) + gzip.compress(content[1000:]))
    _check_equal(two, labels)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_never_opened(tmp_path, labels) -> None:
    fifo = tmp_path / "pipe.nii.gz"
    os.mkfifo(fifo)
    _declined(fifo, labels)  # opening it for reading would block forever


def test_header_warnings_are_declined(tmp_path, labels) -> None:
    data = np.full(SHAPE, 0.5, dtype=np.float32)
    img = nib.Nifti1Image(data, np.eye(4))
    img.header["sform_code"] = 7  # not a valid code: nibabel logs and sets it to 0
    path = _save(img, tmp_path / "odd.nii.gz")
    _declined(path, labels)
    with pytest.warns(MoodInputWarning, match="sform_code 7 not valid"):
        read_scores(path)  # the whole-file reader names the file and says what it did


def _dataset(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(5)
    labels, maps = {}, {}
    for i in range(3):
        mask = np.zeros(SHAPE, dtype=np.uint8)
        mask[i : i + 3, 2:5, 1:4] = 1
        labels[f"c{i}"] = mask
        maps[f"c{i}"] = (rng.random(SHAPE) * 0.6 + 0.4 * mask).astype(np.float32)
    odd = dict(maps, c1=maps["c1"] * 1.5)  # out of range: read whole, clipped, warned
    return make_mood_folder(tmp_path, labels, {"plain": maps, "odd": odd})


def test_read_map_of_2d_and_4d_singleton_maps(tmp_path) -> None:
    rng = np.random.default_rng(7)
    flat = _save(
        nib.Nifti1Image(rng.random((6, 5)).astype(np.float32), np.eye(4)), tmp_path / "a.nii"
    )
    _check_read_map(flat, streamed=True)
    four = rng.random((4, 3, 2, 1, 1)).astype(np.float64)
    _check_read_map(_save(nib.Nifti1Image(four, np.eye(4)), tmp_path / "b.nii.gz"), streamed=True)
    two_volumes = rng.random((4, 3, 2, 2)).astype(np.float32)
    path = _save(nib.Nifti1Image(two_volumes, np.eye(4)), tmp_path / "c.nii.gz")
    with pytest.raises(MoodInputError, match="has shape"):
        read_map(path)


def test_evaluate_streams_plain_maps_and_reads_the_others(tmp_path, monkeypatch) -> None:
    dataset, preds = _dataset(tmp_path)
    pixel = EvaluationOptions(tasks=("pixel",))
    whole = EvaluationOptions(tasks=("pixel", "object"))  # the object task reads maps whole
    with pytest.warns(MoodInputWarning, match="outside"):
        streamed = evaluate(
            discover_dataset(dataset), methods=discover_methods(preds), options=pixel, workers=1
        ).result
    with pytest.warns(MoodInputWarning, match="outside"):
        read = evaluate(
            discover_dataset(dataset), methods=discover_methods(preds), options=whole, workers=1
        ).result
    for name in ("plain", "odd"):
        assert streamed.methods[name].pixel == read.methods[name].pixel
    assert [p.kind for p in streamed.problems] == [p.kind for p in read.problems]
    assert any(p.kind == "range" for p in streamed.problems)

    reads: list[str] = []

    def counting(path, **kw):
        reads.append(Path(path).parent.name)
        return read_scores(path, **kw)

    monkeypatch.setattr("napari_mood.io.streamed.read_scores", counting)
    with pytest.warns(MoodInputWarning, match="outside"):
        evaluate(
            discover_dataset(dataset), methods=discover_methods(preds), options=pixel, workers=1
        )
    assert reads == ["odd"]  # only the map with values to clip was read whole
    reads.clear()
    with pytest.warns(MoodInputWarning, match="outside"):
        evaluate(
            discover_dataset(dataset), methods=discover_methods(preds), options=whole, workers=1
        )
    assert reads == ["odd"]  # the object task streams plain maps into their arrays


def test_chunk_coder_equals_float_codes() -> None:
    x = np.random.default_rng(6).random(5000)
    out = np.empty(5000, dtype=np.uint16)
    _float16.ChunkCoder(5000).codes(x, out)
    np.testing.assert_array_equal(out, _float16.float_codes(x)[0])


def test_the_viewer_case_reader_streams_plain_maps(tmp_path, monkeypatch) -> None:
    dataset, preds = _dataset(tmp_path)
    reads: list[str] = []

    def counting(path, **kw):
        reads.append(Path(path).parent.name)
        return read_scores(path, **kw)

    monkeypatch.setattr("napari_mood.io.streamed.read_scores", counting)
    methods = discover_methods(preds)
    case = load_case(discover_dataset(dataset), "c1.nii.gz", methods=methods)
    assert reads == ["odd"]  # values to clip: read whole, and its problem is reported
    assert any(p.kind == "range" for p in case.problems)
    for name in ("plain", "odd"):
        want = read_scores(methods[name].pixel["c1.nii.gz"])
        np.testing.assert_array_equal(case.maps[name], want.scores)
