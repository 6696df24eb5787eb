"""The HTML report: parses, embeds non-blank images, has the leaderboard and categories."""

from __future__ import annotations

import base64
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from napari_mood.cli import main
from napari_mood.io.errors import MoodInputError
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.report import read_case_categories

pytest.importorskip("matplotlib")


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "img":
            self.images.append(dict(attrs)["src"])


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    cats = out / "cats.csv"
    cats.write_text(
        "case,category\nbrain_001,blob\nbrain_006,blob\nbrain_002,texture\nbrain_000,normal\n"
    )
    argv = [
        "evaluate",
        str(sample_data_dir()),
        "--task",
        "pixel,sample,object",
        "--quiet",
        "--workers",
        "1",
    ]
    assert (
        main([*argv, "--report", str(out / "r"), "--categories", str(cats), "--bootstrap", "50"])
        == 0
    )
    return out / "r"


def test_report_files_and_html(report_dir):
    from matplotlib.image import imread

    html = (report_dir / "report.html").read_text()
    parser = _Collector()
    parser.feed(html)
    assert parser.tags.count("table") >= 3 and len(parser.images) == 2
    for src in parser.images:
        assert src.startswith("data:image/png;base64,")
        pixels = imread(io.BytesIO(base64.b64decode(src.split(",", 1)[1])), format="png")
        assert pixels.shape[0] > 100 and pixels.shape[1] > 100 and float(np.std(pixels)) > 0.01
    assert "Leaderboard" in html and "Worst cases per method" in html and "Per category" in html
    assert re.search(r"<td>blob</td><td>2</td>", html)
    data = json.loads((report_dir / "results.json").read_text())
    assert set(data["methods"]) == {"residual", "oracle_noisy", "binary"}
    assert (report_dir / "results.csv").read_text().startswith("case,method,")


def test_read_case_categories_refuses_a_short_row_or_a_missing_file(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("a,x\nb.nii.gz,y\n")
    found = read_case_categories(path)
    assert {case: c.category for case, c in found.items()} == {"a.nii.gz": "x", "b.nii.gz": "y"}
    path.write_text("a\n")
    with pytest.raises(MoodInputError, match="c.csv.*row 1"):
        read_case_categories(path)
    with pytest.raises(MoodInputError, match="not found"):
        read_case_categories(tmp_path / "nope.csv")
