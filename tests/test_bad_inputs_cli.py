"""Bad inputs of issue 35, slice "messages, exit codes, streams": each class, several cases.

- every count has a documented maximum, checked at parse time (exit 2);
- usage errors of ``figure`` (thresholds, slices, cases, ``--out``) exit 2 before any
  file is read;
- standard output closed or on a full device: exit 1, one line "cannot write to standard
  output", no traceback and no second message at exit; standard error that cannot be
  written costs nothing but the messages;
- nibabel's remarks on a file are one warning line naming it, also from worker processes;
- a ``--cache`` where no file can be created is a warning, the run goes on without it;
- a figure whose voxel size makes a slice a line (0.001 x 1000 mm) is refused naming the
  file and its voxels; a figure too large for its page or pixels is a usage error.

Every test checks the exit code, the one message (naming the file where there is one),
that no input changed (checksums) and that no output or temporary file was left.
"""

from __future__ import annotations

import errno
import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from napari_mood.cli._args import MAX_BOOTSTRAP, MAX_FIGURE_CASES
from napari_mood.services.options import WORKERS_PER_CORE
from tests import test_bad_inputs
from tests.conftest import make_mood_folder
from tests.test_bad_inputs import SHAPE, _checksums, _cli, _refused

data = test_bad_inputs.data  # the fixture: three cases, methods a and b in DATASET/methods

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _no_raw_lines(err: str) -> None:
    """Every line on stderr is one of ours: no traceback, no library's own print."""
    for line in err.splitlines():
        assert line.startswith("napari-mood"), line


# --------------------------------------------------------------------------- 1. counts


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("evaluate", "DATA", "--bootstrap", "1000000000"), f"at most {MAX_BOOTSTRAP:,}"),
        (("evaluate", "DATA", "--bootstrap", str(MAX_BOOTSTRAP + 1)), f"at most {MAX_BOOTSTRAP:,}"),
        (("evaluate", "DATA", "--bootstrap", "1e9"), "expected a whole number"),
        (("evaluate", "DATA", "--workers", "100000"), "per usable core"),
        (("rank", "DATA/r.json", "--bootstrap", "100000"), f"at most {MAX_BOOTSTRAP:,}"),
        (("figure", "DATA", "--out", "OUT/f.png", "--max-cases", "101"), "at most 100"),
        (("figure", "DATA", "--out", "OUT/f.png", "--max-cases", "1e3"), "whole number"),
    ],
)
def test_counts_have_a_maximum_checked_before_any_file_is_read(
    capsys, data: Path, tmp_path: Path, argv, message
):
    out = tmp_path / "out"
    out.mkdir()
    argv = [a.replace("DATA", str(data)).replace("OUT", str(out)) for a in argv]
    err = _refused(capsys, data, *argv, code=2)
    assert message in err and _files(out) == []


def test_the_maxima_themselves_are_accepted(capsys, data: Path, tmp_path: Path):
    code, out, err = _cli(
        capsys, "evaluate", str(data), "--bootstrap", str(MAX_BOOTSTRAP), "--quiet",
        "--workers", str(WORKERS_PER_CORE),
    )  # fmt: skip
    assert code == 0, err
    assert "pixel AP 95% bootstrap interval" in out
    figure = tmp_path / "f.png"
    code, _, err = _cli(capsys, "figure", str(data), "--out", str(figure), "--dpi", "20",
                        "--max-cases", str(MAX_FIGURE_CASES))  # fmt: skip
    assert code == 0 and figure.is_file(), err


# --------------------------------------------------------------------------- 2. figure usage


@pytest.fixture
def no_read(monkeypatch):
    """Fail the test if any NIfTI file is read."""
    import napari_mood.io.nifti as nifti

    def refuse(path: Path) -> bytes:
        raise AssertionError(f"{path} was read before the usage error")

    monkeypatch.setattr(nifti, "_read_bytes", refuse)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--threshold", "nan"), "is NaN"),
        (("--threshold", "1.5"), "must be a number in [0, 1]"),
        (("--threshold", "-0.1"), "must be a number in [0, 1]"),
        (("--threshold", "inf"), "must be a number in [0, 1]"),
        (("--threshold", "a=0.5,a=0.6"), "given twice"),
        (("--threshold", "=0.5"), "is not NAME=T"),
        (("--threshold", "a=,b=0.2"), "the threshold of a must be"),
        (("--threshold", "unknown=0.5"), "'unknown' names no method (methods: a, b)"),
        (("--slices", "x:5"), "'x:5' names no plane"),
        (("--slices", "c:"), "is not a slice index"),
        (("--slices", "5,,6"), "is not a slice index"),
        (("--slices", "1e3"), "is not a slice index"),
        (("--slices", "c:-2"), "is not a slice index"),
        (("--slices", "s:auto:3"), "names no plane"),
        (("--slices", "c:5"), "coronal is not among the planes"),
        (("--cases", "c1,c2", "--slices", "1,2,3"), "3 axial slices for 2 cases"),
        (("--cases", " , "), "names no case"),
        (("--out", "OUT/f.jpg"), "unsupported figure type '.jpg'"),
        (("--out", "OUT/figure"), "no extension"),
        (("--out", ""), "must not be empty"),
    ],
)
def test_figure_usage_errors_exit_2_before_any_file_is_read(
    capsys, data: Path, tmp_path: Path, no_read, extra, message
):
    out = tmp_path / "out"
    out.mkdir()
    extra = tuple(e.replace("OUT", str(out)) for e in extra)
    argv = ["figure", str(data), "--out", str(out / "f.png"), *extra]
    err = _refused(capsys, data, *argv, code=2)
    assert message in err and _files(out) == []
    assert err.count("error:") == 1


def test_figure_usage_errors_come_before_the_dataset_is_looked_at(capsys, tmp_path: Path):
    code, _, err = _cli(
        capsys, "figure", str(tmp_path / "none"), "--out", str(tmp_path / "f.png"),
        "--slices", "x:5",
    )  # fmt: skip
    assert code == 2 and "names no plane" in err and str(tmp_path) not in err


def test_valid_figure_options_still_draw(capsys, data: Path, tmp_path: Path):
    out = tmp_path / "f.svg"
    code, printed, err = _cli(
        capsys, "figure", str(data), "--out", str(out), "--cases", "c1", "--threshold",
        "a=0.7, b=0", "--planes", "axial,coronal", "--slices", "4,auto,c:5", "--dpi", "40",
    )  # fmt: skip
    assert code == 0, err
    assert out.is_file() and "3 rows" in printed


# --------------------------------------------------------------------------- 3. streams


def _subprocess(argv: list[str], stdout: str) -> subprocess.CompletedProcess[str]:
    """Run ``napari-mood ARGV`` with standard output closed, on /dev/full, or a pipe."""
    code = "import sys; from napari_mood.cli import main; sys.exit(main(sys.argv[1:]))"
    command = [sys.executable, "-c", code, *argv]
    if stdout == "closed":
        return subprocess.run(
            command, stdout=None, stderr=subprocess.PIPE, text=True, check=False,
            preexec_fn=lambda: os.close(1),  # noqa: PLW1509 - nothing else runs here
        )  # fmt: skip
    with open("/dev/full", "w") as full:
        return subprocess.run(command, stdout=full, stderr=subprocess.PIPE, text=True, check=False)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
@pytest.mark.parametrize(
    ("argv", "stdout", "reason"),
    [
        (["evaluate", "DATA", "--quiet"], "closed", "it is closed"),
        (["evaluate", "DATA", "--quiet", "--format", "json"], "full", "No space left on device"),
        (["validate", "DATA"], "closed", "it is closed"),
        (["validate", "DATA"], "full", "No space left on device"),
        (["rank", "RESULTS"], "full", "No space left on device"),
        (["evaluate-boxes", str(SAMPLE / "nova")], "closed", "it is closed"),
        (["evaluate-boxes", str(SAMPLE / "nova"), "--per-image"], "full", "No space left"),
        (["--help"], "full", "No space left on device"),
        (["evaluate", "--help"], "closed", "it is closed"),
    ],
)
def test_unwritable_standard_output_is_one_line_and_exit_1(
    data: Path, tmp_path: Path, argv, stdout, reason
):
    results = tmp_path / "r.json"
    if "RESULTS" in argv:
        made = subprocess.run(
            [sys.executable, "-m", "napari_mood.cli", "evaluate", str(data), "--quiet",
             "--format", "json", "--out", str(results)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
    argv = [a.replace("DATA", str(data)).replace("RESULTS", str(results)) for a in argv]
    before, sample = _checksums(data), _checksums(SAMPLE)
    done = _subprocess(argv, stdout)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if "warning:" not in line]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("napari-mood: error: cannot write to standard output (")
    assert reason in lines[0]
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr
    assert _checksums(data) == before and _checksums(SAMPLE) == sample


def test_a_reader_that_goes_away_is_not_an_error():
    command = [sys.executable, "-m", "napari_mood.cli", "evaluate-boxes", str(SAMPLE / "nova"),
               "--per-image", "--format", "json"]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        assert child.stdout is not None
        child.stdout.close()  # as `| head -c 0` does
        _, err = child.communicate()
    assert child.returncode == 0 and err == b""


class _Broken:
    """A stream whose writes fail like a full device (or a closed descriptor)."""

    def __init__(self, code: int) -> None:
        self.code = code

    def write(self, text: str) -> int:
        raise OSError(self.code, os.strerror(self.code))

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(
    ("stream", "reason"),
    [
        (None, "it is closed"),
        (_Broken(errno.ENOSPC), "No space left on device"),
        (_Broken(errno.EBADF), "Bad file descriptor"),
        (_Broken(errno.EIO), "Input/output error"),
    ],
)
def test_every_stdout_failure_is_the_same_one_line(capsys, monkeypatch, data: Path, stream, reason):
    monkeypatch.setattr(sys, "stdout", stream)
    before = _checksums(data)
    from napari_mood.cli import main

    code = main(["evaluate", str(data), "--quiet"])
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 1
    assert err == f"napari-mood: error: cannot write to standard output ({reason})\n"
    assert _checksums(data) == before


@pytest.mark.parametrize("stream", [None, _Broken(errno.ENOSPC)])
def test_unwritable_standard_error_costs_only_the_messages(capsys, monkeypatch, data, stream):
    (data / "methods" / "a" / "c1.nii.gz.txt").write_text("1.7")  # a warning to say
    monkeypatch.setattr(sys, "stderr", stream)
    from napari_mood.cli import main

    code = main(["evaluate", str(data), "--task", "sample"])
    monkeypatch.undo()
    assert code == 0 and "sample AP" in capsys.readouterr().out


# --------------------------------------------------------------------------- 4. warnings


def _patch_header(path: Path, offset: int, value: int, size: int) -> None:
    raw = bytearray(gzip.decompress(path.read_bytes()))
    raw[offset : offset + size] = value.to_bytes(size, "little")
    path.write_bytes(gzip.compress(bytes(raw)))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_nibabel_remarks_are_one_line_naming_the_file(capsys, data: Path, workers: str):
    sized = data / "methods" / "a" / "c1.nii.gz"
    _patch_header(sized, 0, 349, 4)  # sizeof_hdr
    coded = data / "methods" / "b" / "c2.nii.gz"
    _patch_header(coded, 252, 1234, 2)  # qform_code
    before = _checksums(data)
    code, _, err = _cli(capsys, "evaluate", str(data), "--task", "pixel", "--workers", workers)
    assert code == 0
    assert f"napari-mood: warning: {sized}: sizeof_hdr should be 348" in err
    assert f"napari-mood: warning: {coded}: qform_code 1234 not valid" in err
    lines = err.splitlines()
    assert len([x for x in lines if "sizeof_hdr" in x]) == 1
    assert len([x for x in lines if "qform_code" in x]) == 1
    _no_raw_lines(err)
    assert _checksums(data) == before


@pytest.mark.parametrize("command", ["evaluate", "validate", "figure"])
def test_an_unknown_data_code_is_named_once_by_every_command(
    capsys, data: Path, tmp_path: Path, command: str
):
    bad = data / "methods" / "a" / "c1.nii.gz"
    _patch_header(bad, 70, 1234, 2)  # datatype
    before = _checksums(data)
    extra = ["--out", str(tmp_path / "f.png"), "--cases", "c1", "--dpi", "20"]
    _, out, err = _cli(capsys, command, str(data), *(extra if command == "figure" else []))
    said = [line for line in (out + err).splitlines() if "data code 1234" in line]
    assert said and all(str(bad) in line for line in said), out + err
    _no_raw_lines(err)
    assert _checksums(data) == before


# --------------------------------------------------------------------------- 5. cache


def _cache_warning(capsys, data: Path, cache: Path) -> str:
    before = _checksums(data)
    code, out, err = _cli(capsys, "evaluate", str(data), "--cache", str(cache))
    assert code == 0 and "pixel AP" in out, err
    assert f"napari-mood: warning: {cache}: --cache cannot be written" in err
    assert "going on without it" in err
    assert _checksums(data) == before
    return err


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc")
@pytest.mark.parametrize("place", ["/proc/napari-mood-cache", "/proc/napari-mood/deeper"])
def test_a_cache_where_nothing_can_be_created_is_a_warning(capsys, data: Path, place: str):
    err = _cache_warning(capsys, data, Path(place))
    assert "no file can be created in /proc" in err


def test_a_read_only_cache_folder_is_a_warning(capsys, data: Path, tmp_path: Path, monkeypatch):
    import napari_mood.services.cache as cache_module

    def read_only(*args, **kwargs):  # as a read-only mount (root may write anywhere else)
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(cache_module.tempfile, "mkstemp", read_only)
    err = _cache_warning(capsys, data, cache)
    assert "Read-only file system" in err and _files(cache) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_a_cache_in_a_locked_folder_is_a_warning(capsys, data: Path, tmp_path: Path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    _cache_warning(capsys, data, locked / "cache")
    assert _files(locked) == []


def test_a_cache_that_is_no_folder_is_still_refused(capsys, data: Path, tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _refused(capsys, data, "evaluate", str(data), "--cache", str(blocker), names=str(blocker))
    _refused(capsys, data, "evaluate", str(data), "--cache", str(data / "c"), names="--cache")
    assert blocker.read_text() == "x"


# --------------------------------------------------------------------------- 6. figure size


def _dataset(tmp_path: Path, spacing: tuple[float, float, float]) -> Path:
    mask = np.zeros(SHAPE, bool)
    mask[3:6, 3:6, 3:6] = True
    maps = {"a": {"c1": np.where(mask, 0.8, 0.1).astype(np.float32)}}
    root, preds = make_mood_folder(tmp_path, {"c1": mask}, maps, affine=np.diag([*spacing, 1.0]))
    preds.rename(root / "methods")
    return root


@pytest.mark.parametrize(
    ("spacing", "planes", "message"),
    [
        ((0.001, 1000.0, 1.0), "axial", "1000 mm high and 0.001 mm wide in the axial plane"),
        ((0.001, 1000.0, 1.0), "axial", "1,000,000 times taller than wide (at most 100)"),
        ((1000.0, 0.001, 1.0), "axial", "1,000,000 times wider than tall"),
        ((0.001, 1.0, 1.0), "coronal", "in the coronal plane"),
        ((1.0, 1.0, 500.0), "sagittal", "500 mm high and 1 mm wide in the sagittal plane"),
    ],
)
def test_a_voxel_size_that_makes_a_slice_a_line_is_named(
    capsys, tmp_path: Path, spacing, planes, message
):
    root = _dataset(tmp_path, spacing)
    out = tmp_path / "f.png"
    scan = root / "toy" / "c1.nii.gz"
    err = _refused(capsys, root, "figure", str(root), "--out", str(out), "--planes", planes,
                   names=str(scan))  # fmt: skip
    assert message in err and "pixdim" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_a_row_far_narrower_than_the_others_is_named(capsys, data: Path, tmp_path: Path):
    tiny = _dataset(tmp_path / "tiny", (0.001, 0.001, 0.001))  # beside 1-mm case c2
    for folder in ("toy", "toy_label/pixel"):
        (tiny / folder / "c2.nii.gz").write_bytes((data / folder / "c2.nii.gz").read_bytes())
    out = tmp_path / "f.pdf"
    err = _refused(capsys, tiny, "figure", str(tiny), "--out", str(out), "--cases", "c1,c2",
                   names=str(tiny / "toy" / "c1.nii.gz"))  # fmt: skip
    assert "narrower than the widest row's" in err and not out.exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--width", "1000mm", "--dpi", "2400"), "use at most"),
        (("--dpi", "2400", "--slices", ",".join(str(i % 10) for i in range(12))), "million pixels"),
        (("--slices", ",".join(str(i % 10) for i in range(110))), "more than 5,080 mm"),
    ],
)
def test_a_figure_too_large_is_a_usage_error(capsys, data: Path, tmp_path: Path, extra, message):
    out = tmp_path / "f.png"
    err = _refused(capsys, data, "figure", str(data), "--out", str(out), "--cases", "c1",
                   *extra, code=2)  # fmt: skip
    assert message in err and sorted(p.name for p in tmp_path.iterdir()) == ["data"]


@pytest.mark.parametrize("shape", [(1, 11, 12), (1, 1, 12)])
def test_a_slab_one_voxel_thin_is_drawn_from_every_side(capsys, tmp_path: Path, shape):
    mask = np.zeros(shape, bool)
    mask[0, :1, 3:6] = True
    maps = {"a": {"c1": np.where(mask, 0.8, 0.1).astype(np.float32)}}
    root, preds = make_mood_folder(tmp_path, {"c1": mask}, maps)
    preds.rename(root / "methods")
    out = tmp_path / "f.png"
    before = _checksums(root)
    code, printed, err = _cli(capsys, "figure", str(root), "--out", str(out), "--dpi", "40",
                              "--planes", "axial,coronal,sagittal", "--annotate")  # fmt: skip
    assert code == 0, err
    assert out.is_file() and "3 rows" in printed and _checksums(root) == before
    _no_raw_lines(err)


@pytest.mark.parametrize("dpi", ["0.01", "9.9", "1e-300"])
@pytest.mark.parametrize("command", ["figure", "evaluate-boxes"])
def test_a_resolution_without_pixels_is_a_usage_error(capsys, data: Path, tmp_path, command, dpi):
    out = tmp_path / "f.png"
    if command == "figure":
        argv = ["figure", str(data), "--out", str(out)]
    else:
        argv = ["evaluate-boxes", str(SAMPLE / "nova"), "--plot", str(out)]
    err = _refused(capsys, data, *argv, "--dpi", dpi, code=2)
    assert "at least 10" in err and not out.exists()
