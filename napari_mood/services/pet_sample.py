"""A small *simulated* PET-like set made from the bundled brain, and a toy reconstruction.

:func:`pet_sample_files` turns the sample data's two normal scans (``brain_000``,
``brain_005``: the MNI template with a bias field and noise each) into PET-like healthy
"subjects" (:func:`napari_mood.core.simulate.pet_like.pet_like_scan`, each with its own
global gain and noise), plus a noise-free PET-like template of the first one and a coarse
box atlas (:func:`napari_mood.core.simulate.pet_like.box_atlas`). ``step`` keeps every
``step``-th voxel (``step=3``: 33 x 39 x 32 voxels of 6 mm) for fast tests. None of it is
a real PET scan or a real atlas.

:func:`template_reconstruction_files` is a toy reconstruction method: every input is
"reconstructed" as the template scaled to the input's mean intensity in the brain.

Layout of the sample::

    OUT/scans/pet_000.nii.gz ...   healthy PET-like subjects (float32 in [0, 1])
    OUT/template.nii.gz            noise-free PET-like template (the toy method's "model")
    OUT/atlas.nii.gz               box atlas, labels 1-9 (napari_mood.core.simulate.pet_like.ATLAS_LABELS)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from napari_mood.core.io import case_stem, is_nifti
from napari_mood.core.nifti import read_volume
from napari_mood.core.simulate.pet_like import box_atlas, pet_like_scan, template_reconstruction
from napari_mood.core.writers import nifti_gz_bytes
from napari_mood.services.datasets import sample_data_dir

__all__ = [
    "SAMPLE_SOURCES",
    "iter_pet_sample_files",
    "pet_sample_files",
    "template_reconstruction_files",
]

PathLike = str | os.PathLike[str]
SAMPLE_SOURCES = ("brain_000", "brain_005")
"""The sample data's normal scans the PET-like subjects are made from."""
_GAINS = (1.0, 0.92, 1.06, 0.97)


def _source(name: str, step: int) -> tuple[np.ndarray, np.ndarray]:
    volume = read_volume(sample_data_dir() / "toy" / f"{name}.nii.gz")
    affine = volume.affine.copy()
    affine[:3, :3] *= step
    return volume.data[::step, ::step, ::step], affine


def pet_sample_files(
    out: PathLike, *, subjects: int = 2, step: int = 1, seed: int = 0
) -> dict[Path, bytes]:
    """The files of the simulated PET-like sample (nothing written; see the module).

    Subject ``i`` is made from ``SAMPLE_SOURCES[i % 2]`` with gain ``_GAINS[i % 4]`` and
    noise seeded by ``(seed, i)``. :func:`iter_pet_sample_files` gives them one at a time.

    Examples
    --------
    >>> files = pet_sample_files("pet", subjects=2, step=3)
    >>> sorted(p.as_posix() for p in files)
    ['pet/atlas.nii.gz', 'pet/scans/pet_000.nii.gz', 'pet/scans/pet_001.nii.gz', 'pet/template.nii.gz']
    """
    return dict(iter_pet_sample_files(out, subjects=subjects, step=step, seed=seed))


def iter_pet_sample_files(
    out: PathLike, *, subjects: int = 2, step: int = 1, seed: int = 0
) -> Iterator[tuple[Path, bytes]]:
    """``(path, bytes)`` of each file of the sample, one at a time: template, atlas, scans.

    The arguments are checked before the first file is made (a ValueError).
    """
    if not (isinstance(step, int) and step >= 1) or not (
        isinstance(subjects, int) and subjects >= 1
    ):
        raise ValueError(f"subjects and step must be positive integers, got {subjects!r}, {step!r}")
    return _sample_files(Path(out), subjects, step, seed)


def _sample_files(root: Path, subjects: int, step: int, seed: int) -> Iterator[tuple[Path, bytes]]:
    t1, affine = _source(SAMPLE_SOURCES[0], step)
    spacing = tuple(float(s) for s in np.linalg.norm(affine[:3, :3], axis=0))
    yield root / "template.nii.gz", nifti_gz_bytes(pet_like_scan(t1, spacing, noise=0.0), affine)
    yield root / "atlas.nii.gz", nifti_gz_bytes(box_atlas(t1 > 0, affine), affine)
    for index in range(subjects):
        source, _ = _source(SAMPLE_SOURCES[index % len(SAMPLE_SOURCES)], step)
        scan = pet_like_scan(
            source,
            spacing,
            gain=_GAINS[index % len(_GAINS)],
            seed=np.random.default_rng([seed, index]),
        )
        yield root / "scans" / f"pet_{index:03d}.nii.gz", nifti_gz_bytes(scan, affine)


def template_reconstruction_files(
    inputs: PathLike, template: PathLike, out: PathLike
) -> dict[Path, bytes]:
    """The toy method's reconstruction of every NIfTI input in ``inputs`` (nothing written).

    Each is :func:`~napari_mood.core.simulate.pet_like.template_reconstruction` of the
    input with the template read from ``template``, on the input's grid and affine.
    """
    model = read_volume(template)
    files = {}
    for name in sorted(n for n in os.listdir(inputs) if is_nifti(n) and not n.startswith(".")):
        scan = read_volume(Path(inputs) / name)
        if scan.shape != model.shape:
            raise ValueError(
                f"{Path(inputs) / name}: shape {scan.shape} differs from the template's {model.shape}"
            )
        recon = template_reconstruction(scan.data, model.data).astype(np.float32)
        files[Path(out) / f"{case_stem(name)}.nii.gz"] = nifti_gz_bytes(recon, scan.affine)
    return files
