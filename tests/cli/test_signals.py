"""Worker processes end with the command, whatever ends it; Ctrl-C prints one line.

Each test runs ``napari-mood evaluate --workers 2`` in a subprocess on a dataset big enough
to keep the workers busy for several seconds, waits until they are running, then ends the
command and checks that no process of it is left (the bad-input table's signal rows).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import make_mood_folder

pytestmark = pytest.mark.slow
SHAPE = (80, 80, 80)


@pytest.fixture(scope="module")
def busy_dataset(tmp_path_factory) -> Path:
    rng = np.random.default_rng(0)
    labels, maps = {}, {}
    for i in range(8):
        mask = np.zeros(SHAPE, bool)
        mask[20:40, 20:40, 20 + i : 40 + i] = True
        labels[f"c{i}"] = mask
        maps[f"c{i}"] = (mask * 0.4 + rng.random(SHAPE) * 0.6).astype(np.float32)
    root, preds = make_mood_folder(tmp_path_factory.mktemp("busy"), labels, {"a": maps, "b": maps})
    preds.rename(root / "methods")
    return root


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


def _start(dataset: Path) -> tuple[subprocess.Popen, list[int]]:
    argv = [sys.executable, "-m", "napari_mood.cli", "evaluate", str(dataset), "--task",
            "pixel,object", "--threshold", "auto", "--workers", "2", "--quiet"]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.2)
        workers = [p for p in _children(process.pid) if "spawn_main" in _cmdline(p)]
    assert len(workers) == 2, "the workers did not start"
    time.sleep(1.0)  # let them pick up work
    return process, _children(process.pid)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def _gone(pids: list[int], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pids):
            return True
        time.sleep(0.2)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")
def test_ctrl_c_prints_one_line_and_stops_the_workers(busy_dataset: Path):
    process, children = _start(busy_dataset)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert err.strip() == "napari-mood: interrupted (nothing half-written was left behind)"
    assert _gone(children)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_killed_command_leaves_no_worker(busy_dataset: Path, how: int):
    process, children = _start(busy_dataset)
    os.kill(process.pid, how)
    process.communicate(timeout=60)  # returns: nobody holds its pipes any more
    assert _gone(children), f"still running: {_alive(children)}"


def test_unreachable_scheduler_fails_within_seconds(busy_dataset: Path):
    started = time.monotonic()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "napari_mood.cli",
            "evaluate",
            str(busy_dataset),
            "--quiet",
            "--scheduler",
            "tcp://127.0.0.1:1",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1 and time.monotonic() - started < 30
    assert "cannot reach the dask scheduler at 'tcp://127.0.0.1:1'" in run.stderr
    assert "Traceback" not in run.stderr
