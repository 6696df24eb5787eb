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
from collections.abc import Callable
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.cli import main
from napari_mood.core.io import MoodInputWarning
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
    code, out, _ = _cli(capsys, "validate", str(data))
    assert code == 1 and str(broken) in out and message in out
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
