"""A sweep scored end to end: shell-script methods run the MOOD way, AP per value by hand.

The scan is 0.5 everywhere except F = 10 bright voxels (1.0) in a corner. The sphere (at
the centre) holds N(r) voxels: 1, 7, 33, 123 for r = 0..3. A method flagging ``scan >
0.7`` flags the sphere (when bright) and the F voxels with score 1, all else 0, so

- size sweep (intensity 1): AP(r) = N / (N + F);
- contrast sweep (r = 2, N = 33), method flagging ``|scan - 0.5| > 0.2``: AP = 33 / 43
  where the sphere stands out (0, 0.25, 0.75, 1), else the only operating point reaching
  recall 1 is "everything": AP = N / V = 33 / 21^3.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from napari_mood.core.results import EvaluationOptions
from napari_mood.io.methods import method_folder
from napari_mood.services.evaluation import evaluate
from napari_mood.services.run_method import run_method
from napari_mood.services.sweep import read_sweep, write_sweep
from napari_mood.services.sweep_report import plot_sweep, sweep_csv, sweep_points

SIDE, F = 21, 10

METHOD = f"""#!/bin/sh
exec {sys.executable} - "$1" "$2" <<'PY'
import sys, pathlib, nibabel as nib, numpy as np
src, dst = map(pathlib.Path, sys.argv[1:])
for scan in src.glob("*.nii.gz"):
    img = nib.load(scan)
    x = np.asarray(img.dataobj, dtype=np.float64)
    flagged = {{rule}}
    nib.save(nib.Nifti1Image(flagged.astype(np.float32), img.affine), dst / scan.name)
PY
"""


def _scan() -> np.ndarray:
    scan = np.full((SIDE,) * 3, 0.5)
    scan[0, 0, :F] = 1.0
    return scan


def _method(tmp_path: Path, rule: str) -> str:
    path = tmp_path / "method.sh"
    path.write_text(METHOD.replace("{rule}", rule))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _score(tmp_path: Path, kind, values, rule: str, **fixed):
    data = tmp_path / "sweep"
    info = write_sweep(_scan(), np.eye(4), data, values, kind=kind, center=(10, 10, 10), **fixed)
    assert read_sweep(data) == info
    run = run_method(_method(tmp_path, rule), data / "toy", tmp_path / "thresh", time_limit=60)
    assert {c.status for c in run.cases} == {"ok"}
    found = evaluate(
        data,
        methods={"thresh": method_folder(tmp_path / "thresh")},
        options=EvaluationOptions(tasks=("pixel",)),
        workers=1,
        warn=False,
    )
    return info, sweep_points(found.result, info)


def _ap_per_value(points) -> dict[str, np.ndarray]:
    out: dict[str, list[float]] = {}
    for p in points:
        out.setdefault(p.method, []).append(p.ap)
    return {k: np.array(v) for k, v in out.items()}


@pytest.fixture(scope="module")
def size_sweep(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("size")
    return tmp_path, *_score(tmp_path, "size", [0, 1, 2, 3], "x > 0.7")


def test_size_sweep_ap_by_hand(size_sweep):
    tmp_path, info, points = size_sweep
    n = np.array([1, 7, 33, 123])
    np.testing.assert_allclose(_ap_per_value(points)["thresh"], n / (n + F), rtol=1e-12)
    assert [c.voxels for c in info.cases] == list(n)
    assert [p.gt_voxels for p in points] == list(n)
    text = sweep_csv(points, "size").splitlines()
    assert text[0] == "method,radius,pixel_ap,n_cases,gt_voxels"
    assert text[2] == f"thresh,1,{7 / 17:.6f},1,7"
    sweep = json.loads((tmp_path / "sweep" / "sweep.json").read_text())
    assert sweep["parameter"] == "radius" and sweep["cases"][3]["case"] == "size_003.nii.gz"


def test_contrast_sweep_is_a_bathtub(tmp_path):
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    _, points = _score(tmp_path, "contrast", values, "np.abs(x - 0.5) > 0.2", radius=2)
    high, low = 33 / 43, 33 / SIDE**3
    np.testing.assert_allclose(_ap_per_value(points)["thresh"], [high, high, low, high, high])


def test_plot_has_one_line_per_method(size_sweep):
    fig = plot_sweep(size_sweep[2], "size", title="t")
    (line,) = fig.axes[0].get_lines()
    np.testing.assert_allclose(line.get_xdata(), [0, 1, 2, 3])
    np.testing.assert_allclose(line.get_ydata(), [1 / 11, 7 / 17, 33 / 43, 123 / 133])
    assert fig.axes[0].get_xlabel() == "sphere radius (voxels)"


def test_read_sweep_refuses_other_files(tmp_path):
    from napari_mood.io.errors import MoodInputError

    with pytest.raises(MoodInputError, match="not found"):
        read_sweep(tmp_path)
    (tmp_path / "sweep.json").write_text('{"kind": "width", "cases": []}')
    with pytest.raises(MoodInputError, match="not a sweep"):
        read_sweep(tmp_path)


def test_labelled_cases_names_the_missing_ones(tmp_path):
    from napari_mood.core.sweep import SweepCase
    from napari_mood.io.errors import MoodInputError, MoodInputWarning
    from napari_mood.io.mood import MoodDataset
    from napari_mood.services.sweep import SweepInfo, labelled_cases

    cases = tuple(SweepCase(f"size_{i:03d}", "size", float(i), 1.0, (1, 1, 1), 1) for i in range(3))
    info = SweepInfo("size", "scan.nii.gz", cases)
    labels = {f"size_{i:03d}.nii.gz": tmp_path / f"size_{i:03d}.nii.gz" for i in (0, 2)}
    with pytest.warns(MoodInputWarning, match=r"sweep.json: 1 of its 3 cases .*size_001"):
        kept = labelled_cases(info, MoodDataset(tmp_path, None, labels), tmp_path)
    assert [c.name for c in kept.cases] == ["size_000", "size_002"]
    full = {f"size_{i:03d}.nii.gz": tmp_path for i in range(3)}
    assert labelled_cases(info, MoodDataset(tmp_path, None, full), tmp_path) is info
    with pytest.raises(MoodInputError, match="none of them labelled"):
        labelled_cases(info, MoodDataset(tmp_path, None, {}), tmp_path)


def test_read_sweep_refuses_a_sweep_without_cases(tmp_path):
    from napari_mood.io.errors import MoodInputError

    (tmp_path / "sweep.json").write_text('{"kind": "size", "cases": []}')
    with pytest.raises(MoodInputError, match="names no case"):
        read_sweep(tmp_path)
