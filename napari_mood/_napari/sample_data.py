"""Sample data entries (File > Open Sample > napari-mood): one per case of the sample set.

Each opens the case's scan, ground truth and every method in ``sample_data/methods/``.
"""

from __future__ import annotations

from napari_mood._napari.reader import LayerData, read_dataset_case
from napari_mood.services.datasets import sample_data_dir

__all__ = ["SAMPLE_CASES", "open_sample_case"]

SAMPLE_CASES: tuple[str, ...] = tuple(f"brain_{i:03d}" for i in range(7))


def open_sample_case(stem: str) -> list[LayerData]:
    """Return the layers of sample case ``stem`` (``brain_000`` ... ``brain_006``)."""
    return read_dataset_case(sample_data_dir(), f"{stem}.nii.gz")


def brain_000() -> list[LayerData]:
    """Sample case brain_000."""
    return open_sample_case("brain_000")


def brain_001() -> list[LayerData]:
    """Sample case brain_001."""
    return open_sample_case("brain_001")


def brain_002() -> list[LayerData]:
    """Sample case brain_002."""
    return open_sample_case("brain_002")


def brain_003() -> list[LayerData]:
    """Sample case brain_003."""
    return open_sample_case("brain_003")


def brain_004() -> list[LayerData]:
    """Sample case brain_004."""
    return open_sample_case("brain_004")


def brain_005() -> list[LayerData]:
    """Sample case brain_005."""
    return open_sample_case("brain_005")


def brain_006() -> list[LayerData]:
    """Sample case brain_006."""
    return open_sample_case("brain_006")
