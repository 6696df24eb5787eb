"""Check the two install paths of napari-mood for real, in fresh virtual environments.

Usage (from the repository root)::

    python scripts/check_install.py [--core] [--napari] [--work DIR] [--keep]

``--core`` (the default when neither is given): build the wheel, ``pip install`` it with
no extras into a new venv, check that nothing of the Qt or napari stack came with it and
that its site-packages stays within ``--max-core-mb`` (500 MB), run ``napari-mood --help``
and one example of every non-GUI command on a copy of the sample data the wheel ships,
and check that ``demo`` and ``view`` refuse in one line naming what to install (exit 1,
see docs/reference/command-line.md).

``--napari``: a second venv with ``napari[pyqt6]`` and the plain wheel (what napari's
plugin manager does in an existing napari); under ``xvfb-run -a`` it docks every widget
of the manifest through napari's plugin path (``add_plugin_dock_widget``), checks that
the window still fits the screen (napari tabs the docks) and fails on any error, uncaught
exceptions in Qt callbacks included.

Packages come through pip's cache; each step prints its wall time. Exit status 0 when
every check passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAPARI = "napari[pyqt6]>=0.9.2,<0.10"  # the [pyqt6] extra of pyproject.toml
GUI_COMMANDS = ("demo", "view")
MAX_CORE_MB = 500.0  # issue 48: numpy, scipy, scikit-image, matplotlib, dask ... and pip
# distributions napari brings (its Qt and plugin stack, its tables, its CLI tools): none of them
# belongs in a core-only install
NAPARI_STACK = (
    "napari",
    "napari-plugin-engine",
    "npe2",
    "app-model",
    "magicgui",
    "superqt",
    "qtpy",
    "vispy",
    "PyQt5",
    "PyQt6",
    "PySide2",
    "PySide6",
    "psygnal",
    "pydantic",
    "pandas",
    "typer",
    "rich",
)

# a method with MOOD's docker interface (CMD INPUT OUTPUT): the scan itself as its score
METHOD = """import sys
from pathlib import Path
import nibabel as nib
import numpy as np
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
for path in sorted(src.glob("*.nii.gz")):
    img = nib.load(path)
    scan = np.asarray(img.dataobj, dtype=np.float32)
    nib.save(nib.Nifti1Image(np.clip(scan / max(float(scan.max()), 1e-6), 0, 1), img.affine),
             dst / path.name)
    (dst / (path.name + ".txt")).write_text(str(float(scan.max() > 0)))
"""

# two readers' journals, written by the installed package's own review store
JOURNALS = """from napari_mood.core.regions import FlaggedRegion
from napari_mood.services.review import review_record
from napari_mood.services.review_store import ReviewFile
for reader, verdicts in {"ana": ["true finding", "false alarm", "unsure"],
                         "ben": ["true finding", "true finding", "unsure"]}.items():
    book = ReviewFile(f"reviews/{reader}.csv")
    for k, verdict in enumerate(verdicts, 1):
        found = FlaggedRegion(k, 27, 27.0, (4.0 * k, 5.0, 5.0), ((0, 3),) * 3, 0.9, 0.8, True)
        book.save(review_record(found, case="brain_001", method="residual", threshold=0.5,
                                centroid_world_mm=(8.0 * k, 10.0, 10.0), verdict=verdict,
                                time=f"2025-03-01T09:0{k}:00+00:00", reviewer=reader))
"""

CATEGORIES = (
    "case,category\nbrain_000,normal\nbrain_005,normal\nbrain_001,local\nbrain_002,texture\n"
)

# one example per non-GUI command, run in order in the work folder; S = the sample data
CORE_EXAMPLES = (
    "evaluate S --task pixel,sample,object",
    "evaluate S --batches 5 --batch-size 3 --format json --out eval.json",
    "evaluate S --report report --dpi 60",
    "validate S --pred residual=S/methods/residual",
    "simulate S/toy/brain_000.nii.gz --out sim --count 2 --normal 1",
    "figure S --cases brain_001 --out fig.png --dpi 60",
    "evaluate-boxes S/nova --per-image --plot boxes.png --dpi 60",
    "run 'PYTHON method.py' S/toy --out preds/scan",
    "sweep size S/toy/brain_000.nii.gz --out sweep --radii 0:8:4",
    "run 'PYTHON method.py' sweep/toy --out sweep-preds/scan",
    "sweep-report sweep --preds sweep-preds --out sweep-report --dpi 60",
    "rank brain=eval.json --out ranks --dpi 60",
    "categories S --categories categories.csv --out cats --dpi 60",
    "pet-sample --out pet --subjects 2 --step 3",
    "simulate pet/scans/*.nii.gz --kind pet --mask pet/atlas.nii.gz --atlas-labels 3,4"
    " --degree 0.1,0.3 --out petsim",
    "reconstruct petsim --template pet/template.nii.gz --out recon",
    "evaluate-recon petsim --recon recon --plot recon.png --dpi 60",
    "review-report reviews/ana.csv reviews/ben.csv --out study",
)

DOCK = """import sys, traceback
import napari
from npe2 import PluginManager
from qtpy.QtWidgets import QApplication
errors = []


def record(*info):  # an uncaught exception, in a Qt callback or at the top level
    errors.append("".join(traceback.format_exception(*info)))
    print(errors[-1], file=sys.stderr, flush=True)


sys.excepthook = record
viewer = napari.Viewer(show=True)  # napari discovers its plugins here, as a user's napari does
manifest = PluginManager.instance().get_manifest("napari-mood")
widgets = [w.display_name for w in manifest.contributions.widgets]
sample = manifest.contributions.sample_data[0].key  # the panels get a case to show
viewer.open_sample("napari-mood", sample)
for name in widgets:
    try:
        viewer.window.add_plugin_dock_widget("napari-mood", name)
    except Exception:  # report every widget, not only the first that fails
        errors.append(name + ": " + traceback.format_exc())
    for _ in range(20):
        QApplication.processEvents()
    print(("FAILED " if errors else "docked ") + name, flush=True)
window = viewer.window._qt_window
screen = window.screen().availableGeometry()
size = window.frameGeometry()  # every panel docked: the window must still fit the screen
print(f"window {size.width()}x{size.height()} px on a {screen.width()}x{screen.height()} screen")
if size.width() > screen.width() or size.height() > screen.height():
    errors.append(f"the docked panels grew the window past the screen: {size.width()}x{size.height()}")
window.resize(min(1600, screen.width()), min(1000, screen.height()))
for _ in range(20):
    QApplication.processEvents()
viewer.screenshot(sys.argv[1], canvas_only=False)
viewer.close()
print(f"{len(widgets)} widgets docked on sample {sample!r}, {len(errors)} errors; {sys.argv[1]}")
for error in errors:
    print(error)
sys.exit(1 if errors else 0)
"""


@dataclass(frozen=True)
class Outcome:
    """One checked step: what ran, whether it passed, how long it took."""

    name: str
    ok: bool
    seconds: float
    detail: str = ""


def run(argv: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``argv``; its exit status, stdout and stderr."""
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def timed(name: str, argv: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> Outcome:
    """Run one step that must exit 0."""
    start = time.perf_counter()
    code, out, err = run(argv, cwd=cwd, env=env)
    tail = "\n".join((out + err).strip().splitlines()[-15:])
    return Outcome(name, code == 0, time.perf_counter() - start, "" if code == 0 else tail)


def build_wheel(work: Path) -> Path:
    """The package's wheel, built into ``work/dist``."""
    dist = work / "dist"
    code, out, err = run(
        [sys.executable, "-m", "build", "--wheel", "-o", str(dist), str(ROOT)], cwd=work
    )
    if code != 0:
        sys.exit(f"check_install: the wheel does not build:\n{out}{err}")
    return next(dist.glob("napari_mood-*.whl"))


def make_venv(path: Path, *packages: str) -> Outcome:
    """A new venv at ``path`` with ``packages`` installed by pip."""
    start = time.perf_counter()
    for argv in (
        [sys.executable, "-m", "venv", str(path)],
        [str(path / "bin" / "python"), "-m", "pip", "install", "-q", *packages],
    ):
        code, out, err = run(argv, cwd=path.parent)
        if code != 0:
            return Outcome(f"venv {path.name}", False, time.perf_counter() - start, out + err)
    return Outcome(f"venv {path.name}: {' '.join(packages)}", True, time.perf_counter() - start)


def site_packages_mb(venv: Path) -> float:
    """The size of the venv's site-packages in MB (10**6 bytes), links not followed."""
    total = 0
    for site in venv.glob("lib/python*/site-packages"):
        for path in site.rglob("*"):
            if path.is_file() and not path.is_symlink():
                total += path.stat().st_size
    return total / 1e6


def installed(venv: Path) -> dict[str, str]:
    """``{normalised distribution name: version}`` of what pip installed in the venv."""
    code, out, err = run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"], cwd=venv
    )
    if code != 0:
        sys.exit(f"check_install: pip cannot list the venv:\n{err}")
    return {
        re.sub(r"[-_.]+", "-", entry["name"]).lower(): entry["version"] for entry in json.loads(out)
    }


def check_core_size(venv: Path, limit_mb: float) -> list[Outcome]:
    """Nothing of napari's stack in the core venv, and its site-packages within ``limit_mb``."""
    start = time.perf_counter()
    found = installed(venv)
    stack = sorted(name for name in map(str.lower, NAPARI_STACK) if name in found)
    size = site_packages_mb(venv)
    seconds = time.perf_counter() - start
    return [
        Outcome(
            f"nothing of the Qt or napari stack in the core venv ({len(found)} distributions)",
            not stack,
            seconds,
            "installed: " + ", ".join(stack),
        ),
        Outcome(
            f"core venv site-packages: {size:.0f} MB (limit {limit_mb:.0f} MB)",
            size <= limit_mb,
            0.0,
            "the largest: " + largest(venv),
        ),
    ]


def largest(venv: Path, count: int = 8) -> str:
    """The ``count`` largest top-level entries of the venv's site-packages, with their MB."""
    sizes = []
    for site in venv.glob("lib/python*/site-packages"):
        for entry in site.iterdir():
            files = [entry] if entry.is_file() else entry.rglob("*")
            mb = sum(p.stat().st_size for p in files if p.is_file() and not p.is_symlink()) / 1e6
            sizes.append((mb, entry.name))
    return ", ".join(f"{name} {mb:.0f}" for mb, name in sorted(sizes, reverse=True)[:count])


def example_argv(example: str, venv: Path, sample: Path, cwd: Path) -> list[str]:
    """The argv of one example: ``S`` is the sample data, ``PYTHON`` the venv's, globs expanded."""
    python = str(venv / "bin" / "python")
    words: list[str] = []
    for word in shlex.split(example):
        word = word.replace("PYTHON", python)
        word = re.sub(r"(^|=)S(?=/|$)", lambda m: m.group(1) + str(sample), word)
        expanded = sorted(glob.glob(word, root_dir=cwd)) if "*" in word else [word]
        words.extend(expanded)
    return [str(venv / "bin" / "napari-mood"), *words]


def prepare_core_work(venv: Path, work: Path) -> Path:
    """The work folder: the installed sample data copied, the method, categories, journals."""
    code, out, err = run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import napari_mood; print(napari_mood.sample_data_dir())",
        ],
        cwd=work,
    )
    if code != 0:
        sys.exit(f"check_install: the installed package has no sample data:\n{err}")
    sample = work / "sample_data"
    shutil.copytree(out.strip(), sample, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    (work / "method.py").write_text(METHOD)
    (work / "categories.csv").write_text(CATEGORIES)
    (work / "reviews").mkdir()
    code, out, err = run([str(venv / "bin" / "python"), "-c", JOURNALS], cwd=work)
    if code != 0:
        sys.exit(f"check_install: the review journals cannot be written:\n{err}")
    return sample


def check_gui_refusal(command: str, venv: Path, sample: Path, cwd: Path) -> Outcome:
    """``demo`` / ``view`` without napari: exit 1, one line naming the extra to install."""
    argv = [str(venv / "bin" / "napari-mood"), command]
    argv += [str(sample)] if command == "view" else []
    start = time.perf_counter()
    code, out, err = run(argv, cwd=cwd)
    lines = err.strip().splitlines()
    ok = code == 1 and len(lines) == 1 and "napari-mood[pyqt6]" in lines[0] and not out
    return Outcome(f"{command} refuses", ok, time.perf_counter() - start, f"exit {code}: {err}")


def check_core(wheel: Path, work: Path, *, limit_mb: float = MAX_CORE_MB) -> list[Outcome]:
    """The plain wheel without napari: slim, every non-GUI command runs, the GUI ones refuse."""
    venv = work / "core-venv"
    outcomes = [make_venv(venv, str(wheel))]
    if not outcomes[0].ok:
        return outcomes
    code, _, _ = run([str(venv / "bin" / "python"), "-c", "import napari"], cwd=work)
    outcomes.append(Outcome("napari absent from the core venv", code != 0, 0.0))
    outcomes += check_core_size(venv, limit_mb)
    run_dir = work / "core-run"
    run_dir.mkdir()
    sample = prepare_core_work(venv, run_dir)
    help_argv = [str(venv / "bin" / "napari-mood"), "--help"]
    outcomes.append(timed("napari-mood --help", help_argv, cwd=run_dir))
    for example in CORE_EXAMPLES:
        argv = example_argv(example, venv, sample, run_dir)
        outcomes.append(timed(f"napari-mood {example}", argv, cwd=run_dir))
    outcomes += [check_gui_refusal(c, venv, sample, run_dir) for c in GUI_COMMANDS]
    return outcomes


def check_napari(wheel: Path, work: Path) -> list[Outcome]:
    """napari[pyqt6] and then the plain wheel: every widget docks without an error."""
    venv = work / "napari-venv"
    outcomes = [make_venv(venv, NAPARI)]
    if not outcomes[0].ok:
        return outcomes
    before = site_packages_mb(venv)
    outcomes.append(make_venv(venv, str(wheel)))  # the plugin manager's step: no extras
    if not outcomes[-1].ok:
        return outcomes
    added = site_packages_mb(venv) - before
    outcomes.append(
        Outcome(
            f"napari venv site-packages: {before:.0f} MB with napari[pyqt6], "
            f"+{added:.0f} MB with the plain wheel",
            True,
            0.0,
        )
    )
    script = work / "dock_every_widget.py"
    script.write_text(DOCK)
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    shot = work / "every_widget_docked.png"
    argv = ["xvfb-run", "-a", str(venv / "bin" / "python"), str(script), str(shot)]
    start = time.perf_counter()
    code, out, err = run(argv, cwd=work, env=env)
    print(out, end="")
    detail = "" if code == 0 else out[-3000:] + err[-3000:]
    outcomes.append(Outcome("dock every widget", code == 0, time.perf_counter() - start, detail))
    return outcomes


def report(outcomes: list[Outcome]) -> bool:
    """Print one line per step; True when all passed."""
    for outcome in outcomes:
        print(f"{'ok  ' if outcome.ok else 'FAIL'} {outcome.seconds:6.1f} s  {outcome.name}")
        if not outcome.ok and outcome.detail:
            print("      " + outcome.detail.replace("\n", "\n      "))
    return all(outcome.ok for outcome in outcomes)


def main(argv: list[str] | None = None) -> int:
    """Run the chosen checks; exit status 0 when every step passed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--core", action="store_true", help="the core-only venv (default)")
    parser.add_argument("--napari", action="store_true", help="napari[pyqt6] + the plain wheel")
    parser.add_argument(
        "--max-core-mb", type=float, default=MAX_CORE_MB, help="the core venv's size limit"
    )
    parser.add_argument("--work", type=Path, help="work folder (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    core = args.core or not args.napari
    work = args.work or Path(tempfile.mkdtemp(prefix="napari-mood-install-"))
    work.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    wheel = build_wheel(work)
    outcomes = [Outcome(f"wheel {wheel.name}", True, time.perf_counter() - start)]
    if core:
        outcomes += check_core(wheel, work, limit_mb=args.max_core_mb)
    if args.napari:
        outcomes += check_napari(wheel, work)
    passed = report(outcomes)
    print(f"{'all passed' if passed else 'FAILED'} in {time.perf_counter() - start:.0f} s")
    if not args.keep and args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
