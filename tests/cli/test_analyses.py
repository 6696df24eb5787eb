"""``run``, ``sweep``, ``sweep-report``, ``categories`` and ``rank`` from the command line."""

from __future__ import annotations

import csv
import io
import json
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest

from napari_mood.cli import main
from tests.conftest import write_nifti


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _script(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_run_lists_each_case(tmp_path, capsys):
    scans = tmp_path / "toy"
    for name in ("a", "b"):
        write_nifti(scans / f"{name}.nii.gz", np.zeros((3, 3, 3), np.float32))
    method = _script(
        tmp_path / "m.sh",
        '#!/bin/sh\nfor f in "$1"/*; do case "$f" in *b.nii.gz) exit 3;; esac; '
        'cp "$f" "$2/"; done\n',
    )
    report = tmp_path / "run.json"
    code, out, _ = _run(
        capsys,
        "run",
        method,
        str(scans),
        "--out",
        str(tmp_path / "o"),
        "--report",
        str(report),
        "--time-limit",
        "30",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:2] == ["a.nii.gz", "ok"]
    assert lines[2].split()[:2] == ["b.nii.gz", "failed"] and "exit status 3" in lines[2]
    assert "1 of 2 cases ok" in lines[3] and "b.nii.gz" in lines[3]
    data = json.loads(report.read_text())
    assert data["failed"] == ["b.nii.gz"] and data["time_limit"] == 30.0
    code, _, err = _run(capsys, "run", method, str(scans), "--out", str(scans / "x"))
    assert code == 1 and "inside the input folder" in err
    code, _, err = _run(capsys, "run", method, str(scans), "--out", str(tmp_path / "o"))
    assert code == 1 and "--force" in err


def test_sweep_then_report(tmp_path, capsys):
    scan = np.full((15, 15, 15), 0.5, np.float32)
    scan[0, 0, :4] = 1.0
    write_nifti(tmp_path / "in" / "scan.nii.gz", scan)
    code, out, _ = _run(
        capsys,
        "sweep",
        "size",
        str(tmp_path / "in" / "scan.nii.gz"),
        "--out",
        str(tmp_path / "sw"),
        "--radii",
        "1,2",
        "--center",
        "7,7,7",
    )
    assert code == 0 and "radius 2, intensity 1, 33 anomalous voxels" in out
    # an "oracle" method: its maps are the GT itself; and one that flags nothing
    for case in ("size_000", "size_001"):
        label = tmp_path / "sw" / "toy_label" / "pixel" / f"{case}.nii.gz"
        (tmp_path / "preds" / "oracle").mkdir(parents=True, exist_ok=True)
        (tmp_path / "preds" / "oracle" / f"{case}.nii.gz").write_bytes(label.read_bytes())
        write_nifti(tmp_path / "preds" / "none" / f"{case}.nii.gz", np.zeros((15,) * 3, np.float32))
    code, out, _ = _run(
        capsys,
        "sweep-report",
        "--format",
        "csv",
        str(tmp_path / "sw"),
        "--preds",
        str(tmp_path / "preds"),
        "--out",
        str(tmp_path / "rep"),
        "--plot-formats",
        "png,pdf",
        "--quiet",
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    got = {(r["method"], r["radius"]): float(r["pixel_ap"]) for r in rows}
    assert got[("oracle", "1")] == 1.0 and got[("oracle", "2")] == 1.0
    assert got[("none", "1")] == pytest.approx(7 / 15**3, abs=1e-6)  # CSV: 6 decimals
    assert got[("none", "2")] == pytest.approx(33 / 15**3, abs=1e-6)
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == [
        "sweep_ap.csv",
        "sweep_ap.pdf",
        "sweep_ap.png",
    ]
    assert b"/FontFile2" in (tmp_path / "rep" / "sweep_ap.pdf").read_bytes()  # TrueType
    code, _, err = _run(
        capsys,
        "sweep",
        "size",
        str(tmp_path / "in" / "scan.nii.gz"),
        "--out",
        str(tmp_path / "sw"),
        "--radii",
        "1,2",
    )
    assert code == 1 and "--force" in err


def test_rank_from_evaluate_json(tmp_path, capsys):
    from napari_mood.services.datasets import sample_data_dir

    results = tmp_path / "sample.json"
    code, _, _ = _run(
        capsys,
        "evaluate",
        str(sample_data_dir()),
        "--batches",
        "5",
        "--batch-size",
        "3",
        "--format",
        "json",
        "--out",
        str(results),
        "--quiet",
    )
    assert code == 0
    data = json.loads(results.read_text())
    code, out, err = _run(
        capsys,
        "rank",
        "--format",
        "csv",
        f"brain={results}",
        "--toy",
        f"toy={results}",
        "--bootstrap",
        "50",
        "--out",
        str(tmp_path / "ranks"),
        "--plot-formats",
        "png",
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out.split("Kendall")[0])))
    pixel = {m: s["pixel"]["batch_ap"]["mean"] for m, s in data["methods"].items()}
    best = max(pixel, key=pixel.get)
    assert rows[0]["brain pixel rank"] == "1"
    assert {r["method"]: r["brain pixel rank"] for r in rows}[best] == "1"
    assert float(rows[0]["brain pixel score"]) == pytest.approx(max(pixel.values()), abs=1e-6)
    assert "Kendall tau-b (toy consensus vs test consensus): 1.0000" in err  # same file
    saved = json.loads((tmp_path / "ranks" / "ranks.json").read_text())
    assert saved["kendall_tau_b"] == 1.0 and saved["bootstrap"]["n_boot"] == 50
    assert (tmp_path / "ranks" / "rank_stability.png").stat().st_size > 1000
    code, _, err = _run(capsys, "rank", str(results), "--out", str(tmp_path / "ranks"))
    assert code == 1 and "--force" in err


def test_categories_command(tmp_path, capsys):
    from napari_mood.services.datasets import sample_data_dir

    cats = tmp_path / "cats.csv"
    cats.write_text(
        "case,category,subcategory,order\nbrain_001,local,sphere,2\nbrain_003,local,slab,1\n"
        "brain_004,intensity,pet,3\nbrain_000,normal,,\n"
    )
    out = tmp_path / "cat"
    code, text, _ = _run(
        capsys,
        "categories",
        "--format",
        "csv",
        str(sample_data_dir()),
        "--categories",
        str(cats),
        "--out",
        str(out),
        "--plot-formats",
        "svg",
        "--quiet",
    )
    assert code == 0
    summary = list(csv.DictReader(io.StringIO(text)))
    assert [s["group"] for s in summary if s["level"] == "subcategory"][:3] == [
        "slab",
        "sphere",
        "pet",
    ]
    assert sorted(p.name for p in out.iterdir())[:3] == [
        "category_pixel_ap.svg",
        "category_sample_ap.svg",
        "category_sample_fpr95.svg",
    ]
    assert "<text" in (out / "subcategory_sample_ap.svg").read_text()  # text stays text
    code, _, _ = _run(capsys, "categories", str(sample_data_dir()), "--out", str(tmp_path / "x"))
    assert code == 0 and (tmp_path / "x").is_dir()  # the sample's own categories.csv
    bare = tmp_path / "bare"
    shutil.copytree(sample_data_dir(), bare, ignore=shutil.ignore_patterns("categories.csv"))
    code, _, err = _run(capsys, "categories", str(bare), "--out", str(tmp_path / "y"))
    assert code == 1 and "categories.csv" in err and "not found" in err


def test_sweep_refuses_options_of_the_other_kind(tmp_path, capsys):
    write_nifti(tmp_path / "in" / "scan.nii.gz", np.full((9, 9, 9), 0.5, np.float32))
    scan = str(tmp_path / "in" / "scan.nii.gz")
    for kind, option, value in [
        ("size", "--intensities", "0.5"),
        ("size", "--radius", "3"),
        ("contrast", "--radii", "1,2"),
        ("contrast", "--intensity", "0.3"),
    ]:
        with pytest.raises(SystemExit) as exc:
            main(["sweep", kind, scan, "--out", str(tmp_path / "a"), option, value])
        assert exc.value.code == 2
        assert f"{option} is for the" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()
    code, out, err = _run(
        capsys,
        "sweep",
        "contrast",
        scan,
        "--out",
        str(tmp_path / "b"),
        "--intensities",
        "0,1",
        "--radius",
        "1",
    )
    assert code == 0 and "ignored" not in err
    assert "radius 1, intensity 0, 7 anomalous voxels" in out  # centre of mass (4, 4, 4)
    code, _, err = _run(
        capsys,
        "sweep",
        "size",
        scan,
        "--out",
        str(tmp_path / "c"),
        "--radii",
        "1",
        "--center",
        "20,0,0",
    )
    assert code == 1 and "outside the scan" in err and not (tmp_path / "c").exists()
    with pytest.raises(SystemExit):
        main(["sweep", "contrast", scan, "--out", str(tmp_path / "d"), "--intensities", "0:1"])


def test_run_says_where_the_method_ran_and_offers_workdir(tmp_path, capsys, monkeypatch):
    write_nifti(tmp_path / "toy" / "a.nii.gz", np.zeros((3, 3, 3), np.float32))
    (tmp_path / "helper.txt").write_text("weights")
    method = _script(tmp_path / "m.sh", '#!/bin/sh\ncat helper.txt && cp "$1"/* "$2"/\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    code, out, _ = _run(capsys, "run", method, "toy", "--out", "o", "--quiet")
    assert code == 0 and "failed" in out and ", a fresh, empty folder; log: " in out
    assert "note: each case ran in a fresh, empty working folder" in out
    code, out, _ = _run(capsys, "run", method, "toy", "--out", "o", "--workdir", ".", "--quiet")
    assert code == 0 and "1 of 1 cases ok" in out and "note:" not in out
    help_text = main_help(capsys, "run")
    assert "--workdir DIR" in help_text and "relative path is not found" in help_text


def main_help(capsys, command: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out
