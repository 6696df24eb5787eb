"""Run an anomaly-detection method the MOOD way, one case at a time, and check its outputs.

The MOOD docker contract: ``CMD INPUT_FOLDER OUTPUT_FOLDER`` reads every scan of the input
folder and writes, for each ``CASE.nii.gz``, a score map ``CASE.nii.gz`` (pixel task) or a
score file ``CASE.nii.gz.txt`` (sample task) into the output folder. The challenge runs the
container once per folder; to time each case and to apply the time limit to each case,
:func:`run_method` runs the command once per case on a temporary input folder holding a
read-only *copy* of that one scan (a symbolic link would let a method write into the
original through it), with a fresh temporary output folder. The expected file is then
checked (present, readable, on the scan's grid, no NaN) and copied into the real output
folder through the output guard; anything else the method writes is dropped.

The method's processes and temporary folders are owned by
:mod:`napari_mood.services.run_processes`; the input folder is fingerprinted by
:mod:`napari_mood.services.input_fingerprint`.

Policies
--------
- The command string is split with :func:`shlex.split` (:func:`split_command`: an empty
  command, unbalanced quotes or only one of the two placeholders is refused); the two
  folders are appended, unless it holds the placeholders ``{input}`` and ``{output}``
  (replaced where they stand, e.g. ``docker run --rm -v {input}:/mnt/data:ro -v
  {output}:/mnt/pred my/image ...``). The program (first word, unless it holds a
  placeholder) must be found (:func:`shutil.which`) before the first case runs; a docker
  line checks ``docker``.
- Each case runs in its own temporary folder (``CASE/input``, ``CASE/output``, ``CASE/work``
  the working directory, ``CASE/tmp`` the ``TMPDIR``; see ``run_processes``), removed after
  the case, so nothing the method writes to relative paths or temporary files lands
  anywhere else. ``HOME`` stays the user's: a method finds its model weights and caches
  under ``~`` as it would alone (what it writes there is its own business, as in the
  challenge's container). Since the method does not run where napari-mood was started, a
  command word naming an existing file, or a folder written with a ``/``, relative to that
  place is made absolute (``python method.py`` keeps working); anything else the method
  needs from there (a helper script, a model file opened by a relative path) it must get
  by absolute path, or the run must be given a working folder (``workdir``, ``--workdir
  DIR``): the method then runs in that existing folder, which may not be the input folder
  nor lie inside it, nor inside the output folder (the inputs are fingerprinted as
  always). A failed or missing case's message names the working folder, and its log
  (the method's output and errors) is kept in a folder of its own under the system's
  temporary folder (``napari-mood-logs-*``, :attr:`CaseRun.log`).
- Each case's processes end with the case (normal end, failure, timeout, Ctrl-C or SIGTERM
  of napari-mood): past the time limit they get SIGTERM, then SIGKILL 5 s later, and the
  case is a *timeout*. A run first ends the processes and removes the folders left by runs
  whose napari-mood was killed. Which processes are found, and which are not (a docker
  container: give it ``--rm`` and a ``--stop-timeout``), is in ``run_processes``.
- A case is ``ok``, ``failed`` (non-zero exit, or its scan could not be copied),
  ``timeout``, ``missing`` (exit 0 but no expected file, or the method removed its output
  folder), ``wrong-shape`` (a map on another grid than the scan) or ``unreadable`` (not
  NIfTI / not a number, a symbolic link, NaN voxels, a NaN or infinite score). Only
  ``ok`` outputs are copied out: every other case has no output, so ``napari-mood
  evaluate`` scores it 0 (a missing map counts as zeros, as in the official scorer). A
  method that removes any of its temporary folders costs its own case only.
- Inputs are never written: the method sees copies (mode 0444 in a 0555 folder), and
  every entry under the input folder is fingerprinted by content before and after the run
  (``input_fingerprint``): each new, changed or removed entry is reported
  (:attr:`MethodRun.input_changes`). A scan that is a broken symbolic link, a folder, a
  FIFO or a device is refused before the first case.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from napari_mood.io.errors import MoodInputError, check_regular_file, option
from napari_mood.io.mood import is_nifti, read_sample_score
from napari_mood.io.nifti import read_grid, read_scores
from napari_mood.services.atomic_files import atomic_path
from napari_mood.services.input_fingerprint import (
    InputChange,
    compare_fingerprints,
    fingerprint_folder,
)
from napari_mood.services.output import Inputs, check_output_folder
from napari_mood.services.run_processes import (
    CaseFolders,
    Scratch,
    case_folders,
    execute_case,
    remove_stale_runs,
)

__all__ = [
    "CaseRun",
    "MethodRun",
    "RunStatus",
    "RunTask",
    "build_command",
    "check_program",
    "check_workdir",
    "expected_output",
    "input_scans",
    "run_method",
    "split_command",
]

RunTask = Literal["pixel", "sample"]
RunStatus = Literal["ok", "failed", "timeout", "missing", "wrong-shape", "unreadable"]
Progress = Callable[[int, int, str], None]

TAIL_LINES = 5  # lines of the method's output kept for a failed case
TAIL_BYTES = 8192  # bytes read from the end of the method's log (never the whole log)
TAIL_LINE_CHARS = 300  # a longer line of the log is cut to its last characters
PLACEHOLDERS = ("{input}", "{output}")
LOGS_PREFIX = "napari-mood-logs-"  # the folder keeping a run's logs of failed cases


@dataclass(frozen=True)
class CaseRun:
    """One case of a run: what happened, how long it took, what went wrong."""

    case: str
    status: RunStatus
    seconds: float
    returncode: int | None
    message: str = ""
    log: str = ""  # where the method's log of a failed or missing case is kept


@dataclass(frozen=True)
class MethodRun:
    """A whole run: every case in input order, and the input entries that changed (none)."""

    command: str
    task: RunTask
    time_limit: float
    cases: tuple[CaseRun, ...]
    input_changes: tuple[InputChange, ...] = ()
    workdir: str | None = None  # the working folder given (None: a fresh one per case)

    @property
    def changed_inputs(self) -> tuple[str, ...]:
        """The paths of :attr:`input_changes` (new, changed or removed entries)."""
        return tuple(c.path for c in self.input_changes)

    def failed(self) -> tuple[CaseRun, ...]:
        """Return the cases that produced no usable output (they score 0).

        Returns
        -------
        tuple of CaseRun
            The failed cases, in input order.
        """
        return tuple(c for c in self.cases if c.status != "ok")

    def to_dict(self) -> dict[str, object]:
        """Return a JSON-able summary (``napari-mood run --report``).

        Returns
        -------
        dict
            The command, task, time limit, every case, the failed cases and the input changes.
        """
        return {
            "command": self.command,
            "task": self.task,
            "time_limit": self.time_limit,
            "cases": [asdict(c) for c in self.cases],
            "failed": [c.case for c in self.failed()],
            "changed_inputs": list(self.changed_inputs),
            "input_changes": [asdict(c) for c in self.input_changes],
            "workdir": self.workdir,
        }


# --------------------------------------------------------------------------- the command


def split_command(command: str) -> list[str]:
    """Return the words of a method's command, as a shell splits them.

    Parameters
    ----------
    command : str
        The command line.

    Returns
    -------
    list of str
        The words.

    Raises
    ------
    ValueError
        When the command is empty, has unbalanced quotes, or holds only one of the
        placeholders ``{input}`` / ``{output}``.

    Examples
    --------
    >>> split_command("python 'my method.py' --fast")
    ['python', 'my method.py', '--fast']
    """
    try:
        parts = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"cannot split the command {command!r}: {exc}") from exc
    if not parts:
        raise ValueError("the command is empty")
    present = [p for p in PLACEHOLDERS if p in command]
    if len(present) == 1:
        missing = next(p for p in PLACEHOLDERS if p not in present)
        raise ValueError(f"the command holds {present[0]} but not {missing}: give both or none")
    return parts


def build_command(command: str, input_dir: Path, output_dir: Path) -> list[str]:
    """Return the argument list of one call: placeholders filled, or the two folders appended.

    Parameters
    ----------
    command : str
        The command line, with or without ``{input}`` and ``{output}``.
    input_dir : pathlib.Path
        The case's input folder.
    output_dir : pathlib.Path
        The case's output folder.

    Returns
    -------
    list of str
        The arguments.

    Examples
    --------
    >>> build_command("python m.py --fast", Path("/in"), Path("/out"))
    ['python', 'm.py', '--fast', '/in', '/out']
    >>> build_command("docker run -v {input}:/mnt/data:ro -v {output}:/mnt/pred img", Path("/i"), Path("/o"))
    ['docker', 'run', '-v', '/i:/mnt/data:ro', '-v', '/o:/mnt/pred', 'img']
    """
    return _fill(split_command(command), input_dir, output_dir)


def _fill(words: list[str], input_dir: Path, output_dir: Path) -> list[str]:
    """Return the command's words with the placeholders filled, or the two folders appended."""
    if not any(p in word for word in words for p in PLACEHOLDERS):
        return [*words, str(input_dir), str(output_dir)]
    return [
        w.replace("{input}", str(input_dir)).replace("{output}", str(output_dir)) for w in words
    ]


def _absolute(words: list[str], start: Path) -> list[str]:
    """Make the relative paths in a command's words absolute.

    The words with relative paths made absolute (see module): the program when written
    with a ``/``; an argument naming an existing file, or a folder written with a ``/``.
    """
    out = []
    for i, word in enumerate(words):
        place = start / word
        relative = not (os.path.isabs(word) or word.startswith("-"))
        if relative and not any(p in word for p in PLACEHOLDERS):
            named = "/" in word and (i == 0 or place.is_dir()) or (i > 0 and place.is_file())
            word = str(place.absolute()) if named else word
        out.append(word)
    return out


def check_program(command: str) -> None:
    """Refuse a command whose program cannot be started (before the first case).

    Parameters
    ----------
    command : str
        The command line.

    Raises
    ------
    MoodInputError
        Naming the program: missing, a folder, not executable, or not on ``PATH``.
    ValueError
        When the command cannot be split (:func:`split_command`).
    """
    program = split_command(command)[0]
    if any(p in program for p in PLACEHOLDERS) or shutil.which(program) is not None:
        return
    if "/" not in program:
        raise MoodInputError(
            program, "is not a program on PATH", "install it, or give the path of the method"
        )
    place = Path(program)
    if place.is_dir():
        raise MoodInputError(place, "is a folder, not a program", "give the method's program")
    if place.exists():
        raise MoodInputError(
            place,
            "is not executable",
            f"chmod +x it, or start the command with its interpreter: 'python {program}'",
        )
    raise MoodInputError(place, "does not exist", "give the path of the method's program")


def expected_output(case: str, task: RunTask) -> str:
    """Return the file the method must write for ``case``: ``CASE.nii.gz`` or ``CASE.nii.gz.txt``.

    Parameters
    ----------
    case : str
        The scan's file name.
    task : {"pixel", "sample"}
        The task run.

    Returns
    -------
    str
        The output's file name.
    """
    return case if task == "pixel" else f"{case}.txt"


def input_scans(folder: Path) -> tuple[Path, ...]:
    """Return the scans of an input folder (NIfTI files, hidden ones skipped), sorted.

    Parameters
    ----------
    folder : pathlib.Path
        The folder of scans.

    Returns
    -------
    tuple of pathlib.Path
        The scans.

    Raises
    ------
    MoodInputError
        When the folder does not exist or holds no scan, or when a scan is a broken
        symbolic link, a folder, a FIFO or a device (it would silently not be run).
    """
    if not folder.is_dir():
        raise MoodInputError(
            folder, "is not a folder", "give the folder of scans (e.g. DATASET/toy)"
        )
    scans = tuple(
        sorted(
            check_regular_file(p, what="scan")
            for p in folder.iterdir()
            if not p.name.startswith(".") and is_nifti(p)
        )
    )
    if not scans:
        raise MoodInputError(
            folder, "holds no .nii / .nii.gz scan", "give the folder of scans (e.g. DATASET/toy)"
        )
    return scans


# --------------------------------------------------------------------------- one case


def _tail(log: Path) -> str:
    """Return the last lines of the method's output, read from the end of the log only."""
    try:
        with log.open("rb") as stream:
            size = stream.seek(0, os.SEEK_END)
            stream.seek(max(0, size - TAIL_BYTES))
            lines = stream.read(TAIL_BYTES).decode("utf-8", errors="replace").splitlines()
    except OSError:  # the method removed its log (or locked it): no tail to show
        return ""
    if size > TAIL_BYTES:
        lines = lines[1:]  # the first line read is cut
    kept = [line.strip() for line in lines if line.strip()][-TAIL_LINES:]
    return " | ".join(
        line if len(line) <= TAIL_LINE_CHARS else "..." + line[-TAIL_LINE_CHARS:] for line in kept
    )


def _check_output(produced: Path, scan: Path, task: RunTask) -> tuple[RunStatus, str]:
    """Whether the method's output for ``scan`` is usable."""
    folder = produced.parent
    if folder.is_symlink() or not folder.is_dir():
        return "missing", "the method removed its temporary output folder"
    if produced.is_symlink():
        return "unreadable", f"{produced.name} is a symbolic link (write the file itself)"
    if not produced.is_file():
        return "missing", f"no {produced.name} written"
    try:
        if task == "sample":
            value = read_sample_score(produced, clip=False)
            if value != value or value in (float("inf"), float("-inf")):
                return "unreadable", f"the score is {value} (NaN and infinity are not scores)"
            return "ok", ""
        found, wanted = read_grid(produced).shape, read_grid(scan).shape
        if found != wanted:
            return "wrong-shape", f"map of shape {found}, the scan has {wanted}"
        n_nan = read_scores(produced).n_nan
    except MoodInputError as exc:
        return "unreadable", exc.problem
    if n_nan:
        return "unreadable", f"{n_nan} NaN voxel{'s' * (n_nan > 1)} (write scores in [0, 1])"
    return "ok", ""


def _copy_out(source: Path, target: Path, *, replace: bool) -> None:
    """Copy a checked output into place through the output guard (streamed, atomic)."""
    with atomic_path(target, replace=replace) as temporary:
        shutil.copyfile(source, temporary)
        with temporary.open("rb+") as stream:
            os.fsync(stream.fileno())


class _Logs:
    """Where the logs of failed cases are kept: one folder per run, made at the first one."""

    def __init__(self) -> None:
        self.folder: Path | None = None

    def keep(self, log: Path, case: str) -> str:
        """Copy ``log`` out of the case's folder; return its new path ('' when it is gone)."""
        if not log.is_file():
            return ""
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix=LOGS_PREFIX))
        kept = self.folder / f"{case}.log"
        try:
            shutil.copyfile(log, kept)
        except OSError:
            return ""
        return str(kept)


def _where(cwd: Path | None, folders: CaseFolders, log: str) -> str:
    """Say where the method ran and where its log is, for a failed or missing case."""
    place = f"ran in {folders.work}, a fresh, empty folder" if cwd is None else f"ran in {cwd}"
    return f"{place}; log: {log}" if log else place


def _run_case(
    argv: list[str],
    scan: Path,
    output: Path,
    *,
    task: RunTask,
    time_limit: float,
    scratch: Scratch,
    force: bool,
    cwd: Path | None = None,
    logs: _Logs | None = None,
) -> CaseRun:
    with case_folders(scan, scratch) as folders:
        call = _fill(argv, folders.given, folders.produced)
        code, seconds, timed_out = execute_case(call, time_limit, folders, cwd=cwd)
        if timed_out:
            return CaseRun(scan.name, "timeout", seconds, None, f"killed after {time_limit:g} s")
        name = expected_output(scan.name, task)
        status: RunStatus = "failed"
        message = ""
        if code == 0:
            status, message = _check_output(folders.produced / name, scan, task)
        if status == "ok":
            _copy_out(folders.produced / name, output / name, replace=force)
            return CaseRun(scan.name, status, seconds, code, message)
        log = (logs or _Logs()).keep(folders.log, scan.name)
        where = _where(cwd, folders, log)
        if code != 0:  # where first: the tail can be long
            message = f"exit status {code} ({where}): {_tail(folders.log)}".rstrip(": ")
        else:
            message = f"{message} ({where})"
        return CaseRun(scan.name, status, seconds, code, message, log)


def check_workdir(
    workdir: str | os.PathLike[str], input_dir: Path, output_dir: Path | None = None
) -> Path:
    """Refuse a working folder for the method that is missing or among its inputs or outputs.

    Parameters
    ----------
    workdir : path-like
        The folder the method is to run in (``--workdir``).
    input_dir : pathlib.Path
        The folder of scans: the working folder may not be it nor lie inside it.
    output_dir : pathlib.Path, optional
        The output folder: the working folder may not be it nor lie inside it.

    Returns
    -------
    pathlib.Path
        The working folder, absolute.

    Raises
    ------
    MoodInputError
        When it is not an existing folder, or is (inside) the input or output folder.

    Examples
    --------
    >>> check_workdir("data/toy", Path("data/toy"))  # doctest: +SKIP
    Traceback (most recent call last):
    ...
    napari_mood.services.output.OutputRefused: data/toy: --workdir would be written inside the input folder ...
    """
    what = option("--workdir", "the working folder")
    folder = Path(workdir).expanduser()
    if not folder.is_dir():
        raise MoodInputError(folder, f"{what} is not an existing folder", "give a folder")
    check_output_folder(folder, inputs=Inputs(folders=(input_dir,)), force=True, what=what)
    if output_dir is not None and Inputs(folders=(output_dir,)).holder(folder) is not None:
        raise MoodInputError(
            folder,
            f"{what} is, or lies inside, the output folder {output_dir}",
            "what the method writes there would mix with its outputs: choose another folder",
        )
    return folder.absolute()


def _prepare(command: str) -> list[str]:
    """Return the command's words, relative paths made absolute, its program checked."""
    check_program(command)
    try:
        start = Path.cwd()
    except FileNotFoundError:  # started from a removed folder: nothing relative to resolve
        return split_command(command)
    return _absolute(split_command(command), start)


def run_method(
    command: str,
    input_dir: str | os.PathLike[str],
    output_dir: str | os.PathLike[str],
    *,
    task: RunTask = "pixel",
    time_limit: float = 600.0,
    force: bool = False,
    progress: Progress | None = None,
    workdir: str | os.PathLike[str] | None = None,
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
    force : bool
        Whether existing outputs in ``output_dir`` may be replaced.
    progress : callable(done, total, case), optional
        Called after each case.
    workdir : path-like, optional
        The method's working folder (:func:`check_workdir`); default: a fresh, empty
        folder per case, removed after it.

    Returns
    -------
    MethodRun
        Every case's status, time, return code and message, and the input entries the
        method changed.

    Raises
    ------
    MoodInputError
        When the program is not found, the input folder holds no scan (or a broken one),
        the output folder or the working folder is refused; nothing has run then.
    ValueError
        When the command cannot be split, ``task`` is unknown or the limit is not positive.

    Examples
    --------
    >>> run = run_method("python method.py", "DATASET/toy", "methods/mine")  # doctest: +SKIP
    >>> [c.case for c in run.failed()]  # doctest: +SKIP
    ['toy_3.nii.gz']
    """
    if task not in ("pixel", "sample"):
        raise ValueError(f"task must be 'pixel' or 'sample', got {task!r}")
    if not time_limit > 0:
        raise ValueError(f"time_limit must be positive, got {time_limit}")
    argv = _prepare(command)
    source, target = Path(input_dir), Path(output_dir)
    scans = input_scans(source)
    names = [expected_output(s.name, task) for s in scans]
    check_output_folder(
        target,
        inputs=Inputs(folders=(source,)),
        force=force,
        names=names,
        what=option("--out", "the output"),
    )
    cwd = None if workdir is None else check_workdir(workdir, source, target)
    created = not target.exists()
    runs = []
    scratch: Scratch | None = None
    try:  # from the folder's making on: an interrupt anywhere takes an unused folder away
        target.mkdir(parents=True, exist_ok=True)
        remove_stale_runs()
        before = fingerprint_folder(source)
        scratch, logs = Scratch(), _Logs()
        for i, scan in enumerate(scans):
            case = _Case(task, time_limit, scratch, force, cwd, logs)
            runs.append(_one_case(argv, scan, target, case))
            if progress is not None:
                progress(i + 1, len(scans), scan.name)
    except BaseException:  # interrupted: an output folder made for nothing goes too
        if created:
            with contextlib.suppress(OSError):
                target.rmdir()  # only when empty: a case's copied output stays
        raise
    finally:
        if scratch is not None:
            scratch.remove()
    changes = compare_fingerprints(before, fingerprint_folder(source))
    shown = None if cwd is None else str(cwd)
    return MethodRun(command, task, float(time_limit), tuple(runs), changes, shown)


@dataclass(frozen=True)
class _Case:
    """How every case of a run is run."""

    task: RunTask
    time_limit: float
    scratch: Scratch
    force: bool
    cwd: Path | None
    logs: _Logs


def _one_case(argv: list[str], scan: Path, target: Path, how: _Case) -> CaseRun:
    """One case; a scan that cannot be copied (removed or replaced meanwhile) fails alone."""
    try:
        check_regular_file(scan, what="scan")
        return _run_case(
            argv,
            scan,
            target,
            task=how.task,
            time_limit=how.time_limit,
            scratch=how.scratch,
            force=how.force,
            cwd=how.cwd,
            logs=how.logs,
        )
    except MoodInputError as exc:
        if exc.path != scan:
            raise
        return CaseRun(scan.name, "failed", 0.0, None, f"cannot use the scan: {exc.problem}")
    except OSError as exc:
        if exc.filename is None or Path(exc.filename) != scan:
            raise
        reason = exc.strerror or str(exc)
        return CaseRun(scan.name, "failed", 0.0, None, f"cannot use the scan: {reason}")
