"""core.objects.components: the refusals of label_objects the full mutation run left open.

label_objects refuses an unknown connectivity and a mask that is not 2-D or 3-D; both
messages are pinned word for word (the check_choice / check_ndim formats, naming the
argument as the signature does).
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.objects.components import label_objects


def test_label_objects_refuses_an_unknown_connectivity_by_name():
    with pytest.raises(ValueError) as err:
        label_objects(np.eye(3, dtype=bool), connectivity="corner")
    assert str(err.value) == "connectivity must be one of 'full', 'face'; got 'corner'"


def test_label_objects_refuses_a_1d_mask_naming_the_mask():
    with pytest.raises(ValueError) as err:
        label_objects(np.ones(3, dtype=bool))
    assert str(err.value) == "mask must be 2-D or 3-D, got 1-D with shape (3,)"
