"""Own a method's processes and temporary folders: everything of a case ends with the case.

:func:`~napari_mood.services.run_method.run_method` runs each case through
:func:`execute_case`, in the folders of :func:`case_folders`; this module decides which
processes are the case's, how they end, and which leftovers of killed runs are removed.

Folders
-------
Each case runs in its own temporary folder: ``CASE/input`` (a read-only copy of the scan,
mode 0444 in a 0555 folder), ``CASE/output``, ``CASE/work`` (the working directory),
``CASE/tmp`` (``TMPDIR``, ``TMP``, ``TEMP``) and ``CASE/method.log``, all removed after the
case (a failed case's log is kept elsewhere by ``run_method``; a working folder chosen with
``--workdir`` replaces ``CASE/work``), even when the method locked them (chmod 000). The run's case folders live in
``TMP/napari-mood-run-PID-NS-XXXXXXXX`` (``PID``: the napari-mood process, ``NS``: its PID
namespace), made anew if a method removed it; it holds ``.owner.lock``, locked (``flock``)
by the run for as long as its process lives: the kernel releases the lock when the
process dies, however (``kill -9``, a dead process its parent has not reaped yet). A run
first removes the folders, and ends the processes (below), left by runs whose process is
gone (:func:`remove_stale_runs`): a folder whose lock is free. A folder without the lock
(an older version's) goes when its ``PID`` names no live process of this PID namespace (a
zombie is dead); a folder of another user, of another PID namespace without a lock (a
container sharing ``/tmp``), or of a still older version (no ``PID``) is kept.

Processes
---------
Each case's processes are owned, and all end with the case (normal end, failure, timeout,
Ctrl-C or SIGTERM of napari-mood):

- the method's process runs in a new session and process group; past the time limit the
  group and every marked process (next item) get SIGTERM, then SIGKILL ``KILL_GRACE``
  (5 s) later, and the case is a *timeout*; after a normal end they get SIGKILL at once;
- every process of the case carries a unique environment variable
  ``NAPARI_MOOD_RUN_CASE=PID-NS-UUID``; on Linux every process whose ``/proc/PID/environ``
  holds it is killed too (through a pidfd, so never a reused pid), which catches
  processes that left the group (``setsid``, a daemonised grandchild);
- on Linux the method's process gets SIGKILL when napari-mood dies, even by ``kill -9``
  (``PR_SET_PDEATHSIG``); its descendants, which the kernel does not signal, are ended by
  the next run (stale marked processes, above).

Not killed: a process that cleared or rewrote its environment (``env -i``) *and* left the
process group; a process of another user (``sudo``); a docker container, which is a
process of the docker daemon, not ours (the ``docker`` client is killed: give the
container ``--rm`` and a ``--stop-timeout``, or stop it with ``docker kill``). Outside
Linux only the process group is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CASE_MARKER",
    "KILL_GRACE",
    "RUN_LOCK",
    "RUN_PREFIX",
    "CaseFolders",
    "Scratch",
    "case_folders",
    "execute_case",
    "remove_stale_runs",
]

KILL_GRACE = 5.0  # seconds between SIGTERM and SIGKILL of a case past its limit
RUN_PREFIX = "napari-mood-run-"
RUN_LOCK = ".owner.lock"
CASE_MARKER = "NAPARI_MOOD_RUN_CASE"
_PR_SET_PDEATHSIG = 1
_RUN_FOLDER = re.compile(rf"{re.escape(RUN_PREFIX)}(\d+-\d+)-\w+")


# --------------------------------------------------------------------------- marked processes


def _marker_of(pid: int) -> str | None:
    """Return a process's ``NAPARI_MOOD_RUN_CASE`` (Linux), or None (unmarked, gone, not ours)."""
    key = f"{CASE_MARKER}=".encode()
    try:
        environ = Path("/proc", str(pid), "environ").read_bytes()
    except OSError:  # gone meanwhile, another user's, or no /proc
        return None
    for item in environ.split(b"\0"):
        if item.startswith(key):
            return item[len(key) :].decode(errors="replace")
    return None


def _marked_processes() -> dict[int, str]:
    """Every process (ours, Linux) carrying ``NAPARI_MOOD_RUN_CASE``: pid -> its value."""
    try:
        pids = [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) != os.getpid()]
    except FileNotFoundError:  # not Linux
        return {}
    found = {pid: _marker_of(pid) for pid in pids}
    return {pid: marker for pid, marker in found.items() if marker is not None}


def _signal(pid: int, marker: str, sig: int) -> None:
    """Send ``sig`` to ``pid`` if it still carries ``marker`` (a pidfd: never a reused pid)."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except OSError:  # no pidfd (old kernel): the window of a reused pid is tiny
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
        return
    try:
        if _marker_of(pid) == marker:
            signal.pidfd_send_signal(handle, sig)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        os.close(handle)


def _kill_marked(owns: Callable[[str], bool], sig: int, *, rounds: int = 20) -> None:
    """Signal every marked process that ``owns`` claims.

    Signal every marked process whose marker ``owns`` says is ours; with SIGKILL, again
    until none is left (one may fork meanwhile).
    """
    for _ in range(rounds):
        targets = {pid: m for pid, m in _marked_processes().items() if owns(m)}
        for pid, marker in targets.items():
            _signal(pid, marker, sig)
        if not targets or sig != signal.SIGKILL:
            return
        time.sleep(0.02)


def _end_case(process: subprocess.Popen[bytes], marker: str, grace: float | None) -> None:
    """End the case's processes: SIGTERM, ``grace`` seconds, then SIGKILL (``None``: at once)."""

    def kill(sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        _kill_marked(marker.__eq__, sig)

    if grace is not None:
        kill(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace)
    kill(signal.SIGKILL)
    process.wait()


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, killed but not yet reaped, is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    try:
        stat_line = Path("/proc", str(pid), "stat").read_text(encoding="ascii", errors="replace")
    except OSError:  # no /proc, or gone meanwhile
        return True
    return stat_line.rpartition(")")[2].split()[:1] != ["Z"]


def _lock_owned(folder: Path) -> int | None:
    """Create ``folder``/:data:`RUN_LOCK`, locked by this process; return its descriptor.

    The lock (``flock``) lasts as long as the descriptor is open: the kernel releases
    it when the process dies, however. Made under another name, locked, then renamed,
    so a run never finds the lock file unlocked while its owner lives. None where
    ``flock`` does not exist (then the folder's name says whose it is).
    """
    try:
        import fcntl
    except ImportError:  # not on Windows
        return None
    handle, name = tempfile.mkstemp(prefix=".owner.", dir=folder)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(name, folder / RUN_LOCK)
    except OSError:
        os.close(handle)
        with contextlib.suppress(OSError):
            os.unlink(name)
        return None
    return handle


def _owner_gone(folder: Path, tag: str) -> bool:
    """Whether the run that made ``folder`` is gone: its lock is free (else by ``tag``)."""
    try:
        import fcntl
    except ImportError:
        return _stale(tag)
    try:
        handle = os.open(folder / RUN_LOCK, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:  # an older version's folder (or one being made: its PID lives)
        return _stale(tag)
    except OSError:
        return False
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held: its run lives
        return False
    finally:
        os.close(handle)
    return True


def _pid_namespace() -> int:
    """Return this process's PID namespace (Linux; else 0): a PID means something only there."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _owner_tag() -> str:
    """``PID-NAMESPACE`` of this process, in its run folders' names and case markers."""
    return f"{os.getpid()}-{_pid_namespace()}"


def _stale(tag: str) -> bool:
    """Whether ``tag`` (:func:`_owner_tag`) names a process of this namespace that is gone."""
    pid, _, namespace = tag.partition("-")
    if not (pid.isdigit() and namespace.split("-")[0] == str(_pid_namespace())):
        return False
    return not _alive(int(pid))


def remove_stale_runs() -> None:
    """End the processes and remove the temporary folders of runs whose napari-mood died.

    Only what is ours and names a process that no longer exists is touched (see module).
    """
    _kill_marked(_stale, signal.SIGKILL)
    for folder in Path(tempfile.gettempdir()).glob(f"{RUN_PREFIX}*"):
        found = _RUN_FOLDER.fullmatch(folder.name)
        if found is None:
            continue
        with contextlib.suppress(FileNotFoundError):
            info = folder.lstat()
            if not (stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()):
                continue
            if _owner_gone(folder, found.group(1)):
                _remove_tree(folder)


@functools.cache
def _prctl() -> Callable[..., int]:
    return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]


def _die_with_parent() -> Callable[[], None] | None:
    """Return a ``preexec_fn`` giving the method SIGKILL when napari-mood dies (Linux), or None.

    The signal comes when the *thread* that started the method ends: the caller waits for
    the method in that thread, so it ends with the case or with napari-mood.
    """
    if not sys.platform.startswith("linux"):
        return None
    prctl = _prctl()  # looked up before the fork: the child only calls it
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # napari-mood died before prctl took effect
            os._exit(1)

    return preexec


# --------------------------------------------------------------------------- case folders


@dataclass(frozen=True)
class CaseFolders:
    """The temporary folders of one case (see module), all inside ``root``."""

    root: Path

    @property
    def given(self) -> Path:
        """The folder the method reads its input from."""
        return self.root / "input"

    @property
    def produced(self) -> Path:
        """The folder the method writes its output to."""
        return self.root / "output"

    @property
    def work(self) -> Path:
        """The method's working folder."""
        return self.root / "work"

    @property
    def tmp(self) -> Path:
        """The method's temporary folder."""
        return self.root / "tmp"

    @property
    def log(self) -> Path:
        """The file the method's output and errors are logged to."""
        return self.root / "method.log"


def _remove_tree(path: Path) -> None:
    """Remove a folder the method may have locked (chmod 000, read-only subfolders)."""

    def unlock(func: Callable[..., object], failed: str, _exc: object) -> None:
        for place in (Path(failed).parent, Path(failed)):
            if place.is_dir() and not place.is_symlink():
                with contextlib.suppress(OSError):
                    place.chmod(0o700)
        with contextlib.suppress(OSError):
            if func in (os.rmdir, os.unlink, os.remove):
                func(failed)
            elif Path(failed).is_dir() and not Path(failed).is_symlink():
                shutil.rmtree(failed, ignore_errors=True)

    with contextlib.suppress(FileNotFoundError):
        path.chmod(0o700)
    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=unlock)
    else:
        shutil.rmtree(path, onerror=unlock)


class Scratch:
    """The run's temporary folder; made anew if a method removed it."""

    def __init__(self) -> None:
        self.made: list[Path] = []
        self._locks: list[int] = []

    def root(self) -> Path:
        """Return the run's temporary folder, made (again) when missing or not ours.

        Returns
        -------
        pathlib.Path
            The folder.
        """
        if self.made:
            info = _lstat(self.made[-1])
            if info is not None and stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
                return self.made[-1]
        self.made.append(Path(tempfile.mkdtemp(prefix=f"{RUN_PREFIX}{_owner_tag()}-")))
        lock = _lock_owned(self.made[-1])
        if lock is not None:
            self._locks.append(lock)
        return self.made[-1]

    def remove(self) -> None:
        """Remove every temporary folder this run made (and then let go of their locks)."""
        for folder in self.made:
            _remove_tree(folder)
        for lock in self._locks:
            with contextlib.suppress(OSError):
                os.close(lock)
        self._locks.clear()


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def case_folders(scan: Path, scratch: Scratch) -> Iterator[CaseFolders]:
    """Yield the folders of one case: a read-only copy of ``scan``, an empty output, work, tmp.

    Parameters
    ----------
    scan : pathlib.Path
        The case's scan.
    scratch : Scratch
        The run's temporary folder.

    Yields
    ------
    CaseFolders
        The folders, removed afterwards.
    """
    root = Path(tempfile.mkdtemp(prefix="case-", dir=scratch.root()))
    folders = CaseFolders(root)
    try:
        for folder in (folders.given, folders.produced, folders.work, folders.tmp):
            folder.mkdir()
        copy = folders.given / scan.name
        shutil.copyfile(scan, copy)
        os.chmod(copy, stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        os.chmod(folders.given, 0o555)
        yield folders
    finally:
        _remove_tree(root)


def _environment(folders: CaseFolders, marker: str) -> dict[str, str]:
    """Return the method's environment: ours, with the case's temporary folder and marker."""
    tmp = str(folders.tmp)
    return {**os.environ, "TMPDIR": tmp, "TMP": tmp, "TEMP": tmp, CASE_MARKER: marker}


def execute_case(
    argv: list[str], time_limit: float, folders: CaseFolders, *, cwd: Path | None = None
) -> tuple[int | None, float, bool]:
    """Run ``argv`` for one case, its output in the case's log (see module).

    Parameters
    ----------
    argv : list of str
        The command.
    time_limit : float
        Seconds the method may run.
    folders : CaseFolders
        The case's folders.
    cwd : pathlib.Path, optional
        The method's working folder (default: the case's own ``work``, see module).

    Returns
    -------
    (return code, seconds, timed out)
        The return code is None when the program could not be started (why is in the
        log) or ran past ``time_limit`` seconds.
    """
    marker = f"{_owner_tag()}-{uuid.uuid4().hex}"
    start = time.perf_counter()
    with folders.log.open("wb") as sink:
        try:
            process = subprocess.Popen(
                argv,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=folders.work if cwd is None else cwd,
                env=_environment(folders, marker),
                start_new_session=True,
                preexec_fn=_die_with_parent(),
            )
        except OSError as exc:
            sink.write(f"cannot start {argv[0]}: {exc.strerror or exc}".encode())
            return None, time.perf_counter() - start, False
        try:
            code = process.wait(timeout=time_limit)
        except subprocess.TimeoutExpired:
            _end_case(process, marker, KILL_GRACE)
            return None, time.perf_counter() - start, True
        except BaseException:  # Ctrl-C, SIGTERM: the method ends with the command
            _end_case(process, marker, KILL_GRACE)
            raise
        # a process the method left behind must not outlive the case
        _end_case(process, marker, None)
    return code, time.perf_counter() - start, False
