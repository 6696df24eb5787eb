"""The PET reconstruction folders: find the cases and read each one's volumes on one grid.

Layout (what ``napari-mood simulate --kind pet --mask ...`` writes; every folder is keyed
by case name, ``.nii.gz`` or ``.nii``)::

    DATASET/toy/CASE          the inputs the method reconstructed (healthy and diseased)
    DATASET/healthy/CASE      the healthy original of each input (ground truth image)
    DATASET/region/CASE       the anomaly region (the GT mask, also for healthy inputs)
    DATASET/toy_label/pixel/CASE   pixel labels (used as region when region/ has no CASE)
    RECON/CASE                the method's reconstruction of each input

Every failure to read or to line up a case's files is a :class:`MoodInputError` naming
the file; the evaluation (:mod:`napari_mood.services.recon`) decides what it costs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from napari_mood.core.recon import brain_mask_problem, case_brain, check_recon_case
from napari_mood.core.simulate.hypometabolism import parse_degree_case
from napari_mood.io.errors import MoodInputError, option
from napari_mood.io.mood import case_stem, is_nifti
from napari_mood.io.nifti import Volume, read_shape, read_volume

__all__ = [
    "ReconCase",
    "ReconFolders",
    "ReconReader",
    "degree_cases",
    "find_recon_cases",
    "missing_regions",
]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class ReconFolders:
    """Where the inputs, healthy originals, regions, reconstructions and labels are."""

    inputs: Path
    healthy: Path
    recon: Path
    region: Path | None = None
    labels: Path | None = None
    brain_mask: Path | None = None

    @classmethod
    def of_dataset(
        cls,
        dataset: PathLike,
        recon: PathLike,
        *,
        scans: str = "toy",
        healthy: PathLike | None = None,
        region: PathLike | None = None,
        brain_mask: PathLike | None = None,
    ) -> ReconFolders:
        """Return the folders of a simulated dataset (defaults as in the module's layout).

        Parameters
        ----------
        dataset : path-like
            The simulated dataset's folder.
        recon : path-like
            The folder of the reconstructions.
        scans : str
            The subfolder of the inputs (its labels in ``SCANS_label/pixel``).
        healthy : path-like, optional
            The healthy originals (default ``DATASET/healthy``).
        region : path-like, optional
            The anomaly regions (default ``DATASET/region``).
        brain_mask : path-like, optional
            One brain mask for every case.

        Returns
        -------
        ReconFolders
            The folders of one reconstruction evaluation.
        """
        root = Path(dataset)
        return cls(
            inputs=root / scans,
            healthy=Path(healthy) if healthy is not None else root / "healthy",
            recon=Path(recon),
            region=Path(region) if region is not None else root / "region",
            labels=root / f"{scans}_label" / "pixel",
            brain_mask=None if brain_mask is None else Path(brain_mask),
        )


def _by_stem(folder: Path | None) -> dict[str, Path]:
    if folder is None or not folder.is_dir():
        return {}
    names = sorted(n for n in os.listdir(folder) if not n.startswith(".") and is_nifti(n))
    return {case_stem(n): folder / n for n in names}


def degree_cases(names: list[str]) -> list[str]:
    """Return the names that say a degree (``SUBJECT_REGION_degNN``): what the summary tabulates.

    Parameters
    ----------
    names : list of str
        Input file names.

    Returns
    -------
    list of str
        Those named ``SUBJECT_REGION_degNN``, in order.

    Examples
    --------
    >>> degree_cases(["s1_ad_deg00.nii.gz", "scan.nii.gz"])
    ['s1_ad_deg00.nii.gz']
    """
    return [name for name in names if parse_degree_case(name) is not None]


def find_recon_cases(folders: ReconFolders) -> list[str]:
    """Return the input file names (sorted); an input folder without NIfTI files is an error.

    Parameters
    ----------
    folders : ReconFolders
        The evaluation's folders.

    Returns
    -------
    list of str
        The input file names.

    Raises
    ------
    MoodInputError
        When the input folder is missing or holds no NIfTI file.
    """
    if not folders.inputs.is_dir():
        raise MoodInputError(
            folders.inputs, "no such folder of inputs", "give the dataset that was reconstructed"
        )
    found = [path.name for path in _by_stem(folders.inputs).values()]
    if not found:
        raise MoodInputError(folders.inputs, "holds no .nii / .nii.gz input", "check the folder")
    return found


@dataclass(frozen=True)
class ReconCase:
    """One case's volumes on one grid: input, healthy original, reconstruction, masks."""

    scan: np.ndarray
    healthy: np.ndarray
    recon: np.ndarray
    brain: np.ndarray
    region: np.ndarray | None
    notes: tuple[str, ...] = ()


class ReconReader:
    """Reads one case's volumes on one grid; every failure names its file."""

    def __init__(self, folders: ReconFolders) -> None:
        self.folders = folders
        self.healthy = _by_stem(folders.healthy)
        self.recon = _by_stem(folders.recon)
        self.region = _by_stem(folders.region)
        self.labels = _by_stem(folders.labels)
        self._brain: Volume | None = None

    def brain_mask(self) -> Volume | None:
        """Return the ``--brain-mask`` volume, read and checked once (None when not given).

        Raises
        ------
        MoodInputError
            When the mask is not a 0/1 mask of the brain.
        """
        if self.folders.brain_mask is not None and self._brain is None:
            volume = read_volume(self.folders.brain_mask)
            problem = brain_mask_problem(volume.data)
            if problem:
                raise MoodInputError(volume.path, problem, "give a 0/1 mask of the brain")
            self._brain = volume
        return self._brain

    def check_brain_mask(self, names: list[str]) -> None:
        """Read and check ``--brain-mask`` once, before any case: a bad one is an error."""
        mask = self.brain_mask()
        if mask is None:
            return
        shapes = set()
        for name in names:
            try:
                shapes.add(read_shape(self.folders.inputs / name))
            except MoodInputError:
                continue  # that input is reported when its case is read
        if shapes and mask.shape not in shapes:
            shown = " or ".join(str(s) for s in sorted(shapes))
            raise MoodInputError(
                mask.path,
                f"has shape {mask.shape}, the inputs have {shown}",
                "give a brain mask on the inputs' grid",
            )

    def _need(self, table: dict[str, Path], stem: str, folder: Path, what: str) -> Path:
        if stem not in table:
            raise MoodInputError(
                folder / f"{stem}.nii.gz", f"no {what} for this input", f"put it in {folder}"
            )
        return table[stem]

    def load(self, name: str) -> ReconCase:
        """Read the case of input ``name``: its volumes on one grid, its brain and region.

        Raises
        ------
        MoodInputError
            Naming the file that is missing, unreadable, on another grid or not finite.
        """
        stem = case_stem(name)
        scan = read_volume(self.folders.inputs / name)
        healthy = read_volume(
            self._need(self.healthy, stem, self.folders.healthy, "healthy original")
        )
        recon = read_volume(self._need(self.recon, stem, self.folders.recon, "reconstruction"))
        for other in (healthy, recon):
            _same_grid(scan, other)
        brain_file = self.brain_mask()
        if brain_file is not None:
            _same_grid(scan, brain_file)
        region = self._region(stem, scan)
        _check_case(scan, healthy, recon, brain=brain_file, region=region)
        brain = case_brain(healthy.data, None if brain_file is None else brain_file.data)
        region_mask, notes = _region_mask(region, brain)
        return ReconCase(scan.data, healthy.data, recon.data, brain, region_mask, notes)

    def _region(self, stem: str, scan: Volume) -> Volume | None:
        path = self.region.get(stem)
        if path is None and stem in self.labels:
            path = self.labels[stem]
        if path is None:
            return None
        volume = read_volume(path)
        _same_grid(scan, volume)
        return volume


def _check_case(
    scan: Volume, healthy: Volume, recon: Volume, *, brain: Volume | None, region: Volume | None
) -> None:
    """Raise MoodInputError naming the file of a case that cannot give finite metrics."""
    found = check_recon_case(
        scan.data, healthy.data, recon.data,
        brain=None if brain is None else brain.data, region=None if region is None else region.data,
    )  # fmt: skip
    if found is not None:
        files = {
            "input": scan,
            "healthy": healthy,
            "recon": recon,
            "brain": brain,
            "region": region,
        }
        culprit = files[found.role]
        raise MoodInputError(None if culprit is None else culprit.path, found.problem, found.hint)


def _region_mask(
    region: Volume | None, brain: np.ndarray
) -> tuple[np.ndarray | None, tuple[str, ...]]:
    """Return the region's mask (None when empty) and a note when none of it is in the brain."""
    mask = None if region is None else region.data != 0
    if region is None or mask is None or not mask.any():
        return None, ()
    if not (mask & brain).any():
        where = "no voxel of the anomaly region is inside the brain mask (brain metrics only)"
        return mask, (f"{region.path}: {where}",)
    return mask, ()


def _same_grid(scan: Volume, other: Volume) -> None:
    if other.shape != scan.shape:
        raise MoodInputError(
            other.path,
            f"has shape {other.shape}, the input {scan.path} has {scan.shape}",
            "give files on one grid",
        )


def missing_regions(folders: ReconFolders) -> str | None:
    """Return the warning when the region folder is missing (None when it is there).

    The text names its option both ways (:func:`~napari_mood.io.errors.option`): a
    record of it takes :func:`~napari_mood.io.errors.in_words`.
    """
    region, labels = folders.region, folders.labels
    if region is None or region.is_dir():
        return None
    if labels is not None and labels.is_dir():
        used = (
            f"anomaly regions are taken from the pixel labels in {labels}, which are empty for "
            "the healthy (0%) inputs: the anomaly rows lose their 0% baseline (nMSE, t and p "
            "are NaN)"
        )
    else:
        used = "no anomaly region and no pixel label: brain metrics only"
    hint = option(
        "give the region/ folder simulate --kind pet wrote, or --region DIR",
        "give the region/ folder the PET simulation wrote, or another folder of regions",
    )
    return f"{region}: no such folder of anomaly regions; {used} ({hint})"
