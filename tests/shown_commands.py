"""What the tests that run printed commands share (``test_examples_docs``: every command the
docs show; ``test_examples_help``: every ``--help`` example): the method script a ``run``
example names, the shell's glob expansion, and the evaluate results a ``rank`` example reads.
"""

from __future__ import annotations

import glob
from pathlib import Path

from napari_mood.cli import main


def method_script() -> str:
    """A method with MOOD's interface (``script INPUT_DIR OUTPUT_DIR``): its scan as its map."""
    return (
        "import sys\nfrom pathlib import Path\nimport nibabel as nib\nimport numpy as np\n"
        "src, dst = Path(sys.argv[1]), Path(sys.argv[2])\n"
        "for path in sorted(src.glob('*.nii.gz')):\n"
        "    img = nib.load(path)\n"
        "    scan = np.asarray(img.dataobj, dtype=np.float32)\n"
        "    score = np.clip(scan / max(float(scan.max()), 1e-6), 0, 1)\n"
        "    nib.save(nib.Nifti1Image(score, img.affine), dst / path.name)\n"
        "    (dst / (path.name + '.txt')).write_text(str(float(score.max())))\n"
    )


def expanded(argv: list[str], cwd: Path) -> list[str]:
    """Shell globs expanded as the shell would (sorted; kept as typed without a match)."""
    out: list[str] = []
    for word in argv:
        found = sorted(glob.glob(word, root_dir=cwd)) if any(c in word for c in "*?[") else []
        out += found or [word]
    return out


def write_batched_results(dataset: Path, outs: tuple[Path, ...]) -> None:
    """``evaluate DATASET --batches 5 --batch-size 3 --format json`` written to each of ``outs``."""
    argv = ["evaluate", str(dataset), "--batches", "5", "--batch-size", "3", "--format", "json"]
    for out in outs:
        assert main([*argv, "--out", str(out), "--quiet"]) == 0
