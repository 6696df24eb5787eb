"""Per-category analysis of a real evaluation: the numbers equal the core rule on the same data."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from napari_mood.core.categories import CaseCategory
from napari_mood.core.results import EvaluationOptions
from napari_mood.io.errors import MoodInputError
from napari_mood.io.nifti import read_label, read_scores
from napari_mood.services.categories import (
    category_rows,
    evaluation_inputs,
    plot_categories,
    scores_csv,
    summary_csv,
)
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.evaluation import evaluate
from napari_mood.services.report import read_case_categories

SAMPLE = sample_data_dir()
CATS = {
    "brain_001.nii.gz": CaseCategory("local", "sphere", 1),
    "brain_003.nii.gz": CaseCategory("local", "slab", 2),
    "brain_004.nii.gz": CaseCategory("intensity", "pet", 3),
    "brain_000.nii.gz": CaseCategory("normal"),
}


@pytest.fixture(scope="module")
def result():
    options = EvaluationOptions(tasks=("pixel", "sample"))
    with pytest.warns(UserWarning):  # the sample data's binary method misses a case
        return evaluate(SAMPLE, options=options, workers=1).result


def _voxels(method: str, cases: list[str]) -> float:
    scores, labels = [], []
    for case in cases:
        label = read_label(SAMPLE / "toy_label" / "pixel" / case).mask
        path = SAMPLE / "methods" / method / case
        scores.append(read_scores(path).scores.ravel() if path.exists() else np.zeros(label.size))
        labels.append(label.ravel())
    return average_precision_score(
        np.concatenate(labels), np.concatenate(scores).astype(np.float64)
    )


def test_local_category_pixel_ap_equals_sklearn(result):
    rows = {(r.group, r.method): r for r in category_rows(result, CATS, seed=None)}
    assert set(g for g, _ in rows) == {"local", "intensity"}  # "normal" is the control group
    for method in ("residual", "oracle_noisy", "binary"):
        want = _voxels(method, ["brain_001.nii.gz", "brain_003.nii.gz"])
        assert rows[("local", method)].pixel_ap == pytest.approx(want, rel=1e-9)


def test_sample_inputs_and_normals(result):
    _, sample, normal = evaluation_inputs(result)
    assert normal == ["brain_000.nii.gz", "brain_005.nii.gz"]
    assert sample["binary"]["brain_004.nii.gz"] == (1, 0.0)  # missing score counts 0
    rows = {(r.group, r.method): r for r in category_rows(result, CATS, level="subcategory")}
    pairs = [sample["residual"][c] for c in ("brain_004.nii.gz", *normal)]
    want = average_precision_score([p[0] for p in pairs], [p[1] for p in pairs])
    assert rows[("pet", "residual")].sample_ap == pytest.approx(want)
    assert list(dict.fromkeys(g for g, _ in rows)) == ["sphere", "slab", "pet"]
    assert rows[("pet", "constant")].sample_ap == pytest.approx(1 / 3)


def test_tables_and_plot(result):
    rows = category_rows(result, CATS, level="subcategory")
    table = list(csv.DictReader(io.StringIO(scores_csv(rows))))
    assert {r["method"] for r in table} == {
        "residual",
        "oracle_noisy",
        "binary",
        "constant",
        "random",
    }
    summary = list(csv.DictReader(io.StringIO(summary_csv(rows, ["pixel_ap"]))))
    methods = [r for r in rows if r.group == "pet" and not r.baseline]
    pet = next(s for s in summary if s["group"] == "pet")
    assert float(pet["median"]) == pytest.approx(np.median([r.pixel_ap for r in methods]), abs=1e-6)
    assert summary[-1]["group"].startswith("(overall")
    fig = plot_categories(rows, "pixel_ap")
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["sphere", "slab", "pet"]


def test_read_case_categories(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("case,category,subcategory,order\na,tumour,small,2\nb,shift\n#x\n")
    assert read_case_categories(path) == {
        "a.nii.gz": CaseCategory("tumour", "small", 2.0),
        "b.nii.gz": CaseCategory("shift", "", None),
    }
    path.write_text("a,tumour,small,hard\n")
    with pytest.raises(MoodInputError, match="row 1: order 'hard' is not a number"):
        read_case_categories(path)
