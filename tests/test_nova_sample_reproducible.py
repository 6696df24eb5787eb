"""scripts/make_nova_sample.py regenerates sample_data/nova/ bit for bit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_nova_sample_regenerates_bit_for_bit():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_nova_sample.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_nova_sample_is_small():
    files = [p for p in (ROOT / "sample_data" / "nova").rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 1_000_000
