"""Texts of the review panel: names, tooltips, and the lines it shows (Qt-free)."""

from __future__ import annotations

from collections.abc import Iterable

from napari_mood.services.adjudication import AdjudicationItem
from napari_mood.services.review import VERDICTS, ReviewRecord, Verdict
from napari_mood.services.review_queue import ReviewQueue
from napari_mood.services.review_regions import FlaggedRegion, FoundRegions, RegionScope

REVIEW_LAYER_NAME = "Review: current region"
REVIEW_ROLE = "review"
REVIEW_COLOR = "#ffffff"  # white (no method or GT colour), drawn thicker than object outlines
REVIEW_CONTOUR = 2
AUTO_DELAY_MS = 250
NOTE_DELAY_MS = 500
SCOPES: tuple[tuple[str, RegionScope], ...] = (
    ("Counted by the MOOD score (size window)", "window"),
    ("All flagged components", "all"),
)
VERDICT_TEXT: dict[Verdict, tuple[str, str]] = {  # verdict -> (button text, key)
    "true finding": ("True finding", "T"),
    "false alarm": ("False alarm", "F"),
    "unsure": ("Unsure", "U"),
}
METHOD_TIP = "Method whose flagged regions are reviewed, at its display threshold."
SCOPE_TIP = (
    "Which regions to review. 'Counted by the MOOD score': the connected components the "
    "object score counts (inside the size window set by the ground-truth objects; all of "
    "them without a ground truth). 'All flagged components': every component, specks too."
)
VERDICT_TIP = "Record '{verdict}' for the current region (key {key}); saved at once."
NOTE_TIP = (
    "Free-text note on the region shown, saved with its verdict (and again when edited "
    "after it). Enter to finish; then the keys work again."
)
REVIEWER_TIP = "Your name or initials, written with every verdict (remembered)."
ONLY_TIP = "Hide the other methods' maps while reviewing."
BLIND_TIP = (
    "Blind review: hide the ground truth, the method's name and colour and the panels that "
    "name methods; regions and cases are shuffled with a seed stored in the review file."
)
UNDO_TIP = "Take back the last verdict recorded in this session (key Z)."
SETTINGS = ("napari-mood", "napari-mood")
REVIEWER_SETTING = "review/reviewer"
ADVANCE_TIP = "After a verdict, go to the next region; after a case's last, the next case."
PREVIOUS_TIP = "Previous region; before the first, the previous case (key P)."
NEXT_TIP = "Next region; after the last, the next case of the dataset (key N)."
FILE_TIP = "Verdicts are saved to this CSV file after every verdict:\n{path}"
CHANGE_TIP = (
    "Choose the review file (an existing one is continued). It cannot be inside the "
    "dataset or next to the input files."
)
EXPORT_TIP = (
    "Write the verdict counts per method (CSV) and, beside it, every judged region "
    "(<name>-objects.csv)."
)
EMPTY_TEXT = "No score map loaded.\nOpen a MOOD dataset or case to review its flagged regions."
ADJUDICATION_TIP = (
    "Adjudication: only the regions readers disagreed on (from the Reader study panel's "
    "'Adjudicate disagreements'); each verdict is saved as a review-file row marked "
    "'adjudication', signed with the reviewer name. Untick to go back to a plain review."
)


def position_text(
    found: FoundRegions | None, region: FlaggedRegion | None, index: int, total: int, method: str
) -> str:
    """Return the region shown, e.g. "Region 3 of 22 · residual @ 0.500", its max score and size."""
    if found is None:
        return ""
    if region is None:
        return f"No flagged region for {method} at {found.threshold:.3f}."
    size = f"{region.size_voxels} voxels"
    if region.size_mm3 is not None:
        size += f" ({region.size_mm3:,.0f} mm³)"
    return (
        f"<b>Region {index + 1} of {total}</b> · {method} "
        f"@ {found.threshold:.3f}<br>max score {region.max_score:.3f} · {size}"
    )


def progress_text(verdicts: Iterable[ReviewRecord], total: int) -> str:
    """Verdicts recorded so far, e.g. "Reviewed 4 of 22: 2 true finding · 1 false alarm · 1 unsure"."""
    if not total:
        return ""
    judged = list(verdicts)
    counts = " · ".join(f"{sum(r.verdict == v for r in judged)} {v}" for v in VERDICTS)
    return f"Reviewed {len(judged)} of {total}: {counts}"


def end_text(delta: int, queue: ReviewQueue | None, case: str | None) -> str:
    """Return what Next past the last case (Previous before the first) says: nothing more to open.

    Examples
    --------
    >>> end_text(1, None, "brain_001.nii.gz")
    'End of the queue: the last region of this case (no dataset to go on in).'
    """
    edge, which = ("End", "last") if delta > 0 else ("Start", "first")
    if queue is None:
        return f"{edge} of the queue: the {which} region of this case (no dataset to go on in)."
    index, total = queue.position(case)
    return f"{edge} of the queue: the {which} region of the {which} case ({index} of {total})."


def readers_text(item: AdjudicationItem | None) -> str:
    """Return the readers' verdicts on a region, e.g. "Readers: ana true finding · ben unsure"."""
    if item is None:
        return ""
    said = " · ".join(f"{name}: <b>{verdict}</b>" for name, verdict in item.verdicts)
    return f"Readers: {said}"


ACCESSIBLE_NAMES = {
    "method": "Method reviewed",
    "scope": "Regions reviewed",
    "reviewer": "Reviewer",
    "note": "Note on the region shown",
}
"""What a screen reader says for the review's unlabelled inputs (buttons say their text)."""
