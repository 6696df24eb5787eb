"""napari_mood.evaluate against the official procedure, on clean and broken submissions."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from sklearn.metrics import (
    average_precision_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)

from napari_mood.core.results import EvaluationOptions
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.methods import discover_methods
from napari_mood.io.mood import discover_dataset
from napari_mood.services.evaluation import evaluate
from tests.conftest import make_mood_folder, write_nifti
from tests.core.test_objects import reference_counts
from tests.reference_scorer import _pixel_case, _sample_case, case_names, official_ap

SHAPE = (12, 10, 8)


def _mask(rng: np.random.Generator, *, empty: bool = False) -> np.ndarray:
    mask = np.zeros(SHAPE, bool)
    if not empty:
        c = rng.integers(2, 7, size=3)
        mask[c[0] : c[0] + 3, c[1] : c[1] + 2, c[2] : c[2] + 3] = True
    return mask


def _map(rng: np.random.Generator, mask: np.ndarray, signal: float) -> np.ndarray:
    return np.clip(rng.normal(0.2, 0.25, SHAPE) + signal * mask, -0.3, 1.4).astype(np.float32)


@pytest.fixture
def broken(tmp_path: Path) -> tuple[Path, Path]:
    """4 cases; method 'good' complete; 'broken' misses one case, one wrong shape,
    one out-of-range map; a non-binary label; sample files with a missing and a bad score."""
    rng = np.random.default_rng(7)
    masks = {f"c{i}": _mask(rng, empty=(i == 3)) for i in range(4)}
    good = {c: _map(rng, m, 0.6) for c, m in masks.items()}
    broken = {"c0": _map(rng, masks["c0"], 0.3), "c2": np.zeros((5, 5, 5), np.float32)}
    broken["c3"] = _map(rng, masks["c3"], 0.0) * 3 - 1
    data, preds = make_mood_folder(
        tmp_path,
        masks,
        {"good": good, "broken": broken},
        sample_labels={"c0": "1", "c1": "1", "c2": "1", "c3": "0"},
        sample_scores={
            "good": {"c0": "0.9", "c1": "0.7", "c2": "0.8\n", "c3": "0.75"},
            "broken": {"c0": "1.5", "c1": "abc", "c3": "-2"},
        },
    )
    write_nifti(data / "toy_label" / "pixel" / "c1.nii.gz", masks["c1"].astype(np.float32) * 1.7)
    return data, preds


def _evaluate(data: Path, preds: Path, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate(
            discover_dataset(data),
            methods=discover_methods(preds),
            options=EvaluationOptions(**options),
            workers=1,
        ).result
    return result, [str(w.message) for w in caught if issubclass(w.category, MoodInputWarning)]


@pytest.mark.parametrize("method", ["good", "broken"])
def test_pixel_and_sample_ap_equal_official(broken, method):
    data, preds = broken
    result, _ = _evaluate(data, preds)
    summary = result.methods[method]
    expected_pixel = official_ap(preds / method, data / "toy_label" / "pixel")
    expected_sample = official_ap(preds / method, data / "toy_label" / "sample", mode="sample")
    assert summary.pixel.ap == pytest.approx(expected_pixel, abs=1e-12)
    assert summary.sample.ap == pytest.approx(expected_sample, abs=1e-12)


def test_broken_submission_is_reported(broken):
    data, preds = broken
    result, messages = _evaluate(data, preds)
    pixel = result.methods["broken"].pixel
    assert pixel.missing == ("c1.nii.gz",) and pixel.invalid == ("c2.nii.gz",)
    assert result.methods["broken"].sample.missing == ("c1.nii.gz", "c2.nii.gz")
    text = "\n".join(messages)
    assert "no pixel map for case c1.nii.gz" in text
    assert "c2.nii.gz: shape (5, 5, 5) differs" in text
    assert "outside [0, 1]" in text and "not 0/1 after rounding" in text
    assert "abc" in text


def test_strict_mode_raises_on_missing_map(broken):
    data, preds = broken
    with pytest.raises(MoodInputError, match="c1.nii.gz"):
        _evaluate(data, preds, strict=True)


def test_nan_policy(tmp_path):
    rng = np.random.default_rng(1)
    mask = _mask(rng)
    scores = _map(rng, mask, 0.5)
    scores[0, 0, :4] = np.nan
    data, preds = make_mood_folder(tmp_path, {"c": mask}, {"m": {"c": scores}})
    with pytest.raises(MoodInputError, match=r"c.nii.gz.*4 NaN voxels.*score NaN as zero"):
        _evaluate(data, preds, tasks=("pixel",))
    result, messages = _evaluate(data, preds, tasks=("pixel",), nan_policy="zero")
    zeroed = np.nan_to_num(scores, nan=0.0)
    write_nifti(tmp_path / "ref" / "c.nii.gz", zeroed)
    assert result.methods["m"].pixel.ap == pytest.approx(
        official_ap(tmp_path / "ref", data / "toy_label" / "pixel")
    )
    assert any("counted as 0" in m for m in messages)


def test_no_positive_label_gives_zero_ap_and_nan_auroc(tmp_path):
    rng = np.random.default_rng(2)
    mask = _mask(rng, empty=True)
    data, preds = make_mood_folder(tmp_path, {"c": mask}, {"m": {"c": _map(rng, mask, 0)}})
    with pytest.warns(UserWarning):
        result = evaluate(
            discover_dataset(data),
            methods=discover_methods(preds),
            options=EvaluationOptions(tasks=("pixel",)),
            workers=1,
        ).result
    assert result.methods["m"].pixel.ap == 0.0 and math.isnan(result.methods["m"].pixel.auroc)


def test_unreadable_label_skips_case_like_official(broken):
    data, preds = broken
    (data / "toy_label" / "pixel" / "c0.nii.gz").write_bytes(b"garbage")
    result, messages = _evaluate(data, preds)
    assert result.methods["good"].pixel.n_cases == 3
    expected = official_ap(preds / "good", data / "toy_label" / "pixel")
    assert result.methods["good"].pixel.ap == pytest.approx(expected, abs=1e-12)
    assert any("case is skipped" in m for m in messages)


def test_exact_mode_uses_float32(tmp_path):
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(3)
    mask = _mask(rng)
    scores = _map(rng, mask, 0.2)
    data, preds = make_mood_folder(tmp_path, {"c": mask}, {"m": {"c": scores}})
    result, _ = _evaluate(data, preds, tasks=("pixel",), mode="exact")
    expected = average_precision_score(mask.ravel(), np.clip(scores, 0, 1).ravel())
    assert result.methods["m"].pixel.ap == pytest.approx(expected, abs=1e-12)


def test_sample_from_pixel_fills_missing_scores(broken):
    import nibabel as nib

    data, preds = broken
    (preds / "good" / "c3.nii.gz.txt").unlink()
    off, _ = _evaluate(data, preds)
    assert off.methods["good"].sample.missing == ("c3.nii.gz",)
    result, _ = _evaluate(data, preds, sample_from_pixel="max")
    assert result.methods["good"].sample.from_pixel == ("c3.nii.gz",)
    assert result.methods["good"].sample.missing == ()
    rows = {r.case: r for r in result.per_case if r.method == "good"}
    expected = float(
        np.clip(nib.load(preds / "good" / "c3.nii.gz").get_fdata(dtype=np.float16), 0, 1).max()
    )
    assert rows["c3.nii.gz"].sample_score == expected
    assert rows["c0.nii.gz"].sample_score == pytest.approx(0.9)


def _pooled(pred_dir: Path, label_dir: Path, reader) -> tuple[np.ndarray, np.ndarray]:
    """Labels and scores of every readable case, read as the official scorer reads them."""
    pairs = [reader(pred_dir / n, label_dir / n) for n in case_names(label_dir)]
    kept = [pair for pair in pairs if pair is not None]
    return np.concatenate([p[1] for p in kept]), np.concatenate([p[0] for p in kept])


def test_json_values_equal_independent_computations(broken):
    data, preds = broken
    result, _ = _evaluate(data, preds, tasks=("pixel", "sample", "object"))
    out = result.to_dict()
    assert out["dataset"] == "data"
    assert out["cases"] == ["c0.nii.gz", "c1.nii.gz", "c2.nii.gz", "c3.nii.gz"]
    good, pixel_dir = out["methods"]["good"], data / "toy_label" / "pixel"
    labels, scores = _pooled(preds / "good", pixel_dir, _pixel_case)
    pixel = good["pixel"]
    assert pixel["ap"] == pytest.approx(average_precision_score(labels, scores), abs=1e-12)
    assert pixel["auroc"] == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    fpr, tpr, _ = roc_curve(labels, scores, drop_intermediate=False)
    assert pixel["fpr95"] == pytest.approx(fpr[np.searchsorted(tpr, 0.95)], abs=1e-12)
    precision, recall, cuts = precision_recall_curve(labels, scores)
    with np.errstate(invalid="ignore"):
        dice = np.nan_to_num(2 * precision * recall / (precision + recall))[:-1]
    assert pixel["best_dice"] == pytest.approx(dice.max(), abs=1e-12)
    assert pixel["best_dice_threshold"] == pytest.approx(cuts[dice.argmax()], abs=1e-12)
    assert pixel["missing"] == [] and pixel["invalid"] == []
    sample_labels, sample_scores = _pooled(
        preds / "good", data / "toy_label" / "sample", _sample_case
    )
    assert good["sample"]["ap"] == pytest.approx(
        average_precision_score(sample_labels, sample_scores), abs=1e-12
    )
    assert good["sample"]["auroc"] == pytest.approx(
        roc_auc_score(sample_labels, sample_scores), abs=1e-12
    )
    _check_object_counts(good["object"], data, preds / "good")
    rows = [r for r in out["per_case"] if r["method"] == "good"]
    for row in rows[:3]:  # c3 has no GT voxel: no per-case AP
        case_scores, case_labels = _pixel_case(
            preds / "good" / row["case"], pixel_dir / row["case"]
        )
        assert row["pixel_ap"] == pytest.approx(average_precision_score(case_labels, case_scores))
    aps = [m["pixel"]["ap"] for m in out["methods"].values()]
    assert list(out["methods"]) == ["good", "broken"] and aps == sorted(aps, reverse=True)


def _check_object_counts(found: dict, data: Path, pred_dir: Path) -> None:
    """TP / FP / FN of the plain-loop MOOD rule summed over cases; the window from 18-voxel GTs."""
    window = (0.5 * 18, 2.0 * 18)
    assert found["size_window"] == list(window) and found["threshold"] == 0.5
    totals = np.zeros(5, int)
    for name in case_names(data / "toy_label" / "pixel"):
        label = nib.load(data / "toy_label" / "pixel" / name).get_fdata() > 0.5
        score = nib.load(pred_dir / name).get_fdata()
        totals += reference_counts(score, label, threshold=0.5, window=window)
    tp, fp, fn = (int(v) for v in totals[:3])
    assert tp + fn == 3  # c0 .. c2 hold one GT object each
    assert (found["tp"], found["fp"], found["fn"]) == (tp, fp, fn)
    assert found["f1"] == pytest.approx(2 * tp / (2 * tp + fp + fn))
    assert found["precision"] == pytest.approx(tp / (tp + fp))
    assert found["recall"] == pytest.approx(tp / (tp + fn))


def test_a_method_problem_is_an_error_only_where_evaluate_stops_on_it():
    from napari_mood.core.problems import Problem
    from napari_mood.services.case_scoring import as_evaluated

    missing = Problem("missing", "error", None, "no map", "", "c1", "ae")
    nan = Problem("nan", "error", None, "3 NaN voxels", "", "c1", "ae")
    label = Problem("unreadable", "error", None, "a broken label", "", "c1", None)
    affine = Problem("affine", "warning", None, "moved", "", "c1", "ae")
    found = [missing, nan, label, affine]
    assert [p.severity for p in as_evaluated(found)] == ["warning", "error", "error", "warning"]
    zero = as_evaluated(found, nan_policy="zero")
    assert [p.severity for p in zero] == ["warning", "warning", "error", "warning"]
    strict = as_evaluated(found, strict=True, nan_policy="zero")
    assert [p.severity for p in strict] == ["error", "error", "error", "warning"]
