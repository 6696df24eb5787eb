"""``--quiet`` hides the notes on old spellings; ``evaluate --report`` draws at ``--dpi``."""

from __future__ import annotations

import base64
import io
import re

import pytest
from PIL import Image

import napari_mood
from napari_mood.cli import main
from napari_mood.cli.parser import build_parser

SAMPLE = napari_mood.sample_data_dir()
NOTE = "napari-mood: note: --overwrite is deprecated, use --force"


@pytest.mark.parametrize(
    "argv",
    [
        ["rank", "a=a.json", "--overwrite", "--quiet"],  # --quiet after the old spelling
        ["categories", "data", "--out", "o", "--quiet", "--overwrite"],
        ["evaluate", "data", "--overwrite", "--out", "x.txt", "--overwrite", "--quiet"],
    ],
)
def test_quiet_hides_the_deprecation_note_wherever_it_stands(argv, capsys):
    build_parser().parse_args(argv)
    assert capsys.readouterr().err == ""


def test_without_quiet_the_note_is_printed_once(capsys):
    args = build_parser().parse_args(["evaluate", "data", "--overwrite", "--overwrite"])
    assert args.force is True
    assert capsys.readouterr().err.splitlines() == [NOTE]


def test_the_note_is_printed_at_every_parse(capsys):
    parser = build_parser()  # one parser, two command lines: each says it
    for _ in range(2):
        parser.parse_args(["evaluate", "data", "--overwrite"])
        assert capsys.readouterr().err.splitlines() == [NOTE]


def test_quiet_run_prints_no_note(tmp_path, capsys):
    out = tmp_path / "result.txt"
    argv = ["evaluate", str(SAMPLE), "--task", "sample", "--out", str(out), "--overwrite"]
    assert main([*argv, "--quiet"]) == 0
    assert "deprecated" not in capsys.readouterr().err and out.exists()


def _embedded_png_widths(html: str) -> list[int]:
    found = re.findall(r"src='data:image/png;base64,([^']+)'", html)
    return [Image.open(io.BytesIO(base64.b64decode(data))).width for data in found]


@pytest.mark.filterwarnings("ignore::napari_mood.io.errors.MoodInputWarning")
def test_report_plots_follow_dpi(tmp_path):
    widths = {}
    for dpi in (40, 80):
        folder = tmp_path / f"report{dpi}"
        argv = ["evaluate", str(SAMPLE), "--task", "pixel", "--quiet", "--report", str(folder)]
        assert main([*argv, "--out", str(tmp_path / f"{dpi}.txt"), "--dpi", str(dpi)]) == 0
        widths[dpi] = _embedded_png_widths((folder / "report.html").read_text())
    assert len(widths[40]) == 2  # pooled PR curves and per-case AP
    for low, high in zip(widths[40], widths[80], strict=True):
        assert high == pytest.approx(2 * low, abs=4)  # pixels = inches x dpi (tight bbox)


def test_report_dpi_is_checked_before_any_file_is_read(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", str(tmp_path / "absent"), "--report", str(tmp_path / "r"), "--dpi", "0"])
    assert exit_.value.code == 2 and "--dpi" in capsys.readouterr().err
