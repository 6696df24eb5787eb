"""Toy and PET-style anomalies, as in the MOOD challenge's toy examples.

Every function takes a scan (a 2-D or 3-D float array with values in [0, 1]), never
modifies it, and returns a *new* scan together with the ground-truth mask of the anomaly.
Randomness comes from ``seed`` (an int, a :class:`numpy.random.Generator` or ``None``), so
the same seed gives the same anomaly.

Kinds
-----
``sphere`` / ``cube``
    A ball (Euclidean radius ``size``) or cube (half-width ``size``, i.e. side
    ``2 * floor(size) + 1``) filled with one constant intensity drawn from [0, 1].
``shuffle``
    Local pixel shuffling: inside a sphere (or cube) region the voxels are permuted at
    random within small patches (``patch_size`` voxels a side, 3 to 5 by default), so local
    texture is destroyed while the intensity histogram of every patch is kept.
``slab``
    A natural 2-D image (``skimage.data.camera()`` by default) resized to a square of
    half-width ``size`` and written into a slab ``thickness`` voxels thick perpendicular
    to ``axis``. 3-D scans only.
``pet``
    PET-style change: intensities are multiplied by ``1 - degree * smoothed_region`` where
    ``smoothed_region`` is the region mask smoothed with a Gaussian of ``sigma`` voxels.
    (Hypometabolism of a *given* region, e.g. from an atlas, at several degrees, with
    the smoothing in mm and a thresholded GT, is :mod:`.hypometabolism`; both dim with
    its :func:`dim_scan`.)

Policies
--------
- Sizes are in voxels (not millimetres). A random size is an integer drawn uniformly from
  ``size_range`` (both ends included).
- The ground truth is always the *region* (the sphere, cube or slab), even where the
  change is invisible (shuffling a uniform patch, dimming background voxels of value 0).
  For ``pet`` the ground truth is the unsmoothed region, not a thresholded smoothed mask.
- A random centre is chosen so that the whole region lies inside the volume; among those
  centres it prefers one whose whole region lies inside the body mask, then one that is
  itself inside the body mask, then any. The body mask defaults to the nonzero voxels of
  the scan. With ``avoid`` (a mask of earlier anomalies) the region keeps at least two
  voxels away from it, so anomalies stay separate objects even with full connectivity.
- A given centre may put part of the region outside the volume; the region is cut at
  the border and the ground truth is what remains inside.
- The output keeps the scan's floating dtype; non-float scans are converted to float64.
"""

from napari_mood.core.simulate.cases import (
    SimulatedCase,
    Simulation,
    add_anomalies,
    iter_simulated_cases,
    simulate_cases,
)
from napari_mood.core.simulate.hypometabolism import (
    DegreeCase,
    HypometabolismProfile,
    degree_case_name,
    dim_scan,
    fwhm_to_sigma,
    hypometabolism_profile,
    parse_degree_case,
    region_from_atlas,
    simulate_hypometabolism,
)
from napari_mood.core.simulate.kinds import (
    add_cube,
    add_image_slab,
    add_pet_change,
    add_pixel_shuffle,
    add_sphere,
    natural_image,
)
from napari_mood.core.simulate.placement import (
    DEFAULT_SIZE_RANGES,
    KINDS,
    REGIONS,
    Anomaly,
    AnomalyKind,
    Region,
    Seed,
    UnitScan,
    make_region_mask,
    to_unit_range,
)

__all__ = [
    "DEFAULT_SIZE_RANGES",
    "KINDS",
    "REGIONS",
    "Anomaly",
    "AnomalyKind",
    "DegreeCase",
    "HypometabolismProfile",
    "Region",
    "Seed",
    "SimulatedCase",
    "Simulation",
    "UnitScan",
    "add_anomalies",
    "add_cube",
    "add_image_slab",
    "add_pet_change",
    "add_pixel_shuffle",
    "add_sphere",
    "degree_case_name",
    "dim_scan",
    "fwhm_to_sigma",
    "hypometabolism_profile",
    "iter_simulated_cases",
    "make_region_mask",
    "natural_image",
    "parse_degree_case",
    "region_from_atlas",
    "simulate_cases",
    "simulate_hypometabolism",
    "to_unit_range",
]
