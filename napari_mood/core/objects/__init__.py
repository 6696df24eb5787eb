"""Object-level evaluation: connected components, size window and the MOOD matching rule.

The MOOD object score has no public implementation; this module implements it as the
project specifies it (README, "Object-level score"):

1. Binarise: a voxel is predicted when its score, read as the pixel task reads it, is
   ``>= threshold``. ``mode="mood"`` reads scores as clipped float16 (the official
   scorer); ``mode="exact"`` reads them as float32 clipped to [0, 1]. The threshold is a
   float64 and is never rounded to the score dtype.
2. Connected components of the prediction and of the ground truth (GT voxel: value
   > 0.5, i.e. ``rint(value) >= 1`` as the official scorer reads labels), with
   ``connectivity="full"`` (26 in 3-D, 8 in 2-D) or ``"face"`` (6 / 4).
3. Size window: predicted objects with ``lo <= size <= hi`` are kept, the others are
   *discarded* (neither TP nor FP). By default ``lo = 0.5 * smallest GT object`` and
   ``hi = 2 * biggest GT object`` over all GT objects evaluated together. Without any GT
   object and without an explicit window, the window is ``(0, inf)``: every predicted
   object is kept, and each one is a false positive.
4. A kept predicted object P matches GT object G when its centre of mass (mean voxel
   index) lies in the convex hull of the corners of G's voxels (boundary included,
   tolerance :data:`HULL_TOLERANCE`) and ``0.5 * |G| < |P| < 2 * |G|``.
5. TP = GT objects matched by at least one kept predicted object, FN = the other GT
   objects, FP = kept predicted objects that match nothing. A predicted object whose
   matched GT objects were all already claimed by a predicted object of lower id is
   *matched-extra*: neither TP nor FP.
6. Over a dataset TP, FP and FN are summed, then ``F1 = 2 TP / (2 TP + FP + FN)``,
   ``precision = TP / (TP + FP)`` and ``recall = TP / (TP + FN)``, where TP counts
   *detected GT objects* (matched-extra objects enter neither numerator nor
   denominator). Each ratio is NaN when its denominator is 0.

The package follows the rule's phases:

``components``  connected components of a mask (cc3d), sizes, centroids, boxes;
``slabs``       cc3d a slab of planes at a time, joined (short GIL holds, same labels);
``runs``        label images kept as runs of equal values when that is smaller;
``flagged``     the objects of ``score >= threshold`` straight from the map, slab by slab
                (no full-size mask or label temporaries; the viewer's route);
``hull``        convex hulls of GT objects and point-in-hull;
``rule``        the MOOD rule itself (admissible pairs, assignment, tally, window, ratios),
                written once and used by both routes below;
``match``       one case at one threshold (:func:`match_objects`): per-object records for
                tables, layers and review;
``dataset``     many cases at many thresholds (:func:`describe_case` then
                :func:`count_objects` / :func:`best_object_threshold`), small picklable
                per-case summaries so that memory stays bounded and cases run in parallel.

Both routes give the same counts (tested on random cases).
"""

from napari_mood.core.objects.components import Connectivity, label_objects
from napari_mood.core.objects.dataset import (
    CaseObjects,
    LevelObjects,
    best_object_threshold,
    count_objects,
    dataset_size_window,
    default_threshold_grid,
    describe_case,
    distinct_value_thresholds,
)
from napari_mood.core.objects.hull import HULL_TOLERANCE
from napari_mood.core.objects.match import (
    BINARY_THRESHOLD,
    LabelledMatch,
    MatchCriterion,
    ObjectMatch,
    ObjectRecord,
    Source,
    binarize_scores,
    kind_table,
    labelled_match,
    match_objects,
    object_labels,
)
from napari_mood.core.objects.rule import KINDS, ObjectCounts, ObjectKind

__all__ = [
    "BINARY_THRESHOLD",
    "HULL_TOLERANCE",
    "KINDS",
    "CaseObjects",
    "LabelledMatch",
    "Connectivity",
    "LevelObjects",
    "MatchCriterion",
    "ObjectCounts",
    "ObjectKind",
    "ObjectMatch",
    "ObjectRecord",
    "Source",
    "best_object_threshold",
    "binarize_scores",
    "count_objects",
    "dataset_size_window",
    "default_threshold_grid",
    "describe_case",
    "distinct_value_thresholds",
    "kind_table",
    "label_objects",
    "labelled_match",
    "match_objects",
    "object_labels",
]
