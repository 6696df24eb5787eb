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

Usage (from the repository; 586 tries, about 45 minutes on two busy cores)::

    python scripts/hostile_sweep.py [--only CLASS] [--keep DIR]

The classes are the ones of issue 47 item 1 and 3: ``force`` (``--force`` onto generated
datasets holding a user's files), ``memory`` (headers declaring more than memory holds),
``names`` (output names no file system takes), ``killed`` (``kill -9`` of ``run``),
``figure`` (scans with NaN or infinities); and of item 2 and beyond, damaged inputs whose
numbers are compared with an undamaged run's: ``boxes`` (``boxes.csv`` and predictions),
``recon`` (``evaluate-recon --region`` masks), ``journals`` (review journals), ``maps``
(``evaluate`` score maps and sample scores), ``outputs`` (every output option pointed at an
input or a user's file, with and without ``--force``). A damaged input may be refused naming
it, skipped with a warning naming it, or be harmless (the same numbers); exit 0 with other
numbers and no word about the file is ``wrong``.
"""

from __future__ import annotations

import argparse
import collections
import gzip
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
    judge: Callable[[int, str], tuple[str, str] | None] | None = None  # the numbers, by kind


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
    if attempt.judge is not None:
        verdict = attempt.judge(code, said)
        if verdict is not None:
            return verdict
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


# --------------------------------------------------------------------------- data files (item 2)

NEUTRAL, BAD, LEGIT = "neutral", "bad", "legit"


def _numbers(value: object, at: str = "") -> dict[str, float]:
    """Every number of a JSON result by its key path (strings, such as paths, are left out)."""
    found: dict[str, float] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            found.update(_numbers(item, f"{at}/{key}"))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.update(_numbers(item, f"{at}/{i}"))
    elif isinstance(value, bool | int | float) and value is not None:
        found[at] = float(value)
    return found


def _same(a: dict[str, float], b: dict[str, float]) -> bool:
    return a.keys() == b.keys() and all(
        (np.isnan(a[k]) and np.isnan(b[k])) or abs(a[k] - b[k]) <= 1e-9 for k in a
    )


def _judge(
    expect: str, out: Path, baseline: dict[str, dict[str, float]], named: tuple[str, ...],
    pick: Callable[[object], object] = lambda result: result,
) -> Callable[[int, str], tuple[str, str] | None]:  # fmt: skip
    """Exit 0: the baseline's numbers, or other numbers with a warning naming the file.

    ``neutral`` inputs (a BOM, CRLF, another dtype of the same values) must not be refused
    and give the baseline's numbers (or say why not, naming the file); ``bad`` ones may be refused naming the file, skipped with a
    warning naming it, or be harmless; ``legit`` ones may change the numbers silently.
    """

    def judge(code: int, said: str) -> tuple[str, str] | None:
        if code != 0:
            if out.exists():
                return "partial", f"exit {code} but {out} was written"
            if expect == NEUTRAL:
                return "wrong", f"a harmless input refused: {said.strip()[-300:]}"
            return None  # the refusal must name the file (Try.names)
        if not out.exists():
            return "wrong", f"exit 0 without {out}"
        got = _numbers(pick(json.loads(out.read_text())))
        if expect == LEGIT or _same(got, baseline["numbers"]):
            return "clean", ""
        changed = sorted(k for k in got if got.get(k) != baseline["numbers"].get(k))[:3]
        if any(n in said for n in named):  # not silent: a warning names the file
            return "clean", ""
        return "wrong", f"exit 0, numbers changed ({changed}) and nothing names {named[-1:]}"

    return judge


def _baseline(argv: list[str], out: Path, pick: Callable[[object], object]) -> dict[str, float]:
    code, said = _napari_mood([*argv, "--format", "json", "--out", str(out), "--quiet"], {})
    assert code == 0, said
    return _numbers(pick(json.loads(out.read_text())))


NOVA = Path(__file__).resolve().parent.parent / "sample_data" / "nova"
GT_HEADER = "image_id,x,y,width,height,reader"


def _gt_rows() -> list[list[str]]:
    return [line.split(",") for line in (NOVA / "boxes.csv").read_text().splitlines()[1:]]


def _rows(rows: list[list[str]], header: str = GT_HEADER) -> bytes:
    return ("\n".join([header, *(",".join(r) for r in rows)]) + "\n").encode()


def _edit(rows: list[list[str]], row: int, col: int, value: str) -> list[list[str]]:
    rows = [list(r) for r in rows]
    rows[row][col] = value
    return rows


def _gt_variants() -> dict[str, tuple[str, bytes]]:
    rows = _gt_rows()
    plain = _rows(rows)
    r2 = [i for i, r in enumerate(rows) if r[5] == "R2"]
    v: dict[str, tuple[str, bytes]] = {
        "CRLF": (NEUTRAL, plain.replace(b"\n", b"\r\n")),
        "UTF-8 BOM": (NEUTRAL, b"\xef\xbb\xbf" + plain),
        "no final newline": (NEUTRAL, plain.rstrip(b"\n")),
        "columns reordered": (NEUTRAL, _rows([[r[5], *r[:5]] for r in rows], "reader,image_id,x,y,width,height")),
        "numbers as 204.0": (NEUTRAL, _rows([[r[0], *(f"{float(x):.1f}" for x in r[1:5]), r[5]] for r in rows])),
        "partly empty reader (R2 rows)": (BAD, _rows([_edit([r], 0, 5, "")[0] if i in r2 else r for i, r in enumerate(rows)])),
        "one empty reader cell": (BAD, _rows(_edit(rows, 0, 5, ""))),
        "reader cell of spaces": (BAD, _rows(_edit(rows, 0, 5, "  "))),
        "all reader cells empty": (LEGIT, _rows([[*r[:5], ""] for r in rows])),
        "one reader only": (LEGIT, _rows([r for r in rows if r[5] == "R1"])),
        "id ../images/<id>": (BAD, _rows(_edit(rows, 0, 0, "../images/" + rows[0][0]))),
        "id images/<id>": (BAD, _rows(_edit(rows, 0, 0, "images/" + rows[0][0]))),
        "id ./<id>": (BAD, _rows(_edit(rows, 0, 0, "./" + rows[0][0]))),
        "id absolute path": (BAD, _rows(_edit(rows, 0, 0, str(NOVA / "images" / rows[0][0])))),
        "id <id>.png": (BAD, _rows(_edit(rows, 0, 0, rows[0][0] + ".png"))),
        "id with NUL": (BAD, _rows(_edit(rows, 0, 0, rows[0][0] + "\0"))),
        "id of no image": (BAD, _rows(_edit(rows, 0, 0, "brain_999_z1"))),
        "id with a trailing space": (BAD, _rows(_edit(rows, 0, 0, rows[0][0] + " "))),
        "row of 5 cells": (BAD, _rows([rows[0][:4] + rows[0][5:], *rows[1:]])),
        "row of 7 cells": (BAD, _rows([[*rows[0], "9"], *rows[1:]])),
        "empty width": (BAD, _rows(_edit(rows, 0, 3, ""))),
        "NaN width": (BAD, _rows(_edit(rows, 0, 3, "nan"))),
        "inf x": (BAD, _rows(_edit(rows, 0, 1, "inf"))),
        "negative width": (BAD, _rows(_edit(rows, 0, 3, "-73"))),
        "zero height": (BAD, _rows(_edit(rows, 0, 4, "0"))),
        "negative x": (BAD, _rows(_edit(rows, 0, 1, "-500"))),
        "huge width 1e300": (BAD, _rows(_edit(rows, 0, 3, "1e300"))),
        "width 1e400": (BAD, _rows(_edit(rows, 0, 3, "1e400"))),
        "x is text": (BAD, _rows(_edit(rows, 0, 1, "abc"))),
        "non-UTF-8 id": (BAD, plain.replace(rows[0][0].encode(), b"brain_\xff01", 1)),
        "non-UTF-8 reader": (BAD, plain.replace(b",R2", b",R\xe92", 1)),
        "latin-1 file": (BAD, plain.replace(b",R1", b",R\xe9", 1)),
        "empty file": (BAD, b""),
        "header only": (LEGIT, (GT_HEADER + "\n").encode()),
        "header without reader": (LEGIT, _rows([r[:5] for r in rows], "image_id,x,y,width,height")),
        "header without width": (BAD, _rows([r[:3] + r[4:] for r in rows], "image_id,x,y,height,reader")),
        "header repeated inside": (BAD, _rows([*rows[:3], GT_HEADER.split(","), *rows[3:]])),
        "NUL byte in the file": (BAD, plain.replace(b"\n", b"\n\0", 1)),
        "blank lines between": (NEUTRAL, plain.replace(b"\n", b"\n\n")),
        "a UTF-16 file": (BAD, plain.decode().encode("utf-16")),
    }  # fmt: skip
    return v


def _pred_variants() -> dict[str, tuple[str, bytes]]:
    boxes = json.loads((NOVA / "predictions" / "oracle_noisy.json").read_text())

    def edit(key: str, value: object, i: int = 0) -> bytes:
        rows = [dict(b) for b in boxes]
        if value is _DROP:
            del rows[i][key]
        else:
            rows[i][key] = value
        return json.dumps(rows).encode()

    text = json.dumps(boxes).encode()
    return {
        "UTF-8 BOM": (NEUTRAL, b"\xef\xbb\xbf" + text),
        "bbox of 3 numbers": (BAD, edit("bbox", boxes[0]["bbox"][:3])),
        "bbox of 5 numbers": (BAD, edit("bbox", [*boxes[0]["bbox"], 1])),
        "bbox empty": (BAD, edit("bbox", [])),
        "bbox a string": (BAD, edit("bbox", "1,2,3,4")),
        "bbox of strings": (BAD, edit("bbox", [str(x) for x in boxes[0]["bbox"]])),
        "bbox null": (BAD, edit("bbox", None)),
        "bbox NaN": (BAD, text.replace(str(boxes[0]["bbox"][2]).encode(), b"NaN", 1)),
        "bbox Infinity": (BAD, text.replace(str(boxes[0]["bbox"][2]).encode(), b"Infinity", 1)),
        "bbox negative width": (BAD, edit("bbox", [*boxes[0]["bbox"][:2], -60, 59])),
        "bbox huge 1e300": (BAD, edit("bbox", [0, 0, 1e300, 1e300])),
        "bbox 1e400": (BAD, text.replace(str(boxes[0]["bbox"][2]).encode(), b"1e400", 1)),
        "score NaN": (BAD, edit("score", float("nan"))),
        "score Infinity": (BAD, edit("score", float("inf"))),
        "score -Infinity": (BAD, edit("score", float("-inf"))),
        "score a string": (BAD, edit("score", "high")),
        "score missing": (BAD, edit("score", _DROP)),
        "score 1e308": (LEGIT, edit("score", 1e308)),
        "score negative": (LEGIT, edit("score", -5.0)),
        "id ../images/<id>": (BAD, edit("image_id", "../images/" + boxes[0]["image_id"])),
        "id absolute path": (BAD, edit("image_id", str(NOVA / "images" / boxes[0]["image_id"]))),
        "id with NUL": (BAD, edit("image_id", boxes[0]["image_id"] + "\0")),
        "id an integer": (BAD, edit("image_id", 3)),
        "id of no image": (BAD, edit("image_id", "brain_999_z1")),
        "image_id missing": (BAD, edit("image_id", _DROP)),
        "an empty list": (LEGIT, b"[]"),
        "an object, not a list": (BAD, b'{"image_id": "x"}'),
        "a list of numbers": (BAD, b"[1, 2, 3]"),
        "truncated JSON": (BAD, text[: len(text) // 2]),
        "garbage": (BAD, b"\x00\xff garbage }{"),
        "empty file": (BAD, b""),
        "non-UTF-8 id": (BAD, text.replace(boxes[0]["image_id"].encode(), b"brain_\xff", 1)),
        "every box twice": (LEGIT, json.dumps(boxes + boxes).encode()),
        "deeply nested": (BAD, b"[" * 100000 + b"]" * 100000),
    }


_DROP = object()


def boxes_tries(work: Path, data: Path) -> Iterator[Try]:
    base = work / "nova"
    shutil.copytree(NOVA, base)

    def pick(r: object) -> object:
        return r["methods"]  # type: ignore[index]

    pred = base / "predictions" / "oracle_noisy.json"
    for what, variants in (("gt", _gt_variants()), ("pred", _pred_variants())):
        for strict in (False,) if what == "gt" else (False, True):
            baseline: dict[str, dict[str, float]] = {}
            for label, (expect, content) in variants.items():
                copy = work / f"{what}-{strict}-{len(list(work.iterdir()))}"
                target = copy / ("boxes.csv" if what == "gt" else "predictions/oracle_noisy.json")
                out = copy.with_suffix(".json")

                def before(copy: Path = copy, target: Path = target, content: bytes = content,
                           baseline: dict[str, dict[str, float]] = baseline,
                           name: str = f"baseline-{what}-{strict}.json") -> None:  # fmt: skip
                    if not baseline:
                        argv = ["evaluate-boxes", str(base), "--pred", str(pred)]
                        baseline["numbers"] = _baseline(argv, work / name, pick)
                    shutil.copytree(base, copy)
                    target.write_bytes(content)

                yield Try(
                    f"boxes/{what}{'/strict' if strict else ''}/{label}",
                    [
                        "evaluate-boxes",
                        str(copy),
                        "--pred",
                        str(copy / "predictions" / pred.name),
                        "--format",
                        "json",
                        "--out",
                        str(out),
                        *(["--strict"] if strict else []),
                    ],  # fmt: skip
                    codes=(0, 1, 2),
                    names=(str(target), target.name),
                    kept=(copy,),
                    leftovers=(work,),
                    before=before,
                    judge=_judge(expect, out, baseline, (str(target), target.name), pick),
                )


def _recon_sources(work: Path) -> tuple[Path, Path]:
    ps, pd, rc = work / "ps", work / "pd", work / "rc"
    for argv in (
        ["pet-sample", "--step", "8", "--subjects", "2", "--out", str(ps)],
        ["simulate", str(ps / "scans" / "pet_000.nii.gz"), str(ps / "scans" / "pet_001.nii.gz"),
         "--kind", "pet", "--mask", str(ps / "atlas.nii.gz"), "--atlas-labels", "1",
         "--degree", "0.1,0.3", "--out", str(pd)],
        ["reconstruct", str(pd), "--template", str(ps / "template.nii.gz"), "--out", str(rc)],
    ):  # fmt: skip
        code, said = _napari_mood([*argv, "--quiet"], {})
        assert code == 0, said
    return pd, rc


def _region_variants(pd: Path) -> dict[str, tuple[str, Callable[[Path], None]]]:
    def values(change: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[Path], None]:
        def apply(path: Path) -> None:
            image = nib.load(path)
            mask = np.asarray(image.dataobj)
            scan = np.asarray(nib.load(pd / "toy" / path.name).dataobj, np.float32)
            new = np.asarray(change(mask, scan))
            nib.save(nib.Nifti1Image(new, image.affine), path)

        return apply

    def affine(path: Path) -> None:
        image = nib.load(path)
        shifted = image.affine.copy()
        shifted[:3, 3] += 7 * np.abs(np.diag(shifted)[:3])
        nib.save(nib.Nifti1Image(np.asarray(image.dataobj), shifted), path)

    def truncate(path: Path) -> None:
        blob = path.read_bytes()
        path.write_bytes(blob[: len(blob) // 2])

    def text(path: Path) -> None:
        path.write_bytes(b"not a nifti\n")

    f32 = np.float32
    return {
        "float 0.0/1.0": (NEUTRAL, values(lambda m, s: m.astype(f32))),
        "bool": (NEUTRAL, values(lambda m, s: m.astype(bool).astype(np.uint8))),
        "int16 0/1": (NEUTRAL, values(lambda m, s: m.astype(np.int16))),
        "the scan (float, not 0/1)": (BAD, values(lambda m, s: s)),
        "0/0.5 float": (BAD, values(lambda m, s: (m > 0) * f32(0.5))),
        "0/2 labels": (BAD, values(lambda m, s: (m > 0).astype(np.uint8) * 2)),
        "0/1/2 labels": (BAD, values(lambda m, s: (m > 0).astype(np.uint8) + (s > 0.5))),
        "-1 outside": (BAD, values(lambda m, s: np.where(m > 0, 1, -1).astype(np.int16))),
        "a NaN voxel": (BAD, values(lambda m, s: np.where(np.arange(m.size).reshape(m.shape) == 0, np.nan, m).astype(f32))),
        "an inf voxel": (BAD, values(lambda m, s: np.where(np.arange(m.size).reshape(m.shape) == 0, np.inf, m).astype(f32))),
        "cropped (off grid)": (BAD, values(lambda m, s: m[:-2, :-1])),
        "one slice more": (BAD, values(lambda m, s: np.concatenate([m, m[:, :, :1]], axis=2))),
        "transposed": (BAD, values(lambda m, s: m.transpose(2, 1, 0) if len(set(m.shape)) > 1 else m[::-1])),
        "4-D (..., 1)": (BAD, values(lambda m, s: m[..., None])),
        "4-D (..., 2)": (BAD, values(lambda m, s: np.stack([m, m], axis=-1))),
        "2-D": (BAD, values(lambda m, s: m[:, :, m.shape[2] // 2])),
        "shifted affine": (BAD, affine),
        "empty mask": (LEGIT, values(lambda m, s: np.zeros_like(m))),
        "every voxel": (LEGIT, values(lambda m, s: np.ones_like(m))),
        "truncated gzip": (BAD, truncate),
        "text, not NIfTI": (BAD, text),
        "complex64": (BAD, values(lambda m, s: m.astype(np.complex64))),
    }  # fmt: skip


def recon_tries(work: Path, data: Path) -> Iterator[Try]:
    sources: dict[str, tuple[Path, Path]] = {}
    baseline: dict[str, dict[str, float]] = {}

    def argv_of(pd: Path, rc: Path, region: Path) -> list[str]:
        return ["evaluate-recon", str(pd), "--recon", str(rc), "--region", str(region)]

    for label, (expect, spoil) in _region_variants(work / "pd").items():
        for which in ("one case", "every case"):
            if which == "every case" and expect == NEUTRAL:
                continue
            region = work / f"region-{len(list(work.iterdir()))}"
            out = region.with_suffix(".json")

            def before(region: Path = region, spoil=spoil, which: str = which) -> None:
                if not sources:
                    sources["pd"] = _recon_sources(work)
                    pd, rc = sources["pd"]
                    baseline["numbers"] = _baseline(
                        argv_of(pd, rc, pd / "toy_label" / "pixel"), work / "base.json", lambda r: r
                    )
                shutil.copytree(work / "pd" / "toy_label" / "pixel", region)
                files = sorted(region.glob("*.nii.gz"))
                for path in files[-1:] if which == "one case" else files:
                    spoil(path)

            target = region / "pet_001_atlas-1_deg30.nii.gz"
            yield Try(
                f"recon/region {label}/{which}",
                [*argv_of(work / "pd", work / "rc", region), "--format", "json", "--out", str(out)],
                codes=(0, 1, 2),
                names=(str(target) if which == "one case" else str(region),),
                kept=(region, work / "pd", work / "rc"),
                leftovers=(work,),
                before=before,
                judge=_judge(
                    expect, out, baseline, (str(target),) if which == "one case" else (str(region),)
                ),
            )


def _journal_variants(ana: bytes, ben: bytes) -> dict[str, tuple[str, dict[str, bytes]]]:
    head, *lines = ana.decode().splitlines(keepends=True)
    text = ana.decode()
    flipped = (
        text.replace("true finding", "@T")
        .replace("false alarm", "true finding")
        .replace("@T", "false alarm")
    )

    def line(i: int, old: str, new: str) -> bytes:
        rows = list(lines)
        rows[i] = rows[i].replace(old, new, 1)
        return (head + "".join(rows)).encode()

    return {
        "BOM": (NEUTRAL, {"ana.csv": b"\xef\xbb\xbf" + ana}),
        "CRLF": (NEUTRAL, {"ana.csv": ana.replace(b"\n", b"\r\n")}),
        "a duplicate reviewer 'ana', other verdicts": (BAD, {"ana2.csv": flipped.encode()}),
        "a duplicate reviewer 'ana', same verdicts": (BAD, {"ana2.csv": ana}),
        "control character in the case": (BAD, {"ana.csv": line(0, "case_a", "case\x01a")}),
        "NUL in the case": (BAD, {"ana.csv": line(0, "case_a", "case_a\0")}),
        "NUL in the reviewer": (BAD, {"ana.csv": line(0, ",ana,", ",an\0a,")}),
        "escape sequence in the reviewer": (BAD, {"ana.csv": line(0, ",ana,", ",\x1b[2Jana,")}),
        "control character in the note": (LEGIT, {"ana.csv": line(0, ",false alarm,,", ",false alarm,a\x07b,")}),
        "a quoted note with a newline": (LEGIT, {"ana.csv": line(0, ",false alarm,,", ',false alarm,"a\nb",')}),
        "truncated last line": (BAD, {"ana.csv": ana[: len(ana) - 40]}),
        "a garbage line": (BAD, {"ana.csv": (head + lines[0] + "}{ garbage\n" + "".join(lines[1:])).encode()}),
        "a JSON line": (BAD, {"ana.csv": (head + '{"case": "case_a", "verdict": "true finding"}\n' + "".join(lines)).encode()}),
        "a 30 MB note": (LEGIT, {"ana.csv": line(0, ",false alarm,,", ",false alarm," + "x" * 30_000_000 + ",")}),
        "a 30 MB line of commas": (BAD, {"ana.csv": ana + b"," * 30_000_000 + b"\n"}),
        "non-UTF-8 note": (BAD, {"ana.csv": ana.replace(b",false alarm,,", b",false alarm,caf\xe9,", 1)}),
        "an unknown verdict": (BAD, {"ana.csv": line(0, "false alarm", "maybe")}),
        "time 'yesterday'": (BAD, {"ana.csv": line(0, "2025-03-01T09:00:00+00:00", "yesterday")}),
        "time without zone": (LEGIT, {"ana.csv": line(0, "2025-03-01T09:00:00+00:00", "2025-03-01T09:00:00")}),
        "object_id -1": (BAD, {"ana.csv": line(0, ",0.5,1,", ",0.5,-1,")}),
        "object_id 1.5": (BAD, {"ana.csv": line(0, ",0.5,1,", ",0.5,1.5,")}),
        "threshold nan": (BAD, {"ana.csv": line(0, ",0.5,1,", ",nan,1,")}),
        "a row twice": (BAD, {"ana.csv": (head + lines[0] + "".join(lines)).encode()}),
        "one region two verdicts": (LEGIT, {"ana.csv": (head + "".join(lines) + lines[0].replace("false alarm", "true finding").replace("09:00:00", "09:30:00")).encode()}),
        "no reviewer column": (BAD, {"ana.csv": "\n".join(",".join(c for j, c in enumerate(r.split(",")) if j != 12) for r in text.splitlines()).encode()}),
        "empty file": (BAD, {"ana.csv": b""}),
        "header only": (BAD, {"ana.csv": head.encode()}),
        "a NIfTI as a journal": (BAD, {"ana.csv": gzip.compress(b"\x5c\x01" + bytes(400))}),
        "UTF-16": (BAD, {"ana.csv": text.encode("utf-16")}),
    }  # fmt: skip


def journal_tries(work: Path, data: Path) -> Iterator[Try]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.reader_journals import random_readers, write_reader

    readers = random_readers(0, ("ana", "ben"))
    base = work / "base"
    for name in ("ana", "ben"):
        write_reader(base / f"{name}.csv", name, readers[name])
    baseline: dict[str, dict[str, float]] = {}

    def pick(r: object) -> object:
        return {k: v for k, v in r.items() if k != "journals"}  # type: ignore[union-attr]

    variants = _journal_variants((base / "ana.csv").read_bytes(), (base / "ben.csv").read_bytes())
    for label, (expect, files) in variants.items():
        folder = work / f"j-{len(list(work.iterdir()))}"
        out = folder.with_suffix(".out")
        result = out / "reader_study.json"

        def before(folder: Path = folder, files: dict[str, bytes] = files) -> None:
            if not baseline:
                argv = ["review-report", str(base / "ana.csv"), str(base / "ben.csv")]
                code, said = _napari_mood([*argv, "--out", str(work / "base.out"), "--quiet"], {})
                assert code == 0, said
                baseline["numbers"] = _numbers(
                    pick(json.loads((work / "base.out" / "reader_study.json").read_text()))
                )
            shutil.copytree(base, folder)
            for name, content in files.items():
                (folder / name).write_bytes(content)

        journals = [
            str(folder / n)
            for n in ("ana.csv", "ben.csv", *sorted(set(files) - {"ana.csv", "ben.csv"}))
        ]
        named = tuple(journals[2:]) if label.startswith("a duplicate") else (journals[0],)
        judge = _judge(expect, result, baseline, named, pick)
        if label.endswith("other verdicts"):  # a conflict: both files must be named
            judge = _both_named(judge, (journals[0], journals[2]))
        yield Try(
            f"journals/{label}",
            ["review-report", *journals, "--out", str(out)],
            codes=(0, 1, 2),
            names=named,
            kept=(folder,),
            leftovers=(work,),
            before=before,
            judge=_out_folder_judge(judge, out),
        )


def _out_folder_judge(
    judge: Callable[[int, str], tuple[str, str] | None], out: Path
) -> Callable[[int, str], tuple[str, str] | None]:
    def inner(code: int, said: str) -> tuple[str, str] | None:
        if code != 0 and out.exists():
            return "partial", f"exit {code} but {out} was written"
        return judge(code, said)

    return inner


def _both_named(
    judge: Callable[[int, str], tuple[str, str] | None], files: tuple[str, str]
) -> Callable[[int, str], tuple[str, str] | None]:
    def inner(code: int, said: str) -> tuple[str, str] | None:
        if code == 0 and not all(f in said or Path(f).name in said for f in files):
            return (
                "wrong",
                f"exit 0 and a warning names not both of {[Path(f).name for f in files]}: {said.strip()[-200:]}",
            )
        return judge(code, said)

    return inner


def _map_variants() -> dict[str, tuple[str, Callable[[Path], None]]]:
    def values(change: Callable[[np.ndarray], np.ndarray]) -> Callable[[Path], None]:
        def apply(path: Path) -> None:
            image = nib.load(path)
            nib.save(
                nib.Nifti1Image(np.asarray(change(np.asarray(image.dataobj))), image.affine), path
            )

        return apply

    def first(value: float) -> Callable[[np.ndarray], np.ndarray]:
        def put(m: np.ndarray) -> np.ndarray:
            m = m.astype(np.float32)
            m[0, 0, 0] = value
            return m

        return put

    def raw(blob: Callable[[bytes], bytes]) -> Callable[[Path], None]:
        return lambda path: path.write_bytes(blob(path.read_bytes()))

    def text(content: bytes) -> Callable[[Path], None]:
        return lambda path: Path(str(path) + ".txt").write_bytes(content)

    def slope(value: float) -> Callable[[Path], None]:
        def apply(path: Path) -> None:
            image = nib.load(path)
            header = image.header.copy()
            data = np.asarray(image.dataobj, np.float32)
            new = nib.Nifti1Image(data, image.affine, header)
            new.header["scl_slope"], new.header["scl_inter"] = value, 0
            new.header.set_data_dtype(np.float32)
            nib.save(new, path)
            blob = bytearray(gzip.decompress(path.read_bytes()))
            blob[112:116] = struct.pack("<f", value)
            path.write_bytes(gzip.compress(bytes(blob)))

        return apply

    f32 = np.float32
    return {
        "float64": (NEUTRAL, values(lambda m: m.astype(np.float64))),
        "big-endian float32": (NEUTRAL, values(lambda m: m.astype(">f4"))),
        "uint8 of the ranks (ties)": (LEGIT, values(lambda m: np.round(m * 255).astype(np.uint8))),
        "not gzipped (.nii.gz of raw bytes)": (BAD, raw(gzip.decompress)),
        "shape 20^3": (BAD, values(lambda m: m[:20, :20, :20])),
        "2-D": (BAD, values(lambda m: m[:, :, 12])),
        "4-D (..., 1)": (BAD, values(lambda m: m[..., None])),
        "4-D (..., 2)": (BAD, values(lambda m: np.stack([m, m], -1))),
        "transposed 24x24x23": (BAD, values(lambda m: m[:, :, :23].transpose(2, 0, 1))),
        "one NaN voxel": (BAD, values(first(np.nan))),
        "all NaN": (BAD, values(lambda m: np.full(m.shape, np.nan, f32))),
        "one +inf voxel": (BAD, values(first(np.inf))),
        "one -inf voxel": (BAD, values(first(-np.inf))),
        "3e38 voxels": (LEGIT, values(lambda m: m.astype(f32) * f32(3e38))),
        "negative scores (one case)": (LEGIT, values(lambda m: m.astype(f32) - 5)),
        "bool": (LEGIT, values(lambda m: (m > 0.5).astype(np.uint8))),
        "complex64": (BAD, values(lambda m: m.astype(np.complex64))),
        "int32": (LEGIT, values(lambda m: (m * 1000).astype(np.int32))),
        "gz truncated at half": (BAD, raw(lambda b: b[: len(b) // 2])),
        "gz truncated by 8 bytes (no trailer)": (BAD, raw(lambda b: b[:-8])),
        "gz with a wrong CRC": (BAD, raw(lambda b: b[:-8] + b"\0\0\0\0" + b[-4:])),
        "empty file": (BAD, raw(lambda b: b"")),
        "text file": (BAD, raw(lambda b: b"0.5\n")),
        "header only": (BAD, raw(lambda b: gzip.compress(gzip.decompress(b)[:352]))),
        "scl_slope NaN": (LEGIT, slope(float("nan"))),
        "scl_slope 0": (LEGIT, slope(0.0)),
        "scl_slope inf": (BAD, slope(float("inf"))),
        "sample score nan": (BAD, text(b"nan\n")),
        "sample score inf": (BAD, text(b"inf\n")),
        "sample score empty": (BAD, text(b"")),
        "sample score text": (BAD, text(b"high\n")),
        "sample score two numbers": (BAD, text(b"0.3 0.9\n")),
        "sample score 1e400": (BAD, text(b"1e400\n")),
        "sample score non-UTF-8": (BAD, text(b"0.\xff3\n")),
        "sample score 10 MB": (BAD, text(b"0" * 10_000_000 + b".3\n")),
        "sample score -1": (LEGIT, text(b"-1\n")),
        "sample score with BOM": (BAD, text(b"\xef\xbb\xbf0.3\n")),
        "sample score CRLF": (NEUTRAL, text(b"0.3\r\n")),
    }  # fmt: skip


def maps_tries(work: Path, data: Path) -> Iterator[Try]:
    base = work / "base"
    shutil.copytree(data, base)
    rng = np.random.default_rng(1)
    for i in range(3):  # a method that is not perfect, so a changed number shows
        label = np.asarray(nib.load(base / "toy_label" / "pixel" / f"c{i}.nii.gz").dataobj)
        score = (0.4 * label + 0.6 * rng.random(label.shape)).astype(np.float32)
        _nifti(base / "methods" / "a" / f"c{i}.nii.gz", score)
    baseline: dict[str, dict[str, float]] = {}

    def pick(r: object) -> object:
        return {k: r[k] for k in ("methods", "per_case")}  # type: ignore[index]

    for label, (expect, spoil) in _map_variants().items():
        for task in ("pixel", "sample") if not label.startswith("sample") else ("sample",):
            copy = work / f"m-{len(list(work.iterdir()))}"
            target = copy / "methods" / "a" / "c1.nii.gz"
            if label.startswith("sample"):
                target = Path(str(target) + ".txt")
            out = copy.with_suffix(".json")
            argv = ["evaluate", "--task", task, "--workers", "1"]

            def before(
                copy: Path = copy, spoil=spoil, argv: list[str] = argv, task: str = task
            ) -> None:
                if task not in baseline:
                    baseline[task] = _baseline([*argv, str(base)], work / f"base-{task}.json", pick)
                baseline["numbers"] = baseline[task]
                shutil.copytree(base, copy)
                spoil(copy / "methods" / "a" / "c1.nii.gz")

            yield Try(
                f"maps/{task}/{label}",
                [*argv, str(copy), "--format", "json", "--out", str(out)],
                codes=(0, 1, 2),
                names=(str(target),),
                kept=(copy,),
                leftovers=(work,),
                before=before,
                judge=_judge(expect, out, baseline, (str(target), target.name), pick),
            )


def outputs_tries(work: Path, data: Path) -> Iterator[Try]:
    """Every output option pointed at an input file or folder, with and without --force."""
    nova = work / "nova"
    shutil.copytree(NOVA, nova)
    journals = work / "journals"
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.reader_journals import random_readers, write_reader

    write_reader(journals / "ana.csv", "ana", random_readers(0, ("ana",))["ana"])
    pred = nova / "predictions" / "oracle_noisy.json"
    scan = data / "toy" / "c1.nii.gz"
    ev = ["evaluate", str(data), "--workers", "1"]
    eb = ["evaluate-boxes", str(nova), "--pred", str(pred)]
    rr = ["review-report", str(journals / "ana.csv")]
    fig = ["figure", str(data), "--cases", "c1"]
    cases: dict[str, tuple[list[str], str, Path]] = {
        "evaluate --out a score map": (ev, "--out", data / "methods" / "a" / "c1.nii.gz"),
        "evaluate --out a sample score": (ev, "--out", data / "methods" / "a" / "c1.nii.gz.txt"),
        "evaluate --out the scans folder": (ev, "--out", data / "toy"),
        "evaluate --out the dataset": (ev, "--out", data),
        "evaluate --report the dataset": (ev, "--report", data),
        "evaluate --report a method": (ev, "--report", data / "methods" / "a"),
        "evaluate --report a scan": (ev, "--report", scan),
        "evaluate --cache a scan": (ev, "--cache", scan),
        "evaluate --cache a label": (ev, "--cache", data / "toy_label" / "pixel" / "c1.nii.gz"),
        "evaluate --plot-like --out label": (ev, "--out", data / "toy_label" / "sample" / "c1.nii.gz.txt"),
        "evaluate-boxes --out boxes.csv": (eb, "--out", nova / "boxes.csv"),
        "evaluate-boxes --out the prediction": (eb, "--out", pred),
        "evaluate-boxes --out an image": (eb, "--out", nova / "images" / "brain_000_z47.png"),
        "evaluate-boxes --plot an image": (eb, "--plot", nova / "images" / "brain_001_z44.png"),
        "evaluate-boxes --plot the prediction": (eb, "--plot", pred),
        "evaluate-boxes --out the images folder": (eb, "--out", nova / "images"),
        "review-report --out the journals' folder": (rr, "--out", journals),
        "review-report --out the journal": (rr, "--out", journals / "ana.csv"),
        "review-report --plot the journal": (rr + ["--out", str(work / "rr")], "--plot", journals / "ana.csv"),
        "figure --out a scan": (fig, "--out", scan),
        "figure --out a label": (fig, "--out", data / "toy_label" / "pixel" / "c1.nii.gz"),
        "figure --out the dataset": (fig, "--out", data),
        "simulate --out the scan's folder": (["simulate", str(scan), "--count", "1"], "--out", data / "toy"),
        "simulate --out the scan itself": (["simulate", str(scan), "--count", "1"], "--out", scan),
        "simulate --out the dataset": (["simulate", str(scan), "--count", "1"], "--out", data),
        "sweep --out the scan's folder": (["sweep", "size", str(scan), "--radii", "1"], "--out", data / "toy"),
        "run --out the input folder": (["run", "true", str(data / "toy")], "--out", data / "toy"),

        "run --out a method": (["run", "true", str(data / "toy")], "--out", data / "methods" / "a"),
        "reconstruct --out the dataset's scans": (["reconstruct", str(data), "--template", str(scan)], "--out", data / "toy"),
        "reconstruct --out the template": (["reconstruct", str(data), "--template", str(scan)], "--out", scan),
        "pet-sample --out the dataset": (["pet-sample", "--step", "8", "--subjects", "1"], "--out", data),
    }  # fmt: skip
    for label, (argv, option, target) in cases.items():
        for force in (False, True):
            # a method's folder is run's own kind of output: --force may fill it (inputs kept)
            output_kind = force and label == "run --out a method"
            yield Try(
                f"outputs/{label}{' --force' if force else ''}",
                [*argv, option, str(target), *(["--force"] if force else []), "--quiet"],
                codes=(0, 1) if output_kind else (1, 2),
                names=() if output_kind else (str(target), target.name),
                kept=(data, nova, journals),
                leftovers=(work, data, nova),
            )
    # --force semantics on the user's own files (a run's own output folder is no input)
    mine = work / "mine"
    for label, (argv, option, suffix) in {
        "evaluate --out": (ev, "--out", ".csv"),
        "evaluate-boxes --out": (eb, "--out", ".json"),
        "evaluate-boxes --plot": (eb, "--plot", ".png"),
        "figure --out": (fig, "--out", ".png"),
        "review-report --plot": (rr, "--plot", ".png"),
    }.items():
        for state in ("a file", "a folder", "a link to an input", "a folder with a file"):
            for force in (False, True):
                target = (
                    mine / f"{label.split()[0]}-{option}-{state.replace(' ', '_')}-{force}{suffix}"
                )

                def before(target: Path = target, state: str = state) -> None:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    if state == "a file":
                        target.write_text("mine\n")
                    elif state == "a link to an input":
                        target.symlink_to(scan)
                    else:
                        target.mkdir()
                        if state.endswith("file"):
                            (target / "mine.txt").write_text("mine\n")

                # --force replaces a link itself (never its target), unless it links to an input
                reads_scan = label.startswith(("evaluate ", "figure"))
                replaced = force and (
                    state == "a file" or (state.startswith("a link") and not reads_scan)
                )
                more = ["--out", str(target) + ".study"] if label.startswith("review") else []
                yield Try(
                    f"force/{label} onto {state}{' --force' if force else ''}",
                    [*argv, *more, option, str(target), *(["--force"] if force else []), "--quiet"],
                    codes=(0,) if replaced else (1, 2),
                    names=() if replaced else (str(target), target.name),
                    kept=(data, nova, journals) + (() if replaced else (target,)),
                    leftovers=(work, mine),
                    before=before,
                )


CLASSES = {
    "force": force_tries,
    "memory": memory_tries,
    "names": name_tries,
    "killed": killed_tries,
    "figure": figure_tries,
    "boxes": boxes_tries,
    "recon": recon_tries,
    "journals": journal_tries,
    "maps": maps_tries,
    "outputs": outputs_tries,
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
