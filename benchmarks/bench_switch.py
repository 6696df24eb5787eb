"""Benchmark a reading session at MOOD sizes: memory over case switches, the next case.

Writes a synthetic MOOD dataset of ``--cases`` cases of ``--size``^3 voxels (a scan, a
GT with a few lesions and 4 float32 maps each, :func:`bench_viewer.make_case`), opens it
as ``napari-mood view`` does (:func:`~napari_mood._napari.viewer.build_viewer`: every
panel docked, the three planes included), evaluates it in the dataset browser and then
opens case after case from the browser (``open_case``: what a double click does), waiting
each time until the case is on the main canvas and every panel is idle. It measures:

* memory: the resident memory (after ``gc.collect`` and ``malloc_trim``) after switch 2,
  20 and ``--switches`` (target: the last within 10 % of switch 2's);
* the next case: from ``open_case`` until **every pane** (napari's axial canvas, the
  coronal and the sagittal view) has drawn a frame of the new case (each canvas's vispy
  draw event, :class:`PaneFrames`), when the browser had read it ahead (its prefetch
  done, the review panel's regions of it made too) and when it had not (the prefetch
  dropped first). Targets at 256^3: <= 1 s prefetched, <= 3 s not, <= 0.3x bare napari;
* mixed frames: frames drawn, once the window's title names the new case, by a pane that
  still shows the previous case's arrays (target: none).

The anchor, in a fresh process of the same invocation: **bare napari** switching cases as
a user's script would (remove every layer, read the next case's six files with nibabel,
``add_image`` / ``add_labels``, draw), with its memory after the same switches. Ratios
are printed against it. Run under a display::

    xvfb-run -a python benchmarks/bench_switch.py [--size 256] [--switches 100]
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_viewer import METHODS, _status_mb, _wait, make_case  # noqa: E402

CHECKPOINTS = (2, 20)


def make_dataset(root: Path, size: int, cases: int) -> Path:
    """``cases`` cases ``case_00k.nii.gz`` in one MOOD dataset at ``root``."""
    for k in range(cases):
        one = make_case(root.parent / f"one{k}", size, seed=k)
        for path in sorted(one.rglob("case_000.nii.gz")):
            target = root / path.parent.relative_to(one) / f"case_{k:03d}.nii.gz"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(path), target)
        shutil.rmtree(one)
    return root


def resident_mb() -> float:
    """Resident memory after a full collection and giving freed heap back (MB)."""
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return _status_mb("VmRSS")


def _checkpoints(switches: int) -> tuple[int, ...]:
    return tuple(sorted({c for c in CHECKPOINTS if c <= switches} | {switches}))


def mood_session(root: Path, switches: int) -> dict[str, object]:
    """napari-mood: every panel, cases opened from the dataset browser."""
    from qtpy.QtWidgets import QApplication

    from napari_mood._napari.planes import planes_of
    from napari_mood._napari.prefetch import prefetch_for
    from napari_mood._napari.viewer import build_viewer
    from napari_mood._napari.widgets.browser import DatasetBrowserWidget
    from napari_mood._napari.widgets.worker import all_idle

    app = QApplication.instance() or QApplication([])
    opened = build_viewer([root])
    viewer, session = opened.viewer, opened.session
    browser = next(w for w in opened.widgets if isinstance(w, DatasetBrowserWidget))
    browser.evaluate(root)
    _wait(app, lambda: browser.evaluation is not None and not browser.busy)
    cases = sorted(p.name for p in (root / "toy").glob("*.nii.gz"))
    prefetch = prefetch_for(session)
    memory: dict[int, float] = {}
    timings: dict[str, list[float]] = {"prefetched": [], "not prefetched": []}
    planes = planes_of(viewer)[0]
    frames = PaneFrames(viewer, planes, _pane_scenes(viewer, opened.widgets))

    def open_case(case: str) -> float:
        frames.expect(case)
        start = time.perf_counter()
        browser.open_case(case)
        _wait(app, lambda: frames.all_drawn)
        shown = time.perf_counter() - start
        _wait(app, all_idle)
        return shown

    ahead = False
    for switch in range(1, switches + 1):
        case = cases[switch % len(cases)]
        ahead = prefetch.case == case
        if switch % 4 == 3:  # every fourth: the next case was not read ahead
            prefetch.drop()
            ahead = False
        elif ahead:
            _wait(app, lambda: prefetch.ready)
        timings["prefetched" if ahead else "not prefetched"].append(open_case(case))
        if switch in _checkpoints(switches):
            memory[switch] = resident_mb()
            print(f"  napari-mood: switch {switch}: {memory[switch]:.0f} MB", flush=True)
    viewer.close()
    return {"memory": memory, "next_case": timings, "mixed_frames": frames.mixed}


def _level0(layer) -> object:
    return layer.data[0] if getattr(layer, "multiscale", False) else layer.data


def _pane_scenes(viewer, widgets) -> dict[str, object]:
    """The vispy canvas of each pane: napari's (axial), the coronal and the sagittal view."""
    from napari_mood._napari.widgets.planes import PlanesWidget

    panel = next(w for w in widgets if isinstance(w, PlanesWidget))
    scenes = {"axial": viewer.window._qt_viewer.canvas._scene_canvas}
    for plane in ("coronal", "sagittal"):
        scenes[plane] = panel.view(plane).canvas._scene_canvas
    return scenes


def shows_case(viewer, model, case: str) -> bool:
    """Whether ``model`` (the viewer or a side view) holds every array of ``case``'s layers."""
    from napari_mood._napari.layers import layer_info

    source = [layer for layer in viewer.layers if layer_info(layer) is not None]
    if not source or any(layer_info(x).get("case") != case for x in source):
        return False
    if model is viewer:
        return True
    held = {id(_level0(x)) for x in model.layers if hasattr(x, "data")}
    return all(id(_level0(x)) in held for x in source)


class PaneFrames:
    """Watch every pane's frames during a switch: when each first draws the new case.

    A frame drawn, once the window's title names the new case, by a pane whose layers
    still hold the previous case's arrays counts as mixed.
    """

    def __init__(self, viewer, planes, scenes: dict[str, object]) -> None:
        self._viewer, self._case = viewer, ""
        self._models = {"axial": viewer, **{k: planes.models[k] for k in scenes if k != "axial"}}
        self._drawn: set[str] = set(scenes)
        self.mixed = 0
        for pane, scene in scenes.items():
            scene.events.draw.connect(lambda event, pane=pane: self._on_draw(pane))

    def expect(self, case: str) -> None:
        self._case, self._drawn = case, set()

    @property
    def all_drawn(self) -> bool:
        return self._drawn == set(self._models)

    def _on_draw(self, pane: str) -> None:
        if not self._case or pane in self._drawn:
            return
        if shows_case(self._viewer, self._models[pane], self._case):
            self._drawn.add(pane)
        elif self._case in str(self._viewer.title):
            self.mixed += 1


def bare_session(root: Path, switches: int) -> dict[str, object]:
    """Bare napari: every layer removed, the next case's files read and added."""
    import napari
    import nibabel as nib
    import numpy as np
    from qtpy.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    viewer = napari.Viewer()
    cases = sorted(p.name for p in (root / "toy").glob("*.nii.gz"))

    def read(path: Path, dtype: type) -> np.ndarray:
        return np.asarray(nib.load(str(path)).get_fdata(dtype=np.float32), dtype=dtype)

    memory: dict[int, float] = {}
    times: list[float] = []
    for switch in range(1, switches + 1):
        name = cases[switch % len(cases)]
        start = time.perf_counter()
        viewer.layers.clear()
        viewer.add_image(read(root / "toy" / name, np.float32), name="scan")
        for method in METHODS:
            data = read(root / "methods" / method / name, np.float32)
            viewer.add_image(data, name=method, colormap="magma", blending="additive")
        viewer.add_labels(read(root / "toy_label" / "pixel" / name, np.uint8), name="GT")
        viewer.screenshot(canvas_only=True, flash=False)
        times.append(time.perf_counter() - start)
        for _ in range(5):
            app.processEvents()
        if switch in _checkpoints(switches):
            memory[switch] = resident_mb()
            print(f"  bare napari: switch {switch}: {memory[switch]:.0f} MB", flush=True)
    viewer.close()
    return {"memory": memory, "next_case": {"read and shown": times}}


def _in_process(kind: str, root: Path, switches: int) -> dict[str, object]:
    args = [
        sys.executable,
        __file__,
        "--run",
        kind,
        "--data",
        str(root),
        "--switches",
        str(switches),
    ]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    sys.stdout.write("".join(line + "\n" for line in done.stdout.splitlines()[:-1]))
    if done.returncode:
        raise RuntimeError(f"the {kind} run failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["memory"] = {int(k): v for k, v in out["memory"].items()}
    return out


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s (n={len(values)})" if values else "-"


def report(mood: dict, bare: dict, switches: int, size: int) -> None:
    """Print the numbers, their targets and the ratios to bare napari."""
    first, last = min(mood["memory"]), switches
    growth = mood["memory"][last] / mood["memory"][first] - 1
    bare_growth = bare["memory"][last] / bare["memory"][first] - 1
    print(f"\nreading session at {size}^3, {switches} switches, every panel docked")
    for k in _checkpoints(switches):
        ratio = mood["memory"][k] / bare["memory"][k]
        print(f"  memory after switch {k:>3}: napari-mood {mood['memory'][k]:7.0f} MB, "
              f"bare napari {bare['memory'][k]:7.0f} MB  (ratio {ratio:.2f})")  # fmt: skip
    verdict = "met" if growth <= 0.10 else "NOT met"
    print(f"  growth switch {first} -> {last}: napari-mood {growth:+.1%} (target <= +10 %: "
          f"{verdict}), bare napari {bare_growth:+.1%}")  # fmt: skip
    ahead = mood["next_case"]["prefetched"]
    cold = mood["next_case"]["not prefetched"]
    bare_times = bare["next_case"]["read and shown"]
    print("  next case drawn in every pane (axial, coronal, sagittal):")
    print(f"    prefetched:          {_median(ahead)} (target <= 1 s at 256^3)")
    print(f"    not prefetched:      {_median(cold)} (target <= 3 s at 256^3)")
    print(f"  bare napari, read and shown (one canvas): {_median(bare_times)}")
    for name, times in (("prefetched", ahead), ("not prefetched", cold)):
        if times and bare_times:
            ratio = statistics.median(times) / statistics.median(bare_times)
            print(f"  ratio {name} / bare napari: {ratio:.2f} (target <= 0.3)")
    print(f"  mixed frames (a pane showing the previous case under the new title): "
          f"{mood.get('mixed_frames', '-')} (target 0)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="edge of the cubic cases")
    parser.add_argument("--cases", type=int, default=4, help="cases in the dataset")
    parser.add_argument("--switches", type=int, default=100, help="case switches")
    parser.add_argument("--data", type=Path, help="folder to write the dataset once and reuse")
    parser.add_argument("--run", choices=("mood", "bare"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run is not None:
        run: Callable[[Path, int], dict] = mood_session if args.run == "mood" else bare_session
        print(json.dumps(run(args.data, args.switches)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = (args.data or Path(tmp)) / f"switch{args.size}x{args.cases}"
        if not (root / "methods").is_dir():
            make_dataset(root, args.size, args.cases)
        mood = _in_process("mood", root, args.switches)
        bare = _in_process("bare", root, args.switches)
        report(mood, bare, args.switches, args.size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
