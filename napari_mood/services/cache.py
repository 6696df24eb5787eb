"""The per-case result cache: plain data, checksummed, keyed by content stamps.

An entry is one ``.npz`` file (NumPy's zip of arrays, read with ``allow_pickle=False``:
nothing in a cache folder is ever executed) holding the result's arrays and a JSON
description, plus a SHA-256 checksum of both. Keys hash the package version, the cache
format, every option that changes a result and, for each input file, its resolved path,
size, modification and change times (ns), inode and device: copying a file over another
one (``cp -p``) or resetting its time (``touch -r``) changes the change time and the
inode, so the entry is recomputed.

Each entry also stores its full key (the JSON description the key hashes) and is used
only when that equals the key asked for: an entry file copied or moved over another
(two swapped entries, another method's entry) is a miss, never another case's numbers.

Any bad entry (missing, truncated, flipped bits, wrong format, from another version,
under another key) is a miss, never an error or a wrong number. A cache folder that cannot be written is a
warning; the run goes on without it: checked before any work by :func:`check_cache_folder`
(a folder where no file can be created: no cache, one warning), else when an entry fails
to be written (from then on, no cache). A cache folder inside the inputs, a file, a broken
link or a device is refused like any output.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import warnings
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from napari_mood._version import __version__
from napari_mood.core.curves import CurveAccumulator
from napari_mood.core.objects import CaseObjects, LevelObjects
from napari_mood.core.problems import Problem
from napari_mood.core.results import MethodCase
from napari_mood.core.scores import code_values
from napari_mood.io.errors import MoodInputWarning
from napari_mood.services.atomic_files import write_bytes_atomic
from napari_mood.services.output import (
    Inputs,
    OutputRefused,
    check_output_folder,
    check_output_name,
)

__all__ = [
    "CACHE_VERSION",
    "CacheKey",
    "LabelEntry",
    "MethodEntry",
    "ResultCache",
    "check_cache_folder",
    "file_stamp",
]

CACHE_VERSION = 3
_KEY_FIELD = "key"
LabelEntry = tuple[int | None, tuple[Problem, ...]]
MethodEntry = tuple[MethodCase, tuple[Problem, ...]]
_BAD_ENTRY = (
    OSError,
    ValueError,
    KeyError,
    TypeError,
    AttributeError,
    EOFError,
    zipfile.BadZipFile,
    zlib.error,
)


@dataclass(frozen=True)
class CacheKey:
    """What an entry depends on (a JSON description) and its file name (the hash of it)."""

    description: str

    @property
    def digest(self) -> str:
        """SHA-256 of the description: the entry's file name."""
        return hashlib.sha256(self.description.encode()).hexdigest()


def file_stamp(path: Path | None) -> list[Any]:
    """Return what identifies a file's content without reading it (see the module docs).

    Parameters
    ----------
    path : pathlib.Path or None
        A file, or None.

    Returns
    -------
    list
        The resolved path, size, modification and change times, inode and device; ``[path, None]``
        for a file that cannot be read, ``[None]`` for None.
    """
    if path is None:
        return [None]
    try:
        st = path.stat()
    except OSError:
        return [str(path), None]
    return [
        str(path.resolve()),
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
        st.st_ino,
        st.st_dev,
    ]


def check_cache_folder(
    path: str | os.PathLike[str], *, inputs: Inputs | None = None, what: str = "the cache folder"
) -> Path | None:
    """Check a cache folder before any work: the folder, or None to go on without a cache.

    A place where no file can be created (permissions, a read-only file system) is a
    :class:`MoodInputWarning` and None: the results are computed as usual.

    Parameters
    ----------
    path : str or os.PathLike
        The cache folder (``~`` expanded).
    inputs : Inputs, optional
        The run's input folders and files, which the output may not be in or on.
    what : str
        How the folder is named in the messages.

    Returns
    -------
    pathlib.Path or None
        The folder, or None when it cannot be written.

    Raises
    ------
    OutputRefused
        As :func:`~napari_mood.services.output.check_output_folder`: inside the inputs, a
        file, a broken symbolic link, a device.
    """
    folder = check_output_name(path, what)  # before any look at the place (ENAMETOOLONG)
    problem = None if (inputs or Inputs()).holder(folder) is not None else _unwritable(folder)
    if problem is not None:
        warnings.warn(
            f"{folder}: {what} cannot be written ({problem}); going on without it "
            "(results are computed as usual)",
            MoodInputWarning,
            stacklevel=2,
        )
        return None
    return check_output_folder(folder, inputs=inputs, force=True, what=what)


def _unwritable(folder: Path) -> str | None:
    """Why no file can be created in ``folder``, or None when one can.

    Why no file can be created in ``folder`` (or the nearest folder it would go in);
    None when one can, or when the place is no folder at all (that is refused).
    """
    place = folder
    while not (place.exists() or place.is_symlink()) and place.parent != place:
        place = place.parent
    if not place.is_dir():
        return None
    try:
        handle, probe = tempfile.mkstemp(prefix=".napari-mood-probe.", dir=place)
    except OSError as error:
        return f"no file can be created in {place}: {error.strerror or error}"
    os.close(handle)
    os.unlink(probe)
    return None


# --------------------------------------------------------------------------- encoding


def _problem_dict(problem: Problem) -> dict[str, Any]:
    return {
        "kind": problem.kind,
        "severity": problem.severity,
        "path": None if problem.path is None else str(problem.path),
        "message": problem.message,
        "hint": problem.hint,
        "case": problem.case,
        "method": problem.method,
    }


def _problem(info: Mapping[str, Any]) -> Problem:
    path = info["path"]
    return Problem(
        info["kind"],
        info["severity"],
        None if path is None else Path(path),
        info["message"],
        info["hint"],
        info["case"],
        info["method"],
    )


def _encode_levels(case: CaseObjects, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    unique: list[LevelObjects] = []
    order = []
    for level in case.levels:
        index = next((i for i, known in enumerate(unique) if known is level), None)
        if index is None:
            index = len(unique)
            unique.append(level)
            for field in ("other_sizes", "other_counts", "hit_sizes"):
                arrays[f"level{index}_{field}"] = np.asarray(getattr(level, field), np.int64)
        order.append(index)
    return {
        "name": case.name,
        "thresholds": list(case.thresholds),
        "connectivity": case.connectivity,
        "mode": case.mode,
        "gt_sizes": list(case.gt_sizes),
        "order": order,
        "levels": [
            {"n_flagged": lvl.n_flagged, "hit_gt": [list(g) for g in lvl.hit_gt]} for lvl in unique
        ],
    }


def _decode_levels(info: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> CaseObjects:
    unique = [
        LevelObjects(
            n_flagged=int(level["n_flagged"]),
            other_sizes=arrays[f"level{i}_other_sizes"],
            other_counts=arrays[f"level{i}_other_counts"],
            hit_sizes=arrays[f"level{i}_hit_sizes"],
            hit_gt=tuple(tuple(int(g) for g in hit) for hit in level["hit_gt"]),
        )
        for i, level in enumerate(info["levels"])
    ]
    return CaseObjects(
        name=info["name"],
        thresholds=tuple(float(t) for t in info["thresholds"]),
        connectivity=info["connectivity"],
        mode=info["mode"],
        gt_sizes=tuple(int(s) for s in info["gt_sizes"]),
        levels=tuple(unique[i] for i in info["order"]),
    )


def _encode_method(entry: MethodEntry) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    result, problems = entry
    arrays: dict[str, np.ndarray] = {}
    meta: dict[str, Any] = {
        "method": result.method,
        "status": result.status,
        "pixel_sample_score": result.pixel_sample_score,
        "max_score": result.max_score,
        "problems": [_problem_dict(p) for p in problems],
        "accumulator": None,
        "objects": None,
    }
    if result.accumulator is not None:
        values, pos, total = result.accumulator.histogram()
        arrays.update(acc_pos=pos, acc_total=total)
        if result.accumulator.mode == "exact":
            arrays["acc_values"] = values
        meta["accumulator"] = result.accumulator.mode
    if result.objects is not None:
        meta["objects"] = _encode_levels(result.objects, arrays)
    return meta, arrays


def _decode_method(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> MethodEntry:
    accumulator = None
    if meta["accumulator"] is not None:
        mode = meta["accumulator"]
        values = arrays["acc_values"] if mode == "exact" else code_values()
        accumulator = CurveAccumulator.from_histogram(
            values, arrays["acc_pos"], arrays["acc_total"], mode=mode
        )
    objects = None if meta["objects"] is None else _decode_levels(meta["objects"], arrays)
    result = MethodCase(
        meta["method"],
        meta["status"],
        accumulator,
        objects,
        meta["pixel_sample_score"],
        float(meta["max_score"]),
    )
    return result, tuple(_problem(p) for p in meta["problems"])


# --------------------------------------------------------------------------- files


def _checksum(meta: bytes, arrays: Mapping[str, np.ndarray]) -> str:
    digest = hashlib.sha256(meta)
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _pack(meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> bytes:
    text = json.dumps(meta, sort_keys=True, allow_nan=True).encode()
    payload = dict(arrays)
    payload["meta"] = np.frombuffer(text, dtype=np.uint8)
    payload["checksum"] = np.frombuffer(_checksum(text, arrays).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **payload)  # type: ignore[arg-type]  # numpy stub: allow_pickle
    return buffer.getvalue()


def _unpack(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    with np.load(io.BytesIO(path.read_bytes()), allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    text = arrays.pop("meta").tobytes()
    checksum = arrays.pop("checksum").tobytes().decode("ascii")
    if checksum != _checksum(text, arrays):
        return None
    return json.loads(text), arrays


class ResultCache:
    """Per-case results on disk (see the module docs). Only the main process writes it."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder).expanduser()
        self.usable = True
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            self._give_up(error)

    @staticmethod
    def key(kind: str, *parts: Any) -> CacheKey:
        """Return the key of an entry: cache format, package version, ``kind`` and ``parts``.

        Parameters
        ----------
        kind : str
            The kind of entry (``"label"``, ``"method"``).
        *parts
            What the entry depends on (file stamps, options), JSON-encodable.

        Returns
        -------
        CacheKey
            The key.
        """
        text = json.dumps([CACHE_VERSION, __version__, kind, *parts], sort_keys=True, default=str)
        return CacheKey(text)

    def _path(self, key: CacheKey) -> Path:
        digest = key.digest
        return self.folder / digest[:2] / f"{digest}.npz"

    def _give_up(self, error: BaseException) -> None:
        if self.usable:
            warnings.warn(
                f"{self.folder}: the cache cannot be written ({error}); "
                "going on without it (results are computed as usual)",
                MoodInputWarning,
                stacklevel=3,
            )
        self.usable = False

    def _read(self, key: CacheKey) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
        if not self.usable:
            return None
        try:
            found = _unpack(self._path(key))
        except Exception:  # noqa: BLE001 - a damaged zip raises anything (zipfile, zlib, numpy);
            return None  # the checksum vouches for what is used, so any failure is a miss
        if found is None or found[0].get(_KEY_FIELD) != key.description:
            return None  # an entry of another key (moved or copied here): a miss
        return found

    def _write(
        self, key: CacheKey, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]
    ) -> None:
        if not self.usable:
            return
        try:
            write_bytes_atomic(
                self._path(key), _pack({**meta, _KEY_FIELD: key.description}, arrays)
            )
        except (OutputRefused, OSError) as error:
            self._give_up(error)

    def get_label(self, key: CacheKey) -> LabelEntry | None:
        """Return a stored label entry ``(gt_voxels, problems)``, or None.

        Parameters
        ----------
        key : CacheKey
            The entry's key.

        Returns
        -------
        tuple or None
            The GT voxel count (None for an unreadable label) and the problems, or None when
            there is no readable entry.
        """
        found = self._read(key)
        if found is None:
            return None
        try:
            meta = found[0]
            voxels = meta["gt_voxels"]
            return (None if voxels is None else int(voxels)), tuple(
                _problem(p) for p in meta["problems"]
            )
        except _BAD_ENTRY:
            return None

    def put_label(self, key: CacheKey, entry: LabelEntry) -> None:
        """Store a label entry.

        Parameters
        ----------
        key : CacheKey
            The entry's key.
        entry : tuple
            The GT voxel count and the problems.
        """
        voxels, problems = entry
        self._write(
            key, {"gt_voxels": voxels, "problems": [_problem_dict(p) for p in problems]}, {}
        )

    def get_method(self, key: CacheKey) -> MethodEntry | None:
        """Return a stored method entry ``(MethodCase, problems)``, or None.

        Parameters
        ----------
        key : CacheKey
            The entry's key.

        Returns
        -------
        tuple or None
            The method's case result and the problems, or None when there is no readable entry.
        """
        found = self._read(key)
        if found is None:
            return None
        try:
            return _decode_method(*found)
        except _BAD_ENTRY:
            return None

    def put_method(self, key: CacheKey, entry: MethodEntry) -> None:
        """Store a method entry.

        Parameters
        ----------
        key : CacheKey
            The entry's key.
        entry : tuple
            The method's case result and the problems.
        """
        self._write(key, *_encode_method(entry))
