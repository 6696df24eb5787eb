"""Issue 36, defect 11: a flagged voxel stands out on white matter, for colour-blind readers too.

The bound (documented in :mod:`napari_mood.services.looks`): every colour a method's ramp
draws above its threshold, blended at ``METHOD_OPACITY`` over a white-matter grey (0.8 to
0.95 of the scan's grey window, where the sample brain's white matter lies), is at least
CIEDE2000 20 away from that grey, in normal vision and in simulated protanopia,
deuteranopia and tritanopia (Machado, Oliveira & Fernandes 2009, severity 1). A binary
map's flagged voxels are the ramp's top (score 1). Distances come from scikit-image's
``deltaE_ciede2000``, independent of the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from skimage.color import deltaE_ciede2000, rgb2lab

from napari_mood.services.looks import METHOD_COLORS, METHOD_OPACITY, method_colormap

MIN_DELTA_E = 20.0
WHITE_MATTER_GREYS = np.linspace(0.8, 0.95, 4)
# Machado et al. 2009, severity 1.0, on linear RGB
CVD_MATRICES = {
    "protanopia": [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ],
    "deuteranopia": [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ],
    "tritanopia": [
        [1.255528, -0.076749, -0.178779],
        [-0.078411, 0.930809, 0.147602],
        [0.004733, 0.691367, 0.303900],
    ],
}


def _linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> np.ndarray:
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def _seen(rgb: np.ndarray, vision: str) -> np.ndarray:
    if vision == "normal":
        return rgb
    return _srgb(_linear(rgb) @ np.asarray(CVD_MATRICES[vision]).T)


def _delta_e(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return deltaE_ciede2000(rgb2lab(a[None]), rgb2lab(b[None]))[0]


def _ramp(color: str, scores: np.ndarray) -> np.ndarray:
    """RGB of the method's colormap at ``scores`` (linear between its stops, as napari)."""
    spec = method_colormap(color)
    colors = np.asarray(spec["colors"], float)[:, :3]
    return np.stack([np.interp(scores, spec["controls"], colors[:, k]) for k in range(3)], axis=-1)


@pytest.mark.parametrize("vision", ["normal", *CVD_MATRICES])
@pytest.mark.parametrize("color", METHOD_COLORS)
def test_every_flagged_colour_stands_out_on_white_matter(color, vision):
    scores = np.linspace(0.002, 1.0, 50)  # above a threshold of 0 up to a binary map's 1
    for grey in WHITE_MATTER_GREYS:
        drawn = METHOD_OPACITY * _ramp(color, scores) + (1 - METHOD_OPACITY) * grey
        background = np.full_like(drawn, grey)
        distance = _delta_e(_seen(drawn, vision), _seen(background, vision))
        worst = int(np.argmin(distance))
        assert distance[worst] >= MIN_DELTA_E, (
            f"{color} at score {scores[worst]:.3f} on grey {grey:.2f} ({vision}): "
            f"delta E {distance[worst]:.1f}"
        )


def test_a_binary_maps_flagged_colour_is_the_methods_own_colour():
    """Score 1 (a binary map's flagged voxels) is drawn in the full colour, no pale tint."""
    for color in METHOD_COLORS:
        top = _ramp(color, np.array([1.0]))[0]
        expected = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        np.testing.assert_allclose(top, expected, atol=1e-9)


def test_the_ramp_is_transparent_at_zero_and_opaque_above():
    for color in METHOD_COLORS:
        spec = method_colormap(color)
        alphas = np.asarray(spec["colors"], float)[:, 3]
        assert alphas[0] == 0.0 and (alphas[1:] == 1.0).all()
        assert spec["controls"][0] == 0.0 and spec["controls"][-1] == 1.0
