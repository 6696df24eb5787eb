"""Several anomalies and simulated datasets (core.simulate.cases): rules the full mutation run
left open.

Pinned against the documented signatures, docstrings and messages, never against a value the
code under test printed: the defaults of ``add_anomalies`` (one anomaly, the kind's own size
range), ``simulate_cases`` and ``iter_simulated_cases`` (one sphere per case, one normal
case then three anomalous ones); that a given ``kind`` is the kind of every anomaly, that
``kind='slab'`` is allowed on a 3-D scan and that ``'mixed'`` can draw every kind, ``'slab'``
included, on a 3-D scan; that ``body_mask`` and ``n_normal`` reach every case; that every
case keeps a bool mask and the scan the anomalies made; and the argument messages word for word (``kind``, ``count``, ``n_anomalous``,
``n_normal``), with booleans and non-integers refused, zero accepted, and a prefix with a
capital X accepted.
"""

from __future__ import annotations

import numpy as np
import pytest

from napari_mood.core.simulate import add_anomalies, iter_simulated_cases, simulate_cases

# every voxel nonzero: the default body would be the whole scan
FLAT = np.full((24, 24, 24), 0.5)


def _left_half(shape: tuple[int, ...]) -> np.ndarray:
    body = np.zeros(shape, bool)
    body[: shape[0] // 2] = True
    return body


# ------------------------------------------------------------------------- add_anomalies


def test_an_unknown_kind_is_refused_with_the_documented_message():
    expected = "kind must be one of 'sphere', 'cube', 'shuffle', 'slab', 'pet', 'mixed'; got 'blob'"
    with pytest.raises(ValueError) as caught:
        add_anomalies(FLAT, kind="blob")  # type: ignore[arg-type]
    assert str(caught.value) == expected


@pytest.mark.parametrize("count", [True, 1.5])
def test_a_count_that_is_not_an_integer_is_refused_word_for_word(count):
    with pytest.raises(ValueError) as caught:
        add_anomalies(FLAT, count=count, size_range=(2, 3), seed=0)
    assert str(caught.value) == f"count must be a non-negative integer, got {count!r}"


def test_a_slab_on_a_3d_scan_is_allowed():
    sim = add_anomalies(FLAT, kind="slab", size_range=(2, 3), seed=0)
    assert [a.kind for a in sim.anomalies] == ["slab"]


def test_add_anomalies_applies_one_anomaly_by_default():
    assert len(add_anomalies(FLAT, size_range=(2, 3), seed=0).anomalies) == 1


@pytest.mark.parametrize("seed", range(3))
def test_without_a_size_range_each_kind_draws_from_its_default_range(seed):
    # DEFAULT_SIZE_RANGES["sphere"] == (3, 10): the radius is drawn from 3..10
    sim = add_anomalies(np.full((40, 40, 40), 0.5), kind="sphere", seed=seed)
    assert len(sim.anomalies) == 1 and 3 <= sim.anomalies[0].size <= 10


def test_a_given_kind_is_the_kind_of_every_anomaly():
    sim = add_anomalies(FLAT, kind="cube", count=4, size_range=(2, 2), seed=3)
    assert [a.kind for a in sim.anomalies] == ["cube"] * 4


def test_mixed_draws_every_kind_slab_included_on_a_3d_scan():
    drawn = set()
    for seed in range(5):
        sim = add_anomalies(FLAT, kind="mixed", count=3, size_range=(2, 2), seed=seed)
        drawn |= {a.kind for a in sim.anomalies}
    assert drawn == {"sphere", "cube", "shuffle", "slab", "pet"}


# ----------------------------------------------------------- simulate / iter_simulated_cases


def test_simulate_cases_defaults_to_one_normal_case_then_three_anomalous_ones():
    cases = simulate_cases(FLAT, size_range=(2, 3), seed=0)
    assert [c.name for c in cases] == ["case_000", "case_001", "case_002", "case_003"]
    assert [c.label for c in cases] == [0, 1, 1, 1]


def test_simulate_cases_defaults_to_one_sphere_per_anomalous_case():
    cases = simulate_cases(FLAT, size_range=(2, 3), seed=0)
    assert [[a.kind for a in c.anomalies] for c in cases] == [
        [],
        ["sphere"],
        ["sphere"],
        ["sphere"],
    ]


def test_iter_simulated_cases_defaults_to_one_normal_case_then_three_anomalous_ones():
    cases = list(iter_simulated_cases(FLAT, size_range=(2, 3), seed=0))
    assert [c.label for c in cases] == [0, 1, 1, 1]


@pytest.mark.parametrize("make", [simulate_cases, iter_simulated_cases])
def test_the_given_kind_reaches_every_case(make):
    cases = list(make(FLAT, kind="cube", count=2, n_anomalous=2, size_range=(2, 2), seed=1))
    assert [[a.kind for a in c.anomalies] for c in cases] == [[], ["cube"] * 2, ["cube"] * 2]


def test_simulate_cases_makes_the_given_number_of_normal_cases():
    cases = simulate_cases(FLAT, n_anomalous=1, n_normal=2, size_range=(2, 2), seed=0)
    assert [c.label for c in cases] == [0, 0, 1]


@pytest.mark.parametrize("make", [simulate_cases, iter_simulated_cases])
@pytest.mark.parametrize("seed", range(2))
def test_the_body_mask_reaches_every_anomalous_case(make, seed):
    # 3 cases x 2 anomalies: without the body each centre would fall in it with chance 1/2
    body = _left_half(FLAT.shape)
    cases = list(make(FLAT, count=2, n_anomalous=3, size_range=(2, 2), body_mask=body, seed=seed))
    centres = [a.center for c in cases for a in c.anomalies]
    assert len(centres) == 6 and all(body[c] for c in centres)


def test_every_case_keeps_a_bool_mask():
    cases = simulate_cases(FLAT, n_anomalous=1, n_normal=1, size_range=(2, 2), seed=0)
    assert [c.mask.dtype for c in cases] == [np.dtype(bool), np.dtype(bool)]


def test_an_anomalous_case_keeps_the_scan_its_anomalies_made():
    (case,) = simulate_cases(FLAT, kind="cube", n_anomalous=1, n_normal=0, size_range=(2, 2))
    assert isinstance(case.scan, np.ndarray) and case.scan.shape == FLAT.shape
    np.testing.assert_array_equal(case.scan, case.anomalies[-1].scan)
    np.testing.assert_array_equal(case.scan[~case.mask], FLAT[~case.mask])  # only the mask moved


@pytest.mark.parametrize("name", ["n_anomalous", "n_normal"])
@pytest.mark.parametrize("number", [-1, True, 2.0])
def test_a_case_count_that_is_not_a_non_negative_integer_is_refused_word_for_word(name, number):
    with pytest.raises(ValueError) as caught:
        iter_simulated_cases(FLAT, size_range=(2, 2), seed=0, **{name: number})
    assert str(caught.value) == f"{name} must be a non-negative integer, got {number!r}"


def test_no_anomalous_case_gives_only_normal_cases():
    cases = simulate_cases(FLAT, n_anomalous=0, n_normal=2, seed=0)
    assert [c.label for c in cases] == [0, 0]


def test_no_normal_case_gives_only_anomalous_cases():
    cases = simulate_cases(FLAT, n_anomalous=2, n_normal=0, size_range=(2, 2), seed=0)
    assert [c.label for c in cases] == [1, 1]


def test_a_prefix_with_a_capital_x_is_a_plain_file_name_part():
    cases = simulate_cases(FLAT, n_anomalous=0, n_normal=1, prefix="Xray")
    assert [c.name for c in cases] == ["Xray_000"]
