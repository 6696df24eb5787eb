"""Run an anomaly-detection method the MOOD way, one case at a time, and check its outputs.

The MOOD docker contract: ``CMD INPUT_FOLDER OUTPUT_FOLDER`` reads every scan of the input
folder and writes, for each ``CASE.nii.gz``, a score map ``CASE.nii.gz`` (pixel task) or a
score file ``CASE.nii.gz.txt`` (sample task) into the output folder. The challenge runs the
container once per folder; to time each case and to apply the time limit to each case,
:func:`run_method` runs the command once per case on a temporary input folder holding a
read-only *copy* of that one scan (a symbolic link would let a method write into the
original through it), with a fresh temporary output folder. The expected file is then
checked (present, readable, on the scan's grid) and moved into the real output folder
through the output guard; anything else the method writes is dropped.

Policies
--------
- The command string is split with :func:`shlex.split`; the two folders are appended,
  unless it holds the placeholders ``{input}`` / ``{output}`` (replaced where they stand,
  e.g. ``docker run --rm -v {input}:/mnt/data:ro -v {output}:/mnt/pred my/image ...``).
- Each case runs in its own process group; past the time limit the whole group gets
  SIGTERM, then SIGKILL 5 s later, and the case is a *timeout*.
- A case is ``ok``, ``failed`` (non-zero exit), ``timeout``, ``missing`` (exit 0 but no
  expected file), ``wrong-shape`` (a map on another grid than the scan) or ``unreadable``.
  Only ``ok`` outputs are copied out: every other case has no output, so ``napari-mood
  evaluate`` scores it 0 (a missing map counts as zeros, as in the official scorer).
- Inputs are never written: the method sees copies (mode 0444 in a 0555 folder), and the
  size and modification time of every input file is compared before and after the run.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from napari_mood.core.io import MoodInputError, is_nifti, read_sample_score
from napari_mood.core.nifti import read_grid, read_scores
from napari_mood.services.output import Inputs, check_output_folder, write_bytes_atomic

__all__ = [
    "CaseRun",
    "MethodRun",
    "RunStatus",
    "RunTask",
    "build_command",
    "expected_output",
    "input_scans",
    "run_method",
]

RunTask = Literal["pixel", "sample"]
RunStatus = Literal["ok", "failed", "timeout", "missing", "wrong-shape", "unreadable"]
Progress = Callable[[int, int, str], None]

KILL_GRACE = 5.0  # seconds between SIGTERM and SIGKILL of a case past its limit
TAIL_LINES = 5  # lines of the method's output kept for a failed case


@dataclass(frozen=True)
class CaseRun:
    """One case of a run: what happened, how long it took, what went wrong."""

    case: str
    status: RunStatus
    seconds: float
    returncode: int | None
    message: str = ""


@dataclass(frozen=True)
class MethodRun:
    """A whole run: every case in input order, and the input files that changed (none)."""

    command: str
    task: RunTask
    time_limit: float
    cases: tuple[CaseRun, ...]
    changed_inputs: tuple[str, ...] = ()

    def failed(self) -> tuple[CaseRun, ...]:
        """The cases that produced no usable output (they score 0)."""
        return tuple(c for c in self.cases if c.status != "ok")

    def to_dict(self) -> dict[str, object]:
        """A JSON-able summary (``napari-mood run --json``)."""
        return {
            "command": self.command,
            "task": self.task,
            "time_limit": self.time_limit,
            "cases": [c.__dict__ for c in self.cases],
            "failed": [c.case for c in self.failed()],
            "changed_inputs": list(self.changed_inputs),
        }


def build_command(command: str, input_dir: Path, output_dir: Path) -> list[str]:
    """The argument list of one call: placeholders filled, or the two folders appended.

    Examples
    --------
    >>> build_command("python m.py --fast", Path("/in"), Path("/out"))
    ['python', 'm.py', '--fast', '/in', '/out']
    >>> build_command("docker run -v {input}:/mnt/data:ro -v {output}:/mnt/pred img", Path("/i"), Path("/o"))
    ['docker', 'run', '-v', '/i:/mnt/data:ro', '-v', '/o:/mnt/pred', 'img']
    """
    try:
        parts = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"cannot split the command {command!r}: {exc}") from exc
    if not parts:
        raise ValueError("the command is empty")
    if "{input}" in command or "{output}" in command:
        return [
            p.replace("{input}", str(input_dir)).replace("{output}", str(output_dir)) for p in parts
        ]
    return [*parts, str(input_dir), str(output_dir)]


def expected_output(case: str, task: RunTask) -> str:
    """The file the method must write for ``case``: ``CASE.nii.gz`` or ``CASE.nii.gz.txt``."""
    return case if task == "pixel" else f"{case}.txt"


def input_scans(folder: Path) -> tuple[Path, ...]:
    """The scans of an input folder (NIfTI files, hidden ones skipped), sorted.

    Raises
    ------
    MoodInputError
        When the folder does not exist or holds no scan.
    """
    if not folder.is_dir():
        raise MoodInputError(
            folder, "is not a folder", "give the folder of scans (e.g. DATASET/toy)"
        )
    scans = tuple(
        sorted(
            p
            for p in folder.iterdir()
            if not p.name.startswith(".") and is_nifti(p) and p.is_file()
        )
    )
    if not scans:
        raise MoodInputError(
            folder, "holds no .nii / .nii.gz scan", "give the folder of scans (e.g. DATASET/toy)"
        )
    return scans


def _fingerprint(paths: Sequence[Path]) -> dict[str, tuple[int, int]]:
    out = {}
    for path in paths:
        info = path.stat()
        out[str(path)] = (info.st_size, info.st_mtime_ns)
    return out


@contextlib.contextmanager
def _case_folders(scan: Path, root: Path) -> Iterator[tuple[Path, Path]]:
    """A temporary read-only input folder with a copy of ``scan``, and an empty output folder."""
    work = Path(tempfile.mkdtemp(prefix="case-", dir=root))
    given, produced = work / "input", work / "output"
    given.mkdir()
    produced.mkdir()
    copy = given / scan.name
    shutil.copyfile(scan, copy)
    os.chmod(copy, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    os.chmod(given, 0o555)
    try:
        yield given, produced
    finally:
        os.chmod(given, 0o755)
        shutil.rmtree(work, ignore_errors=True)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    for sig, wait in ((signal.SIGTERM, KILL_GRACE), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(log: Path) -> str:
    text = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return " | ".join(line.strip() for line in text[-TAIL_LINES:])


def _execute(argv: list[str], time_limit: float, log: Path) -> tuple[int | None, float, bool]:
    """Run ``argv`` in its own process group; (return code, seconds, timed out)."""
    start = time.perf_counter()
    with log.open("wb") as sink:
        try:
            process = subprocess.Popen(
                argv,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            sink.write(f"cannot start {argv[0]}: {exc.strerror or exc}".encode())
            return None, time.perf_counter() - start, False
        try:
            code = process.wait(timeout=time_limit)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            return None, time.perf_counter() - start, True
        except BaseException:  # Ctrl-C: the method ends with the command
            _kill_group(process)
            raise
        # a process the method left behind in its group must not outlive the case
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    return code, time.perf_counter() - start, False


def _check_output(produced: Path, scan: Path, task: RunTask) -> tuple[RunStatus, str]:
    """Whether the method's output for ``scan`` is usable."""
    if not produced.is_file():
        return "missing", f"no {produced.name} written"
    try:
        if task == "sample":
            read_sample_score(produced)
            return "ok", ""
        found, wanted = read_grid(produced).shape, read_grid(scan).shape
        if found != wanted:
            return "wrong-shape", f"map of shape {found}, the scan has {wanted}"
        read_scores(produced)
    except MoodInputError as exc:
        return "unreadable", exc.problem
    return "ok", ""


def _run_case(
    command: str,
    scan: Path,
    output: Path,
    *,
    task: RunTask,
    time_limit: float,
    root: Path,
    force: bool,
) -> CaseRun:
    with _case_folders(scan, root) as (given, produced):
        log = given.parent / "log.txt"
        code, seconds, timed_out = _execute(
            build_command(command, given, produced), time_limit, log
        )
        tail = _tail(log)
        if timed_out:
            return CaseRun(scan.name, "timeout", seconds, None, f"killed after {time_limit:g} s")
        if code != 0:
            return CaseRun(
                scan.name, "failed", seconds, code, f"exit status {code}: {tail}".strip(": ")
            )
        name = expected_output(scan.name, task)
        status, message = _check_output(produced / name, scan, task)
        if status == "ok":
            write_bytes_atomic(output / name, (produced / name).read_bytes(), replace=force)
        return CaseRun(scan.name, status, seconds, code, message)


def run_method(
    command: str,
    input_dir: str | os.PathLike[str],
    output_dir: str | os.PathLike[str],
    *,
    task: RunTask = "pixel",
    time_limit: float = 600.0,
    force: bool = False,
    progress: Progress | None = None,
) -> MethodRun:
    """Run ``command`` on every scan of ``input_dir``, one case at a time (see module).

    Parameters
    ----------
    command : str
        The method: ``CMD`` of ``CMD INPUT OUTPUT`` (or with ``{input}`` / ``{output}``).
    input_dir, output_dir : path-like
        The folder of scans (read-only) and where the outputs go (output guard: not inside
        the input folder, nothing replaced without ``force``).
    task : {"pixel", "sample"}
        Which file the method writes per case.
    time_limit : float
        Seconds per case (MOOD: 600).
    progress : callable(done, total, case), optional

    Raises
    ------
    MoodInputError
        When the input folder holds no scan or the output folder is refused.
    ValueError
        When the command cannot be split, ``task`` is unknown or the limit is not positive.
    """
    if task not in ("pixel", "sample"):
        raise ValueError(f"task must be 'pixel' or 'sample', got {task!r}")
    if not time_limit > 0:
        raise ValueError(f"time_limit must be positive, got {time_limit}")
    build_command(command, Path("in"), Path("out"))  # refuses an empty or unsplittable command
    source, target = Path(input_dir), Path(output_dir)
    scans = input_scans(source)
    names = [expected_output(s.name, task) for s in scans]
    check_output_folder(
        target, inputs=Inputs(folders=(source,)), force=force, names=names, what="--output"
    )
    target.mkdir(parents=True, exist_ok=True)
    before = _fingerprint(scans)
    runs = []
    with tempfile.TemporaryDirectory(prefix="napari-mood-run-") as root:
        for i, scan in enumerate(scans):
            runs.append(
                _run_case(
                    command,
                    scan,
                    target,
                    task=task,
                    time_limit=time_limit,
                    root=Path(root),
                    force=force,
                )
            )
            if progress is not None:
                progress(i + 1, len(scans), scan.name)
    after = _fingerprint(scans)
    changed = tuple(path for path in before if before[path] != after.get(path))
    return MethodRun(command, task, float(time_limit), tuple(runs), changed)
