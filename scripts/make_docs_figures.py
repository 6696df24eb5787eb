"""Make every picture of the documentation (``docs/*.png``) from the bundled sample data.

Usage (from the repository root)::

    xvfb-run -a python scripts/make_docs_figures.py [NAME.png ...]

Without names it makes every picture; with names, only those. It writes into ``docs/``
only: the pictures and ``docs/figures.json``, the manifest that records, per picture, the
sha256 of its inputs (this script, the sample data files it reads, the modules that draw
it) and of the PNG. ``tests/test_docs_figures.py`` fails when an input changed since the
picture was made: run this script again then.

The sample data is copied to a temporary folder named ``sample_data`` (as the documented
commands call it) and everything runs from that folder's parent with relative paths, so no
machine path shows in a picture.
Window screenshots are 1600 x 1000 pixels. Seeds are fixed; only software OpenGL's pixels
may differ between machines (the test compares inputs, never PNG bytes).

Not part of the package (like the other maintainer scripts).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from napari_mood.core.seed import DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MANIFEST = DOCS / "figures.json"
SCRIPT = "scripts/make_docs_figures.py"
METHODS_SCRIPT = "scripts/demo_methods.py"
REGENERATE = "xvfb-run -a python scripts/make_docs_figures.py"
SAMPLE = "sample_data"  # the sample data's name in every picture: the name the commands use
WINDOW_SIZE = (1600, 1000)  # width, height of the window screenshots
SEED = DEFAULT_SEED  # the one default of every command and panel
BLIND_SEED = 1  # the blind review's order and names (a positive integer)

# the sample data each kind of picture reads (globs under the repository root)
CASE_001 = (
    "sample_data/toy/brain_001.nii.gz",
    "sample_data/toy_label/pixel/brain_001.nii.gz",
    "sample_data/methods/*/brain_001.nii.gz",
)
DATASET = (
    "sample_data/toy/*.nii.gz",
    "sample_data/toy_label/pixel/*.nii.gz",
    "sample_data/toy_label/sample/*.txt",
    "sample_data/methods/*/*",
)
NOVA = (
    "sample_data/nova/boxes.csv",
    "sample_data/nova/images/*.png",
    "sample_data/nova/maps/*/*.png",
    "sample_data/nova/predictions/*.json",
)
FIGURE_CASES = (  # the journal figure's cases: brain_000, brain_001, brain_004
    "sample_data/toy/brain_00[014].nii.gz",
    "sample_data/toy_label/pixel/brain_00[014].nii.gz",
    "sample_data/methods/*/brain_00[014].nii.gz",
)
SCAN = ("sample_data/toy/brain_005.nii.gz", "sample_data/toy/brain_000.nii.gz")
CATEGORIES = """case,category,subcategory,order
brain_000,normal,,
brain_005,normal,,
brain_001,local,sphere+cube,1
brain_003,local,slab+sphere,2
brain_006,local,cube+pet,3
brain_002,texture,shuffle,4
brain_004,intensity,pet,5
"""
VIEWER = ("napari_mood/_napari/viewer.py", "napari_mood/_napari/session.py")
PLANES = (
    "napari_mood/_napari/planes.py",
    "napari_mood/_napari/plane_marks.py",
    "napari_mood/_napari/widgets/planes.py",
)
READING = (*PLANES, "napari_mood/_napari/reading_layout.py", "napari_mood/_napari/status.py")


@dataclass(frozen=True)
class Figure:
    """One picture: its file name in ``docs/``, what it reads and what draws it."""

    name: str
    data: tuple[str, ...]
    """Sample data files read (globs relative to the repository root)."""
    sources: tuple[str, ...]
    """The modules that draw it (repository-relative), kept short: the ones whose change
    changes the picture."""
    gui: bool = False


def _w(name: str) -> str:
    return f"napari_mood/_napari/widgets/{name}.py"


FIGURES: tuple[Figure, ...] = (
    Figure("demo.png", CASE_001, (*VIEWER, *PLANES, "napari_mood/_napari/docking.py"), gui=True),
    Figure("planes.png", CASE_001, (*VIEWER, *PLANES, "napari_mood/_napari/docking.py"), gui=True),
    Figure("reading_layout.png", CASE_001, (*VIEWER, *READING), gui=True),
    Figure("threshold.png", CASE_001, (*VIEWER, _w("threshold"), _w("threshold_texts")), gui=True),
    Figure("slices.png", CASE_001, (*VIEWER, _w("slices")), gui=True),
    Figure(
        "objects.png",
        CASE_001,
        (*VIEWER, _w("objects"), _w("objects_texts"), "napari_mood/_napari/looks.py"),
        gui=True,
    ),
    Figure(
        "compare.png", CASE_001, (*VIEWER, _w("compare"), "napari_mood/core/compare.py"), gui=True
    ),
    Figure(
        "table.png",
        DATASET,
        (*VIEWER, _w("table"), "napari_mood/services/comparison.py", _w("table_texts")),
        gui=True,
    ),
    Figure(
        "browser.png",
        DATASET,
        (*VIEWER, _w("browser"), _w("browser_figure"), _w("case_table")),
        gui=True,
    ),
    Figure("review.png", CASE_001, (*VIEWER, _w("review"), _w("review_view")), gui=True),
    Figure(
        "review_blind.png",
        CASE_001,
        (*VIEWER, _w("review"), _w("review_blind"), _w("review_view")),
        gui=True,
    ),
    Figure(
        "boxes_viewer.png",
        NOVA,
        (
            "napari_mood/_napari/box_viewer.py",
            "napari_mood/_napari/widgets/boxes.py",
            "napari_mood/_napari/boxes.py",
        ),
        gui=True,
    ),
    Figure(
        "figure.png",
        FIGURE_CASES,
        (
            "napari_mood/services/figures.py",
            "napari_mood/services/figure_layout.py",
            "napari_mood/services/figure_text.py",
            "napari_mood/services/figure_cells.py",
        ),
    ),
    Figure(
        "recon.png",
        ("sample_data/toy/brain_000.nii.gz", "sample_data/toy/brain_005.nii.gz"),
        (
            "napari_mood/services/pet_sample.py",
            "napari_mood/services/recon.py",
            "napari_mood/services/recon_report.py",
        ),
    ),
    Figure(
        "boxes.png",
        NOVA,
        ("napari_mood/services/box_figures.py", "napari_mood/services/looks.py"),
    ),
    Figure(
        "analysis_sweep_size.png",
        SCAN,
        (
            METHODS_SCRIPT,
            "napari_mood/services/sweep.py",
            "napari_mood/services/sweep_report.py",
            "napari_mood/core/sweep.py",
        ),
    ),
    Figure(
        "analysis_sweep_contrast.png",
        SCAN,
        (
            METHODS_SCRIPT,
            "napari_mood/services/sweep.py",
            "napari_mood/services/sweep_report.py",
            "napari_mood/core/sweep.py",
        ),
    ),
    Figure(
        "analysis_categories.png",
        DATASET,
        (METHODS_SCRIPT, "napari_mood/services/categories.py", "napari_mood/core/categories.py"),
    ),
    Figure(
        "analysis_rank.png",
        DATASET,
        ("napari_mood/services/rankings.py", "napari_mood/core/ranking.py"),
    ),
)
BY_NAME = {figure.name: figure for figure in FIGURES}


# --------------------------------------------------------------------------- manifest


def sha256(path: Path) -> str:
    """The sha256 of a file's bytes (hex)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def figure_inputs(figure: Figure, root: Path = ROOT) -> list[str]:
    """Repository-relative paths of everything ``figure`` is made from (sorted, unique).

    Raises
    ------
    FileNotFoundError
        When a declared module or sample data pattern names no file (renamed or removed:
        update :data:`FIGURES`).
    """
    files = {SCRIPT, *figure.sources}
    for pattern in figure.data:
        found = [p for p in root.glob(pattern) if p.is_file()]
        if not found:
            raise FileNotFoundError(f"{figure.name}: no sample data file matches {pattern}")
        files.update(p.relative_to(root).as_posix() for p in found)
    gone = sorted(path for path in files if not (root / path).is_file())
    if gone:
        raise FileNotFoundError(f"{figure.name}: {', '.join(gone)} not found: update {SCRIPT}")
    return sorted(files)


def input_hashes(figure: Figure, root: Path = ROOT) -> dict[str, str]:
    """``{input path: sha256}`` of ``figure``'s inputs as they are now."""
    return {path: sha256(root / path) for path in figure_inputs(figure, root)}


def update_manifest(made: Sequence[str]) -> None:
    """Record the inputs and outputs of the pictures just made (others kept as they were)."""
    data = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    figures = data.get("figures", {})
    for name in made:
        figures[name] = {
            "inputs": input_hashes(BY_NAME[name]),
            "output": sha256(DOCS / name),
        }
    data = {
        "regenerate": REGENERATE,
        "figures": {name: figures[name] for name in sorted(figures) if name in BY_NAME},
    }
    MANIFEST.write_text(json.dumps(data, indent=1) + "\n")


# --------------------------------------------------------------------------- analyses


def _cli(*args: str) -> None:
    """Run one ``napari-mood`` command in this process; stop on a non-zero exit."""
    from napari_mood.cli import main

    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
        code = main(list(args))
    if code:
        raise SystemExit(f"napari-mood {' '.join(args)}: exit {code}")


def _toy_methods(dataset: Path, preds: Path) -> Path:
    """The three demo methods (scripts/demo_methods.py) scored on ``dataset``'s scans."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import demo_methods

    os.environ["TEMPLATE"] = f"{SAMPLE}/toy/brain_000.nii.gz"  # the "healthy anatomy"
    for kind in ("bright", "edges", "template"):
        (preds / kind).mkdir(parents=True, exist_ok=True)
        demo_methods.main(kind, dataset / "toy", preds / kind)
    return preds


def make_sweep(kind: str, work: Path) -> None:
    """AP of the demo methods against sphere radius or intensity (one normal scan)."""
    scan = work / "scan" / "normal.nii.gz"
    if not scan.exists():
        scan.parent.mkdir(parents=True)
        shutil.copy(f"{SAMPLE}/toy/brain_005.nii.gz", scan)
    values = ("--radii", "0:40:4") if kind == "size" else ("--radius", "10")
    _cli("sweep", kind, str(scan), "--out", str(work / kind), *values, "--force")
    preds = _toy_methods(work / kind, work / f"{kind}-preds")
    title = f"{kind} sweep (sample brain, 3 toy methods)"
    report = work / f"{kind}-report"
    _cli("sweep-report", str(work / kind), "--preds", str(preds), "--out", str(report),
         "--quiet", "--force", "--title", title)  # fmt: skip
    shutil.copy(report / "sweep_ap.png", DOCS / f"analysis_sweep_{kind}.png")


def make_categories(work: Path) -> None:
    """Sample AP per sub-category of the sample data, the three demo methods."""
    preds = _toy_methods(Path(SAMPLE), work / "sample-preds")
    (work / "categories.csv").write_text(CATEGORIES)
    out = work / "categories"
    _cli("categories", SAMPLE, "--preds", str(preds), "--categories", str(work / "categories.csv"),
         "--out", str(out), "--quiet", "--force")  # fmt: skip
    shutil.copy(out / "subcategory_sample_ap.png", DOCS / "analysis_categories.png")


def make_rank(work: Path) -> None:
    """Rank stability of the sample data's own methods (pixel and sample task)."""
    results = work / "sample.json"
    _cli("evaluate", SAMPLE, "--batches", "50", "--batch-size", "3", "--seed", str(SEED),
         "--format", "json", "--out", str(results), "--quiet", "--force")  # fmt: skip
    out = work / "rank"
    _cli("rank", f"brain={results}", "--bootstrap", "1000", "--seed", str(SEED), "--out", str(out),
         "--force")  # fmt: skip
    shutil.copy(out / "rank_stability.png", DOCS / "analysis_rank.png")


def make_figure(work: Path) -> None:
    """The journal figure of three cases in three planes."""
    out = work / "figure.png"
    _cli("figure", SAMPLE, "--cases", "brain_001,brain_004,brain_000", "--width", "column",
         "--planes", "axial,coronal,sagittal", "--dpi", "300", "--out", str(out), "--force")  # fmt: skip
    shutil.copy(out, DOCS / "figure.png")


def make_boxes(work: Path) -> None:
    """NOVA-style boxes of the sample's best method on the slices with most misses."""
    out = work / "boxes.png"
    _cli("evaluate-boxes", f"{SAMPLE}/nova", "--plot", str(out), "--dpi", "200", "--quiet",
         "--force")  # fmt: skip
    shutil.copy(out, DOCS / "boxes.png")


def make_recon(work: Path) -> None:
    """The PET framework's Fig. 2: reconstruction error against the degree of hypometabolism."""
    pet, sim = work / "pet", work / "pet-sim"
    _cli("pet-sample", "--out", str(pet), "--subjects", "4", "--step", "3", "--quiet", "--force")
    scans = sorted(str(p) for p in (pet / "scans").glob("*.nii.gz"))
    _cli("simulate", *scans, "--kind", "pet", "--mask", str(pet / "atlas.nii.gz"),
         "--atlas-labels", "3,4,5,6", "--region-name", "ad",
         "--degree", "0.05,0.1,0.15,0.2,0.3,0.4,0.5,0.7", "--smooth", "8",
         "--out", str(sim), "--force")  # fmt: skip
    recon, out = work / "pet-recon", work / "recon.png"
    _cli("reconstruct", str(sim), "--template", str(pet / "template.nii.gz"), "--out", str(recon),
         "--quiet", "--force")  # fmt: skip
    _cli("evaluate-recon", str(sim), "--recon", str(recon), "--plot", str(out), "--force")
    shutil.copy(out, DOCS / "recon.png")


ANALYSES: dict[str, Callable[[Path], None]] = {
    "recon.png": make_recon,
    "analysis_sweep_size.png": lambda work: make_sweep("size", work),
    "analysis_sweep_contrast.png": lambda work: make_sweep("contrast", work),
    "analysis_categories.png": make_categories,
    "analysis_rank.png": make_rank,
    "figure.png": make_figure,
    "boxes.png": make_boxes,
}


# --------------------------------------------------------------------------- windows


def _settle(seconds: float = 0.0) -> None:
    """Handle Qt events until every widget's background work is done (and ``seconds``)."""
    from qtpy.QtWidgets import QApplication

    from napari_mood._napari.widgets.worker import all_idle

    end = time.monotonic() + 300
    quiet_since = None
    while time.monotonic() < end:
        QApplication.processEvents()
        if all_idle():
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= max(seconds, 0.5):
                return
        else:
            quiet_since = None
        time.sleep(0.02)
    raise SystemExit("the widgets were still busy after 300 s")


def _shoot(viewer: Any, name: str, panel: Any = None) -> None:
    """Save the whole window (or only ``panel``, a floated dock) as ``docs/NAME``."""
    from qtpy.QtWidgets import QApplication

    for widget in QApplication.allWidgets():
        if type(widget).__name__ == "NapariQtNotification":
            widget.close()  # toasts
    _settle()
    if panel is None:
        viewer.screenshot(str(DOCS / name), canvas_only=False)
    elif not panel.grab().save(str(DOCS / name)):
        raise SystemExit(f"docs/{name}: not written")
    update_manifest([name])
    print(f"docs/{name}")


def _front(viewer: Any, title: str) -> Any:
    """Bring the dock titled ``title`` (a tab) to the front; return it."""
    from qtpy.QtWidgets import QDockWidget

    for dock in viewer.window._qt_window.findChildren(QDockWidget):
        if dock.windowTitle() == title:
            dock.show()
            dock.raise_()
            _settle()
            return dock
    raise SystemExit(f"no dock titled {title!r}")


def _tab(viewer: Any, title: str) -> None:
    """Bring a tab to the front; the whole window is shot."""
    _front(viewer, title)


def _widget(opened: Any, cls_name: str) -> Any:
    return next(w for w in opened.widgets if type(w).__name__ == cls_name)


def _mood_windows(wanted: set[str], work: Path) -> None:
    """Screenshots of the MOOD viewer on the sample data, one panel in front at a time."""
    from napari_mood._napari.viewer import build_viewer, focus_case
    from napari_mood.services.review_location import ENV_REVIEW_DIR

    os.environ[ENV_REVIEW_DIR] = str(work / "reviews")
    opened = build_viewer([SAMPLE])
    viewer = opened.viewer
    viewer.window.resize(*WINDOW_SIZE)
    _settle(1.0)
    focus_case(viewer)  # the case was framed in the window's first size
    _settle()
    shots: list[tuple[str, Callable[[Any, Any], Any]]] = [
        ("demo.png", lambda v, o: None),
        ("planes.png", _show_planes),
        ("reading_layout.png", _show_reading_layout),
        ("threshold.png", lambda v, o: _tab(v, "Thresholds")),
        ("slices.png", lambda v, o: _tab(v, "Slices")),
        ("objects.png", _show_objects),
        ("compare.png", _show_compare),
        ("table.png", _show_table),
        ("browser.png", _show_browser),
        ("review.png", _show_review),
        ("review_blind.png", _show_blind_review),
    ]
    try:
        for name, prepare in shots:  # prepare returns a floated panel to shoot alone, or None
            if name not in wanted:
                continue
            panel = prepare(viewer, opened)
            _settle(1.0)
            _shoot(viewer, name, panel)
            if name in AFTER:  # undo what only this picture needed
                AFTER[name](viewer, opened)
    finally:
        viewer.close()


def _planes_size(viewer: Any, width: int, height: int) -> None:
    """Resize the three planes' dock and fit every view again."""
    from qtpy.QtCore import Qt

    from napari_mood._napari.viewer import focus_case

    dock = _front(viewer, "Three planes")
    window = viewer.window._qt_window
    window.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
    window.resizeDocks([dock], [height], Qt.Orientation.Vertical)
    _settle()
    focus_case(viewer)


def _show_planes(viewer: Any, opened: Any) -> None:
    _planes_size(viewer, 720, 800)


def _after_planes(viewer: Any, opened: Any) -> None:
    _planes_size(viewer, 350, 640)


def _show_reading_layout(viewer: Any, opened: Any) -> None:
    """Napari's canvas and the coronal, sagittal and 3-D panes as four equal panes."""
    widget = _widget(opened, "PlanesWidget")
    widget._three_d.setChecked(True)
    widget._reading.setChecked(True)
    for _ in range(120):  # the panes are sized over a few event-loop turns
        _settle(0.5)
        if not widget._layout.sizing and not widget.planes.pending:
            break
    _settle(1.0)


def _after_reading_layout(viewer: Any, opened: Any) -> None:
    widget = _widget(opened, "PlanesWidget")
    widget._reading.setChecked(False)
    widget._three_d.setChecked(False)
    _settle(1.0)


def _show_objects(viewer: Any, opened: Any) -> None:
    """The residual method's objects: TP, FP and FN outlines, the table, the first one."""
    _front(viewer, "Objects")
    widget = _widget(opened, "ObjectsWidget")
    widget._method.setCurrentText("residual")  # TP, FP and FN outlines
    widget.run()
    _settle()
    widget.step(1)


def _hide_objects(viewer: Any) -> None:
    """Hide the Objects panel's outlines (they would cover other panels' layers)."""
    for layer in viewer.layers:
        if layer.name.endswith(" objects"):
            layer.visible = False


def _show_compare(viewer: Any, opened: Any) -> None:
    """The difference of two methods, the method maps (their eyes in the panel) and the GT
    hidden so that only its colours are drawn. oracle_noisy at 0.2 flags a rim around the sphere
    that residual does not: all three colours on the case's slice.
    """
    from napari_mood._napari.viewer import focus_case

    _hide_objects(viewer)
    opened.session.set_threshold("oracle_noisy", 0.2)
    focus_case(viewer)
    _front(viewer, "Compare")
    widget = _widget(opened, "CompareWidget")
    widget.show_difference("oracle_noisy", "residual")
    _settle()
    for toggle in widget._toggles.values():
        toggle.box.setChecked(False)
    opened.session.gt_layer.visible = False  # its outline would cover the rim


def _after_compare(viewer: Any, opened: Any) -> None:
    widget = _widget(opened, "CompareWidget")
    widget._diff_check.setChecked(False)
    for toggle in widget._toggles.values():
        toggle.box.setChecked(True)
    opened.session.set_threshold("oracle_noisy", 0.5)
    opened.session.gt_layer.visible = True


def _show_table(viewer: Any, opened: Any) -> Any:
    """The dataset's comparison table, floated with every column (that panel is shot)."""
    dock = _front(viewer, "Table")
    widget = _widget(opened, "TableWidget")
    widget.set_dataset(SAMPLE)
    widget.refresh()
    _settle()
    widget.show_all_columns()
    return dock


def _after_table(viewer: Any, opened: Any) -> None:
    _front(viewer, "Table").setFloating(False)


def _show_browser(viewer: Any, opened: Any) -> None:
    """The sample dataset evaluated, the residual method's columns, worst AP first."""
    from qtpy.QtCore import Qt

    _front(viewer, "Browser")
    widget = _widget(opened, "DatasetBrowserWidget")
    widget.evaluate(SAMPLE)
    _settle()
    widget._method_filter.setCurrentText("residual")  # one method's columns: they fit
    _settle()
    table = widget._table
    model = table.model()
    shown = [c for c in range(model.columnCount()) if not table.isColumnHidden(c)]
    ap = next(c for c in shown if model.headerData(c, Qt.Orientation.Horizontal) == "AP")
    table.sortByColumn(ap, Qt.SortOrder.AscendingOrder)  # the worst cases first


def _show_review(viewer: Any, opened: Any) -> None:
    _hide_objects(viewer)
    _front(viewer, "Review")
    widget = _widget(opened, "ReviewWidget")
    widget.select_method("residual")
    widget.run()
    _settle()
    for verdict, note in REVIEWED:
        widget._c.note.setText(note)
        widget.set_verdict(verdict)
        _settle()
    widget.go_to(0)


REVIEWED = (
    ("true finding", "the sphere"),
    ("false alarm", "tissue boundary"),
    ("unsure", ""),
)


def _show_blind_review(viewer: Any, opened: Any) -> None:
    from napari_mood._napari.widgets import review_blind

    # a reader's blind order is drawn at random (secrets); fixed here: the same picture
    # every run (review_blind owns the blind mode of the review panel)
    setattr(review_blind, "stored_seed", lambda records, reviewer: BLIND_SEED)  # noqa: B010
    widget = _widget(opened, "ReviewWidget")
    widget.set_blind(True)


AFTER = {
    "planes.png": _after_planes,
    "reading_layout.png": _after_reading_layout,
    "compare.png": _after_compare,
    "table.png": _after_table,
}


def _box_window(work: Path) -> None:
    """The NOVA-style sample in napari with the Boxes panel."""
    from qtpy.QtCore import Qt
    from qtpy.QtWidgets import QDockWidget

    from napari_mood._napari.viewer import build_viewer

    opened = build_viewer([f"{SAMPLE}/nova"])
    viewer = opened.viewer
    viewer.window.resize(*WINDOW_SIZE)
    try:
        _settle()
        docks = viewer.window._qt_window.findChildren(QDockWidget)
        panel = next(d for d in docks if d.windowTitle().startswith("Boxes"))
        viewer.window._qt_window.resizeDocks([panel], [380], Qt.Orientation.Horizontal)
        viewer.dims.set_current_step(0, 1)  # brain_001_z44: detected, missed and TP boxes
        _settle(1.0)
        _shoot(viewer, "boxes_viewer.png")
    finally:
        viewer.close()


# --------------------------------------------------------------------------- main


@contextlib.contextmanager
def _sample_copy() -> Iterator[Path]:
    """A working folder holding the sample data as ``sample_data``; it is the current
    directory meanwhile and removed after.

    Its path is always the same (``TMP/make-docs-figures``): names derived from it (the
    review file's) are the same in every run.
    """
    before = Path.cwd()
    work = Path(tempfile.gettempdir()) / "make-docs-figures"
    shutil.rmtree(work, ignore_errors=True)  # left by a run that was killed
    work.mkdir()
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        os.environ[name] = str(work / name.lower())  # napari's settings: the defaults
    # the repository's copy (the one hashed), not an installed package's
    shutil.copytree(ROOT / "sample_data", work / SAMPLE, ignore=shutil.ignore_patterns("__*"))
    os.chdir(work)
    try:
        yield work
    finally:
        os.chdir(before)
        shutil.rmtree(work)


def main(argv: Sequence[str] | None = None) -> int:
    """Make the pictures named (default: all); each is recorded in the manifest when made."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="pictures to make (default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(BY_NAME))
    if unknown:
        parser.error(f"unknown picture(s) {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    wanted = set(args.names or BY_NAME)
    with _sample_copy() as work:
        for name, make in ANALYSES.items():
            if name in wanted:
                make(work)
                update_manifest([name])
                print(f"docs/{name}")
        if "boxes_viewer.png" in wanted:
            _box_window(work)
        if wanted & {f.name for f in FIGURES if f.gui} - {"boxes_viewer.png"}:
            _mood_windows(wanted, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
