"""The public API: the one list of names ``napari_mood`` exports.

``__init__.py`` reads this stub (``lazy_loader.attach_stub``) to import each name on
first use; type checkers and IDEs read it as the package's types.
"""

from ._version import (
    __version__ as __version__,
)
from .core.batches import (
    batch_average_precision as batch_average_precision,
    listing_batch_ap as listing_batch_ap,
    mood_splits as mood_splits,
)
from .core.curves import (
    Curve as Curve,
    CurveAccumulator as CurveAccumulator,
    curve_from_arrays as curve_from_arrays,
)
from .io.errors import (
    MoodInputError as MoodInputError,
)
from .io.mood import (
    discover_dataset as discover_dataset,
)
from .io.methods import (
    discover_methods as discover_methods,
    find_methods as find_methods,
    method_folder as method_folder,
)
from .core.metrics import (
    auroc as auroc,
    average_precision as average_precision,
    best_threshold as best_threshold,
    confusion_at as confusion_at,
    fpr_at_tpr as fpr_at_tpr,
    sample_score_from_pixel as sample_score_from_pixel,
    slice_scores as slice_scores,
)
from .io.nifti import (
    read_label as read_label,
    read_scores as read_scores,
    read_volume as read_volume,
)
from .core.objects import (
    ObjectCounts as ObjectCounts,
    ObjectMatch as ObjectMatch,
    best_object_threshold as best_object_threshold,
    count_objects as count_objects,
    describe_case as describe_case,
    match_objects as match_objects,
)
from .core.ranking import (
    bootstrap_ap as bootstrap_ap,
    consensus_rank as consensus_rank,
    kendall_tau_b as kendall_tau_b,
    rank_methods as rank_methods,
)
from .core.results import (
    EvaluationOptions as EvaluationOptions,
)
from .core.scores import (
    ScoreMode as ScoreMode,
    flag as flag,
    gt_mask as gt_mask,
)
from .io.validate import (
    validate_dataset as validate_dataset,
)
from .services.boxes import (
    BoxBenchmark as BoxBenchmark,
    evaluate_boxes as evaluate_boxes,
)
from .services.datasets import (
    sample_data_dir as sample_data_dir,
)
from .services.evaluation import (
    MoodEvaluation as MoodEvaluation,
    evaluate as evaluate,
)
from .io.recon import (
    ReconFolders as ReconFolders,
)
from .services.recon import (
    ReconEvaluation as ReconEvaluation,
    ReconOptions as ReconOptions,
    evaluate_recon as evaluate_recon,
)
