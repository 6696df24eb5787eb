"""Bad inputs of the generated datasets: ``simulate`` (toy and ``--kind pet``), ``sweep``,
``pet-sample`` and ``sweep-report`` (issue 35).

Each row checks the exit code, the one-line message naming the file, that every input is
unchanged (checksums) and that no partial dataset or temporary folder is left.
"""

from __future__ import annotations

import errno
import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from napari_mood.services.staging import GENERATED_MARKER, staged_folder
from tests.conftest import write_nifti
from tests.test_bad_inputs import _checksums, _cli, _refused

SHAPE = (12, 12, 12)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """The inputs: ``scan.nii.gz`` (a body of 0.5 in 24^3), PET-like scans
    ``pet/scans/s0, s1`` and ``pet/atlas.nii.gz`` (labels 1, 2, 3)."""
    root = tmp_path / "in"
    scan = np.zeros((24, 24, 24), np.float32)
    scan[2:22, 2:22, 2:22] = 0.5
    write_nifti(root / "scan.nii.gz", scan)
    for i in range(2):
        write_nifti(
            root / "pet" / "scans" / f"s{i}.nii.gz", np.full(SHAPE, 0.5 + 0.1 * i, np.float32)
        )
    atlas = np.zeros(SHAPE, np.uint8)
    atlas[2:5, 2:5, 2:5], atlas[7:10, 7:10, 7:10], atlas[2:5, 7:10, 2:5] = 1, 2, 3
    write_nifti(root / "pet" / "atlas.nii.gz", atlas)
    return root


def _pet_argv(src: Path, out: Path, *options: str) -> list[str]:
    scans = [str(src / "pet" / "scans" / f"s{i}.nii.gz") for i in range(2)]
    return ["simulate", *scans, "--kind", "pet", "--mask", str(src / "pet" / "atlas.nii.gz"),
            "--out", str(out), *options]  # fmt: skip


def _generator(name: str, src: Path, out: Path) -> list[str]:
    """A small run of each generator writing ``out``."""
    scan = str(src / "scan.nii.gz")
    return {
        "simulate": ["simulate", scan, "--out", str(out), "--count", "1"],
        "pet": _pet_argv(src, out, "--atlas-labels", "1", "--region-name", "ad", "--degree", "0.2"),
        "sweep": ["sweep", "size", scan, "--out", str(out), "--radii", "1,2"],
        "pet-sample": ["pet-sample", "--out", str(out), "--step", "8"],
    }[name]


GENERATORS = ("simulate", "pet", "sweep", "pet-sample")


def _leftovers(folder: Path) -> list[str]:
    """Temporary folders or files of a staged write beside (or in) ``folder``."""
    return sorted(
        p.name for p in folder.iterdir() if p.name.endswith((".part", ".old")) or ".part." in p.name
    )


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _ok(capsys, *argv: str) -> str:
    code, out, err = _cli(capsys, *argv)
    assert code == 0, err
    return out


# --------------------------------------------------------------------------- whole or nothing


def test_pet_force_replaces_its_region_whole(capsys, src: Path, tmp_path: Path):
    out = tmp_path / "sim"
    _ok(
        capsys,
        *_pet_argv(src, out, "--atlas-labels", "1", "--region-name", "ad", "--degree", "0.1,0.5"),
    )
    before = _checksums(src)
    _ok(capsys, *_pet_argv(src, out, "--atlas-labels", "2", "--region-name", "ad", "--degree", "0.2",
                           "--force"))  # fmt: skip
    names = sorted(p.name for p in (out / "toy").iterdir())
    assert names == [f"s{i}_ad_deg{d}.nii.gz" for i in range(2) for d in ("00", "20")]
    for folder in ("toy_label/pixel", "healthy", "region"):
        assert sorted(p.name for p in (out / folder).iterdir()) == names
    assert json.loads((out / "pet_ad.json").read_text())["labels"] == [2]
    assert _checksums(src) == before and _leftovers(tmp_path) == []


def test_pet_regions_live_side_by_side(capsys, src: Path, tmp_path: Path):
    out = tmp_path / "sim"
    _ok(
        capsys,
        *_pet_argv(src, out, "--atlas-labels", "1", "--region-name", "ad", "--degree", "0.1"),
    )
    _ok(
        capsys,
        *_pet_argv(src, out, "--atlas-labels", "3", "--region-name", "ftd", "--degree", "0.3"),
    )
    ftd = {n: h for n, h in _checksums(out).items() if "ftd" in n}
    assert len(ftd) == 1 + 2 * 2 * 5  # manifest, 2 subjects x 2 degrees x 5 files
    _ok(capsys, *_pet_argv(src, out, "--atlas-labels", "2", "--region-name", "ad", "--degree", "0.5",
                           "--force"))  # fmt: skip
    after = _checksums(out)
    assert {n: h for n, h in after.items() if "ftd" in n} == ftd  # the other region kept
    assert sorted(n for n in after if "_ad_" in n and n.startswith("toy/")) == [
        f"toy/s{i}_ad_deg{d}.nii.gz" for i in range(2) for d in ("00", "50")
    ]
    assert _leftovers(tmp_path) == []


def test_pet_same_region_without_force_is_refused(capsys, src: Path, tmp_path: Path):
    out = tmp_path / "sim"
    _ok(
        capsys,
        *_pet_argv(src, out, "--atlas-labels", "1", "--region-name", "ad", "--degree", "0.1"),
    )
    kept = _checksums(out)
    argv = _pet_argv(src, out, "--atlas-labels", "2", "--region-name", "ad", "--degree", "0.2")
    err = _refused(capsys, src, *argv, names=str(out))
    assert "already holds region ad" in err and "--force" in err
    assert _checksums(out) == kept and _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (("sweep", "size", "SCAN", "--radii", "0:10:2"), ("--radii", "0,3"), 2),
        (("sweep", "contrast", "SCAN", "--intensities", "0:1:0.25"), ("--intensities", "1"), 1),
        (("simulate", "SCAN", "--count", "4"), ("--count", "1", "--normal", "0"), 1),
    ],
)
def test_force_with_fewer_cases_leaves_no_stale_case(
    capsys, src: Path, tmp_path: Path, first, second, expected: int
):
    out, scan = tmp_path / "gen", str(src / "scan.nii.gz")
    argv = [scan if a == "SCAN" else a for a in first]
    _ok(capsys, *argv, "--out", str(out))
    before = _checksums(src)
    _ok(capsys, *argv, "--out", str(out), *second, "--force")
    for folder in ("toy", "toy_label/pixel", "toy_label/sample"):
        assert len(list((out / folder).iterdir())) == expected
    if argv[0] == "sweep":
        assert len(json.loads((out / "sweep.json").read_text())["cases"]) == expected
    assert _checksums(src) == before and _leftovers(tmp_path) == []


def test_pet_sample_force_with_fewer_subjects(capsys, src: Path, tmp_path: Path):
    out = tmp_path / "sample"
    _ok(capsys, "pet-sample", "--out", str(out), "--step", "8", "--subjects", "3")
    _ok(capsys, "pet-sample", "--out", str(out), "--step", "8", "--subjects", "1", "--force")
    assert sorted(p.name for p in (out / "scans").iterdir()) == ["pet_000.nii.gz"]
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", GENERATORS)
@pytest.mark.parametrize("force", [False, True])
def test_a_folder_of_other_files_is_never_replaced(
    capsys, src: Path, tmp_path: Path, name: str, force: bool
):
    out = tmp_path / "mine"
    (out / "toy").mkdir(parents=True)
    (out / "notes.txt").write_text("my notes\n")
    (out / "toy" / "case_000.nii.gz").write_bytes(b"not yours")
    kept, inputs = _checksums(out), _checksums(src)
    argv = _generator(name, src, out) + (["--force"] if force else [])
    err = _refused(capsys, src, *argv, names=str(out))
    assert "not marked as generated by napari-mood" in err and GENERATED_MARKER in err
    assert ("--force replaces only a generated dataset" in err) == force
    assert _checksums(out) == kept and _checksums(src) == inputs and _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", GENERATORS)
def test_a_generated_dataset_needs_force_and_is_replaced_whole(
    capsys, src: Path, tmp_path: Path, name: str
):
    out = tmp_path / "gen"
    _ok(capsys, *_generator(name, src, out))
    assert (out / GENERATED_MARKER).is_file()
    kept = _checksums(out)
    argv = _generator(name, src, out)
    if name == "pet":  # another region is added beside; the same one needs --force
        argv = _pet_argv(src, out, "--atlas-labels", "2", "--region-name", "ad", "--degree", "0.3")
    err = _refused(capsys, src, *argv, names=str(out))
    assert "already holds" in err and "--force" in err and _checksums(out) == kept
    _ok(capsys, *argv, "--force")
    assert (out / GENERATED_MARKER).is_file()
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", GENERATORS)
def test_force_never_removes_a_users_files_in_a_generated_dataset(
    capsys, src: Path, tmp_path: Path, name: str
):
    out = tmp_path / "gen"
    _ok(capsys, *_generator(name, src, out))
    (out / "NOTES.txt").write_text("my notes\n")
    (out / "methods" / "mine").mkdir(parents=True)
    (out / "methods" / "mine" / "CASE.nii.gz").write_bytes(b"a method's output")
    kept = _checksums(out)
    err = _refused(capsys, src, *_generator(name, src, out), "--force", names=str(out))
    assert "holds 2 files not written by napari-mood" in err
    assert "NOTES.txt" in err and "methods/mine/CASE.nii.gz" in err
    assert _checksums(out) == kept and _leftovers(tmp_path) == []
    # moved out, --force replaces what napari-mood wrote
    (out / "NOTES.txt").unlink()
    shutil.rmtree(out / "methods")
    _ok(capsys, *_generator(name, src, out), "--force")
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["simulate", "sweep"])
def test_force_never_replaces_an_edited_generated_file(
    capsys, src: Path, tmp_path: Path, name: str
):
    out = tmp_path / "gen"
    _ok(capsys, *_generator(name, src, out))
    edited = sorted((out / "toy_label" / "sample").iterdir())[0]
    edited.write_text("1\n# checked by hand\n")
    kept = _checksums(out)
    err = _refused(capsys, src, *_generator(name, src, out), "--force", names=str(out))
    assert f"{edited.relative_to(out).as_posix()} (changed)" in err
    assert _checksums(out) == kept and _leftovers(tmp_path) == []


def test_a_refusal_names_five_files_and_counts_the_rest(capsys, src: Path, tmp_path: Path):
    out = tmp_path / "gen"
    _ok(capsys, *_generator("simulate", src, out))
    for i in range(8):
        (out / f"mine_{i}.txt").write_text("x")
    err = _refused(capsys, src, *_generator("simulate", src, out), "--force", names=str(out))
    assert "holds 8 files" in err and "mine_4.txt and 3 more" in err and "mine_5" not in err


def test_a_dataset_without_a_manifest_is_replaced_only_when_the_run_rewrites_all_of_it(
    capsys, src: Path, tmp_path: Path
):
    # an older napari-mood wrote the marker without the list of its files
    out = tmp_path / "gen"
    _ok(capsys, *_generator("simulate", src, out))
    (out / GENERATED_MARKER).write_text("Written by napari-mood: a generated dataset.\n")
    (out / "NOTES.txt").write_text("my notes\n")
    kept = _checksums(out)
    err = _refused(capsys, src, *_generator("simulate", src, out), "--force", names=str(out))
    assert "not written again by this run" in err and "no manifest" in err and "NOTES.txt" in err
    assert _checksums(out) == kept and _leftovers(tmp_path) == []
    (out / "NOTES.txt").unlink()
    _ok(capsys, *_generator("simulate", src, out), "--force")
    manifest = json.loads((out / GENERATED_MARKER).read_text())
    assert sorted(manifest["files"]) == [f for f in _files(out) if f != GENERATED_MARKER]


@pytest.mark.parametrize("name", GENERATORS)
def test_an_empty_folder_is_used_and_keeps_its_permissions(
    capsys, src: Path, tmp_path: Path, name: str
):
    out = tmp_path / "empty"
    out.mkdir(mode=0o750)
    out.chmod(0o750)
    _ok(capsys, *_generator(name, src, out))
    assert (out / GENERATED_MARKER).is_file() and (out.stat().st_mode & 0o777) == 0o750
    assert _leftovers(tmp_path) == []


# which function each generator writes its files with (a fault is injected there)
WRITERS = {
    "simulate": "napari_mood.services.simulation.write_files",
    "pet": "napari_mood.services.hypometabolism.write_files",
    "sweep": "napari_mood.services.sweep.write_bytes_atomic",
    "pet-sample": "napari_mood.services.pet_sample.write_files",
}


def _failing_after(monkeypatch, name: str, calls: int, fault: BaseException) -> None:
    """The generator's writer works ``calls`` times, then raises ``fault``."""
    module, _, attribute = WRITERS[name].rpartition(".")
    real: Callable = getattr(__import__(module, fromlist=[attribute]), attribute)
    count = {"n": 0}

    def writer(*args, **kwargs):
        count["n"] += 1
        if count["n"] > calls:
            raise fault
        return real(*args, **kwargs)

    monkeypatch.setattr(WRITERS[name], writer)


@pytest.mark.parametrize("name", GENERATORS)
@pytest.mark.parametrize(
    ("fault", "code"),
    [(KeyboardInterrupt(), 130), (SystemExit(143), 143)],  # Ctrl-C; SIGTERM (as the CLI raises it)
)
def test_an_interrupted_generator_leaves_nothing(
    capsys, monkeypatch, src: Path, tmp_path: Path, name: str, fault, code: int
):
    out = tmp_path / "gen"
    _failing_after(monkeypatch, name, 1, fault)
    before = _checksums(src)
    got, _, err = _cli(capsys, *_generator(name, src, out))
    assert got == code and "Traceback" not in err
    assert not out.exists() and _leftovers(tmp_path) == []
    assert _checksums(src) == before


@pytest.mark.parametrize("name", GENERATORS)
def test_an_interrupted_replacement_keeps_the_old_dataset(
    capsys, monkeypatch, src: Path, tmp_path: Path, name: str
):
    out = tmp_path / "gen"
    _ok(capsys, *_generator(name, src, out))
    kept = _checksums(out)
    _failing_after(monkeypatch, name, 1, SystemExit(143))
    got, _, _ = _cli(capsys, *_generator(name, src, out), "--force")
    assert got == 143 and _checksums(out) == kept and _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", GENERATORS)
def test_a_full_disk_mid_dataset_is_named_and_leaves_nothing(
    capsys, monkeypatch, src: Path, tmp_path: Path, name: str
):
    out = tmp_path / "gen"
    _failing_after(monkeypatch, name, 1, OSError(errno.ENOSPC, "No space left on device"))
    err = _refused(capsys, src, *_generator(name, src, out), names=str(out))
    assert "No space left on device" in err
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_folder_that_appears_meanwhile_is_kept(capsys, monkeypatch, src: Path, tmp_path: Path):
    """Two runs racing for one new --out: the second to finish is refused, the first kept."""
    out = tmp_path / "gen"
    real = __import__("napari_mood.services.simulation", fromlist=["write_files"]).write_files

    def writer(*args, **kwargs):
        if not out.exists():
            out.mkdir()
            (out / "theirs.txt").write_text("the other run\n")
        return real(*args, **kwargs)

    monkeypatch.setattr("napari_mood.services.simulation.write_files", writer)
    scan = str(src / "scan.nii.gz")
    err = _refused(capsys, src, "simulate", scan, "--out", str(out), "--force", names=str(out))
    assert "not marked as generated" in err
    assert _files(out) == ["theirs.txt"] and _leftovers(tmp_path) == []


def test_force_never_removes_an_input_inside_the_output(capsys, src: Path, tmp_path: Path):
    out = tmp_path / "gen"
    scan = str(src / "scan.nii.gz")
    _ok(capsys, "simulate", scan, "--out", str(out), "--count", "1")
    inside = out / "mine" / "scan.nii.gz"
    inside.parent.mkdir()
    inside.write_bytes((src / "scan.nii.gz").read_bytes())
    kept = _checksums(out)
    err = _refused(capsys, out, "simulate", str(inside), "--out", str(out), "--force",
                   names=str(out))  # fmt: skip
    # the input lies in the dataset --out names: the output guard refuses before staging would
    # (staging's own check, "holds the input", stands behind it for a folder given as input)
    assert ("inside the input folder" in err or "holds the input" in err) and str(out) in err
    assert _checksums(out) == kept


# --------------------------------------------------------------------------- nothing or wrong


@pytest.mark.parametrize(
    "argv",
    [
        ("--count", "0", "--normal", "0"),
        ("--normal", "0", "--count", "0", "--kind", "cube"),
        ("--count", "0", "--normal", "0", "--per-case", "3"),
    ],
)
def test_simulating_no_case_is_a_usage_error(capsys, src: Path, tmp_path: Path, argv):
    out = tmp_path / "s"
    err = _refused(
        capsys, src, "simulate", str(src / "scan.nii.gz"), "--out", str(out), *argv, code=2
    )
    assert "writes no case" in err and not out.exists()


def test_simulating_only_normal_cases_is_fine(capsys, src: Path, tmp_path: Path):
    out = tmp_path / "s"
    _ok(capsys, "simulate", str(src / "scan.nii.gz"), "--out", str(out), "--count", "0")
    assert [p.name for p in (out / "toy").iterdir()] == ["case_000.nii.gz"]


@pytest.fixture
def sweep_set(capsys, src: Path, tmp_path: Path) -> Path:
    """A size sweep (radii 1, 2, 3) and a method ``perfect`` (its maps are the GT)."""
    out = tmp_path / "sw"
    _ok(capsys, "sweep", "size", str(src / "scan.nii.gz"), "--out", str(out),
        "--radii", "1,2,3")  # fmt: skip
    method = tmp_path / "m" / "perfect"
    method.mkdir(parents=True)
    for label in (out / "toy_label" / "pixel").iterdir():
        (method / label.name).write_bytes(label.read_bytes())
    return out


def _rename_cases(sweep: Path, rename: Callable[[str], str]) -> None:
    path = sweep / "sweep.json"
    record = json.loads(path.read_text())
    for case in record["cases"]:
        case["name"] = rename(case["name"])
        case["case"] = f"{case['name']}.nii.gz"
    path.write_text(json.dumps(record))


@pytest.mark.parametrize(
    "rename",
    [lambda n: n.replace("size", "gone"), lambda n: n.upper(), lambda n: f"{n}_old"],
)
def test_a_sweep_json_naming_no_case_of_the_dataset_is_an_error(
    capsys, sweep_set: Path, tmp_path: Path, rename
):
    _rename_cases(sweep_set, rename)
    report = tmp_path / "rep"
    argv = ["sweep-report", str(sweep_set), "--pred", str(tmp_path / "m" / "perfect")]
    err = _refused(
        capsys, sweep_set, *argv, "--out", str(report), names=str(sweep_set / "sweep.json")
    )
    assert "none of them labelled" in err and rename("size_000") in err
    assert not report.exists()


def test_a_sweep_json_naming_some_absent_cases_warns_and_skips_them(
    capsys, sweep_set: Path, tmp_path: Path
):
    _rename_cases(sweep_set, lambda n: n.replace("size_001", "gone_001"))
    before = _checksums(sweep_set)
    argv = ["sweep-report", str(sweep_set), "--pred", str(tmp_path / "m" / "perfect")]
    argv += ["--out", str(tmp_path / "rep"), "--plot-formats", "png", "--format", "csv"]
    code, out, err = _cli(capsys, *argv)
    assert code == 0 and "Traceback" not in err
    assert f"{sweep_set / 'sweep.json'}: 1 of its 3 cases" in err and "gone_001" in err
    rows = out.strip().splitlines()[1:]
    assert [r.split(",")[1:3] for r in rows] == [["1", "1.000000"], ["3", "1.000000"]]
    assert _checksums(sweep_set) == before


def test_a_sweep_json_without_cases_is_an_error(capsys, sweep_set: Path, tmp_path: Path):
    path = sweep_set / "sweep.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "cases": []}))
    argv = ["sweep-report", str(sweep_set), "--pred", str(tmp_path / "m" / "perfect")]
    err = _refused(capsys, sweep_set, *argv, "--out", str(tmp_path / "rep"), names=str(path))
    assert "names no case" in err and not (tmp_path / "rep").exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("radius", "nan", "radii must be >= 0"), ("radius", -1, "radii must be >= 0"),
     ("intensity", 2, r"must lie in [0, 1]"), ("center", "middle", "not a sweep")],
)  # fmt: skip
def test_a_sweep_json_with_impossible_values_is_named(
    capsys, sweep_set: Path, tmp_path: Path, field: str, value, message: str
):
    path = sweep_set / "sweep.json"
    record = json.loads(path.read_text())
    record["cases"][1][field] = value
    path.write_text(json.dumps(record))
    argv = ["sweep-report", str(sweep_set), "--pred", str(tmp_path / "m" / "perfect")]
    err = _refused(capsys, sweep_set, *argv, "--out", str(tmp_path / "rep"), names=str(path))
    assert message in err and not (tmp_path / "rep").exists()


def test_a_slab_on_a_2d_scan_is_named(capsys, src: Path, tmp_path: Path):
    scan = write_nifti(src / "flat.nii.gz", np.full((20, 20), 0.5, np.float32))
    argv = ["simulate", str(scan), "--kind", "slab", "--out", str(tmp_path / "s")]
    err = _refused(capsys, src, *argv, names=str(scan))
    assert "--kind slab needs a 3-D scan" in err and "no room" not in err
    assert not (tmp_path / "s").exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "argv", [("size", "--radii", "1000"), ("contrast", "--intensities", "1", "--radius", "1000")]
)
def test_a_sphere_larger_than_the_scan_is_the_whole_scan(capsys, src: Path, tmp_path: Path, argv):
    """Beyond the volume's diagonal a sphere is all of it (1e300 overflowed; radii are now
    bounded at 1,000 voxels while parsing)."""
    out = _ok(capsys, "sweep", argv[0], str(src / "scan.nii.gz"), "--out", str(tmp_path / "s"),
              *argv[1:])  # fmt: skip
    assert f"{24**3} anomalous voxels" in out


# --------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("sweep", "contrast", "SCAN", "--radius", "nan"), "radii must be >= 0 and <= 1,000"),
        (("sweep", "contrast", "SCAN", "--radius", "-10"), "radii must be >= 0 and <= 1,000"),
        (("sweep", "contrast", "SCAN", "--radius", "inf"), "radii must be >= 0 and <= 1,000"),
        (("sweep", "contrast", "SCAN", "--intensities", "1.5"), "must lie in [0, 1]"),
        (("sweep", "contrast", "SCAN", "--intensities", "0:2:0.5"), "must lie in [0, 1]"),
        (("sweep", "contrast", "SCAN", "--intensity", "0.3"), "--intensity is for the size sweep"),
        (("sweep", "contrast", "SCAN", "--radii", "1,2"), "--radii is for the size sweep"),
        (("sweep", "size", "SCAN", "--radius", "4"), "--radius is for the contrast sweep"),
        (("sweep", "size", "SCAN", "--intensities", "0.5"), "--intensities is for the contrast"),
        (("sweep", "size", "SCAN", "--radii", "0:1e12:1"), "more than 1,000 values"),
        (("sweep", "size", "SCAN", "--radii", "0:80:1e-300"), "more than 1,000 values"),
        (("sweep", "size", "SCAN", "--radii", "0:80:5e-324"), "more than 1,000 values"),
        (("sweep", "size", "SCAN", "--radii", "0:inf:1"), "finite numbers"),
        (("sweep", "size", "SCAN", "--radii=-5,1"), "radii must be >= 0"),
        (("sweep", "size", "SCAN", "--radii", "nan"), "finite numbers"),
        (("sweep", "size", "SCAN", "--radii", ",".join(map(str, range(1001)))), "at most 1,000"),
        (("sweep", "size", "SCAN", "--center", "middle"), "expected body, random or voxel"),
        (("sweep", "size", "SCAN", "--center", "1,2,-3"), "expected body, random or voxel"),
        (("simulate", "SCAN", "--count", "1000000000"), "at most 1,000"),
        (("simulate", "SCAN", "--normal", "1001"), "at most 1,000"),
        (("simulate", "SCAN", "--per-case", "100000000"), "at most 100"),
        (("simulate", "SCAN", "--count", "1e9"), "whole number"),
        (("pet-sample", "--subjects", "100000"), "at most 100"),
        (("pet-sample", "--subjects", "0"), "1 or more"),
    ],
)
def test_bad_counts_and_values_are_usage_errors_before_any_file_is_read(
    capsys, src: Path, tmp_path: Path, argv, message: str
):
    """The scan does not exist: a run that read it would say so (exit 1)."""
    out = tmp_path / "out"
    argv = [str(tmp_path / "absent.nii.gz") if a == "SCAN" else a for a in argv]
    err = _refused(capsys, src, *argv, "--out", str(out), code=2)
    assert message in err and not out.exists() and _leftovers(tmp_path) == []


@pytest.mark.parametrize("force", [False, True])
def test_pet_sample_onto_an_existing_out_is_refused_before_any_work(
    capsys, monkeypatch, src: Path, tmp_path: Path, force: bool
):
    out = tmp_path / "out"
    out.mkdir()
    (out / "atlas.nii.gz").write_bytes(b"mine")

    def never(*args, **kwargs):
        raise AssertionError("the sample was made before --out was checked")

    monkeypatch.setattr("napari_mood.services.pet_sample.iter_pet_sample_files", never)
    argv = ["pet-sample", "--out", str(out), "--subjects", "100", *(["--force"] if force else [])]
    err = _refused(capsys, src, *argv, names=str(out))
    assert "already holds atlas.nii.gz" in err and "new or empty folder" in err
    assert (out / "atlas.nii.gz").read_bytes() == b"mine"


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_pet_simulation_leaves_no_dataset(tmp_path: Path, sig: int):
    """The issue's case: SIGTERM after some cases were written left a consistent-looking half."""
    scans = []
    for i in range(4):
        scan = np.full((64, 64, 64), 0.5 + 0.05 * i, np.float32)
        scans.append(str(write_nifti(tmp_path / "in" / f"s{i}.nii.gz", scan)))
    atlas = np.zeros((64, 64, 64), np.uint8)
    atlas[20:40, 20:40, 20:40] = 1
    mask = write_nifti(tmp_path / "in" / "atlas.nii.gz", atlas)
    out = tmp_path / "sim"
    argv = ["simulate", *scans, "--kind", "pet", "--mask", str(mask), "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "napari_mood.cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".sim.*.part/toy/*.nii.gz")):  # some cases written
        assert proc.poll() is None and time.monotonic() < deadline, "finished too early"
        time.sleep(0.01)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (128 + sig, 130) and "Traceback" not in err
    assert not out.exists() and _leftovers(tmp_path) == []


# --------------------------------------------------------------------------- the staged folder


def test_staged_folder_appears_whole_and_only_on_success(tmp_path: Path):
    target = tmp_path / "ds"
    with staged_folder(target, force=False) as folder:
        assert folder.parent == tmp_path and folder.name.startswith(".ds.")
        assert (folder / GENERATED_MARKER).is_file() and not target.exists()
        (folder / "toy").mkdir()
        (folder / "toy" / "a.txt").write_text("a")
    assert _files(target) == [GENERATED_MARKER, "toy/a.txt"] and _leftovers(tmp_path) == []
    with pytest.raises(RuntimeError), staged_folder(target, force=True) as folder:
        (folder / "b.txt").write_text("b")
        raise RuntimeError("the caller failed")
    assert _files(target) == [GENERATED_MARKER, "toy/a.txt"] and _leftovers(tmp_path) == []


def test_staged_folder_force_replaces_and_keep_carries(tmp_path: Path):
    target = tmp_path / "ds"
    with staged_folder(target, force=False) as folder:
        (folder / "old.txt").write_text("old")
        (folder / "other.txt").write_text("other")
    with staged_folder(target, force=True, keep=["other.txt"]) as folder:
        assert (folder / "other.txt").stat().st_ino == (target / "other.txt").stat().st_ino
        (folder / "new.txt").write_text("new")
    assert _files(target) == [GENERATED_MARKER, "new.txt", "other.txt"]
    assert (target / "other.txt").read_text() == "other" and _leftovers(tmp_path) == []


@pytest.mark.parametrize("force", [False, True])
def test_staged_folder_refuses_before_the_caller_works(tmp_path: Path, force: bool):
    from napari_mood.services.output import Inputs, OutputRefused

    (tmp_path / "file").write_text("x")
    (tmp_path / "user" / "sub").mkdir(parents=True)
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / GENERATED_MARKER).write_text("")
    (tmp_path / "gen" / "in.nii.gz").write_text("input")
    (tmp_path / "link").symlink_to(tmp_path / "gone")
    cases = [
        (tmp_path / "file", {}, "is a file"),
        (tmp_path / "user", {}, "not marked as generated"),
        (tmp_path / "link", {}, "broken symbolic link"),
        (tmp_path / "gen", {"inputs": Inputs(files=(tmp_path / "gen" / "in.nii.gz",))}, "holds"),
    ]
    for target, extra, message in cases:
        with pytest.raises(OutputRefused, match=message):
            with staged_folder(target, force=force, **extra):
                raise AssertionError("the caller ran")
    assert _leftovers(tmp_path) == [] and (tmp_path / "gen" / "in.nii.gz").exists()
