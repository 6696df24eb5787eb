"""The fast reading routes of napari_mood.io.nifti against nibabel's own reading.

``read_scores`` (mood mode) reads unscaled in-range maps from a view of the decoded bytes
and converts them on their bit patterns; ``read_label`` compares unscaled integer labels
without a copy; single-member gzip files are inflated in one ISA-L call. Every result is
compared with what the official scorer does: ``nib.load(path).get_fdata(dtype=float16)``
clipped, and ``clip(rint(get_fdata()), 0, 1) == 1``.
"""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.nifti import EXTRA_MARGIN, read_label, read_scores
from tests.reference_scorer import clip_float16


def _official_scores(path: Path) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clip_float16(nib.load(path).get_fdata(dtype=np.float16))


def _maps(rng: np.random.Generator, dtype: str) -> list[np.ndarray]:
    """An in-range map (fast route) and one with NaN, negatives and values above 1."""
    inside = rng.random((6, 7, 5))
    inside[0, 0, 0], inside[0, 0, 1] = 0.0, 1.0
    outside = rng.standard_normal((6, 7, 5)) * 2
    if np.dtype(dtype).kind == "f":
        outside[1, 1, 1] = np.nan
        outside[2, 2, 2] = -0.0
    return [inside.astype(dtype), outside.astype(dtype)]


@pytest.mark.parametrize("dtype", ["<f4", "<f8", ">f4", "<i2", "<u1"])  # nibabel writes no float16
@pytest.mark.parametrize("suffix", [".nii.gz", ".nii"])
def test_read_scores_equals_the_official_float16_read(nifti, dtype, suffix):
    rng = np.random.default_rng(0)
    for index, data in enumerate(_maps(rng, dtype)):
        if np.dtype(dtype).kind in "iu":
            data = np.clip(data, 0, 1) if index == 0 else (data * 3).astype(dtype)
        path = nifti(f"m{index}{suffix}", data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MoodInputWarning)
            read = read_scores(path)
        official = _official_scores(path)
        assert read.scores.dtype == np.float16 and read.scores.flags.writeable
        nan = np.isnan(official)
        np.testing.assert_array_equal(np.isnan(read.scores), nan)
        np.testing.assert_array_equal(
            read.scores[~nan].view(np.uint16), official[~nan].view(np.uint16)
        )
        assert read.n_nan == int(nan.sum())


def test_read_scores_applies_the_header_scaling(nifti):
    data = (np.arange(24).reshape(2, 3, 4) % 5).astype(np.int16)
    img = nib.Nifti1Image(data, np.eye(4))
    img.header.set_slope_inter(0.25, 0.0)
    path = nifti("scaled.nii.gz", np.zeros(1))
    nib.save(img, str(path))
    read = read_scores(path)
    np.testing.assert_array_equal(read.scores, _official_scores(path))
    assert read.n_above == int(np.count_nonzero(data * 0.25 > 1))


def test_a_multi_member_gzip_file_reads_as_one(nifti, tmp_path):
    data = np.random.default_rng(1).random((9, 8, 7)).astype(np.float32)
    single = nifti("single.nii.gz", data)
    blob = gzip.decompress(single.read_bytes())
    multi = tmp_path / "multi.nii.gz"
    half = len(blob) // 2
    multi.write_bytes(gzip.compress(blob[:half]) + gzip.compress(blob[half:]))
    np.testing.assert_array_equal(read_scores(multi).scores, read_scores(single).scores)
    np.testing.assert_array_equal(read_scores(multi).scores, _official_scores(multi))


def test_a_truncated_gzip_file_is_refused(nifti, tmp_path):
    path = nifti("t.nii.gz", np.random.default_rng(2).random((20, 20, 20)))
    cut = tmp_path / "cut.nii.gz"
    cut.write_bytes(path.read_bytes()[:-2000])
    with pytest.raises(MoodInputError, match="not a readable gzip file"):
        read_scores(cut)


def test_extra_bytes_after_the_voxels_are_ignored_with_a_warning(nifti, tmp_path):
    data = np.random.default_rng(3).random((5, 6, 7)).astype(np.float32)
    path = nifti("x.nii.gz", data)
    padded = tmp_path / "padded.nii.gz"
    padded.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()) + b"\1" * 100))
    with pytest.warns(MoodInputWarning, match="100 extra bytes"):
        read = read_scores(padded)
    np.testing.assert_array_equal(read.scores, _official_scores(path))
    assert EXTRA_MARGIN > 100


@pytest.mark.parametrize("dtype", ["<u1", "<i2", ">i2", "<f4"])
def test_read_label_equals_the_official_rule(nifti, dtype):
    data = np.array([[[0, 1, 2], [3, 1, 0]]]).astype(dtype)
    if np.dtype(dtype).kind == "f":
        data = data + np.array(0.5, dtype=dtype)  # 0.5 is normal, 1.5 anomalous
    path = nifti("l.nii.gz", data)
    label = read_label(path)
    official = np.clip(np.rint(nib.load(path).get_fdata()), 0, 1) == 1
    np.testing.assert_array_equal(label.mask, official)


def test_nibabel_messages_stay_with_their_thread_and_others_pass_on():
    """Files read at once (load_case reads a case's files in threads)."""
    import logging
    import threading

    from napari_mood.io.thread_remarks import thread_remarks

    logger = logging.getLogger("nibabel.global")
    passed: list[str] = []
    spy = logging.Handler(logging.WARNING)
    spy.emit = lambda record: passed.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(spy)
    inside, got = threading.Barrier(3), {}

    def read(name: str) -> None:
        with thread_remarks() as messages:
            inside.wait()  # every thread collects at the same time
            logger.warning("about %s", name)
            inside.wait()
        got[name] = messages

    threads = [threading.Thread(target=read, args=(n,)) for n in ("a", "b")]
    try:
        for thread in threads:
            thread.start()
        inside.wait()
        logger.warning("the main thread's own")  # not a reader's: nibabel's handlers get it
        inside.wait()
        for thread in threads:
            thread.join()
    finally:
        logger.removeHandler(spy)
    assert got == {"a": ["about a"], "b": ["about b"]}
    assert passed == ["the main thread's own"]


def test_files_read_in_threads_warn_naming_each_its_own_file(nifti):
    """Readers in threads never touch the process's warnings state (no catch_warnings)."""
    import gzip
    import threading
    import warnings

    from napari_mood.io.errors import MoodInputWarning
    from napari_mood.io.nifti import load_nifti

    paths = []
    for k in range(6):
        path = nifti(f"f{k}.nii.gz", np.zeros((4, 4, 4), np.float32))
        raw = bytearray(gzip.decompress(path.read_bytes()))
        raw[252:254] = (1234).to_bytes(2, "little")  # qform_code: nibabel logs it
        path.write_bytes(gzip.compress(bytes(raw)))
        paths.append(path)
    show, filters = warnings.showwarning, warnings.filters
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=load_nifti, args=(p,)) for p in paths * 3]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert warnings.showwarning is show and warnings.filters is filters
    said = [str(w.message) for w in seen if issubclass(w.category, MoodInputWarning)]
    assert sorted(said) == sorted(
        f"{p}: qform_code 1234 not valid; setting to 0" for p in paths * 3
    )


def test_a_case_read_in_threads_equals_its_files_read_one_by_one():
    from napari_mood.io.case import load_case
    from napari_mood.io.methods import methods_beside
    from napari_mood.io.mood import discover_dataset
    from napari_mood.io.nifti import read_label, read_scores, read_volume
    from napari_mood.services.datasets import sample_data_dir

    dataset = discover_dataset(sample_data_dir())
    case = dataset.cases[1]
    methods = methods_beside(dataset.root)
    data = load_case(dataset, case, methods=methods)
    np.testing.assert_array_equal(data.scan.data, read_volume(dataset.scans[case]).data)
    np.testing.assert_array_equal(data.gt, read_label(dataset.pixel_labels[case]).mask)
    for name, method in methods.items():
        np.testing.assert_array_equal(data.maps[name], read_scores(method.pixel[case]).scores)
