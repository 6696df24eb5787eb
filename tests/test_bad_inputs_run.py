"""The bad-input table for ``napari-mood run`` (issue 35): hostile and careless methods.

Each test runs a small shell-script method on the ``data`` fixture's ``toy`` folder and
checks what the user sees (exit code, one line naming the file, no traceback), that the
inputs are unchanged or every change is reported, that every process of the method ends
with its case, and that no temporary folder of the run is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from napari_mood.services.run_method import run_method
from napari_mood.services.run_processes import RUN_PREFIX, remove_stale_runs
from tests import test_bad_inputs
from tests.conftest import write_nifti
from tests.test_bad_inputs import _checksums, _cli, _refused

data = test_bad_inputs.data  # the fixture: three cases in DATASET/toy, methods a and b
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux processes")

COPY = 'for f in "$1"/*; do cp "$f" "$2/"; done\n'  # a valid map: the scan itself


def _method(folder: Path, body: str, name: str = "method.sh") -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _leftovers() -> list[Path]:
    """This process's run folders still in the temporary folder (there must be none)."""
    return list(Path(tempfile.gettempdir()).glob(f"{RUN_PREFIX}{os.getpid()}-*"))


def _run(capsys, data: Path, method: str, out: Path, *more: str) -> tuple[int, str, str]:
    argv = ("run", method, str(data / "toy"), "--out", str(out), "--quiet")
    return _cli(capsys, *argv, *more)


def _rows(out: str) -> list[str]:
    """The case rows of ``run``'s table."""
    return [line for line in out.splitlines() if line.split()[0].endswith(".nii.gz")]


def _dead(pid: int) -> bool:
    """Ended (a zombie left to a non-reaping init counts as ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return True
    return fields[0] == "Z"


def _wait_dead(pids: list[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(_dead(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def _pids(path: Path) -> list[int]:
    return [int(w) for w in path.read_text().split()] if path.exists() else []


@pytest.fixture(autouse=True)
def _no_leftovers():
    yield
    assert _leftovers() == []


# --------------------------------------------------------------------------- 1. where it runs


def test_started_inside_the_input_the_method_writes_nothing_there(
    capsys, data: Path, tmp_path: Path, monkeypatch
):
    seen = tmp_path / "seen.txt"
    method = _method(
        tmp_path,
        "echo log > method.log; mkdir -p .cache; echo x > .cache/x\n"
        'echo h > "$HOME/.h"; echo t > "$TMPDIR/t"\n'
        f'echo "$(pwd) $HOME $TMPDIR" >> {seen}\n' + COPY,
    )
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(data / "toy")
    before = _checksums(data)
    code, out, err = _run(capsys, data, method, tmp_path / "out")
    assert code == 0 and "3 of 3 cases ok" in out and "WARNING" not in out, err
    assert _checksums(data) == before
    assert sorted(p.name for p in (data / "toy").iterdir()) == [f"c{i}.nii.gz" for i in range(3)]
    assert [p.name for p in home.iterdir()] == [".h"]  # HOME stays the user's (caches, weights)
    for line in seen.read_text().splitlines():
        work, case_home, case_tmp = line.split()
        case = Path(work).parent
        assert case.parent.name.startswith(f"{RUN_PREFIX}{os.getpid()}-")
        assert (Path(case_home), Path(case_tmp)) == (home, case / "tmp")
        assert not case.exists()


def test_relative_program_and_script_still_found(capsys, data: Path, tmp_path: Path, monkeypatch):
    (tmp_path / "m.py").write_text(
        "import shutil, sys, pathlib\n"
        "src, dst = map(pathlib.Path, sys.argv[1:])\n"
        "for f in src.iterdir(): shutil.copy(f, dst / f.name)\n"
    )
    _method(tmp_path, f'exec {sys.executable} "$@"\n', "run.sh")
    monkeypatch.chdir(tmp_path)
    for i, command in enumerate((f"{sys.executable} m.py", "./run.sh m.py")):
        code, out, err = _run(capsys, data, command, tmp_path / f"out{i}")
        assert code == 0 and "3 of 3 cases ok" in out, (command, out, err)


# --------------------------------------------------------------------------- 2. input integrity

EDIT = """
{python} - "$0" <<'PY'
import os, pathlib
toy = pathlib.Path("{toy}")
scan = toy / "c1.nii.gz"
info = scan.stat()
with open(scan, "r+b") as f:  # same size, same times: only the bytes tell
    f.seek(20); f.write(b"\\x00\\x01")
os.utime(scan, ns=(info.st_atime_ns, info.st_mtime_ns))
{more}
PY
"""


@pytest.mark.parametrize(
    ("more", "changes"),
    [
        ("", {"c1.nii.gz": "changed"}),
        ("(toy / 'notes.txt').write_text('x')", {"c1.nii.gz": "changed", "notes.txt": "new"}),
        ("(toy / 'c2.nii.gz').chmod(0o600)", {"c1.nii.gz": "changed", "c2.nii.gz": "changed"}),
        ("(toy / 'sub').mkdir(exist_ok=True)", {"c1.nii.gz": "changed", "sub": "new"}),
    ],
)
def test_every_input_change_is_reported(
    capsys, data: Path, tmp_path: Path, more: str, changes: dict[str, str]
):
    method = _method(
        tmp_path, EDIT.format(python=sys.executable, toy=data / "toy", more=more) + COPY
    )
    report = tmp_path / "run.json"
    code, out, err = _run(capsys, data, method, tmp_path / "out", "--report", str(report))
    assert code == 0, err
    said = {"new": "appeared in", "changed": "changed in"}
    for name, change in changes.items():
        assert f"WARNING: {data / 'toy' / name} {said[change]} the input during the run" in out
    found = {
        Path(c["path"]).name: c["change"] for c in json.loads(report.read_text())["input_changes"]
    }
    assert found == changes


def test_a_removed_scan_fails_its_case_and_is_reported(capsys, data: Path, tmp_path: Path):
    scan = data / "toy" / "c2.nii.gz"
    method = _method(tmp_path, f"rm -f {scan}\n" + COPY)
    code, out, err = _run(capsys, data, method, tmp_path / "out")
    assert code == 0 and "Traceback" not in err
    row = next(line for line in out.splitlines() if line.startswith("c2.nii.gz"))
    assert "failed" in row and "cannot use the scan" in row
    assert f"WARNING: {scan} was removed from the input during the run" in out
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["c0.nii.gz", "c1.nii.gz"]


def test_an_untouched_input_reports_nothing(data: Path, tmp_path: Path):
    (data / "toy" / "link.nii.gz").symlink_to(data / "toy" / "c0.nii.gz")
    (data / "toy" / ".hidden").write_text("x")
    run = run_method(_method(tmp_path, COPY), data / "toy", tmp_path / "out", time_limit=30)
    assert run.input_changes == () and run.changed_inputs == ()
    assert len(run.cases) == 4  # the link is a scan; the hidden file is not


# --------------------------------------------------------------------------- 3. NaN outputs

NAN_MAP = """
{python} - "$1" "$2" <<'PY'
import sys, pathlib, nibabel as nib, numpy as np
src, dst = map(pathlib.Path, sys.argv[1:])
for scan in src.glob("*.nii.gz"):
    img = nib.load(scan)
    data = np.asarray(img.dataobj, dtype=np.float32)
    data[{where}] = {value}
    nib.save(nib.Nifti1Image(data, img.affine), dst / scan.name)
PY
"""


@pytest.mark.parametrize(
    ("where", "value", "status", "words"),
    [
        ("0, 0, 0", "np.nan", "unreadable", "1 NaN voxel"),
        ("...", "np.nan", "unreadable", "1320 NaN voxels"),
        ("0, 0, 0", "np.inf", "ok", ""),  # clipped to 1, as the official scorer does
    ],
)
def test_a_map_with_nan_is_unreadable(
    capsys, data: Path, tmp_path: Path, where: str, value: str, status: str, words: str
):
    method = _method(tmp_path, NAN_MAP.format(python=sys.executable, where=where, value=value))
    before = _checksums(data)
    code, out, err = _run(capsys, data, method, tmp_path / "out")
    assert code == 0 and "Traceback" not in err
    rows = _rows(out)
    assert len(rows) == 3 and all(status in r and words in r for r in rows)
    assert len(list((tmp_path / "out").iterdir())) == (3 if status == "ok" else 0)
    assert _checksums(data) == before


@pytest.mark.parametrize("score", ["nan", "NaN", "inf", "-inf", "-Infinity"])
def test_a_score_that_is_not_finite_is_unreadable(capsys, data: Path, tmp_path: Path, score):
    method = _method(
        tmp_path, f'for f in "$1"/*; do echo {score} > "$2/$(basename "$f").txt"; done\n'
    )
    code, out, _ = _run(capsys, data, method, tmp_path / "out", "--task", "sample")
    assert code == 0 and "0 of 3 cases ok" in out
    assert out.count("NaN and infinity are not scores") == 3
    assert list((tmp_path / "out").iterdir()) == []


# --------------------------------------------------------------------------- 4./5. processes

TREE = """
sleep 120 &
echo $! >> {pids}
setsid sh -c 'echo $$ >> {pids}; trap "" TERM; exec sleep 120' < /dev/null > /dev/null 2>&1 &
sleep 0.3
{end}
"""


@pytest.mark.parametrize(
    ("end", "limit", "status"),
    [
        (COPY, 30.0, "ok"),  # the method ends; what it left behind must not
        ("exit 3", 30.0, "failed"),
        ("trap '' TERM; sleep 120", 1.0, "timeout"),  # ignores SIGTERM: SIGKILL after 5 s
    ],
)
def test_every_process_of_a_case_ends_with_it(
    data: Path, tmp_path: Path, end: str, limit: float, status: str
):
    pids = tmp_path / "pids"
    method = _method(tmp_path, TREE.format(pids=pids, end=end))
    run = run_method(method, data / "toy", tmp_path / "out", time_limit=limit)
    assert {c.status for c in run.cases} == {status}
    started = _pids(pids)
    assert len(started) == 6
    assert _wait_dead(started, 2.0), [p for p in started if not _dead(p)]


def test_kill_9_ends_the_method_and_the_next_run_cleans_up(data: Path, tmp_path: Path):
    pids = tmp_path / "pids"
    method = _method(tmp_path, f"sleep 120 &\necho $! >> {pids}\necho $$ >> {pids}\nwait\n")
    argv = [sys.executable, "-m", "napari_mood.cli", "run", method, str(data / "toy"),
            "--out", str(tmp_path / "out"), "--quiet"]  # fmt: skip
    napari_mood = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(_pids(pids)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    grandchild, child = _pids(pids)
    folder = Path(tempfile.gettempdir()) / f"{RUN_PREFIX}{napari_mood.pid}-"
    (stale,) = folder.parent.glob(folder.name + "*")
    napari_mood.send_signal(signal.SIGKILL)
    napari_mood.wait()
    assert _wait_dead([child], 5.0)  # PR_SET_PDEATHSIG; the grandchild is not signalled
    remove_stale_runs()  # what the next run does first
    assert _wait_dead([grandchild], 5.0) and not stale.exists()


def test_stale_cleanup_removes_only_dead_runs_of_this_namespace():
    namespace = os.stat("/proc/self/ns/pid").st_ino
    ended = subprocess.Popen(["true"])
    ended.wait()
    root = Path(tempfile.gettempdir())
    made = {
        "dead": f"{ended.pid}-{namespace}-",
        "live": f"1-{namespace}-",  # init never dies
        "other namespace": f"{ended.pid}-{namespace + 1}-",
        "older version": "x",
    }
    folders = {k: Path(tempfile.mkdtemp(prefix=RUN_PREFIX + v, dir=root)) for k, v in made.items()}
    try:
        remove_stale_runs()
        assert {k for k, f in folders.items() if f.exists()} == set(made) - {"dead"}
    finally:
        for folder in folders.values():
            with contextlib.suppress(FileNotFoundError):
                folder.rmdir()


# --------------------------------------------------------------------------- 6. a flood of output


def test_a_flood_of_output_keeps_only_the_tail(data: Path, tmp_path: Path):
    method = _method(
        tmp_path,
        "head -c 67108864 /dev/zero | tr '\\0' x; echo\n"
        "head -c 100000 /dev/zero | tr '\\0' y; echo\n"
        "i=0; while [ $i -lt 20 ]; do echo line $i; i=$((i+1)); done\n"
        "head -c 5000 /dev/zero | tr '\\0' z; echo; echo the real error; exit 4\n",
    )
    tracemalloc.start()
    try:
        run = run_method(method, data / "toy", tmp_path / "out", time_limit=60)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"{peak / 2**20:.0f} MiB"
    for case in run.cases:
        assert case.status == "failed" and case.message.endswith("the real error")
        assert "line 17 | line 18 | line 19 | ..." + "z" * 300 + " | the real" in case.message
        assert len(case.message) < 1000


# --------------------------------------------------------------------------- 7. removed folders


@pytest.mark.parametrize(
    ("target", "status"),
    [
        ('"$1"', "ok"),  # its input copy: the map is written from memory
        ('"$2"', "missing"),
        ('"$(dirname "$1")"', "missing"),  # the whole case folder
        ('"$(dirname "$(dirname "$1")")"', "missing"),  # the run's folder
        ('"$(pwd)"', "ok"),
    ],
)
def test_a_method_removing_its_folders_costs_its_case_only(
    capsys, data: Path, tmp_path: Path, target: str, status: str
):
    method = _method(
        tmp_path,
        'scan=$(ls "$1"); tmp=$(mktemp); cat "$1/$scan" > "$tmp"\n'
        f'case "$scan" in c0*) chmod -R u+w {target}; rm -rf {target};; esac\n'
        'cp "$tmp" "$2/$scan" 2>/dev/null; rm -f "$tmp"; exit 0\n',
    )
    before = _checksums(data)
    code, out, err = _run(capsys, data, method, tmp_path / "out")
    assert code == 0 and "Traceback" not in err, err
    rows = [line.split() for line in _rows(out)]
    assert [r[1] for r in rows] == [status, "ok", "ok"], out
    assert _checksums(data) == before


# --------------------------------------------------------------------------- 8. the command


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("", "the command is empty"),
        ("   ", "the command is empty"),
        ("m 'open", "No closing quotation"),
        ('m "open', "No closing quotation"),
        ("m {input}", "holds {input} but not {output}"),
        ("docker run -v {output}:/o img", "holds {output} but not {input}"),
    ],
)
def test_a_command_that_cannot_be_split_is_a_usage_error(
    capsys, data: Path, tmp_path: Path, command: str, problem: str
):
    err = _refused(capsys, data, *_argv(data, command, tmp_path / "out"), code=2, names=problem)
    assert "usage:" in err and not (tmp_path / "out").exists()


def _argv(data: Path, command: str, out: Path) -> tuple[str, ...]:
    return ("run", command, str(data / "toy"), "--out", str(out), "--quiet")


@pytest.mark.parametrize(
    ("program", "problem"),
    [
        ("/nonexistent/exe", "does not exist"),
        ("{folder}", "is a folder, not a program"),
        ("{plain}", "is not executable"),
        ("no-such-program-35 --fast", "is not a program on PATH"),
        ("no-such-program-35 run -v {{input}}:/i -v {{output}}:/o img", "is not a program on PATH"),
    ],
)
def test_a_program_that_cannot_start_stops_before_the_first_case(
    capsys, data: Path, tmp_path: Path, program: str, problem: str
):
    plain = tmp_path / "plain.sh"
    plain.write_text("#!/bin/sh\n")
    plain.chmod(0o644)
    command = program.format(folder=tmp_path, plain=plain)
    name = command.split()[0]
    err = _refused(capsys, data, *_argv(data, command, tmp_path / "out"), names=name)
    assert err.count("\n") == 1 and problem in err
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- 9. broken scans


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda p: p.symlink_to(p.parent / "nowhere.nii.gz"), "broken symbolic link"),
        (lambda p: p.symlink_to(p), "broken symbolic link (a loop of links)"),
        (lambda p: p.mkdir(), "is a folder, not a scan"),
        (lambda p: os.mkfifo(p), "FIFO"),
    ],
)
def test_a_broken_scan_is_refused_before_any_case(
    capsys, data: Path, tmp_path: Path, make, problem: str
):
    bad = data / "toy" / "c9.nii.gz"
    make(bad)
    ran = tmp_path / "ran"
    method = _method(tmp_path, f"touch {ran}\n" + COPY)
    err = _refused(capsys, data, *_argv(data, method, tmp_path / "out"), names=str(bad))
    assert err.count("\n") == 1 and problem in err
    assert not ran.exists() and not (tmp_path / "out").exists()


def test_a_scan_linked_from_elsewhere_is_run(data: Path, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere.nii.gz"
    write_nifti(elsewhere, np.zeros((10, 11, 12), np.float32))
    (data / "toy" / "c9.nii.gz").symlink_to(elsewhere)
    run = run_method(_method(tmp_path, COPY), data / "toy", tmp_path / "out", time_limit=30)
    assert [c.status for c in run.cases] == ["ok"] * 4
