"""Large kept arrays on their own mapping of small pages (``io._pages``)."""

from __future__ import annotations

import mmap
import sys
from pathlib import Path

import numpy as np
import pytest

from napari_mood.io import _pages
from napari_mood.io._pages import empty_kept

LINUX = pytest.mark.skipif(sys.platform != "linux", reason="own mappings on Linux only")


def _owner(arr: np.ndarray) -> object:
    base: object = arr
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return base.obj if isinstance(base, memoryview) else base


def _mapped_kb(arr: np.ndarray, field: str) -> int:
    """``field`` (kB) summed over the /proc/self/smaps entries ``arr``'s bytes lie in
    (the kernel splits a mapping where ``madvise`` changed part of it)."""
    first = arr.__array_interface__["data"][0]
    last = first + arr.nbytes
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            start, end = (int(x, 16) for x in head.split("-"))
            inside = start < last and first < end
        elif inside and head == f"{field}:":
            total += int(line.split()[1])
    return total


def test_small_arrays_come_from_numpy() -> None:
    arr = empty_kept((4, 5, 6), np.float16, order="F")
    assert arr.flags.owndata and arr.flags.f_contiguous and arr.dtype == np.float16


@LINUX
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float16, np.uint8, np.float32, np.bool_])
def test_large_arrays_live_in_their_own_mapping(monkeypatch, order, dtype) -> None:
    monkeypatch.setattr(_pages, "KEPT_MIN_BYTES", 1)
    arr = empty_kept((7, 6, 5), dtype, order=order)
    assert isinstance(_owner(arr), mmap.mmap)
    assert arr.shape == (7, 6, 5) and arr.dtype == dtype and arr.flags.writeable
    assert arr.flags.f_contiguous if order == "F" else arr.flags.c_contiguous
    values = np.arange(arr.size).reshape(arr.shape) % 2
    arr[...] = values
    np.testing.assert_array_equal(arr, values.astype(dtype))


def test_an_empty_array_needs_no_mapping(monkeypatch) -> None:
    monkeypatch.setattr(_pages, "KEPT_MIN_BYTES", 0)
    assert empty_kept((0, 3), np.float16).shape == (0, 3)


@LINUX
def test_the_mapping_is_released_with_the_array() -> None:
    arr = empty_kept((64, 1024, 1024), np.uint8)  # 64 MiB: above the size
    arr[...] = 1
    assert _mapped_kb(arr, "Rss") >= 64 * 1024
    address = arr.__array_interface__["data"][0]
    del arr
    maps = Path("/proc/self/maps").read_text().splitlines()
    spans = [tuple(int(x, 16) for x in line.split()[0].split("-")) for line in maps]
    assert not any(start <= address < end and end - start >= 64 << 20 for start, end in spans)


@LINUX
def test_no_huge_pages_under_the_madvise_setting() -> None:
    """Under ``enabled = madvise`` the kept array gets no transparent huge page (numpy
    would ask for them, and fill them by compaction when none is free)."""
    setting = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if not setting.exists() or "[madvise]" not in setting.read_text():
        pytest.skip("transparent huge pages are not in madvise mode here")
    arr = empty_kept((32, 1024, 1024), np.uint8)
    arr[...] = 1
    assert _mapped_kb(arr, "AnonHugePages") == 0
