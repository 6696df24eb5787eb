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

from napari_mood.core._checks import (
    check_instance,
    check_integer,
    check_path,
)
from napari_mood.core.seed import DEFAULT_SEED
from napari_mood.core.simulate.pet_like import (
    box_atlas,
    pet_like_scan,
    template_brain,
    template_problem,
    template_reconstruction,
)
from napari_mood.io.errors import MoodInputError, option, warn_input
from napari_mood.io.mood import case_stem, is_nifti
from napari_mood.io.nifti import Volume, read_volume
from napari_mood.io.writers import nifti_gz_bytes
from napari_mood.services.datasets import sample_data_dir
from napari_mood.services.output import Inputs, check_output_folder
from napari_mood.services.staging import staged_folder
from napari_mood.services.writers import write_files

__all__ = [
    "MAX_STEP",
    "SAMPLE_GRID",
    "SAMPLE_SOURCES",
    "iter_pet_sample_files",
    "pet_sample_files",
    "template_reconstruction_files",
    "write_pet_sample",
    "write_template_reconstructions",
]

PathLike = str | os.PathLike[str]
SAMPLE_SOURCES = ("brain_000", "brain_005")
"""The sample data's normal scans the PET-like subjects are made from."""
_GAINS = (1.0, 0.92, 1.06, 0.97)
SAMPLE_GRID = (99, 117, 95)
"""Voxels per axis of the sample's scans (``SAMPLE_SOURCES``; a test checks the files)."""
MIN_VOXELS = 8
"""Fewest voxels per axis ``step`` may leave (fewer is not a brain image any more)."""
MAX_STEP = (min(SAMPLE_GRID) - 1) // (MIN_VOXELS - 1)
"""The largest ``step`` that keeps ``MIN_VOXELS`` voxels per axis (13: 8 x 9 x 8 voxels)."""


def write_pet_sample(
    out: PathLike,
    *,
    subjects: int = 2,
    step: int = 1,
    seed: int = DEFAULT_SEED,
    force: bool = False,
) -> Path:
    """Write the simulated PET-like sample into ``out``, whole or not at all.

    ``out`` is checked before anything is made (new, empty, or with ``force`` a sample
    napari-mood generated); the files are made one at a time into a staged folder that
    becomes ``out`` when complete.

    Parameters
    ----------
    out : path-like
        The sample's folder.
    subjects : int
        Number of subjects (at least 1).
    step : int
        Subsampling step, in ``1..MAX_STEP``.
    seed : int
        Seed of the noise.
    force : bool
        Whether an earlier generated sample in ``out`` is replaced whole.

    Returns
    -------
    pathlib.Path
        The sample's folder.

    Examples
    --------
    >>> from napari_mood.services.pet_sample import write_pet_sample
    >>> write_pet_sample("pet", step=3)  # doctest: +SKIP
    PosixPath('pet')
    """
    check_path("out", out)
    check_integer("subjects", subjects, minimum=1)
    check_integer("step", step, minimum=1)
    check_integer("seed", seed, minimum=0)
    check_instance("force", force, bool, "True or False")
    out = Path(out)
    check_output_folder(out, force=force, what=option("--out", "the output"))
    with staged_folder(out, force=force, what=option("--out", "the output")) as folder:
        for path, blob in iter_pet_sample_files(folder, subjects=subjects, step=step, seed=seed):
            write_files({path: blob})
    return out


def write_template_reconstructions(
    dataset: PathLike,
    template: PathLike,
    out: PathLike,
    *,
    scans: str | None = None,
    force: bool = False,
) -> tuple[Path, ...]:
    """Write the toy template reconstruction of every input of ``DATASET/scans``.

    Parameters
    ----------
    dataset : path-like
        The dataset whose inputs are reconstructed.
    template : path-like
        The healthy template (the sample's ``template.nii.gz``).
    out : path-like
        The folder of reconstructions.
    scans : str, optional
        The inputs' subfolder (default ``toy``).
    force : bool
        Whether existing reconstructions are replaced.

    Returns
    -------
    tuple of pathlib.Path
        The reconstructions written.

    Raises
    ------
    MoodInputError
        When the inputs folder is missing, the template unusable, no input could be
        reconstructed, or ``out`` cannot take the files.
    """
    check_path("dataset", dataset)
    check_path("template", template)
    check_path("out", out)
    dataset, out = Path(dataset), Path(out)
    inputs_dir = dataset / (scans or "toy")
    if not inputs_dir.is_dir():
        raise MoodInputError(
            inputs_dir, "no such folder of inputs", "give a dataset made by simulate"
        )
    inputs = Inputs.of(folders=(dataset, inputs_dir), files=(Path(template),))
    check_output_folder(out, inputs=inputs, force=force, what=option("--out", "the output"))
    files = template_reconstruction_files(inputs_dir, template, out)
    names = [path.relative_to(out).as_posix() for path in files]
    check_output_folder(
        out, inputs=inputs, force=force, names=names, what=option("--out", "the output")
    )
    return write_files(files, inputs=inputs, force=force)


def _source(name: str, step: int) -> tuple[np.ndarray, np.ndarray]:
    volume = read_volume(sample_data_dir() / "toy" / f"{name}.nii.gz")
    affine = volume.affine.copy()
    affine[:3, :3] *= step
    return volume.data[::step, ::step, ::step], affine


def pet_sample_files(
    out: PathLike, *, subjects: int = 2, step: int = 1, seed: int = DEFAULT_SEED
) -> dict[Path, bytes]:
    """Return the files of the simulated PET-like sample (nothing written; see the module).

    Subject ``i`` is made from ``SAMPLE_SOURCES[i % 2]`` with gain ``_GAINS[i % 4]`` and
    noise seeded by ``(seed, i)``. :func:`iter_pet_sample_files` gives them one at a time.

    Parameters
    ----------
    out : path-like
        The sample's folder.
    subjects : int
        Number of subjects.
    step : int
        Subsampling step of the source volumes.
    seed : int
        Seed of the noise.

    Returns
    -------
    dict of pathlib.Path to bytes
        Every file and its content.

    Examples
    --------
    >>> files = pet_sample_files("pet", subjects=2, step=3)
    >>> sorted(p.as_posix() for p in files)
    ['pet/atlas.nii.gz', 'pet/scans/pet_000.nii.gz', 'pet/scans/pet_001.nii.gz', 'pet/template.nii.gz']
    """
    return dict(iter_pet_sample_files(out, subjects=subjects, step=step, seed=seed))


def iter_pet_sample_files(
    out: PathLike, *, subjects: int = 2, step: int = 1, seed: int = DEFAULT_SEED
) -> Iterator[tuple[Path, bytes]]:
    """``(path, bytes)`` of each file of the sample, one at a time: template, atlas, scans.

    The arguments are checked before the first file is made (a ValueError).

    Parameters
    ----------
    out : path-like
        The sample's folder.
    subjects : int
        Number of subjects (at least 1).
    step : int
        Subsampling step, in ``1..MAX_STEP``.
    seed : int
        Seed of the noise.

    Yields
    ------
    tuple of (pathlib.Path, bytes)
        A file and its content.

    Raises
    ------
    ValueError
        When ``subjects`` or ``step`` is invalid.
    """
    if not (isinstance(step, int) and 1 <= step <= MAX_STEP) or not (
        isinstance(subjects, int) and subjects >= 1
    ):
        raise ValueError(
            f"subjects must be a positive integer and step one in [1, {MAX_STEP}], "
            f"got {subjects!r}, {step!r}"
        )
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
    """Return the toy method's reconstruction of every NIfTI input in ``inputs`` (nothing written).

    Each is :func:`~napari_mood.core.simulate.pet_like.template_reconstruction` of the
    input with the template read from ``template``, on the input's grid and affine.
    An input that cannot be read, is not on the template's grid, or whose reconstruction
    is not finite (a NaN or infinite voxel in the brain makes its mean NaN) is skipped
    with a :class:`~napari_mood.io.errors.MoodInputWarning` naming it.

    Parameters
    ----------
    inputs : path-like
        The folder of inputs.
    template : path-like
        The healthy template.
    out : path-like
        The folder the reconstructions go to.

    Returns
    -------
    dict of pathlib.Path to bytes
        Every reconstruction and its content.

    Raises
    ------
    MoodInputError
        The template cannot be read or is 0 everywhere (naming it), or no input could
        be reconstructed (naming the inputs folder).
    """
    model = read_volume(template)
    problem = template_problem(model.data)
    if problem is not None:
        raise MoodInputError(model.path, problem, "use the template of the same sample")
    folder = Path(inputs)
    files = {}
    for name in sorted(n for n in os.listdir(folder) if is_nifti(n) and not n.startswith(".")):
        try:
            recon = _reconstruct_one(folder / name, model)
        except MoodInputError as exc:
            hint = f" ({exc.hint})" if exc.hint else ""
            warn_input(exc.path, f"{exc.problem}: skipped, no reconstruction written{hint}")
            continue
        files[Path(out) / f"{case_stem(name)}.nii.gz"] = recon
    if not files:
        raise MoodInputError(
            folder, "no input could be reconstructed (see the warnings)",
            "give the inputs made from the sample of this template",
        )  # fmt: skip
    return files


def _reconstruct_one(path: Path, model: Volume) -> bytes:
    """Return the NIfTI bytes of one input's reconstruction (MoodInputError when unusable)."""
    scan = read_volume(path)
    if scan.shape != model.shape:
        raise MoodInputError(
            path, f"shape {scan.shape} differs from the template's {model.shape}",
            f"give inputs on the grid of {model.path}",
        )  # fmt: skip
    bad = int(np.count_nonzero(~np.isfinite(scan.data[template_brain(model.data)])))
    if bad:  # the reconstruction scales by the input's mean in the brain
        raise MoodInputError(
            path, f"has {bad:,} NaN or infinite voxel(s) in the brain (template > 0): "
            "its reconstruction would be NaN everywhere", "fix or drop this input",
        )  # fmt: skip
    recon = template_reconstruction(scan.data, model.data)  # the template was checked
    return nifti_gz_bytes(recon.astype(np.float32), scan.affine)
