"""Agreement between readers and the interval of a proportion: pure rules on ratings.

A *rating* is any hashable label (a verdict); ``categories`` fixes the label set, so a
reader who never uses one of them (never answers "unsure") still counts it as a category
with no ratings.

* :func:`cohen_kappa` — two readers on the same items (Cohen 1960);
* :func:`fleiss_kappa` — several readers, the same number of ratings per item (Fleiss
  1971), from a count table (:func:`rating_table` builds it);
* :func:`wilson_interval` — the Wilson score interval of a proportion (Wilson 1927): it
  stays inside [0, 1], is not degenerate at 0 or n successes and keeps close to its nominal
  coverage at the small counts of a reader study (where the normal "Wald" interval does
  not). Chosen over Clopper-Pearson, which is conservative (wider than needed).

Edge-case policy (one place, each case tested):

- no item: ``observed``, ``expected`` and ``kappa`` are NaN;
- every rating in one category (all readers gave one and the same verdict everywhere):
  chance agreement is 1 and kappa is 0 / 0, so ``kappa`` is NaN ("undefined") while
  ``observed`` is 1.0 — as scikit-learn's ``cohen_kappa_score`` and statsmodels'
  ``fleiss_kappa`` (which also warn); perfect agreement over two categories or more is
  kappa 1.0;
- a rating outside ``categories``, lengths that differ, items with unequal numbers of
  ratings or fewer than two: ValueError;
- a proportion of no trial: the interval is ``(nan, nan)``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

__all__ = ["Agreement", "cohen_kappa", "fleiss_kappa", "rating_table", "wilson_interval"]


@dataclass(frozen=True)
class Agreement:
    """Chance-corrected agreement on ``items`` items.

    ``observed`` is the share of agreeing pairs of ratings, ``expected`` the share expected
    by chance from the category frequencies, ``kappa = (observed - expected) / (1 -
    expected)`` (NaN when undefined: see the module docstring).
    """

    items: int
    observed: float
    expected: float
    kappa: float


_NONE = Agreement(0, math.nan, math.nan, math.nan)


def cohen_kappa(
    first: Sequence[Hashable], second: Sequence[Hashable], *, categories: Sequence[Hashable]
) -> Agreement:
    """Cohen's kappa of two readers who rated the same items (in the same order).

    Parameters
    ----------
    first, second : sequence
        The two readers' ratings, item by item.
    categories : sequence
        Every possible rating (distinct).

    Returns
    -------
    Agreement
        NaN values when there is no item or every rating is in one category.

    Raises
    ------
    ValueError
        When the lengths differ or a rating is not among ``categories``.

    Examples
    --------
    >>> a = ["yes", "yes", "no", "no"]
    >>> b = ["yes", "no", "no", "no"]
    >>> cohen_kappa(a, b, categories=("yes", "no")).kappa
    0.5
    """
    if len(first) != len(second):
        raise ValueError(f"two readers rate the same items: got {len(first)} and {len(second)}")
    index = _category_index(categories)
    if not first:
        return _NONE
    size = len(index)
    pairs = np.array(
        [[_code(index, a), _code(index, b)] for a, b in zip(first, second, strict=True)]
    )
    confusion = np.zeros((size, size), dtype=np.int64)
    np.add.at(confusion, (pairs[:, 0], pairs[:, 1]), 1)
    total = float(len(first))
    observed = float(np.trace(confusion)) / total
    expected = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / total**2
    used = int(np.count_nonzero(confusion.sum(axis=0) + confusion.sum(axis=1)))
    return Agreement(len(first), observed, expected, _kappa(observed, expected, used))


def fleiss_kappa(counts: np.ndarray) -> Agreement:
    """Fleiss' kappa from a count table: ``counts[i, j]`` readers put item ``i`` in ``j``.

    Parameters
    ----------
    counts : array of int, shape (items, categories)
        Every item has the same number of ratings, at least two (:func:`rating_table`).

    Returns
    -------
    Agreement
        ``observed`` is the mean share of agreeing reader pairs per item; NaN values when
        there is no item or every rating is in one category.

    Raises
    ------
    ValueError
        When the table is not 2-D, holds negative or non-integer counts, or its items have
        unequal numbers of ratings or fewer than two.

    Examples
    --------
    >>> table = np.array([[3, 0], [0, 3], [2, 1]])
    >>> round(fleiss_kappa(table).kappa, 4)
    0.55
    """
    table = np.asarray(counts)
    if table.ndim != 2:
        raise ValueError(f"counts must be a 2-D table (items x categories), got {table.ndim}-D")
    if table.size and (
        not np.issubdtype(table.dtype, np.integer) and not np.all(table == np.round(table))
    ):
        raise ValueError("counts must be whole numbers of ratings")
    if np.any(table < 0):
        raise ValueError("counts must not be negative")
    if table.shape[0] == 0:
        return _NONE
    raters = table.sum(axis=1)
    if np.any(raters != raters[0]) or raters[0] < 2:
        raise ValueError(
            "every item needs the same number of ratings, at least two; got "
            f"{sorted(set(raters.tolist()))}"
        )
    table = table.astype(float)
    n = float(raters[0])
    observed = float(np.mean(((table**2).sum(axis=1) - n) / (n * (n - 1))))
    shares = table.sum(axis=0) / table.sum()
    expected = float(shares @ shares)
    used = int(np.count_nonzero(shares))
    return Agreement(table.shape[0], observed, expected, _kappa(observed, expected, used))


def rating_table(
    ratings: Sequence[Sequence[Hashable]], *, categories: Sequence[Hashable]
) -> np.ndarray:
    """Return the count table of :func:`fleiss_kappa`: one row per item, one column per category.

    Parameters
    ----------
    ratings : sequence of sequence of hashable
        Per item, the rating of each reader.
    categories : sequence of hashable
        The possible ratings, in column order.

    Returns
    -------
    numpy.ndarray
        int64 counts, ``(items, categories)``.

    Examples
    --------
    >>> rating_table([["a", "a", "b"], ["b", "b", "b"]], categories=("a", "b")).tolist()
    [[2, 1], [0, 3]]
    """
    index = _category_index(categories)
    table = np.zeros((len(ratings), len(index)), dtype=np.int64)
    for row, item in enumerate(ratings):
        for rating in item:
            table[row, _code(index, rating)] += 1
    return table


def wilson_interval(
    successes: int, trials: int, *, confidence: float = 0.95
) -> tuple[float, float]:
    """Return the Wilson score interval of the proportion ``successes / trials``.

    Parameters
    ----------
    successes, trials : int
        ``0 <= successes <= trials``.
    confidence : float
        Coverage, in (0, 1) (default 0.95).

    Returns
    -------
    (float, float)
        Lower and upper bound, within [0, 1]; ``(nan, nan)`` when ``trials`` is 0.

    Examples
    --------
    >>> low, high = wilson_interval(8, 10)
    >>> round(low, 4), round(high, 4)
    (0.4902, 0.9433)
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    share, z2 = successes / trials, z * z
    scale = 1.0 + z2 / trials
    centre = (share + z2 / (2 * trials)) / scale
    half = z / scale * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials))
    low = 0.0 if successes == 0 else min(share, centre - half)  # exact ends, no rounding
    high = 1.0 if successes == trials else max(share, centre + half)
    return low, high


def _kappa(observed: float, expected: float, used: int) -> float:
    """Return the kappa of two agreements (NaN when ``used``, the categories rated, is <= 1)."""
    if used <= 1:  # every rating in one category: chance agreement 1, kappa 0 / 0
        return math.nan
    return (observed - expected) / (1.0 - expected)


def _category_index(categories: Sequence[Hashable]) -> dict[Hashable, int]:
    index = {category: i for i, category in enumerate(categories)}
    if len(index) != len(categories) or not index:
        raise ValueError(f"categories must be distinct and not empty, got {list(categories)}")
    return index


def _code(index: dict[Hashable, int], rating: Hashable) -> int:
    try:
        return index[rating]
    except KeyError:
        raise ValueError(f"rating {rating!r} is not one of {', '.join(map(repr, index))}") from None
