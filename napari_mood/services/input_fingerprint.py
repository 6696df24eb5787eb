"""Fingerprint a folder by content, to tell which of its entries a run changed.

:func:`~napari_mood.services.run_method.run_method` fingerprints every entry under the
input folder before and after the run and reports each new, changed or removed entry
(:attr:`~napari_mood.services.run_method.MethodRun.input_changes`): inputs are never to be
written, and a method that writes them anyway is named.

An entry is fingerprinted by content, never by time: a file by the BLAKE2b digest of its
bytes (streamed), a symbolic link by its target and the digest of the file it leads to
(links are not followed into folders), every entry by its kind and mode. A folder, FIFO or
device is never opened. A file that cannot be read is fingerprinted as unreadable, so a
change to readable is reported too.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = ["Change", "Fingerprint", "InputChange", "compare_fingerprints", "fingerprint_folder"]

Change = Literal["new", "changed", "removed"]
Fingerprint = dict[str, tuple[Any, ...]]


@dataclass(frozen=True)
class InputChange:
    """An entry of the input folder that is new, changed or removed after the run."""

    path: str
    change: Change

    def __str__(self) -> str:
        """Show the entry's path."""
        return self.path


def _digest(path: Path) -> str:
    """BLAKE2b of a file's bytes, read in chunks (or why it cannot be read)."""
    try:
        with path.open("rb") as stream:
            return hashlib.file_digest(stream, "blake2b").hexdigest()
    except OSError as exc:  # fingerprinted as unreadable; a change to readable is reported
        return f"unreadable ({exc.strerror})"


def _entry(path: Path) -> tuple[Any, ...]:
    """Return an entry's kind, mode and content digest (links not followed)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return ("gone",)
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(path)
        return ("link", target, _digest(path) if path.is_file() else "")
    if stat.S_ISREG(info.st_mode):
        return ("file", info.st_mode, _digest(path))
    return ("other", info.st_mode)  # folders, FIFOs, devices: never opened


def fingerprint_folder(folder: Path) -> Fingerprint:
    """Every entry under ``folder`` (its own subfolders, not linked ones) by content.

    A file's content is its BLAKE2b digest (streamed); a link is its target and the digest
    of the file it leads to. Two fingerprints differ exactly where an entry is new,
    removed, or changed in kind, mode or bytes (times are ignored).

    Parameters
    ----------
    folder : pathlib.Path
        The folder.

    Returns
    -------
    Fingerprint
        Per relative path, its kind, mode and content digest.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = Path(folder, "toy_0.nii.gz").write_bytes(b"scan")
    ...     found = fingerprint_folder(Path(folder))
    >>> [(Path(path).name, entry[0]) for path, entry in found.items()]
    [('toy_0.nii.gz', 'file')]
    """
    entries: Fingerprint = {}
    for top, folders, files in os.walk(folder):
        for name in (*folders, *files):
            entries[os.path.join(top, name)] = _entry(Path(top, name))
    return entries


def compare_fingerprints(
    before: Mapping[str, object], after: Mapping[str, object]
) -> tuple[InputChange, ...]:
    """Return the entries that are new, changed or removed between two fingerprints, by path.

    Parameters
    ----------
    before, after : mapping of str to object
        Two fingerprints of one folder.

    Returns
    -------
    tuple of InputChange
        The changes, sorted by path.

    Examples
    --------
    >>> before = {"in/a.nii.gz": ("file", 0o100444, "1f"), "in/b.nii.gz": ("file", 0o100444, "2e")}
    >>> after = {"in/a.nii.gz": ("file", 0o100644, "1f"), "in/c.txt": ("file", 0o100644, "3d")}
    >>> [(c.path, c.change) for c in compare_fingerprints(before, after)]
    [('in/a.nii.gz', 'changed'), ('in/b.nii.gz', 'removed'), ('in/c.txt', 'new')]
    """
    found = [InputChange(p, "removed") for p in before if p not in after]
    found += [InputChange(p, "new") for p in after if p not in before]
    found += [InputChange(p, "changed") for p in before if p in after and before[p] != after[p]]
    return tuple(sorted(found, key=lambda c: c.path))
