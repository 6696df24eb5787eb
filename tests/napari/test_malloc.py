"""The viewer process gives large freed blocks back to the system (glibc's mmap threshold)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

_PROBE = """
import ctypes, sys
from pathlib import Path
from napari_mood._napari._malloc import fix_mmap_threshold

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
fixed = fix_mmap_threshold() if sys.argv[1] == "fix" else False

def rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024

n = 8 << 20
first = libc.malloc(n); ctypes.memset(first, 1, n); libc.free(first)  # glibc raises its threshold
before = rss()
block = libc.malloc(n); ctypes.memset(block, 1, n)
keep = libc.malloc(64)  # after the block: the heap cannot shrink below it
libc.free(block)
print(fixed, (rss() - before) / n)
"""

glibc = pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt"
)


def _kept_after_free(how: str) -> tuple[str, float]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, how], capture_output=True, text=True, check=True, env=env
    )
    fixed, kept = done.stdout.split()
    return fixed, float(kept)


@glibc
def test_a_freed_8_mb_block_leaves_the_process_once_the_threshold_is_fixed():
    fixed, kept = _kept_after_free("fix")
    assert fixed == "True" and kept < 0.1  # a page or two of other allocations, at most
    fixed, kept = _kept_after_free("leave")  # glibc's moving threshold keeps it resident
    assert fixed == "False" and kept > 0.9


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MALLOC_MMAP_THRESHOLD_", str(64 << 20)),
        ("GLIBC_TUNABLES", f"glibc.malloc.mmap_threshold={64 << 20}"),
    ],
)
def test_the_users_own_malloc_setting_wins(monkeypatch, name, value):
    """glibc reads these at start; the viewer does not override them."""
    from napari_mood._napari._malloc import fix_mmap_threshold

    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    monkeypatch.setenv(name, value)
    assert fix_mmap_threshold() is False


_TRIM_PROBE = """
import ctypes
from pathlib import Path
from napari_mood._napari._malloc import fix_mmap_threshold, release_free_heap

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
fix_mmap_threshold()

def rss():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024

n, count = 128 << 10, 512  # blocks under the threshold: from the heap
before = rss()
blocks = []
for _ in range(count):
    blocks.append(libc.malloc(n)); ctypes.memset(blocks[-1], 1, n)
for block in blocks[::2]:  # every other one: the kept ones (a labelling's runs) between
    libc.free(block)
freed = (rss() - before) / (n * count)
released = release_free_heap()
print(freed, released, (rss() - before) / (n * count))
"""


@glibc
def test_the_freed_heap_is_given_back():
    """Blocks under the mmap threshold, freed between kept ones, stay resident until
    :func:`release_free_heap`."""
    done = subprocess.run(
        [sys.executable, "-c", _TRIM_PROBE], capture_output=True, text=True, check=True
    )
    freed, released, trimmed = done.stdout.split()
    assert float(freed) > 0.95 and released == "True" and float(trimmed) < 0.6  # half freed
