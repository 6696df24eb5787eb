"""Crafted inputs and outputs cost only their own case (issue 47, item 3).

A NIfTI whose header declares more than memory holds is refused before anything is
inflated (a map scores 0, a label's case is skipped), never a MemoryError ending the run;
an output name no file system takes is one line before the work; the run folders of a
killed ``run`` go with the next run; a scan holding infinities is named by ``figure``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.io.errors import MoodInputError
from napari_mood.services.output import OutputRefused, check_output_file, check_output_folder
from napari_mood.services.run_processes import RUN_LOCK, RUN_PREFIX, remove_stale_runs
from tests.conftest import write_nifti
from tests.test_bad_inputs import _checksums, _cli, data  # noqa: F401  (a fixture)

GIB = 1 << 30


def _crafted(path: Path, shape: tuple[int, ...], dtype: str, inflated: int) -> Path:
    """A .nii.gz declaring ``shape`` of ``dtype`` whose stream inflates to ``inflated``
    bytes of zeros, written cheaply (one compressed block of 1 MiB repeated): a 4 GiB
    stream is a 4 MB file, and nothing of its size is ever allocated here."""
    header = nib.Nifti1Header()
    header.set_data_dtype(dtype)
    header.set_data_shape(shape)
    header["vox_offset"] = 352
    head = header.binaryblock + b"\0" * 4
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(bytes(1 << 20)) + packer.flush(zlib.Z_FULL_FLUSH)
    count = max(0, (inflated - len(head)) >> 20)
    size = (len(head) + (count << 20)) & 0xFFFFFFFF
    trailer = packer.flush() + struct.pack("<II", 0, size)  # the CRC is never reached
    path.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + start + block * count + trailer)
    return path


def _capped(*argv: str, limit: int = 3 * GIB) -> subprocess.CompletedProcess[str]:
    """Run napari-mood with its address space capped (as the hostile sweep did)."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    command = [sys.executable, "-m", "napari_mood.cli", *argv]
    return subprocess.run(
        command, capture_output=True, text=True, preexec_fn=cap, timeout=600, check=False
    )


# --------------------------------------------------------------------------- memory


@pytest.mark.parametrize(
    ("argv", "where", "said"),
    [
        (("evaluate", "--task", "pixel", "--workers", "1"), "methods/a", "scores as zeros"),
        (("evaluate", "--task", "pixel", "--workers", "1"), "toy_label/pixel", "skipped"),
        (("validate",), "toy_label/pixel", "more than the"),
        (("figure", "--cases", "c1", "--out", "FIGURE"), "methods/a", "more than the"),
    ],
)
def test_a_file_declaring_more_than_memory_costs_only_its_case(
    data: Path,  # noqa: F811
    tmp_path: Path,
    argv,
    where: str,
    said: str,
):
    # 4 GiB of voxels declared and really in the stream (4 MB of gzip): under a 3 GB cap
    crafted = _crafted(data / where / "c1.nii.gz", (2048, 2048, 1024), "uint8", 4 * GIB)
    before = _checksums(data)
    figure = str(tmp_path / "figure.png")
    done = _capped(*(figure if a == "FIGURE" else a for a in argv), str(data))
    said_all = done.stdout + done.stderr  # validate prints its findings
    assert "Traceback" not in said_all and "MemoryError" not in said_all, said_all
    assert f"{crafted}: its header declares shape (2048, 2048, 1024)" in said_all
    assert "of memory available" in said_all and said in said_all
    assert done.returncode == (1 if argv[0] == "validate" else 0), done.stderr
    assert _checksums(data) == before


def test_a_file_over_the_memory_budget_is_refused_before_it_is_inflated(
    monkeypatch, tmp_path: Path
):
    import tracemalloc

    from napari_mood.io import nifti

    monkeypatch.setattr(nifti, "memory_budget", lambda: 32 << 20)
    gz = _crafted(tmp_path / "big.nii.gz", (256, 256, 256), "uint8", 17 << 20)
    plain = tmp_path / "big.nii"
    write_nifti(plain, np.zeros((160, 160, 160), np.float32))  # 16 MiB
    small = write_nifti(tmp_path / "small.nii.gz", np.zeros((8, 8, 8), np.float32))
    tracemalloc.start()
    try:
        for path in (gz, plain):
            with pytest.raises(MoodInputError, match="of memory available") as caught:
                nifti.read_scores(path)
            assert caught.value.path == path
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak  # neither inflated nor read
    assert nifti.read_volume(small).shape == (8, 8, 8)  # within the budget: read


def test_the_memory_budget_follows_the_address_space_limit():
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30));"
        "from napari_mood.io.nifti import memory_budget; print(memory_budget())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 0 < int(done.stdout) < 3 << 30


# --------------------------------------------------------------------------- output names

LONG = "x" * 300


@pytest.mark.parametrize(
    "argv",
    [
        ("evaluate", "DATA", "--out", f"OUT/{LONG}.csv"),
        ("evaluate", "DATA", "--report", f"OUT/{LONG}"),
        ("evaluate", "DATA", "--cache", f"OUT/{LONG}/cache"),
        ("evaluate", "DATA", "--cache", f"OUT/{LONG}"),
        ("evaluate", "DATA", "--out", f"OUT/{'y' * 240}.csv"),  # fits, its temporary does not
        ("figure", "DATA", "--out", f"OUT/{LONG}.png"),
        ("simulate", "DATA/toy/c1.nii.gz", "--out", f"OUT/{LONG}"),
        ("run", "true", "DATA/toy", "--out", f"OUT/{LONG}"),
        ("review-report", "JOURNAL", "--out", f"OUT/{LONG}"),
        ("review-report", "JOURNAL", "--out", f"OUT/{LONG}/study"),
    ],
)
def test_an_output_name_too_long_is_one_line_before_the_work(
    capsys,
    data: Path,  # noqa: F811
    tmp_path: Path,
    argv,
):
    from tests.reader_journals import random_readers, write_reader

    journal = write_reader(tmp_path / "ana.csv", "ana", random_readers(0, ("ana",))["ana"])
    places = {"DATA": str(data), "OUT": str(tmp_path / "out"), "JOURNAL": str(journal)}
    for key, value in places.items():
        argv = [a.replace(key, value) for a in argv]
    (tmp_path / "out").mkdir()  # an existing folder: the name is looked up there
    before = _checksums(data)
    code, out, err = _cli(capsys, *argv, "--quiet")
    assert code == 1 and "Traceback" not in err and err.count("\n") == 1, err
    assert "bytes long" in err and "choose a shorter name" in err
    assert str(tmp_path / "out" / "xxx...") in err or str(tmp_path / "out" / "yyy...") in err
    assert not any((tmp_path / "out").iterdir()) and _checksums(data) == before


def test_a_nul_in_an_output_name_is_refused_naming_it(tmp_path: Path):
    for check in (check_output_file, check_output_folder):
        with pytest.raises(OutputRefused, match="NUL character") as caught:
            check(tmp_path / "a\0b.csv")
        assert "a\\0b.csv" in str(caught.value)


# --------------------------------------------------------------------------- killed runs


def test_the_next_run_removes_the_folder_of_a_killed_run_not_yet_reaped(
    data: Path,  # noqa: F811
    tmp_path: Path,
):
    argv = [sys.executable, "-m", "napari_mood.cli", "run", "sh -c 'sleep 120' method", str(data / "toy"),
            "--out", str(tmp_path / "out"), "--quiet"]  # fmt: skip
    napari_mood = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pattern = f"{RUN_PREFIX}{napari_mood.pid}-*"
        deadline = time.monotonic() + 120
        while not list(Path(tempfile.gettempdir()).glob(f"{pattern}/case-*/input/*")):
            assert time.monotonic() < deadline and napari_mood.poll() is None
            time.sleep(0.1)
        (stale,) = Path(tempfile.gettempdir()).glob(pattern)
        napari_mood.send_signal(signal.SIGKILL)
        # dead, and a zombie until it is reaped (a killed child nobody waited for yet)
        os.waitid(os.P_PID, napari_mood.pid, os.WEXITED | os.WNOWAIT)
        remove_stale_runs()  # what the next run does first
        assert not stale.exists()
    finally:
        napari_mood.kill()
        napari_mood.wait()


def test_a_run_folder_is_kept_while_its_lock_is_held_and_removed_when_free():
    import fcntl

    namespace = os.stat("/proc/self/ns/pid").st_ino
    ended = subprocess.Popen(["true"])
    ended.wait()
    root = Path(tempfile.gettempdir())
    held = Path(tempfile.mkdtemp(prefix=f"{RUN_PREFIX}{ended.pid}-{namespace}-", dir=root))
    free = Path(tempfile.mkdtemp(prefix=f"{RUN_PREFIX}1-{namespace}-", dir=root))
    (free / RUN_LOCK).write_text("")
    handle = os.open(held / RUN_LOCK, os.O_CREAT | os.O_RDWR)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)  # a live run: its PID says nothing (reused, ...)
        remove_stale_runs()
        assert held.exists() and not free.exists()
    finally:
        os.close(handle)
        with contextlib.suppress(FileNotFoundError):
            (held / RUN_LOCK).unlink()
            held.rmdir()


# --------------------------------------------------------------------------- figure


def test_figure_names_a_scan_with_infinite_voxels(capsys, data: Path, tmp_path: Path):  # noqa: F811
    scan = data / "toy" / "c1.nii.gz"
    values = np.asarray(nib.load(scan).dataobj, dtype=np.float32)
    values[values == 0] = np.inf  # more than the top percentiles: inf - inf on the way
    write_nifti(scan, values)
    out = tmp_path / "figure.png"
    code, _, err = _cli(capsys, "figure", str(data), "--cases", "c1", "--out", str(out))
    assert code == 0 and out.exists(), err
    assert f"{scan}: holds {int(np.isinf(values).sum()):,} NaN or infinite voxels" in err
    assert "runtime" not in err and "invalid value" not in err
