"""scripts/make_sample_data.py regenerates the bundled sample data bit for bit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_sample_data_regenerates_bit_for_bit():
    pytest.importorskip("nilearn", reason="the build script reads nilearn's MNI template")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_sample_data.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
