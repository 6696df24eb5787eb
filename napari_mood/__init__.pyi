"""Type information of the lazily imported public API (see ``__init__.py``)."""

from napari_mood._version import __version__ as __version__
from napari_mood.core.curves import (
    Curve as Curve,
)
from napari_mood.core.curves import (
    CurveAccumulator as CurveAccumulator,
)
from napari_mood.core.curves import (
    curve_from_arrays as curve_from_arrays,
)
from napari_mood.core.evaluate import (
    evaluate_case as evaluate_case,
)
from napari_mood.core.evaluate import (
    evaluate_dataset as evaluate_dataset,
)
from napari_mood.core.io import (
    MoodInputError as MoodInputError,
)
from napari_mood.core.io import (
    discover_dataset as discover_dataset,
)
from napari_mood.core.io import (
    discover_methods as discover_methods,
)
from napari_mood.core.io import (
    find_methods as find_methods,
)
from napari_mood.core.io import (
    method_folder as method_folder,
)
from napari_mood.core.metrics import (
    auroc as auroc,
)
from napari_mood.core.metrics import (
    average_precision as average_precision,
)
from napari_mood.core.metrics import (
    best_threshold as best_threshold,
)
from napari_mood.core.metrics import (
    confusion_at as confusion_at,
)
from napari_mood.core.metrics import (
    fpr_at_tpr as fpr_at_tpr,
)
from napari_mood.core.metrics import (
    sample_score_from_pixel as sample_score_from_pixel,
)
from napari_mood.core.metrics import (
    slice_scores as slice_scores,
)
from napari_mood.core.nifti import (
    read_label as read_label,
)
from napari_mood.core.nifti import (
    read_scores as read_scores,
)
from napari_mood.core.nifti import (
    read_volume as read_volume,
)
from napari_mood.core.objects import (
    best_object_threshold as best_object_threshold,
)
from napari_mood.core.objects import (
    count_objects as count_objects,
)
from napari_mood.core.objects import (
    describe_case as describe_case,
)
from napari_mood.core.objects import (
    match_objects as match_objects,
)
from napari_mood.core.ranking import (
    batch_average_precision as batch_average_precision,
)
from napari_mood.core.ranking import (
    bootstrap_ap as bootstrap_ap,
)
from napari_mood.core.ranking import (
    consensus_rank as consensus_rank,
)
from napari_mood.core.ranking import (
    kendall_tau_b as kendall_tau_b,
)
from napari_mood.core.ranking import (
    listing_batch_ap as listing_batch_ap,
)
from napari_mood.core.ranking import (
    mood_splits as mood_splits,
)
from napari_mood.core.ranking import (
    rank_methods as rank_methods,
)
from napari_mood.core.results import (
    EvaluationOptions as EvaluationOptions,
)
from napari_mood.core.scores import (
    ScoreMode as ScoreMode,
)
from napari_mood.core.scores import (
    flag as flag,
)
from napari_mood.core.scores import (
    gt_mask as gt_mask,
)
from napari_mood.core.validate import (
    validate_dataset as validate_dataset,
)
from napari_mood.services.datasets import (
    sample_data_dir as sample_data_dir,
)
from napari_mood.services.engine import (
    run_evaluation as run_evaluation,
)
from napari_mood.services.evaluation import (
    evaluate_folder as evaluate_folder,
)

__all__: list[str]
