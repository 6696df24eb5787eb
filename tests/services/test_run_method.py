"""``run_method``: shell-script methods that threshold, fail, hang and write the wrong shape."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from napari_mood.io.errors import MoodInputError, with_flags
from napari_mood.services.output import OutputRefused
from napari_mood.services.run_method import build_command, run_method
from tests.conftest import write_nifti

# A MOOD "method": for each scan of $1, a map (scan > 0.7) on the scan's grid into $2.
THRESHOLD = f"""#!/bin/sh
exec {sys.executable} - "$1" "$2" <<'PY'
import sys, pathlib, nibabel as nib, numpy as np
src, dst = map(pathlib.Path, sys.argv[1:])
for scan in sorted(src.glob("*.nii.gz")):
    img = nib.load(scan)
    if "slow" in scan.name:
        import time; time.sleep(30)
    if "bad" in scan.name:
        sys.exit("cannot handle " + scan.name)
    if "lost" in scan.name:
        continue
    if "garbage" in scan.name:
        (dst / scan.name).write_bytes(b"not a nifti")
        continue
    data = (np.asarray(img.dataobj) > 0.7).astype(np.float32)
    if "wrong" in scan.name:
        data = data[:-1]
    nib.save(nib.Nifti1Image(data, img.affine), dst / scan.name)
    if "noise" in scan.name:
        (dst / (scan.name + ".txt")).write_text("0.5")
PY
"""


def _script(tmp_path: Path, text: str, name: str = "method.sh") -> Path:
    path = tmp_path / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def scans(tmp_path: Path) -> Path:
    folder = tmp_path / "toy"
    rng = np.random.default_rng(0)
    for name in ("a_ok", "b_bad", "c_wrong", "d_noise", "e_lost", "f_garbage"):
        write_nifti(folder / f"{name}.nii.gz", rng.random((6, 5, 4)).astype(np.float32))
    return folder


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mode) for p in folder.iterdir()}


def test_statuses_outputs_and_inputs_untouched(tmp_path, scans):
    method = _script(tmp_path, THRESHOLD)
    before = _snapshot(scans)
    run = run_method(str(method), scans, tmp_path / "out", time_limit=60)
    status = {c.case: c.status for c in run.cases}
    assert status == {
        "a_ok.nii.gz": "ok",
        "b_bad.nii.gz": "failed",
        "c_wrong.nii.gz": "wrong-shape",
        "d_noise.nii.gz": "ok",
        "e_lost.nii.gz": "missing",
        "f_garbage.nii.gz": "unreadable",
    }
    failed = {c.case: c for c in run.failed()}
    assert failed["b_bad.nii.gz"].returncode == 1
    assert "cannot handle b_bad.nii.gz" in failed["b_bad.nii.gz"].message
    assert "(5, 5, 4)" in failed["c_wrong.nii.gz"].message
    assert failed["e_lost.nii.gz"].message.startswith("no e_lost.nii.gz written (ran in ")
    assert failed["f_garbage.nii.gz"].returncode == 0 and failed["f_garbage.nii.gz"].message
    # only usable expected files are copied out; the stray .txt of the pixel run is dropped
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a_ok.nii.gz", "d_noise.nii.gz"]
    scan = np.asarray(nib.load(scans / "a_ok.nii.gz").dataobj)
    written = np.asarray(nib.load(tmp_path / "out" / "a_ok.nii.gz").dataobj)
    np.testing.assert_array_equal(written, (scan > 0.7).astype(np.float32))
    assert _snapshot(scans) == before and run.changed_inputs == ()
    assert all(c.seconds > 0 for c in run.cases)


def test_slow_case_is_killed_with_its_process_group(tmp_path):
    folder = tmp_path / "toy"
    write_nifti(folder / "slow.nii.gz", np.zeros((3, 3, 3), np.float32))
    pid_file = tmp_path / "child.pid"
    method = _script(tmp_path, f"#!/bin/sh\nsleep 60 &\necho $! > {pid_file}\nwait\n")
    start = time.perf_counter()
    run = run_method(str(method), folder, tmp_path / "out", time_limit=1)
    assert time.perf_counter() - start < 10
    (case,) = run.cases
    assert case.status == "timeout" and 1 <= case.seconds < 8
    child = int(pid_file.read_text())
    time.sleep(0.2)
    assert not _alive(child)  # the grandchild died with the group


def _alive(pid: int) -> bool:
    """Running (a zombie left to a non-reaping init counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_method_cannot_write_into_its_input(tmp_path, scans):
    method = _script(
        tmp_path, '#!/bin/sh\nfor f in "$1"/*; do echo x > "$f"; done\ntouch "$1/new"\n'
    )
    before = _snapshot(scans)
    run = run_method(str(method), scans, tmp_path / "out", time_limit=30)
    if os.geteuid() != 0:  # root ignores permissions; the originals are safe either way (copies)
        assert {c.status for c in run.cases} == {"failed"}
    assert _snapshot(scans) == before


def test_sample_task_and_placeholders(tmp_path, scans):
    method = _script(
        tmp_path,
        '#!/bin/sh\nfor f in "$2"/*; do echo 0.25 > "$4/$(basename "$f").txt"; done\n'
        'case "$(ls "$2")" in f_garbage*) echo abc > "$4/f_garbage.nii.gz.txt";; esac\n',
    )
    run = run_method(f"{method} x {{input}} y {{output}}", scans, tmp_path / "out", task="sample")
    status = {c.case: c.status for c in run.cases}
    assert status.pop("f_garbage.nii.gz") == "unreadable"
    assert set(status.values()) == {"ok"}
    assert "'abc' is not a number" in run.cases[-1].message
    assert (tmp_path / "out" / "a_ok.nii.gz.txt").read_text() == "0.25\n"
    assert not (tmp_path / "out" / "f_garbage.nii.gz.txt").exists()


def test_output_guard_and_bad_commands(tmp_path, scans):
    with pytest.raises(OutputRefused, match="inside the input folder"):
        run_method("true", scans, scans / "out")
    with pytest.raises(ValueError, match="empty"):
        run_method("  ", scans, tmp_path / "out")
    with pytest.raises(MoodInputError, match="/nonexistent/method: does not exist"):
        run_method("/nonexistent/method", scans, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # refused before the first case
    (tmp_path / "empty").mkdir()
    with pytest.raises(MoodInputError, match="no .nii"):
        run_method("true", tmp_path / "empty", tmp_path / "out2")


def test_existing_output_needs_force(tmp_path, scans):
    method = _script(tmp_path, THRESHOLD)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a_ok.nii.gz").write_bytes(b"old")
    with pytest.raises(OutputRefused, match="allow replacing it") as refused:
        run_method(str(method), scans, tmp_path / "out")
    assert "use --force" in with_flags(refused.value.args[0])  # as the command line prints it
    run_method(str(method), scans, tmp_path / "out", force=True)
    assert (tmp_path / "out" / "a_ok.nii.gz").read_bytes() != b"old"


def test_build_command_splits_like_a_shell():
    assert build_command("m 'a b'", Path("/i"), Path("/o")) == ["m", "a b", "/i", "/o"]
    with pytest.raises(ValueError, match="cannot split"):
        build_command("m 'open", Path("/i"), Path("/o"))


@pytest.mark.parametrize("step", ["remove_stale_runs", "fingerprint_folder", "Scratch"])
def test_an_interrupt_before_the_first_case_takes_the_new_folder_away(
    tmp_path, scans, monkeypatch, step
):
    """Ctrl-C or SIGTERM (SystemExit) landing between the folder's making and the first case.

    Under load the signal of ``test_an_interrupted_run_leaves_no_output_folder`` fell
    while the input folder was being fingerprinted, and the empty output folder stayed.
    """
    import napari_mood.services.run_method as module

    def interrupted(*args, **kwargs):
        raise SystemExit(143)

    monkeypatch.setattr(module, step, interrupted)
    out = tmp_path / "out"
    with pytest.raises(SystemExit):
        run_method(f"{sys.executable} -c pass", scans, out)
    assert not out.exists()


# A method as users write it: a script that calls a helper by a path relative to itself.
HELPER_CALLER = f"""import subprocess, sys
from pathlib import Path
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
for scan in sorted(src.glob("*.nii.gz")):
    subprocess.run([{sys.executable!r}, "helper.py", str(scan), str(dst / scan.name)], check=True)
"""
HELPER = "import shutil, sys\nshutil.copyfile(sys.argv[1], sys.argv[2])\n"


@pytest.fixture
def helper_method(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``python my_method.py`` in the current folder, calling ``helper.py`` beside it."""
    (tmp_path / "my_method.py").write_text(HELPER_CALLER)
    (tmp_path / "helper.py").write_text(HELPER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # the kept logs stay in the test's
    return f"{sys.executable} my_method.py"


def test_a_relative_helper_fails_naming_the_working_folder_and_the_kept_log(
    tmp_path, scans, helper_method
):
    run = run_method(helper_method, scans, tmp_path / "out", time_limit=60)
    case = run.cases[0]
    assert case.status == "failed" and ", a fresh, empty folder; log: " in case.message
    assert f"log: {case.log}" in case.message and "helper.py" in Path(case.log).read_text()
    assert run.workdir is None and run.to_dict()["cases"][0]["log"] == case.log


def test_workdir_runs_the_method_where_its_helper_is(tmp_path, scans, helper_method):
    run = run_method(helper_method, scans, tmp_path / "out", time_limit=60, workdir=".")
    assert {c.status for c in run.cases} == {"ok"} and run.changed_inputs == ()
    assert run.workdir == str(tmp_path)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        p.name for p in scans.iterdir()
    )


@pytest.mark.parametrize("where", ["toy", "toy/sub", "out", "out/sub", "missing"])
def test_workdir_is_never_among_the_inputs_nor_the_outputs(tmp_path, scans, helper_method, where):
    (scans / "sub").mkdir()
    (tmp_path / "out" / "sub").mkdir(parents=True)
    with pytest.raises(MoodInputError, match="--workdir|the working folder"):
        run_method(helper_method, scans, tmp_path / "out", workdir=tmp_path / where)
    assert not (tmp_path / "out" / "a_ok.nii.gz").exists()
