"""The objects panel's texts and layer rows (pure functions of the napari wing, no viewer)."""

from __future__ import annotations

import numpy as np

from napari_mood._napari.widgets.objects_texts import objects_layer, summary_html, window_text
from napari_mood.services.object_views import compute_method_objects, match_methods, shown_objects
from napari_mood.services.snapshots import MapSnapshot


def test_summary_names_the_method_and_the_size_window():
    gt = np.zeros((6, 12, 12), bool)
    gt[2:4, 3:7, 3:7] = True
    score = np.where(gt, 0.9, 0.0)
    score[0:2, 8:12, 8:12] = 0.8  # a false positive object the size of the GT one (32 voxels)
    html = summary_html(match_methods([MapSnapshot("noisy <b>", score, 0.6)], gt))
    assert "noisy &lt;b&gt;" in html and "Size window" in html
    # TP 1, FP 1, FN 0 in the row of the method, F1 = 2 * 1 / (2 + 1 + 0)
    assert "<td align='right'>1</td><td align='right'>1</td><td align='right'>0</td>" in html
    assert "0.67" in html
    assert window_text((0.0, float("inf"))) == "≥ 0"
    assert window_text((2.0, 50.0)) == "2–50"


def test_objects_layer_labels_stay_small_with_many_components():
    """A speckled map has many components (512^3: hundreds of thousands): the shown ones are numbered
    1..n, so napari's direct label colormap stays small (it needs numba above 65,536)."""
    rng = np.random.default_rng(5)
    score = np.zeros((40, 60, 60))
    score[:20] = (rng.random((20, 60, 60)) < 0.02) * 0.9  # about 1,000 specks, low ids
    score[30:37, 30:37, 30:37] = 0.9  # a false positive blob (343 voxels), labelled last
    gt = np.zeros(score.shape, bool)
    gt[22:30, 5:13, 5:13] = True  # missed (512 voxels)
    result = compute_method_objects(MapSnapshot("m", score, 0.5), gt)
    pred_ids, fn_ids = shown_objects(result.match)
    layer = objects_layer(result)
    n = pred_ids.size + fn_ids.size
    assert max(layer.kinds) == n == int(result.image.max()) and len(layer.features["index"]) == n
    assert layer.features["index"] == list(range(1, n + 1))
    assert pred_ids.max() > 300 and result.image.dtype == np.uint8
    assert layer.features["object"][0] == f"pred {pred_ids[0]}"
