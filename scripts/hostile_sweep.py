"""A hostile sweep of the command line: a user's files, crafted NIfTI, output names, killed runs.

Each try runs ``napari-mood`` as a careless or malicious user would, in a child process
capped at 3 GB of address space and 60 s (``RLIMIT_AS``), with every input's and user
file's sha256 taken before and after, and is counted as one of

- ``clean``: the expected exit status, no traceback, every refusal naming its file;
- ``traceback``: a Python traceback, a MemoryError, a signal or a time-out;
- ``wrong``: another exit status than expected, or a result it should not give;
- ``modified``: an input or a user's file changed or removed;
- ``partial``: a temporary folder or file left (``.part``, ``.old``, a dead run's folder),
  or an output written although the command was refused;
- ``unclear``: refused, but the message does not name what it refuses.

Usage (from the repository; about 10 minutes on two busy cores)::

    python scripts/hostile_sweep.py [--only CLASS] [--keep DIR]

The classes are the ones of issue 47 item 1 and 3: ``force`` (``--force`` onto generated
datasets holding a user's files), ``memory`` (headers declaring more than memory holds),
``names`` (output names no file system takes), ``killed`` (``kill -9`` of ``run``),
``figure`` (scans with NaN or infinities).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import nibabel as nib
import numpy as np

GIB = 1 << 30
CAP = 3 * GIB
LIMIT_S = 60.0
KINDS = ("clean", "traceback", "wrong", "modified", "partial", "unclear")


@dataclass
class Try:
    """One try: the command, what it may say and do, and the files that must not change."""

    name: str
    argv: list[str]
    codes: tuple[int, ...] = (0,)
    names: tuple[str, ...] = ()  # one of them must be in the output (a refusal's subject)
    said: tuple[str, ...] = ()  # each must be in the output
    not_said: tuple[str, ...] = ()  # none may be in the output
    kept: tuple[Path, ...] = ()  # folders/files whose content must not change
    absent: tuple[Path, ...] = ()  # must not exist afterwards
    leftovers: tuple[Path, ...] = ()  # folders where no .part / .old may be left
    before: Callable[[], None] | None = None
    after: Callable[[], str | None] | None = None  # returns a kind to count, or None
    env: dict[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- running


def _cap() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _napari_mood(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    command = [sys.executable, "-m", "napari_mood.cli", *argv]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            errors="replace",
            preexec_fn=_cap,
            timeout=LIMIT_S,
            env={**os.environ, **env},
            check=False,
        )
    except subprocess.TimeoutExpired as timeout:
        return -999, f"time-out after {LIMIT_S:.0f} s\n{timeout.stderr or ''}"
    return done.returncode, done.stdout + done.stderr


def _sums(paths: tuple[Path, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    for root in paths:
        if not root.exists() and not root.is_symlink():
            found[str(root)] = "missing"
            continue
        files = [root] if not root.is_dir() else sorted(root.rglob("*"))
        for path in files:
            info = path.lstat()
            if stat.S_ISREG(info.st_mode) and os.access(path, os.R_OK):
                found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISLNK(info.st_mode):
                found[str(path)] = "link:" + os.readlink(path)
            else:
                found[str(path)] = f"mode:{stat.S_IFMT(info.st_mode)}"
    return found


def _left(folders: tuple[Path, ...]) -> list[str]:
    left = []
    for folder in folders:
        if folder.is_dir():
            left += [p.name for p in folder.iterdir() if p.name.endswith((".part", ".old"))]
    return left


def run(attempt: Try) -> tuple[str, str]:
    """Run one try; return its kind and a line saying why."""
    if attempt.before is not None:
        attempt.before()
    sums = _sums(attempt.kept)
    code, said = _napari_mood(attempt.argv, attempt.env)
    if "Traceback" in said or "MemoryError" in said or code not in (0, 1, 2, 130, 143):
        return "traceback", f"exit {code}: {said.strip().splitlines()[-1:] or ''}"
    if _sums(attempt.kept) != sums:
        return "modified", "an input or a user's file changed"
    if _left(attempt.leftovers) or any(p.exists() for p in attempt.absent):
        return (
            "partial",
            f"left: {_left(attempt.leftovers)} {[str(p) for p in attempt.absent if p.exists()]}",
        )
    if code not in attempt.codes:
        return "wrong", f"exit {code}, expected {attempt.codes}: {said.strip()[-300:]}"
    missing = [s for s in attempt.said if s not in said]
    if missing or any(s in said for s in attempt.not_said):
        return (
            "wrong",
            f"missing {missing} or said one of {attempt.not_said}: {said.strip()[-300:]}",
        )
    if attempt.names and not any(n in said for n in attempt.names):
        return "unclear", f"names none of {attempt.names}: {said.strip()[-300:]}"
    if attempt.after is not None:
        kind = attempt.after()
        if kind is not None:
            return kind, "after-check"
    return "clean", ""


# --------------------------------------------------------------------------- inputs


def _nifti(path: Path, data: np.ndarray, affine: np.ndarray | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nib.save(nib.Nifti1Image(data, np.eye(4) if affine is None else affine), path)
    return path


def make_dataset(root: Path) -> Path:
    """Three cases of 24^3 (one normal), a method ``a`` in DATASET/methods."""
    rng = np.random.default_rng(0)
    for i in range(3):
        scan = np.zeros((24, 24, 24), np.float32)
        scan[3:21, 3:21, 3:21] = 0.5 + 0.05 * rng.standard_normal((18, 18, 18))
        mask = np.zeros(scan.shape, np.uint8)
        if i:
            mask[8:12, 8:12, 6 + 3 * i : 10 + 3 * i] = 1
        scan[mask > 0] = 0.9
        _nifti(root / "toy" / f"c{i}.nii.gz", scan)
        _nifti(root / "toy_label" / "pixel" / f"c{i}.nii.gz", mask)
        (root / "toy_label" / "sample").mkdir(parents=True, exist_ok=True)
        (root / "toy_label" / "sample" / f"c{i}.nii.gz.txt").write_text(f"{int(i > 0)}\n")
        score = np.where(mask > 0, 0.8, 0.1).astype(np.float32)
        _nifti(root / "methods" / "a" / f"c{i}.nii.gz", score)
        (root / "methods" / "a" / f"c{i}.nii.gz.txt").write_text(f"0.{i + 2}\n")
    return root


def craft_gz(
    path: Path, shape: tuple[int, ...], dtype: str, inflated: int, members: int = 1
) -> Path:
    """A .nii.gz declaring ``shape`` whose stream inflates to ``inflated`` zero bytes (cheap)."""
    header = nib.Nifti1Header()
    header.set_data_dtype(dtype)
    header.set_data_shape(shape)
    header["vox_offset"] = 352
    head = header.binaryblock + b"\0" * 4
    blobs = []
    per = max(1, (inflated >> 20) // members)
    for m in range(members):
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        start = (packer.compress(head) if m == 0 else b"") + packer.flush(zlib.Z_FULL_FLUSH)
        block = packer.compress(bytes(1 << 20)) + packer.flush(zlib.Z_FULL_FLUSH)
        size = ((len(head) if m == 0 else 0) + (per << 20)) & 0xFFFFFFFF
        trailer = packer.flush() + struct.pack("<II", 0, size)
        blobs.append(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + start + block * per + trailer)
    path.write_bytes(b"".join(blobs))
    return path


def craft_sparse_nii(path: Path, shape: tuple[int, ...], dtype: str) -> Path:
    """A plain .nii of that size, as a sparse file (no disk used)."""
    header = nib.Nifti1Header()
    header.set_data_dtype(dtype)
    header.set_data_shape(shape)
    header["vox_offset"] = 352
    with path.open("wb") as stream:
        stream.write(header.binaryblock + b"\0" * 4)
        stream.truncate(352 + int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize)
    return path


# --------------------------------------------------------------------------- the classes


GENERATORS = {
    "simulate": lambda src, out: ["simulate", str(src / "toy" / "c1.nii.gz"), "--out", str(out), "--count", "1"],
    "pet": lambda src, out: ["simulate", str(src / "pet" / "s0.nii.gz"), "--kind", "pet", "--mask",
                             str(src / "pet" / "atlas.nii.gz"), "--region-name", "ad", "--degree", "0.2",
                             "--out", str(out)],
    "sweep": lambda src, out: ["sweep", "size", str(src / "toy" / "c1.nii.gz"), "--radii", "1,2", "--out", str(out)],
    "pet-sample": lambda src, out: ["pet-sample", "--step", "8", "--subjects", "1", "--out", str(out)],
}  # fmt: skip


def _user_files(out: Path) -> dict[str, Callable[[], Path]]:
    def text(rel: str) -> Callable[[], Path]:
        def make() -> Path:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_text("mine\n")
            return out / rel

        return make

    def edited() -> Path:
        first = sorted(p for p in out.rglob("*.nii.gz") if p.is_file())[0]
        with first.open("ab") as stream:
            stream.write(b"edit")
        return first

    def link() -> Path:
        (out / "link_to_mine").symlink_to(out.parent / "elsewhere.txt")
        return out / "link_to_mine"

    def fifo() -> Path:
        os.mkfifo(out / "pipe")
        return out / "pipe"

    def empty() -> Path:
        (out / "methods" / "empty").mkdir(parents=True)
        return out / "methods" / "empty"

    def many() -> Path:
        for i in range(9):
            (out / f"mine_{i}.txt").write_text("x")
        return out / "mine_0.txt"

    return {
        "NOTES.txt": text("NOTES.txt"),
        "method output": text("methods/mine/CASE.nii.gz"),
        "case-like name in toy/": text("toy/zz_mine.nii.gz"),
        "hidden file": text(".DS_Store"),
        "deep file": text("a/b/c/d/e.txt"),
        "edited generated file": edited,
        "link": link,
        "fifo": fifo,
        "empty folder": empty,
        "nine files": many,
    }


def force_tries(work: Path, src: Path) -> Iterator[Try]:
    for gen, argv_of in GENERATORS.items():
        for label in list(_user_files(work / "x")) + ["legacy, nothing else", "legacy + NOTES.txt"]:
            out = work / f"force-{gen}-{label.replace(' ', '_').replace('/', '_')}"
            base = argv_of(src, out)
            state: dict[str, Path] = {}

            def before(out: Path = out, base: list[str] = base, label: str = label,
                       state: dict[str, Path] = state) -> None:  # fmt: skip
                code, said = _napari_mood([*base, "--quiet"], {})
                assert code == 0, said
                (out.parent / "elsewhere.txt").write_text("mine\n")
                if label.startswith("legacy"):
                    (out / ".napari-mood-generated").write_text("Written by napari-mood.\n")
                    if label.endswith("NOTES.txt"):
                        (out / "NOTES.txt").write_text("mine\n")
                        state["user"] = out / "NOTES.txt"
                else:
                    state["user"] = _user_files(out)[label]()

            legacy_ok = label == "legacy, nothing else"
            kept = (out,) if not legacy_ok else (src,)
            yield Try(
                f"force/{gen}/{label}",
                [*base, "--force"],
                codes=(0,) if legacy_ok else (1,),
                names=(str(out),),
                kept=kept,
                leftovers=(work,),
                before=before,
            )


def memory_tries(work: Path, data: Path) -> Iterator[Try]:
    crafts = {
        "uint8 4 GiB, 4 MB gzip": lambda p: craft_gz(p, (2048, 2048, 1024), "uint8", 4 * GIB),
        "int16 2 GiB, 2 MB gzip": lambda p: craft_gz(p, (1024, 1024, 1024), "int16", 2 * GIB),
        "float32 16 GiB, 4 GiB stream": lambda p: craft_gz(p, (2048, 2048, 1024), "float32", 4 * GIB),
        "uint8 4 GiB, 4 members": lambda p: craft_gz(p, (2048, 2048, 1024), "uint8", 4 * GIB, 4),
        "uint8 1 GiB (fits?)": lambda p: craft_gz(p, (1024, 1024, 1024), "uint8", GIB),
    }  # fmt: skip
    commands = {
        "evaluate": ["evaluate", "--task", "pixel", "--workers", "1"],
        "evaluate sample+pixel": ["evaluate", "--workers", "1"],
        "validate": ["validate"],
        "figure": ["figure", "--cases", "c1", "--out", "FIG", "--force"],
    }
    for craft_name, craft in crafts.items():
        for role in ("methods/a", "toy_label/pixel", "toy"):
            for command, argv in commands.items():
                if role == "toy" and command.startswith("evaluate"):
                    continue  # evaluate never reads scans
                copy = work / f"mem-{len(list(work.iterdir()))}"
                target = copy / role / "c1.nii.gz"

                def before(copy: Path = copy, target: Path = target, craft=craft) -> None:
                    shutil.copytree(data, copy)
                    target.unlink()
                    craft(target)

                figure = str(work / f"{copy.name}.png")
                # validate reads a scan's header only: it names the scan beside its label
                shown = (str(target), "its scan c1.nii.gz") if role == "toy" else (str(target),)
                fits = "fits" in craft_name
                codes = (1,) if command == "validate" and not fits else (0, 1)
                if command == "figure" and role == "toy":
                    codes = (1,)  # the asked-for case has no scan to show
                yield Try(
                    f"memory/{craft_name}/{role}/{command}",
                    [*(figure if a == "FIG" else a for a in argv), str(copy)],
                    codes=(0, 1) if fits else codes,
                    names=() if fits else shown,
                    kept=(),
                    leftovers=(work,),
                    before=before,
                )


NAME_KINDS = {
    "300-byte name": lambda base: base / ("x" * 300),
    "300-byte folder": lambda base: base / ("x" * 300) / "out",
    "245-byte name (its temporary is too long)": lambda base: base / ("y" * 245),
    "path over PATH_MAX": lambda base: base.joinpath(*(["z" * 200] * 22), "out"),
    "newline in name": lambda base: base / "a\nb",
    "leading dash": lambda base: base / "-out",
    "control character": lambda base: base / "a\x01b",
    "under /proc": lambda base: Path("/proc/self/napari_mood_out"),
    "under a read-only folder": lambda base: base / "ro" / "out",
    "existing file as folder parent": lambda base: base / "afile" / "out",
    "non-UTF-8 bytes": lambda base: base / os.fsdecode(b"caf\xe9"),
}


def name_tries(work: Path, data: Path) -> Iterator[Try]:
    journal = work / "journals" / "ana.csv"
    options = {
        "evaluate --out": (["evaluate", str(data)], "--out", ".csv"),
        "evaluate --report": (["evaluate", str(data)], "--report", ""),
        "evaluate --cache": (["evaluate", str(data)], "--cache", ""),
        "figure --out": (["figure", str(data)], "--out", ".png"),
        "simulate --out": (["simulate", str(data / "toy" / "c1.nii.gz"), "--count", "1"], "--out", ""),
        "sweep --out": (["sweep", "size", str(data / "toy" / "c1.nii.gz"), "--radii", "1"], "--out", ""),
        "pet-sample --out": (["pet-sample", "--step", "8", "--subjects", "1"], "--out", ""),
        "run --out": (["run", "true", str(data / "toy")], "--out", ""),
        "run --report": (["run", "true", str(data / "toy"), "--out", str(work / "runout")], "--report", ".json"),
        "review-report --out": (["review-report", str(journal)], "--out", ""),
        "review-report --plot": (["review-report", str(journal), "--out", str(work / "rr")], "--plot", ".png"),
    }  # fmt: skip
    (work / "ro").mkdir(exist_ok=True)
    (work / "ro").chmod(0o555)
    (work / "afile").write_text("a file\n")
    for option, (argv, flag, suffix) in options.items():
        for kind, make in NAME_KINDS.items():
            path = make(work)
            if suffix and kind not in ("300-byte folder", "path over PATH_MAX"):
                path = path.with_name(path.name + suffix)
            elif suffix:
                path = path.with_name("out" + suffix)
            ok_kinds = ("newline in name", "leading dash", "control character", "non-UTF-8 bytes")
            fine = kind in ok_kinds
            codes = (0, 1) if fine else (1,)
            shown: tuple[str, ...] = (str(work),)  # long parts are shown shortened
            if kind == "under /proc":
                shown = ("/proc/self",)
            if option == "evaluate --cache" and kind in ("under /proc", "under a read-only folder"):
                codes, fine = (0, 1), True  # a warning (silenced by --quiet), no cache
            if kind == "under a read-only folder" and os.geteuid() == 0:
                codes, fine = (0, 1), True  # root writes anywhere
            yield Try(
                f"names/{option}/{kind}",
                [*argv, flag, str(path), "--quiet"],
                codes=codes,
                names=() if fine else shown,
                kept=(data,),
                leftovers=(work,),
            )


def killed_tries(work: Path, data: Path) -> Iterator[Try]:
    tmp = work / "tmpdir"
    for reap in (True, False):
        for delay in (0.0, 0.5, 2.0):
            out = work / f"killed-{reap}-{delay}"

            def before(out: Path = out, reap: bool = reap, delay: float = delay) -> None:
                tmp.mkdir(exist_ok=True)
                env = {**os.environ, "TMPDIR": str(tmp)}
                argv = [sys.executable, "-m", "napari_mood.cli", "run", "sleep 120",
                        str(data / "toy"), "--out", str(out), "--quiet"]  # fmt: skip
                proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)  # fmt: skip
                deadline = time.monotonic() + 60
                while not list(tmp.glob(f"napari-mood-run-{proc.pid}-*/case-*/input/*")):
                    if time.monotonic() > deadline or proc.poll() is not None:
                        break
                    time.sleep(0.05)
                time.sleep(delay)
                proc.send_signal(signal.SIGKILL)
                if reap or proc.returncode is not None:  # (poll() may have reaped it)
                    proc.wait()
                else:
                    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
                    _ZOMBIES.append(proc)

            def after() -> str | None:
                left = list(tmp.glob("napari-mood-run-*"))
                return "partial" if left else None

            yield Try(
                f"killed/reaped={reap}/after {delay}s",
                ["run", "true", str(data / "toy"), "--out", str(out) + "-next", "--quiet"],
                codes=(0,),
                kept=(data,),
                before=before,
                after=after,
                env={"TMPDIR": str(tmp)},
            )


_ZOMBIES: list[subprocess.Popen[bytes]] = []


def figure_tries(work: Path, data: Path) -> Iterator[Try]:
    def spoil(how: str) -> Callable[[np.ndarray], np.ndarray]:
        def apply(values: np.ndarray) -> np.ndarray:
            values = values.copy()
            body = values > 0.3
            if how == "+inf few":
                values[10, 10, 10] = np.inf
            elif how == "+inf many":
                values[body] = np.inf
            elif how == "-inf many":
                values[~body] = -np.inf
            elif how == "nan many":
                values[~body] = np.nan
            elif how == "all +inf":
                values[:] = np.inf
            elif how == "all nan":
                values[:] = np.nan
            elif how == "+inf and -inf":
                values[body] = np.inf
                values[~body] = -np.inf
            elif how == "huge finite":
                values[body] = 3e38
            return values

        return apply

    for how in ("+inf few", "+inf many", "-inf many", "nan many", "all +inf", "all nan",
                "+inf and -inf", "huge finite"):  # fmt: skip
        for role in ("toy", "methods/a"):
            copy = work / f"fig-{how.replace(' ', '_')}-{role.replace('/', '_')}"

            def before(copy: Path = copy, role: str = role, how: str = how) -> None:
                shutil.copytree(data, copy)
                path = copy / role / "c1.nii.gz"
                image = nib.load(path)
                values = spoil(how)(np.asarray(image.dataobj, dtype=np.float32))
                _nifti(path, values, image.affine)

            target = copy / role / "c1.nii.gz"
            yield Try(
                f"figure/{how}/{role}",
                ["figure", str(copy), "--cases", "c1", "--out", str(work / f"{copy.name}.png")],
                codes=(0,),
                names=(str(target),) if how != "huge finite" else (),
                not_said=("runtime:", "invalid value encountered"),
                leftovers=(work,),
                before=before,
            )


CLASSES = {
    "force": force_tries,
    "memory": memory_tries,
    "names": name_tries,
    "killed": killed_tries,
    "figure": figure_tries,
}


def _sources(work: Path) -> tuple[Path, Path]:
    data = make_dataset(work / "data")
    src = work / "src"
    shutil.copytree(data, src)
    scans = np.full((12, 12, 12), 0.5, np.float32)
    _nifti(src / "pet" / "s0.nii.gz", scans)
    atlas = np.zeros((12, 12, 12), np.uint8)
    atlas[2:5, 2:5, 2:5] = 1
    _nifti(src / "pet" / "atlas.nii.gz", atlas)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.reader_journals import random_readers, write_reader

    write_reader(work / "journals" / "ana.csv", "ana", random_readers(0, ("ana",))["ana"])
    return data, src


def main() -> int:
    """Run the sweep and print one line per try that is not clean, then the tally."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CLASSES), action="append")
    parser.add_argument("--keep", type=Path, help="work here and keep it (default: a temp folder)")
    options = parser.parse_args()
    work = options.keep or Path(tempfile.mkdtemp(prefix="hostile-sweep-"))
    work.mkdir(parents=True, exist_ok=True)
    data, src = _sources(work)
    tally: collections.Counter[str] = collections.Counter()
    per_class: dict[str, collections.Counter[str]] = {}
    try:
        for name in options.only or list(CLASSES):
            folder = work / name
            folder.mkdir(exist_ok=True)
            counts = per_class.setdefault(name, collections.Counter())
            inputs = src if name == "force" else data
            for attempt in CLASSES[name](folder, inputs):
                try:
                    kind, why = run(attempt)
                except Exception as error:  # the sweep's own set-up failed: say so
                    kind, why = "unclear", f"set-up failed: {error!r}"
                tally[kind] += 1
                counts[kind] += 1
                if kind != "clean":
                    print(f"{kind:9} {attempt.name}: {why}", flush=True)
    finally:
        for proc in _ZOMBIES:
            proc.wait()
        ro = work / "names" / "ro"
        if ro.exists():
            ro.chmod(0o755)
        if options.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    for name, counts in per_class.items():
        print(
            f"{name:7} {sum(counts.values()):4} tried: "
            + " / ".join(f"{counts[k]} {k}" for k in KINDS)
        )
    total = sum(tally.values())
    print(f"{total} tried: " + " / ".join(f"{tally[k]} {k}" for k in KINDS))
    print(json.dumps({"tried": total, **{k: tally[k] for k in KINDS}}))
    return 0 if tally["clean"] == total else 1


if __name__ == "__main__":
    sys.exit(main())
