"""The bad-input table (issue "Data safety"): one test per row, each on a fresh dataset.

Every row checks what the user sees (exit code, one message naming the file and saying
what to do, no traceback) and that no input changed (checksums of every input file before
and after). Rows about the review store and the cache are in tests/services/, rows about
worker processes and signals in tests/cli/test_signals.py.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.cli import main
from napari_mood.io.errors import MoodInputWarning
from tests.conftest import make_mood_folder, write_nifti

SHAPE = (10, 11, 12)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """Three cases, methods ``a`` and ``b`` in DATASET/methods, sample labels and scores."""
    labels, maps_a, maps_b = {}, {}, {}
    for i in range(3):
        mask = np.zeros(SHAPE, bool)
        mask[3:6, 3:6, 2 + 2 * i : 5 + 2 * i] = True
        labels[f"c{i}"] = mask if i else np.zeros(SHAPE, bool)
        maps_a[f"c{i}"] = np.where(labels[f"c{i}"], 0.8, 0.1).astype(np.float32)
        maps_b[f"c{i}"] = np.where(labels[f"c{i}"], 0.6, 0.3).astype(np.float32)
    root, preds = make_mood_folder(
        tmp_path,
        labels,
        {"a": maps_a, "b": maps_b},
        sample_labels={f"c{i}": str(int(i > 0)) for i in range(3)},
        sample_scores={m: {f"c{i}": f"0.{i + 2}" for i in range(3)} for m in ("a", "b")},
    )
    preds.rename(root / "methods")
    return root


def _checksums(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse: usage errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def _refused(capsys, data: Path, *argv: str, code: int = 1, names: str = "") -> str:
    """Run, expect ``code`` and a one-line message naming ``names``; inputs unchanged."""
    before = _checksums(data)
    got, _, err = _cli(capsys, *argv)
    assert got == code, err
    assert "Traceback" not in err and err.count("napari-mood: error:") <= 1
    if names:
        assert names in err, err
    assert _checksums(data) == before
    return err


# --------------------------------------------------------------------------- data loss


def test_out_onto_a_label_file_is_refused(capsys, data: Path):
    label = data / "toy_label" / "pixel" / "c1.nii.gz"
    err = _refused(
        capsys,
        data,
        "evaluate",
        str(data),
        "--format",
        "csv",
        "--out",
        str(label),
        "--force",
        names=str(label),
    )
    assert "inside the input folder" in err and "read-only" in err


def test_out_onto_a_label_through_a_link_is_refused(capsys, data: Path, tmp_path: Path):
    link = tmp_path / "innocent.csv"
    link.symlink_to(data / "toy_label" / "pixel" / "c1.nii.gz")
    _refused(capsys, data, "evaluate", str(data), "--out", str(link), "--force", names="input")


def test_report_into_a_method_folder_is_refused(capsys, data: Path):
    folder = data / "methods" / "a"
    _refused(capsys, data, "evaluate", str(data), "--report", str(folder), names=str(folder))
    assert not (folder / "report.html").exists()


def test_simulate_into_the_input_dataset_is_refused(capsys, data: Path):
    scan = data / "toy" / "c0.nii.gz"
    err = _refused(
        capsys, data, "simulate", str(scan), "--out", str(data), "--count", "1", names=str(data)
    )
    assert "inside the input folder" in err


def test_existing_out_is_kept_without_force(capsys, data: Path, tmp_path: Path):
    out = tmp_path / "result.csv"
    out.write_text("mine\n")
    err = _refused(
        capsys, data, "evaluate", str(data), "--format", "csv", "--out", str(out), names=str(out)
    )
    assert "exists already" in err and "--force" in err and out.read_text() == "mine\n"
    assert (
        _cli(
            capsys,
            "evaluate",
            str(data),
            "--format",
            "csv",
            "--out",
            str(out),
            "--force",
            "--quiet",
        )[0]
        == 0
    )
    assert out.read_text().startswith("case,method")


def test_existing_report_and_figure_are_kept_without_force(capsys, data: Path, tmp_path: Path):
    report = tmp_path / "report"
    assert _cli(capsys, "evaluate", str(data), "--report", str(report), "--quiet")[0] == 0
    before = (report / "report.html").read_bytes()
    _refused(capsys, data, "evaluate", str(data), "--report", str(report), names="report.html")
    assert (report / "report.html").read_bytes() == before
    figure = tmp_path / "f.png"
    figure.write_bytes(b"old")
    _refused(
        capsys, data, "figure", str(data), "--cases", "c1", "--out", str(figure), names=str(figure)
    )
    assert figure.read_bytes() == b"old"


# --------------------------------------------------------------------------- wrong results


def test_no_label_folder_is_an_error_not_ap_zero(capsys, data: Path, tmp_path: Path):
    bare = tmp_path / "bare"
    (bare / "toy").mkdir(parents=True)
    for scan in (data / "toy").iterdir():
        (bare / "toy" / scan.name).write_bytes(scan.read_bytes())
    err = _refused(
        capsys, bare, "evaluate", str(bare), "--preds", str(data / "methods"), names="toy_label"
    )
    assert "no pixel labels" in err


def test_mistyped_labels_folder_is_an_error(capsys, data: Path):
    wrong = data / "toy_labl"
    _refused(capsys, data, "evaluate", str(data), "--labels", str(wrong), names=str(wrong))


@pytest.mark.parametrize("value", ["2", "-1"])
def test_sample_labels_other_than_0_1_are_reported(capsys, data: Path, value: str):
    label = data / "toy_label" / "sample" / "c1.nii.gz.txt"
    label.write_text(value)
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "sample")
    assert code == 0 and str(label) in err and f"sample label {value} is not 0 or 1" in err


@pytest.mark.parametrize("value", ["-1", "2", "inf", "nan", "abc"])
def test_object_thresholds_outside_0_1_are_usage_errors(capsys, data: Path, value: str):
    err = _refused(
        capsys, data, "evaluate", str(data), "--task", "object", "--threshold", value, code=2
    )
    assert "--threshold" in err


# --------------------------------------------------------------------------- broken files


def _gzip_short(path: Path) -> None:
    image = nib.load(path)
    full = nib.Nifti1Image(np.asarray(image.dataobj), image.affine).to_bytes()
    path.write_bytes(gzip.compress(full[:-400]))


def _as_plain(path: Path, cut: int = 0) -> Path:
    """Rewrite ``X.nii.gz`` as an uncompressed ``X.nii`` (``cut`` bytes short)."""
    image = nib.load(path)
    plain = path.with_name(path.name.replace(".nii.gz", ".nii"))
    full = nib.Nifti1Image(np.asarray(image.dataobj), image.affine).to_bytes()
    path.unlink()
    plain.write_bytes(full[: len(full) - cut])
    return plain


def _absurd_header(path: Path) -> None:
    image = nib.load(path)
    header = image.header.copy()
    header.set_data_shape((30000, 30000, 30000))
    blob = bytearray(nib.Nifti1Image(np.asarray(image.dataobj), image.affine).to_bytes())
    blob[:348] = header.binaryblock
    path.write_bytes(gzip.compress(bytes(blob)))


def _rgb(path: Path) -> None:
    rgb = np.zeros(SHAPE, dtype=[("R", "u1"), ("G", "u1"), ("B", "u1")])
    nib.save(nib.Nifti1Image(rgb, np.eye(4)), path)


def _uncompressed_gz(path: Path) -> None:
    image = nib.load(path)
    path.write_bytes(nib.Nifti1Image(np.asarray(image.dataobj), image.affine).to_bytes())


BROKEN: dict[str, tuple[Callable[[Path], object], str]] = {
    "gzip with a short payload": (_gzip_short, "truncated"),
    "absurd header 30000^3": (_absurd_header, "needs 108,000,000,000,"),
    "RGB map": (_rgb, "RGB"),
    "uncompressed file named .nii.gz": (_uncompressed_gz, "rename it to .nii"),
}


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_broken_map_costs_only_its_case(capsys, data: Path, kind: str):
    damage, message = BROKEN[kind]
    broken = data / "methods" / "a" / "c1.nii.gz"
    damage(broken)
    before = _checksums(data)
    code, out, err = _cli(capsys, "evaluate", str(data), "--format", "json")
    assert code == 0 and "Traceback" not in err
    assert f"{broken}: " in err and message in err
    result = json.loads(out)
    assert "c1.nii.gz" in result["methods"]["a"]["pixel"]["invalid"]
    assert result["methods"]["b"]["pixel"]["invalid"] == []
    code, out, _ = _cli(capsys, "validate", str(data))  # a warning, as evaluate says it
    assert code == 0 and f"warning: {broken}" in out and message in out
    code, out, _ = _cli(capsys, "validate", str(data), "--strict")  # evaluate --strict stops
    assert code == 1 and f"error: {broken}" in out
    assert _checksums(data) == before


def test_a_truncated_plain_nii_map_costs_only_its_case(capsys, data: Path):
    _as_plain(data / "toy_label" / "pixel" / "c2.nii.gz")  # case c2.nii, plain files
    _as_plain(data / "methods" / "b" / "c2.nii.gz")
    broken = _as_plain(data / "methods" / "a" / "c2.nii.gz", cut=400)
    code, out, err = _cli(capsys, "evaluate", str(data), "--task", "pixel", "--format", "json")
    assert code == 0 and f"{broken}: " in err and "truncated" in err
    pixel = json.loads(out)["methods"]
    assert pixel["a"]["pixel"]["invalid"] == ["c2.nii"] and pixel["b"]["pixel"]["invalid"] == []


def test_a_broken_label_skips_its_case_with_a_message(capsys, data: Path):
    label = data / "toy_label" / "pixel" / "c1.nii.gz"
    _gzip_short(label)
    code, out, err = _cli(capsys, "evaluate", str(data), "--task", "pixel", "--format", "json")
    assert code == 0 and f"{label}: " in err and "the case is skipped" in err


def test_a_broken_map_does_not_stop_the_reader(data: Path):
    from napari_mood._napari.reader import read_dataset_case

    broken = data / "methods" / "a" / "c1.nii.gz"
    _absurd_header(broken)
    with pytest.warns(MoodInputWarning, match="needs 108,000"):
        layers = read_dataset_case(data, "c1.nii.gz")
    assert [kwargs["name"] for _, kwargs, _ in layers] == ["c1", "b", "c1 GT"]


# --------------------------------------------------------------------------- unwritable


def test_out_that_is_a_folder_is_refused_before_the_work(capsys, data: Path, tmp_path: Path):
    _refused(capsys, data, "evaluate", str(data), "--out", str(tmp_path), names="is a folder")


def test_out_under_a_file_is_refused_before_the_work(capsys, data: Path, tmp_path: Path):
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    target = blocker / "sub" / "out.csv"
    for argv in (
        ("evaluate", str(data), "--out", str(target)),
        ("evaluate", str(data), "--report", str(blocker / "r")),
        ("figure", str(data), "--out", str(blocker / "f.png")),
        ("simulate", str(data / "toy" / "c0.nii.gz"), "--out", str(blocker / "sim")),
    ):
        err = _refused(capsys, data, *argv, names=str(blocker))
        assert "is a file, not a folder" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_read_only_out_folder_is_refused(capsys, data: Path, tmp_path: Path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    _refused(
        capsys, data, "evaluate", str(data), "--out", str(locked / "r.csv"), names="not writable"
    )


def test_a_full_disk_keeps_the_old_file_and_says_so(
    capsys, data: Path, tmp_path: Path, monkeypatch
):
    out = tmp_path / "r.csv"
    out.write_text("old\n")

    def full(descriptor):  # a full disk shows when the data are flushed
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code, _, err = _cli(capsys, "evaluate", str(data), "--out", str(out), "--force", "--quiet")
    monkeypatch.undo()
    assert code == 1 and "No space left on device" in err and str(out) in err
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "data",
        "r.csv",
    ]


def test_cache_inside_the_data_is_refused(capsys, data: Path):
    _refused(capsys, data, "evaluate", str(data), "--cache", str(data / "cache"), names="--cache")


# --------------------------------------------------------------------------- bad options


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--threshold", "nan", "--task", "object"), "NaN"),
        (("--batches", "-3"), "must be 0 or more"),
        (("--bootstrap", "-5"), "must be 0 or more"),
        (("--batch-size", "0"), "must be 1 or more"),
        (("--workers", "0"), "must be 1 or more"),
        (("--seed", "-1"), "must be 0 or more"),
    ],
)
def test_numeric_options_are_checked_before_the_work(capsys, data: Path, argv, message):
    err = _refused(capsys, data, "evaluate", str(data), *argv, code=2)
    assert message in err


@pytest.mark.parametrize(
    ("argv", "message"), [(("--count", "-1"), "0 or more"), (("--kind", "blob"), "invalid choice")]
)
def test_simulate_options_are_usage_errors(capsys, data: Path, tmp_path: Path, argv, message):
    err = _refused(
        capsys,
        data,
        "simulate",
        str(data / "toy" / "c0.nii.gz"),
        "--out",
        str(tmp_path / "s"),
        *argv,
        code=2,
    )
    assert message in err


# --------------------------------------------------------------------------- weak messages


def test_label_on_another_grid_than_its_scan_is_named(capsys, data: Path):
    label = data / "toy_label" / "pixel" / "c1.nii.gz"
    write_nifti(label, np.zeros((5, 5, 5), np.uint8))
    code, out, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert code == 0 and "matches the scan but not the label" in err and str(label) in err
    code, out, _ = _cli(capsys, "validate", str(data))
    assert f"{label}: shape (5, 5, 5) differs from its scan" in out


def test_stray_dangling_and_empty_things_in_method_folders_are_reported(
    capsys, data: Path, tmp_path: Path
):
    (data / "methods" / "a" / "notes.docx").write_text("x")
    dangling = data / "methods" / "b" / "c1.nii.gz"
    dangling.unlink()
    dangling.symlink_to(tmp_path / "gone.nii.gz")
    empty = data / "methods" / "empty"
    empty.mkdir()
    code, out, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert code == 0
    assert "notes.docx: not a score map or sample score (ignored)" in err
    assert f"{dangling}: is a broken symbolic link" in err
    assert f"{empty}: holds no .nii.gz maps" in err


def test_a_bom_in_a_score_file_is_named(capsys, data: Path):
    score = data / "methods" / "a" / "c1.nii.gz.txt"
    score.write_text("\ufeff0.7", encoding="utf-8")
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "sample")
    assert code == 0 and str(score) in err and "byte-order mark" in err


def test_out_of_range_sample_scores_are_reported(capsys, data: Path):
    score = data / "methods" / "a" / "c1.nii.gz.txt"
    score.write_text("1.7")
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "sample")
    assert code == 0 and str(score) in err and "outside [0, 1]" in err


def test_third_party_warnings_name_the_file(capsys, data: Path):
    image = data / "methods" / "a" / "c1.nii.gz"
    raw = bytearray(gzip.decompress(image.read_bytes()))
    header = nib.Nifti1Header.from_fileobj(io.BytesIO(bytes(raw[:348])))
    header.structarr["pixdim"][1] = 0  # nibabel complains about it (through logging)
    raw[:348] = header.structarr.tobytes()
    image.write_bytes(gzip.compress(bytes(raw)))
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert code == 0
    assert f"napari-mood: warning: {image}: pixdim[1,2,3] should be non-zero" in err
    for line in err.splitlines():
        assert line.startswith("napari-mood: warning:"), line


# --------------------------------------------------------------------------- QA pass (issue 11)


def _flip_byte(path: Path, offset: int = 20) -> None:
    """One byte of the deflate stream changed: a damaged gzip (ISA-L raises IsalError)."""
    blob = bytearray(path.read_bytes())
    blob[offset] ^= 0xFF
    path.write_bytes(bytes(blob))


def test_a_bit_flipped_map_costs_only_its_case(capsys, data: Path):
    broken = data / "methods" / "a" / "c1.nii.gz"
    _flip_byte(broken)
    before = _checksums(data)
    for workers in ("1", "2"):
        code, out, err = _cli(
            capsys, "evaluate", str(data), "--format", "json", "--workers", workers
        )
        assert code == 0 and "Traceback" not in err, err
        assert f"{broken}: is not a readable gzip file" in err and "re-download" in err
        assert json.loads(out)["methods"]["a"]["pixel"]["invalid"] == ["c1.nii.gz"]
    code, out, _ = _cli(capsys, "validate", str(data))
    assert code == 0 and f"warning: {broken}: is not a readable gzip file" in out
    assert _checksums(data) == before


def test_a_bit_flipped_label_skips_its_case(capsys, data: Path):
    label = data / "toy_label" / "pixel" / "c1.nii.gz"
    _flip_byte(label)
    code, out, err = _cli(capsys, "evaluate", str(data), "--task", "pixel", "--format", "json")
    assert code == 0 and f"{label}: is not a readable gzip file" in err
    assert "the case is skipped" in err
    code, out, _ = _cli(capsys, "validate", str(data))
    assert code == 1 and f"{label}: is not a readable gzip file" in out


def test_a_bit_flipped_scan_is_named(capsys, data: Path, tmp_path: Path):
    scan = data / "toy" / "c1.nii.gz"
    _flip_byte(scan)
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel", "--quiet")
    assert code == 0 and "Traceback" not in err  # the scan is not needed to score
    code, out, _ = _cli(capsys, "validate", str(data))
    assert code == 1 and f"{scan}: its header cannot be read" in out
    err = _refused(
        capsys, data, "simulate", str(scan), "--out", str(tmp_path / "s"), names=str(scan)
    )
    assert "is not a readable gzip file" in err


def test_a_bit_flipped_map_on_the_toy_set_and_in_the_reader(capsys, data: Path, tmp_path: Path):
    import shutil

    toy = tmp_path / "toy"
    shutil.copytree(data, toy)
    _flip_byte(toy / "methods" / "a" / "c1.nii.gz")
    code, out, err = _cli(
        capsys, "evaluate", str(data), "--task", "object", "--threshold", "auto", "--toy", str(toy)
    )
    assert code == 0 and "Traceback" not in err
    from napari_mood._napari.reader import read_dataset_case

    _flip_byte(data / "toy" / "c1.nii.gz")
    with pytest.warns(MoodInputWarning, match="is not a readable gzip file"):
        layers = read_dataset_case(data, "c1.nii.gz")
    assert [kwargs["name"] for _, kwargs, _ in layers] == ["a", "b", "c1 GT"]


def test_a_map_that_is_a_folder_fifo_or_device_is_named_never_read(capsys, data: Path):
    folder = data / "methods" / "a" / "c1.nii.gz"
    folder.unlink()
    folder.mkdir()
    fifo = data / "methods" / "b" / "c1.nii.gz"
    fifo.unlink()
    os.mkfifo(fifo)
    device = data / "methods" / "a" / "c2.nii.gz"
    device.unlink()
    device.symlink_to("/dev/zero")
    score = data / "methods" / "b" / "c2.nii.gz.txt"
    score.unlink()
    os.mkfifo(score)
    code, out, err = _cli(capsys, "evaluate", str(data), "--format", "json")
    assert code == 0 and "Traceback" not in err
    assert f"{folder}: is a folder, not a NIfTI file" in err
    assert f"{fifo}: is a FIFO (named pipe), not a NIfTI file" in err
    assert f"{device}: is a character device (through a symbolic link)" in err
    assert f"{score}: is a FIFO (named pipe), not a text file" in err
    assert "never reads pipes or devices" in err and "no pixel map" not in err
    methods = json.loads(out)["methods"]
    assert methods["a"]["pixel"]["invalid"] == ["c1.nii.gz", "c2.nii.gz"]


def test_a_label_that_is_a_folder_or_fifo_is_named(capsys, data: Path):
    folder = data / "toy_label" / "pixel" / "c1.nii.gz"
    folder.unlink()
    folder.mkdir()
    fifo = data / "toy_label" / "sample" / "c2.nii.gz.txt"
    fifo.unlink()
    os.mkfifo(fifo)
    code, out, err = _cli(capsys, "evaluate", str(data))
    assert code == 0 and "Traceback" not in err
    assert (
        f"{folder}: is a folder, not a NIfTI file -> give the file itself; the case is skipped"
        in err
    )
    assert f"{fifo}: is a FIFO (named pipe), not a text file" in err
    assert "not a label or scan file" not in err


def test_gzip_bomb_in_a_map_warns_and_costs_no_memory(capsys, data: Path):
    import tracemalloc
    import zlib

    broken = data / "methods" / "a" / "c1.nii.gz"
    image = nib.load(broken)
    plain = nib.Nifti1Image(np.asarray(image.dataobj), image.affine).to_bytes()
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)
    parts = [packer.compress(plain)]
    zeros = bytes(2**20)
    parts += [packer.compress(zeros) for _ in range(200)]  # + 200 MiB of zeros, ~200 KB packed
    broken.write_bytes(b"".join([*parts, packer.flush()]))
    tracemalloc.start()
    try:
        code, out, err = _cli(capsys, "evaluate", str(data), "--task", "pixel", "--workers", "1")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 0 and peak < 50 * 2**20, peak
    assert f"{broken}: more than 1 MiB of data after the voxels its header describes" in err


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"vox_offset": 1e9}, "needs 1,000,00"),
        ({"dim0": 0}, "its header declares no voxels (shape (0,)): the header is damaged"),
    ],
)
def test_damaged_headers_give_one_line_saying_so(capsys, data: Path, damage, message):
    broken = data / "methods" / "a" / "c1.nii.gz"
    image = nib.load(broken)
    header = image.header.copy()
    if "vox_offset" in damage:
        header["vox_offset"] = damage["vox_offset"]
    else:
        header["dim"][0] = damage["dim0"]
    blob = bytearray(nib.Nifti1Image(np.asarray(image.dataobj), image.affine).to_bytes())
    blob[:348] = header.binaryblock
    broken.write_bytes(gzip.compress(bytes(blob)))
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert code == 0 and f"{broken}: " in err and message in err
    assert "split the 4-D file" not in err
    for line in err.splitlines():
        assert line.startswith("napari-mood: "), line


def _with_affine(path: Path, affine: np.ndarray) -> None:
    image = nib.load(path)
    header = image.header.copy()
    header.set_sform(affine, code=1)
    header.set_qform(None, code=0)
    nib.save(nib.Nifti1Image(np.asarray(image.dataobj), None, header), path)


def test_a_nan_affine_is_called_damaged(capsys, data: Path):
    broken = data / "methods" / "a" / "c1.nii.gz"
    affine = np.eye(4)
    affine[0, 3] = np.nan
    _with_affine(broken, affine)
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert code == 0 and f"{broken}: its affine holds NaN or infinite values" in err
    assert "by up to nan" not in err


def test_a_scan_whose_affine_orients_nothing_is_drawn_voxel_for_voxel(
    capsys, data: Path, tmp_path: Path
):
    scan = data / "toy" / "c1.nii.gz"
    _with_affine(scan, np.diag([1.0, 0.0, 1.0, 1.0]))  # a zero column: no direction
    out = tmp_path / "f.png"
    code, _, err = _cli(capsys, "figure", str(data), "--cases", "c1", "--out", str(out))
    assert code == 0 and out.is_file(), err
    assert f"{scan}: its affine gives no direction to every axis" in err
    assert "shown voxel for voxel" in err and "Traceback" not in err


def test_affines_name_the_right_reference_and_a_moved_scan_is_reported(capsys, data: Path):
    moved = np.diag([1.0, 1.0, 1.0, 1.0])
    moved[0, 3] = 50
    map_a = data / "methods" / "a" / "c1.nii.gz"
    _with_affine(map_a, moved)
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert f"{map_a}: affine differs from that of the label by up to 50" in err
    assert "from the scan's" not in err
    scan = data / "toy" / "c2.nii.gz"
    _with_affine(scan, moved)
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert (
        code == 0 and f"{scan}: affine differs from that of its label c2.nii.gz by up to 50" in err
    )
    code, out, _ = _cli(capsys, "validate", str(data))
    assert f"{scan}: affine differs from that of its label c2.nii.gz" in out


@pytest.mark.parametrize("command", ["evaluate", "validate", "figure"])
def test_a_mistyped_scans_folder_is_an_error(capsys, data: Path, tmp_path: Path, command: str):
    extra = ["--out", str(tmp_path / "f.png"), "--cases", "c1"] if command == "figure" else []
    err = _refused(
        capsys, data, command, str(data), "--scans", "nope", *extra, names=str(data / "nope")
    )
    assert "scans folder not found" in err


def test_the_same_method_name_twice_is_a_usage_error(capsys, data: Path):
    err = _refused(
        capsys,
        data,
        "evaluate",
        str(data),
        "--pred",
        f"r={data / 'methods' / 'a'}",
        "--pred",
        f"r={data / 'methods' / 'b'}",
        code=2,
    )
    assert "'r' given twice" in err


@pytest.mark.parametrize(
    ("how", "what"),
    [
        ("--pred", "the dataset folder itself"),
        ("--preds", "the dataset folder itself"),
        ("labels", "a label folder of the dataset"),
    ],
)
def test_the_dataset_is_not_a_method_folder(capsys, data: Path, how: str, what: str):
    argv = {
        "--pred": ["--pred", f"r={data}"],
        "--preds": ["--preds", str(data)],
        "labels": ["--pred", str(data / "toy_label" / "pixel")],
    }[how]
    err = _refused(capsys, data, "evaluate", str(data), *argv, names=what)
    assert "give DATASET/methods" in err


def test_stray_files_in_a_method_folder_are_reported_by_evaluate(capsys, data: Path):
    folder = data / "methods" / "a"
    (folder / "notes.txt").write_text("to do")
    (folder / "c9.nii.gz").write_bytes((folder / "c1.nii.gz").read_bytes())
    code, _, err = _cli(capsys, "evaluate", str(data))
    assert code == 0
    lines = [line for line in err.splitlines() if "without a label" in line]
    assert lines == [
        f"napari-mood: warning: {folder}: 1 files for cases without a label are not scored: "
        f"{name} -> remove them"
        for name in ("c9.nii.gz", "notes.txt")
    ]


def test_flat_maps_beside_a_pixel_folder_are_reported(capsys, data: Path):
    folder = data / "methods" / "a"
    (folder / "pixel").mkdir()
    (folder / "pixel" / "c1.nii.gz").write_bytes((folder / "c1.nii.gz").read_bytes())
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel")
    assert code == 0
    assert f"{folder}: holds 3 maps or scores directly (c0.nii.gz, c1.nii.gz, c2.nii.gz)" in err
    assert "they are read from pixel/ only" in err
    code, out, _ = _cli(capsys, "validate", str(data))
    assert f"{folder / 'pixel' / 'c0.nii.gz'}: no pixel map for case c0.nii.gz" in out


@pytest.mark.parametrize("place", ["/proc/r.csv", "dangling/r.csv"])
def test_an_impossible_out_place_is_refused_before_the_work(
    capsys, data: Path, tmp_path: Path, place: str
):
    if place.startswith("dangling"):
        (tmp_path / "dangling").symlink_to(tmp_path / "gone")
        place = str(tmp_path / place)
    (data / "methods" / "a" / "c2.nii.gz").unlink()  # the run would warn about it
    err = _refused(capsys, data, "evaluate", str(data), "--out", place, names=place)
    assert "no pixel map" not in err  # refused before the work


@pytest.mark.parametrize(
    "outputs",
    [
        ("--report", "X", "--out", "X"),
        ("--cache", "X", "--out", "X"),
        ("--report", "X", "--out", "X/results.csv"),
        ("--report", "X", "--cache", "X"),
    ],
)
def test_overlapping_outputs_are_refused_up_front(capsys, data: Path, tmp_path: Path, outputs):
    argv = [a.replace("X", str(tmp_path / "x")) for a in outputs]
    err = _refused(capsys, data, "evaluate", str(data), *argv, names="overlap")
    assert not (tmp_path / "x").exists(), err


def test_an_empty_out_is_a_usage_error(capsys, data: Path):
    err = _refused(capsys, data, "evaluate", str(data), "--out", "", code=2)
    assert "must not be empty" in err


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo", "device"])
def test_a_fifo_or_device_out_is_never_replaced(capsys, data: Path, tmp_path: Path, kind: str):
    special = tmp_path / "special"
    if kind == "device":
        if os.geteuid() != 0:
            pytest.skip("mknod needs root")
        os.mknod(special, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    else:
        os.mkfifo(special)
    out = special
    if kind == "link to a fifo":
        out = tmp_path / "link.csv"
        out.symlink_to(special)
    err = _refused(
        capsys, data, "evaluate", str(data), "--out", str(out), "--force", names=str(out)
    )
    assert "not a regular file" in err
    mode = special.stat().st_mode
    assert stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


@pytest.mark.parametrize(
    ("content", "default"),
    [(b"\xff\xfecase,cat\n", False), (b"\x00\x01binary\x00", True)],
)
def test_a_bad_categories_file_is_refused_before_the_work(
    capsys, data: Path, tmp_path: Path, content: bytes, default: bool
):
    categories = data / "categories.csv" if default else tmp_path / "cats.csv"
    categories.write_bytes(content)
    (data / "methods" / "a" / "c2.nii.gz").unlink()  # the run would warn about it
    extra = [] if default else ["--categories", str(categories)]
    err = _refused(
        capsys, data, "evaluate", str(data), "--report", str(tmp_path / "r"), *extra,
        names=str(categories),
    )  # fmt: skip
    assert "no pixel map" not in err and not (tmp_path / "r").exists()


def test_a_missing_categories_file_is_refused_before_the_work(capsys, data: Path, tmp_path: Path):
    (data / "methods" / "a" / "c2.nii.gz").unlink()
    err = _refused(
        capsys, data, "evaluate", str(data), "--report", str(tmp_path / "r"),
        "--categories", str(tmp_path / "nope.csv"), names="nope.csv",
    )  # fmt: skip
    assert "not found" in err and "no pixel map" not in err


def test_a_toy_set_without_pixel_labels_is_refused(capsys, data: Path, tmp_path: Path):
    import shutil

    toy = tmp_path / "toy"
    shutil.copytree(data, toy)
    shutil.rmtree(toy / "toy_label")
    err = _refused(
        capsys, data, "evaluate", str(data), "--task", "object", "--threshold", "auto",
        "--toy", str(toy), names=str(toy / "toy_label" / "pixel"),
    )  # fmt: skip
    assert "needs them" in err


def _scan_file(tmp_path: Path, data: np.ndarray) -> Path:
    return write_nifti(tmp_path / "scans" / "scan.nii.gz", data)


@pytest.mark.parametrize(
    ("volume", "argv", "message"),
    [
        (np.full(SHAPE, 0.5, np.float32), ("--per-case", "100"), "use a smaller --per-case"),
        (np.full((1, 1, 1), 0.5, np.float32), ("--kind", "mixed"), "no room"),
        (np.where(np.eye(10, 11)[..., None] > 0, np.nan, 0.5) * np.ones(SHAPE), (), "NaN"),
        (np.where(np.eye(10, 11)[..., None] > 0, np.inf, 0.5) * np.ones(SHAPE), (), "infinite"),
    ],
)
def test_simulate_refuses_what_it_cannot_do_in_one_line(
    capsys, data: Path, tmp_path: Path, volume: np.ndarray, argv, message: str
):
    scan = _scan_file(tmp_path, volume.astype(np.float32))
    err = _refused(
        capsys, data, "simulate", str(scan), "--out", str(tmp_path / "s"), *argv, names=str(scan)
    )
    assert message in err and not (tmp_path / "s").exists()


def test_simulate_names_a_constant_scan(capsys, data: Path, tmp_path: Path):
    scan = _scan_file(tmp_path, np.full((40, 40, 40), -1000, np.float32))
    code, out, err = _cli(capsys, "simulate", str(scan), "--out", str(tmp_path / "s"))
    assert code == 0
    assert err.strip().splitlines() == [
        f"napari-mood: warning: {scan}: every voxel is -1000 (a constant scan): the cases are "
        "simulated on it set to 0"
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [(("--batches", "1000000000"), "at most 100,000"), (("--dpi", "100000"), "at most 2400")],
)
def test_huge_counts_are_usage_errors(capsys, data: Path, tmp_path: Path, argv, message):
    command = "figure" if argv[0] == "--dpi" else "evaluate"
    extra = ["--out", str(tmp_path / "f.png")] if command == "figure" else []
    err = _refused(capsys, data, command, str(data), *argv, *extra, code=2)
    assert message in err


def test_each_warning_is_printed_once_with_a_readable_category(capsys, data: Path):
    code, _, err = _cli(
        capsys, "evaluate", str(data), "--task", "pixel", "--batches", "5", "--batch-size", "100"
    )
    assert code == 0
    batch = [line for line in err.splitlines() if "batch size 100" in line]
    assert len(batch) == 1 and batch[0].startswith("napari-mood: warning: batches: ")
    assert "BatchWarning" not in err and "UndefinedMetricWarning" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--threshold", "0.3"), "ignored: --threshold applies to the object task only"),
        (("--toy", "TOY"), "ignored: --toy chooses the object threshold"),
        (("--task", "object", "--toy", "TOY"), "ignored: --toy chooses the object threshold"),
        (("--categories", "CATS"), "ignored: --categories is read by --report only"),
    ],
)
def test_options_that_do_nothing_are_named(capsys, data: Path, tmp_path: Path, argv, message):
    cats = tmp_path / "cats.csv"
    cats.write_text("case,category\nc1,big\n")
    argv = [a.replace("TOY", str(data)).replace("CATS", str(cats)) for a in argv]
    code, _, err = _cli(capsys, "evaluate", str(data), *argv)
    assert code == 0 and f"napari-mood: warning: {message}" in err


def test_a_dangling_cache_link_is_named(capsys, data: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    cache.symlink_to(tmp_path / "gone")
    err = _refused(capsys, data, "evaluate", str(data), "--cache", str(cache), names=str(cache))
    assert "broken symbolic link" in err and "Errno" not in err


def test_minus_zero_threshold_prints_as_zero(capsys, data: Path):
    code, out, _ = _cli(capsys, "evaluate", str(data), "--task", "object", "--threshold", "-0")
    assert code == 0 and "-0.00" not in out and "0.00" in out


# -- every planned output file against every input file (the guard's one rule) --------


def _no_temporaries(*folders: Path) -> None:
    left = [p for f in folders for p in f.rglob(".*.part*")]
    assert not left, left


def _evaluated_json(capsys, data: Path, out: Path) -> Path:
    assert _cli(capsys, "evaluate", str(data), "--format", "json", "--out", str(out))[0] == 0
    return out


@pytest.mark.parametrize(
    "build",
    [
        # evaluate --splits S --out S: the splits file is an input
        lambda d, w: (["--splits", str(w / "s.json"), "--out", str(w / "s.json")], "s.json"),
        # evaluate --categories REP/results.csv --report REP
        lambda d, w: (
            ["--categories", str(w / "REP" / "results.csv"), "--report", str(w / "REP")],
            "results.csv",
        ),
        # the toy folder is an input: --out inside it
        lambda d, w: (
            ["--task", "object", "--threshold", "auto", "--toy", str(w / "toy"), "--out"]
            + [str(w / "toy" / "x.json")],
            "x.json",
        ),
    ],
)
def test_evaluate_never_writes_onto_its_own_input_files(capsys, data: Path, tmp_path: Path, build):
    work = tmp_path / "work"
    (work / "REP").mkdir(parents=True)
    (work / "s.json").write_text("[[0, 1], [2]]\n")
    (work / "REP" / "results.csv").write_text("case,category\nc1.nii.gz,a\n")
    shutil.copytree(data, work / "toy")
    argv, name = build(data, work)
    before = _checksums(work)
    err = _refused(capsys, data, "evaluate", str(data), *argv, "--force", names=name)
    assert "input" in err and "read-only" in err
    assert _checksums(work) == before
    _no_temporaries(work, data)


def test_categories_never_writes_onto_its_categories_file(capsys, data: Path, tmp_path: Path):
    out = tmp_path / "OUT"
    out.mkdir()
    table = out / "category_scores.csv"
    table.write_text("case,category\nc0.nii.gz,normal\nc1.nii.gz,a\nc2.nii.gz,a\n")
    before = table.read_bytes()
    argv = ["categories", str(data), "--categories", str(table), "--out", str(out), "--force"]
    err = _refused(capsys, data, *argv, names="category_scores.csv")
    assert "onto the input file" in err
    assert table.read_bytes() == before


@pytest.mark.parametrize("where", ["results", "toy"])
@pytest.mark.parametrize("name", ["ranks.json", "ranks.csv"])
def test_rank_never_writes_onto_a_results_file(
    capsys, data: Path, tmp_path: Path, where: str, name: str
):
    out = tmp_path / "OUT"
    out.mkdir()
    results = _evaluated_json(capsys, data, tmp_path / "r.json")
    inside = out / name
    inside.write_bytes(results.read_bytes())
    before = inside.read_bytes()
    pairs = [f"a={inside}"] if where == "results" else [f"a={results}", "--toy", f"t={inside}"]
    err = _refused(capsys, data, "rank", *pairs, "--out", str(out), "--force", names=name)
    assert "onto the input file" in err
    assert inside.read_bytes() == before


def _copy_method(data: Path, tmp_path: Path) -> Path:
    script = tmp_path / "method.sh"
    script.write_text('#!/bin/sh\nfor f in "$1"/*.nii.gz; do cp "$f" "$2/"; done\n')
    script.chmod(0o755)
    return script


@pytest.mark.parametrize(
    "outputs",
    [
        lambda d, w: ["--out", str(w / "OUT"), "--report", str(w / "OUT" / "c1.nii.gz")],
        lambda d, w: ["--out", str(w / "OUT"), "--report", str(d / "toy" / "run.json")],
        lambda d, w: ["--out", str(d / "toy" / "sub")],
        lambda d, w: ["--out", str(d / "toy")],
    ],
)
def test_run_plans_every_output_file_before_the_first_case(
    capsys, data: Path, tmp_path: Path, outputs
):
    script = _copy_method(data, tmp_path)
    argv = ["run", str(script), str(data / "toy"), *outputs(data, tmp_path), "--force"]
    _refused(capsys, data, *argv)
    assert not (tmp_path / "OUT").exists() or not any((tmp_path / "OUT").iterdir())


def test_relative_and_linked_inputs_are_the_same_inputs(
    capsys, data: Path, tmp_path: Path, monkeypatch
):
    """Inputs resolve themselves, whoever builds them: a relative --input was not compared."""
    script = _copy_method(data, tmp_path)
    (tmp_path / "linked").symlink_to(data / "toy")
    monkeypatch.chdir(data / "toy")
    _refused(capsys, data, "run", str(script), ".", "--out", "sub")
    monkeypatch.chdir(tmp_path)
    _refused(capsys, data, "run", str(script), "linked", "--out", "linked/sub")
    assert not (data / "toy" / "sub").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "{data}", "--out", "{loop}"],
        ["evaluate", "{data}", "--out", "{loop}/r.csv"],
        ["evaluate", "{data}", "--report", "{loop}"],
        ["evaluate", "{data}", "--cache", "{loop}/cache"],
        ["figure", "{data}", "--out", "{loop}/f.png"],
        ["categories", "{data}", "--out", "{loop}"],
    ],
)
def test_a_link_loop_as_an_output_is_one_line(capsys, data: Path, tmp_path: Path, argv):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    filled = [a.format(data=data, loop=tmp_path / "a") for a in argv]
    if filled[0] == "categories":
        (data / "categories.csv").write_text("case,category\nc1.nii.gz,a\n")
    err = _refused(capsys, data, *filled, names=str(tmp_path / "a"))
    assert "symbolic-link loop" in err


# -- --screenshot: checked like every output, before napari starts ---------------------


@pytest.mark.parametrize("name", ["s.jpg", "s.tif", "brain.nii.gz", "noext", " "])
def test_a_screenshot_that_is_not_a_png_is_a_usage_error(capsys, data: Path, tmp_path, name):
    err = _refused(capsys, data, "view", str(data), "--screenshot", str(tmp_path / name), code=2)
    assert "--screenshot" in err
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize(
    "paths, shot",
    [
        (["{data}"], "{data}/toy/x.png"),
        (["{data}/toy/c1.nii.gz"], "{data}/toy/x.png"),
        (["{data}/toy/c1.nii.gz", "--pred", "m={data}/methods/a"], "{data}/methods/a/x.png"),
        (["{data}"], "{data}/x.png"),
    ],
)
def test_a_screenshot_among_the_inputs_is_refused_before_napari(
    capsys, data: Path, paths, shot, monkeypatch
):
    monkeypatch.delenv("DISPLAY", raising=False)  # refused before the display is looked at
    argv = ["view", *(p.format(data=data) for p in paths), "--screenshot", shot.format(data=data)]
    err = _refused(capsys, data, *argv, "--force", names="x.png")
    assert "input folder" in err
    _no_temporaries(data)


def test_a_screenshot_never_replaces_a_file_without_force(capsys, data: Path, tmp_path: Path):
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"kept")
    err = _refused(capsys, data, "demo", "--screenshot", str(shot), names="shot.png")
    assert "--force" in err and shot.read_bytes() == b"kept"
    (tmp_path / "folder.png").mkdir()
    _refused(capsys, data, "demo", "--screenshot", str(tmp_path / "folder.png"), names="folder")
    _refused(capsys, data, "demo", "--screenshot", str(shot / "x.png"), names="shot.png")


def test_a_folder_among_several_paths_is_refused_before_napari(capsys, data: Path, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)  # refused before the display is asked for
    scan = data / "toy" / "c1.nii.gz"
    err = _refused(capsys, data, "view", str(scan), str(data), names=f"{data}: is a folder")
    assert "among 2 paths, which are read as the files of one case" in err
    assert "open a dataset, case or methods folder alone" in err


def test_no_display_is_one_line_saying_what_to_do(capsys, data: Path, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    err = _refused(capsys, data, "view", str(data), names="xvfb-run -a")
    assert "no display" in err


@pytest.mark.parametrize(
    "text, message",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"batches": [[0]]}', "not a JSON list"),
        ("[[0, 1], [99]]", "not an official splits.json"),
        ("[[0], ", "not readable JSON"),
    ],
)
def test_a_bad_splits_file_is_one_line(capsys, data: Path, tmp_path: Path, text, message):
    splits = tmp_path / "splits.json"
    splits.write_text(text)
    err = _refused(
        capsys, data, "evaluate", str(data), "--splits", str(splits), names="splits.json"
    )
    assert message in err


# -- found by the hostile sweep ---------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "evaluate"])
@pytest.mark.parametrize("option", ["--pred", "--preds"])
def test_a_link_loop_as_a_method_folder_is_one_line(capsys, data: Path, tmp_path, command, option):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    err = _refused(capsys, data, command, str(data), option, str(tmp_path / "loop"), names="loop")
    assert "symbolic-link loop" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "{gone}", "--out", "{out}"],
        ["sweep", "size", "{gone}", "--out", "{out}"],
        ["view", "{gone}", "--screenshot", "{out}.png"],
        ["view", "{data}", "--pred", "{gone}", "--screenshot", "{out}.png"],
    ],
)
def test_a_missing_input_is_named_not_blamed_on_the_output(capsys, data: Path, tmp_path, argv):
    gone = tmp_path / "nowhere.nii.gz"
    filled = [a.format(gone=gone, out=tmp_path / "out", data=data) for a in argv]
    err = _refused(capsys, data, *filled, names="nowhere.nii.gz")
    assert "not found" in err and "would be written" not in err
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.png").exists()


@pytest.mark.parametrize(
    "how, code, said", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]
)
def test_an_interrupted_run_leaves_no_output_folder(data: Path, tmp_path: Path, how, code, said):
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out"
    method = tmp_path / "slow.sh"
    method.write_text("#!/bin/sh\nsleep 100\n")
    method.chmod(0o755)
    argv = ["run", str(method), str(data / "toy"), "--out", str(out)]
    script = f"import sys; from napari_mood.cli import main; sys.exit(main({argv!r}))"
    process = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not out.exists() and time.monotonic() < deadline:  # the first case is running
        time.sleep(0.05)
    time.sleep(0.5)
    process.send_signal(getattr(signal, how))
    _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert (
        err.strip().splitlines()[-1]
        == f"napari-mood: {said} (nothing half-written was left behind)"
    )
    assert not out.exists()
