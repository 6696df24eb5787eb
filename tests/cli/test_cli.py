"""The napari-mood command line: formats, exit codes, and numbers equal to the official procedure."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from napari_mood.cli import main
from napari_mood.services.datasets import sample_data_dir
from tests.conftest import make_mood_folder
from tests.reference_scorer import official_ap, official_batch_ap

SAMPLE = sample_data_dir()
SAMPLE_METHODS = SAMPLE / "methods"
PIXEL = SAMPLE / "toy_label" / "pixel"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def sample_json(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("json") / "result.json"
    argv = [
        "evaluate",
        str(SAMPLE),
        "--task",
        "pixel,sample,object",
        "--format",
        "json",
        "--out",
        str(out),
        "--quiet",
    ]
    assert main(argv) == 0
    return json.loads(out.read_text())


def test_help_lists_subcommands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for command in ("demo", "view", "evaluate", "validate", "simulate"):
        assert command in text


def test_json_equals_official_on_sample_data(sample_json):
    assert sample_json["cases"] == sorted(p.name for p in PIXEL.iterdir())
    for name in ("residual", "oracle_noisy", "binary"):
        method = sample_json["methods"][name]
        assert method["pixel"]["ap"] == pytest.approx(
            official_ap(SAMPLE_METHODS / name, PIXEL), abs=1e-12
        )
        expected = official_ap(
            SAMPLE_METHODS / name, SAMPLE / "toy_label" / "sample", mode="sample"
        )
        assert method["sample"]["ap"] == pytest.approx(expected, abs=1e-12)
        assert {"tp", "fp", "fn", "f1", "size_window", "threshold"} <= set(method["object"])
    assert sample_json["methods"]["binary"]["pixel"]["missing"] == ["brain_004.nii.gz"]
    aps = [m["pixel"]["ap"] for m in sample_json["methods"].values()]
    assert aps == sorted(aps, reverse=True)


def test_per_case_ap_equals_sklearn(sample_json):
    import nibabel as nib
    from sklearn.metrics import average_precision_score

    row = next(
        r
        for r in sample_json["per_case"]
        if r["method"] == "residual" and r["case"] == "brain_001.nii.gz"
    )
    label = nib.load(PIXEL / "brain_001.nii.gz").get_fdata() > 0.5
    scores = np.clip(
        nib.load(SAMPLE_METHODS / "residual" / "brain_001.nii.gz").get_fdata(dtype=np.float16),
        0,
        1,
    )
    assert row["pixel_ap"] == pytest.approx(
        average_precision_score(label.ravel(), scores.ravel()), abs=1e-12
    )
    normal = next(r for r in sample_json["per_case"] if r["case"] == "brain_000.nii.gz")
    assert normal["pixel_ap"] is None  # no positive voxel: undefined, written as null


def test_table_and_csv(capsys):
    code, out, err = _run(capsys, "evaluate", str(SAMPLE), "--quiet")
    assert code == 0 and out.splitlines()[1].split()[:3] == ["method", "pixel", "AP"]
    assert out.splitlines()[2].startswith("oracle_noisy")
    code, out, _ = _run(capsys, "evaluate", str(SAMPLE), "--format", "csv", "--quiet")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 3 * 7 and {"case", "method", "pixel_ap", "sample_score"} <= set(rows[0])


def test_batches_equal_official_bootstrap_dir(capsys, tmp_path):
    out = tmp_path / "r.json"
    code, _, _ = _run(
        capsys,
        "evaluate",
        str(SAMPLE),
        "--task",
        "pixel",
        "--batches",
        "5",
        "--batch-size",
        "3",
        "--seed",
        "7",
        "--format",
        "json",
        "--out",
        str(out),
        "--quiet",
    )
    assert code == 0
    batch = json.loads(out.read_text())["methods"]["residual"]["pixel"]["batch_ap"]
    expected = official_batch_ap(SAMPLE_METHODS / "residual", PIXEL, n_runs=5, n_files=3, seed=7)
    assert batch["mean"] == pytest.approx(expected, abs=1e-12)


def test_warnings_name_case_and_reason(capsys):
    code, _, err = _run(capsys, "evaluate", str(SAMPLE), "--task", "pixel")
    assert code == 0 and "binary: no pixel map for case brain_004.nii.gz" in err


def test_strict_mode_exit_code(capsys):
    code, _, err = _run(capsys, "evaluate", str(SAMPLE), "--strict", "--quiet")
    assert code == 1 and "brain_004.nii.gz" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", str(SAMPLE), "--task", "voxels"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", str(SAMPLE), "--pred", "=nonsense"])
    assert exc.value.code == 2
    capsys.readouterr()
    assert main(["evaluate", str(SAMPLE), "--pred", "nonsense"]) == 1
    assert "nonsense" in capsys.readouterr().err


def test_missing_dataset_is_a_clear_error(capsys, tmp_path):
    code, _, err = _run(capsys, "evaluate", str(tmp_path / "nope"), "--pred", f"m={tmp_path}")
    assert code == 1 and "nope" in err and "not a folder" in err


def test_nan_policy_on_command_line(capsys, tmp_path):
    mask = np.zeros((6, 6, 6), bool)
    mask[2:4, 2:4, 2:4] = True
    scores = mask * 0.8 + 0.1
    scores[2, 2, 2] = np.nan  # a GT voxel: counted as 0, it ranks below the 208 negatives
    data, preds = make_mood_folder(tmp_path, {"c": mask}, {"m": {"c": scores}})
    code, _, err = _run(
        capsys, "evaluate", str(data), "--preds", str(preds), "--task", "pixel", "--quiet"
    )
    assert code == 1 and "1 NaN voxels" in err
    code, out, _ = _run(
        capsys,
        "evaluate",
        str(data),
        "--preds",
        str(preds),
        "--task",
        "pixel",
        "--nan-policy",
        "zero",
        "--format",
        "json",
        "--quiet",
    )
    # 7 GT voxels at 0.9 (precision 1), the NaN one last: precision 8/216 at recall 1
    assert code == 0
    ap = json.loads(out)["methods"]["m"]["pixel"]["ap"]
    assert ap == pytest.approx(7 / 8 + 1 / 8 * 8 / 216, abs=1e-12)


def test_validate_calls_a_missing_map_what_evaluate_calls_it(capsys):
    code, out, _ = _run(capsys, "validate", str(SAMPLE))
    assert code == 0  # binary misses a case: evaluate scores it as 0 and warns
    assert "warning:" in out and "brain_004.nii.gz" in out and "0 errors, 2 warnings" in out
    code, out, _ = _run(capsys, "validate", str(SAMPLE), "--strict")
    assert code == 1 and "error:" in out and "2 errors, 0 warnings" in out


def test_simulate_writes_a_dataset_that_evaluates(capsys, tmp_path):
    scan = SAMPLE / "toy" / "brain_000.nii.gz"
    out = tmp_path / "sim"
    code, text, _ = _run(
        capsys,
        "simulate",
        str(scan),
        "--out",
        str(out),
        "--kind",
        "cube",
        "--count",
        "2",
        "--seed",
        "0",
    )
    assert code == 0
    assert sorted(p.name for p in (out / "toy_label" / "pixel").iterdir()) == [
        "case_000.nii.gz",
        "case_001.nii.gz",
        "case_002.nii.gz",
    ]
    assert [
        (out / "toy_label" / "sample" / f"case_00{i}.nii.gz.txt").read_text().strip()
        for i in range(3)
    ] == ["0", "1", "1"]
    code, _, err = _run(capsys, "simulate", str(scan), "--out", str(out), "--count", "2")
    assert code == 1 and "--force" in err and "already holds" in err


def test_console_script_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "napari_mood.cli", "--version"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "napari-mood" in proc.stdout


def test_inputs_are_never_written(capsys):
    before = {
        p: p.stat().st_mtime_ns for p in Path(SAMPLE).rglob("*") if "__pycache__" not in p.parts
    }
    _run(capsys, "evaluate", str(SAMPLE), "--quiet")
    after = {
        p: p.stat().st_mtime_ns for p in Path(SAMPLE).rglob("*") if "__pycache__" not in p.parts
    }
    assert before == after


def _object_json(capsys, tmp_path, *extra: str) -> tuple[dict, str]:
    out = tmp_path / "obj.json"
    code, _, err = _run(
        capsys,
        "evaluate",
        "--force",
        str(SAMPLE),
        "--task",
        "object",
        "--format",
        "json",
        "--out",
        str(out),
        *extra,
    )
    assert code == 0, err
    return json.loads(out.read_text()), err


def test_object_task_equals_the_plain_loop_rule(capsys, tmp_path):
    import nibabel as nib
    from scipy import ndimage

    from tests.core.test_objects import reference_counts

    result, _ = _object_json(capsys, tmp_path, "--threshold", "0.4", "--connectivity", "face")
    cases = sorted(p.name for p in PIXEL.iterdir())
    gts = {case: nib.load(PIXEL / case).get_fdata() > 0.5 for case in cases}
    face = ndimage.generate_binary_structure(3, 1)
    sizes = np.concatenate(
        [np.bincount(ndimage.label(g, face)[0].ravel())[1:] for g in gts.values()]
    )
    window = (0.5 * sizes.min(), 2.0 * sizes.max())  # from every GT object of the dataset
    totals = np.zeros(5, int)
    for case in cases:
        scores = nib.load(SAMPLE_METHODS / "residual" / case).get_fdata()
        totals += reference_counts(
            scores, gts[case], threshold=0.4, connectivity="face", window=window
        )
    got = result["methods"]["residual"]["object"]
    assert (got["tp"], got["fp"], got["fn"], got["threshold"]) == (*totals[:3].tolist(), 0.4)
    assert got["tp"] + got["fn"] == sizes.size
    assert got["size_window"] == list(window)
    per_case = [r for r in result["per_case"] if r["method"] == "residual"]
    assert sum(r["object_tp"] for r in per_case) == totals[0]


def _toy_set(root: Path) -> tuple[Path, Path]:
    """A toy set whose best object threshold is 0.44 for every sample method.

    One case: a 27-voxel GT box scored 0.45 (float16: 0.44995), a 27-voxel false object at
    0.8, background 0.1. On the grid 0.01 .. 0.99: F1 = 2/3 up to 0.44, 0 above (the box
    is lost), and ties go to the highest threshold.
    """
    mask = np.zeros((9, 9, 9), bool)
    mask[1:4, 1:4, 1:4] = True
    scores = np.where(mask, 0.45, 0.1).astype(np.float32)
    scores[5:8, 5:8, 5:8] = 0.8
    names = ("residual", "oracle_noisy", "binary")
    return make_mood_folder(root, {"t0": mask}, {name: {"t0": scores} for name in names})


def test_object_auto_threshold_warns_optimistic_and_toy_is_used(capsys, tmp_path):
    auto, err = _object_json(capsys, tmp_path, "--threshold", "auto")
    assert "optimistic" in err
    assert auto["methods"]["oracle_noisy"]["object"]["auto_threshold"] is True
    toy_data, toy_preds = _toy_set(tmp_path / "toy")
    toy, err = _object_json(
        capsys,
        tmp_path,
        "--threshold",
        "auto",
        "--toy",
        str(toy_data),
        "--toy-preds",
        str(toy_preds),
    )
    assert "optimistic" not in err
    fixed, _ = _object_json(capsys, tmp_path, "--threshold", "0.44")
    for name in ("residual", "oracle_noisy", "binary"):
        chosen = toy["methods"][name]["object"]
        assert chosen["threshold"] == pytest.approx(0.44)
        counts = [chosen[k] for k in ("tp", "fp", "fn")]
        assert counts == [fixed["methods"][name]["object"][k] for k in ("tp", "fp", "fn")]
    thresholds = {auto["methods"][n]["object"]["threshold"] for n in auto["methods"]}
    assert thresholds != {0.44}  # the toy set, not the evaluated one, chose 0.44


def test_object_size_window_is_applied(capsys, tmp_path):
    result, _ = _object_json(capsys, tmp_path, "--size-window", "1,2")
    obj = result["methods"]["oracle_noisy"]["object"]
    assert obj["size_window"] == [1.0, 2.0] and obj["tp"] == 0


def test_a_one_plane_lattice_of_single_voxels_is_counted_object_by_object(capsys, tmp_path):
    # 25 isolated voxels (every other row and column of a 9 x 9 x 1 case) in the GT and the
    # map: 25 objects each, all matched (cc3d 4.1.1 raised on this under full connectivity)
    lattice = np.zeros((9, 9, 1), bool)
    lattice[::2, ::2, 0] = True
    dataset, preds = make_mood_folder(
        tmp_path, {"c1": lattice}, {"m": {"c1": np.where(lattice, 0.9, 0.0).astype(np.float32)}}
    )
    out = tmp_path / "result.json"
    argv = ["evaluate", str(dataset), "--preds", str(preds), "--task", "object"]
    code, _, err = _run(capsys, *argv, "--threshold", "0.5", "--format", "json", "--out", str(out))
    assert code == 0, err
    got = json.loads(out.read_text())["methods"]["m"]["object"]
    assert (got["tp"], got["fp"], got["fn"]) == (25, 0, 0)
