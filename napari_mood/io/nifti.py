"""The one NIfTI reader: every decoding failure becomes a problem naming the file.

``load_nifti`` decodes a ``.nii`` / ``.nii.gz`` file (gzip with ISA-L) and refuses, with
a :class:`~napari_mood.io.errors.MoodInputError` saying what to do, anything that is not one
2-D or 3-D volume of real numbers whose data fit in the file; ``read_volume`` /
``read_scores`` / ``read_label`` / ``read_shape`` read what the viewer and the scorer need,
exactly as the official MOOD scorer reads it (float16 maps clipped to [0, 1]; labels
``clip(rint(x), 0, 1) == 1``).
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import nibabel as nib
import numpy as np
from isal import igzip, isal_zlib
from isal.igzip_lib import IsalError

from napari_mood.core._checks import check_path
from napari_mood.core.scores import ONE_CODE, ScoreMode, check_mode, gt_mask, to_mood_scores
from napari_mood.io.errors import MoodInputError, check_regular_file, warn_input
from napari_mood.io.mood import is_nifti
from napari_mood.io.thread_remarks import thread_remarks

__all__ = [
    "EXTRA_MARGIN",
    "Grid",
    "LabelRead",
    "ScoreRead",
    "Volume",
    "load_nifti",
    "memory_budget",
    "read_grid",
    "read_label",
    "read_scores",
    "read_shape",
    "read_volume",
]


@dataclass(frozen=True)
class Volume:
    """A volume read from a NIfTI file.

    Attributes
    ----------
    data : ndarray
        2-D or 3-D array (4-D files with one volume are squeezed).
    affine : ndarray
        4 x 4 voxel-to-world matrix.
    path : Path or None
        The file it came from.
    """

    data: np.ndarray
    affine: np.ndarray
    path: Path | None = None

    @property
    def spacing(self) -> tuple[float, ...]:
        """Voxel size along each array axis (norm of the affine columns)."""
        norms = np.linalg.norm(self.affine[:3, : self.data.ndim], axis=0)
        return tuple(float(n) if n > 0 else 1.0 for n in norms)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of the data."""
        return tuple(self.data.shape)


@dataclass(frozen=True)
class ScoreRead:
    """A score map read as the pixel task reads it, with what was repaired on the way.

    ``scores`` is float16 clipped to [0, 1] in ``mood`` mode and float32 clipped in
    ``exact`` mode; NaN voxels are kept as NaN (the caller applies the NaN policy).
    """

    scores: np.ndarray
    affine: np.ndarray
    path: Path
    n_nan: int
    n_posinf: int
    n_neginf: int
    n_below: int
    n_above: int


_GZIP_MAGIC = b"\x1f\x8b"
_HEADER_BYTES = 540  # a NIfTI-2 header; a NIfTI-1 header is 348 bytes
_CHUNK = 1 << 24
EXTRA_MARGIN = 1 << 20
"""Bytes read beyond the size a header announces, to tell the user how much more there is."""
DEFLATE_MAX_RATIO = 1032
"""No deflate stream expands more than about 1032:1: a header promising more is wrong."""
COPY_BYTES = 8
"""Bytes per voxel a reader may allocate beside the decoded file (one float64 copy at most)."""
_GZIP_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    EOFError,
    zlib.error,
    gzip.BadGzipFile,
    cast(type[BaseException], IsalError),  # a damaged deflate stream (typed as an instance)
)
_HEADER_ERRORS = (
    ValueError,
    TypeError,
    OverflowError,
    EOFError,
    nib.spatialimages.HeaderDataError,
    nib.wrapstruct.WrapStructError,
)

_REEXPORT = "the file is damaged or truncated: re-export or re-download it"


def _read_bytes(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MoodInputError(
            path, f"cannot be read ({exc.strerror or exc})", "check its permissions"
        ) from exc
    if not raw:
        raise MoodInputError(path, "the file is empty", "re-export or re-download it")
    return raw


def _looks_like_nifti(content: bytes) -> bool:
    size = int.from_bytes(content[:4], "little") if len(content) >= 4 else 0
    return size in (348, 540) or content[344:347] in (b"n+1", b"ni1")


def _header(content: bytes, *, with_extensions: bool = False) -> nib.Nifti1Header | None:
    """Return the NIfTI header at the start of ``content``, or None when it does not parse."""
    sizeof_hdr = int.from_bytes(content[:4], "little") if len(content) >= 4 else 0
    klass = nib.Nifti2Header if sizeof_hdr in (540, 469893120) else nib.Nifti1Header
    try:
        head = content if with_extensions else content[: klass.sizeof_hdr]
        return klass.from_fileobj(io.BytesIO(head))
    except _HEADER_ERRORS:
        return None


def _named_header(content: bytes, path: Path | None = None) -> nib.Nifti1Header | None:
    """Parse a NIfTI header, re-emitting nibabel's complaints with the file's name.

    :func:`_header`, what nibabel says about it re-emitted naming ``path``, or dropped
    without a path (the caller reads the whole file next, which reports it).
    """
    with thread_remarks() as said:
        header = _header(content)
    for message in said if path is not None else []:
        warn_input(path, message)
    return header


def quiet_header(head: bytes) -> nib.Nifti1Header | None:
    """Return the NIfTI header at the start of ``head`` if it parses cleanly.

    The NIfTI-1/2 header (with its extensions) at the start of ``head`` when nibabel
    parses it without a warning or a log message; None otherwise (a reader that takes
    only clean files then leaves the file to :func:`load_nifti`, which reports them).
    """
    with thread_remarks() as said:
        header = _header(head, with_extensions=True)
    return None if said else header


def header_grid(header: nib.Nifti1Header) -> tuple[int, ...]:
    """Return the grid a header declares, without trailing singleton axes.

    The grid a header declares, trailing 1s beyond the third axis dropped (as the
    data are squeezed when read).
    """
    shape = tuple(int(s) for s in header.get_data_shape())
    while len(shape) > 3 and shape[-1] == 1:
        shape = shape[:-1]
    return shape


def _data_size(header: nib.Nifti1Header) -> tuple[int, tuple[int, ...], int] | None:
    """``(bytes up to the end of the voxels, shape, voxel size)`` a header announces."""
    try:
        shape = tuple(int(s) for s in header.get_data_shape())
        itemsize = np.dtype(header.get_data_dtype()).itemsize
        offset = max(int(header["vox_offset"]), int(header.sizeof_hdr))
    except _HEADER_ERRORS:
        return None
    return offset + int(np.prod(shape, dtype=object)) * itemsize, shape, itemsize


def _read_at_most(stream: io.BufferedIOBase, size: int) -> bytes:
    """Up to ``size`` bytes, asked for in chunks (never one huge buffer up front)."""
    parts: list[bytes] = []
    remaining = size
    while remaining > 0:
        part = stream.read(min(_CHUNK, remaining))
        if not part:
            break
        parts.append(part)
        remaining -= len(part)
    return b"".join(parts)


@dataclass(frozen=True)
class _Decoded:
    content: bytes  # the header and voxels, possibly followed by extra bytes
    extra: int  # bytes found after the voxels (up to EXTRA_MARGIN + 1)


class _MoreMembers(Exception):
    """The gzip stream holds several members: read it with the streaming reader."""


def _inflate(raw: bytes, limit: int) -> bytes:
    """At most ``limit`` bytes of a single-member gzip stream, in one ISA-L call.

    The usual file (one member) is decompressed straight into one bytes object, with
    no joins or copies. A stream ending early raises EOFError; another member after the
    first raises :class:`_MoreMembers` (the caller then streams it).
    """
    inflater = isal_zlib.decompressobj(wbits=31)  # gzip wrapper: header and CRC checked
    content = inflater.decompress(raw, limit)
    if inflater.eof:
        if inflater.unused_data.strip(b"\0") and len(content) < limit:
            raise _MoreMembers
    elif len(content) < limit:
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
    return content


def _stream(raw: bytes, head_bytes: int, announced: Callable[[bytes], int | None]) -> bytes:
    """Multi-member gzip: stream the members (as gzip does), up to what the header announces."""
    with igzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
        head = _read_at_most(stream, head_bytes)
        limit = announced(head)
        if limit is None:
            return head
        return head + _read_at_most(stream, limit - len(head))


def _decompress(path: Path, raw: bytes) -> _Decoded:
    """Decompress no more than the header announces (plus a margin): no gzip bomb."""
    if not raw.startswith(_GZIP_MAGIC):
        if _looks_like_nifti(raw):
            raise MoodInputError(
                path,
                "is not gzip-compressed although its name ends in .gz",
                "rename it to .nii, or compress it with gzip",
            )
        raise MoodInputError(path, "is not a gzip file", _REEXPORT)
    needed: list[int] = []

    def announced(head: bytes) -> int | None:
        header = _named_header(head)  # reported when the whole file is read
        size = None if header is None else _data_size(header)
        if size is None:  # not NIfTI: the caller says so from the first bytes
            return None
        _check_dims(path, size[1])
        needed.append(size[0])
        _check_ratio(path, size[0], size[1], size[2], len(raw))
        _check_memory(path, size[0], size[1], size[2])
        return size[0] + EXTRA_MARGIN + 1

    try:
        try:
            head = _inflate(raw, _HEADER_BYTES)
            limit = announced(head)
            if limit is None:  # no NIfTI header: a damaged stream says so first
                _inflate(raw, EXTRA_MARGIN)
            content = head if limit is None else _inflate(raw, limit)
        except _MoreMembers:
            needed.clear()
            content = _stream(raw, _HEADER_BYTES, announced)
    except _GZIP_ERRORS as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise MoodInputError(path, f"is not a readable gzip file ({reason})", _REEXPORT) from exc
    if not needed:
        return _Decoded(content, 0)
    return _Decoded(content, max(0, len(content) - needed[0]))


def _check_ratio(path: Path, needed: int, shape: tuple[int, ...], itemsize: int, size: int) -> None:
    """Refuse at once a header promising more than deflate can expand the file to."""
    bound = size * DEFLATE_MAX_RATIO + _HEADER_BYTES
    if needed > bound:
        raise MoodInputError(
            path,
            f"is truncated or its header is wrong: shape {shape} of {itemsize}-byte voxels "
            f"needs {needed:,} bytes, a gzip file of {size:,} bytes holds at most {bound:,}",
            _REEXPORT,
        )


def memory_budget() -> int:
    """Return the bytes a file may take to read now: the memory available to this process.

    The smallest of the memory the system has available (``MemAvailable``, else the
    free pages) and what is left under this process's address-space and data limits
    (``ulimit -v``, ``ulimit -d``); a very large number when none is known.

    Returns
    -------
    int
        The budget in bytes.
    """
    budgets = [_available_memory()]
    try:
        import resource
    except ImportError:  # not on Windows
        return min(b for b in budgets if b is not None) if any(budgets) else 1 << 62
    page = os.sysconf("SC_PAGE_SIZE")
    used = _statm()
    for limit, field in ((resource.RLIMIT_AS, 0), (resource.RLIMIT_DATA, 5)):
        soft = resource.getrlimit(limit)[0]
        if soft != resource.RLIM_INFINITY and soft > 0:
            budgets.append(max(0, soft - (used[field] * page if used else 0)))
    known = [b for b in budgets if b is not None]
    return min(known) if known else 1 << 62


def _available_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _statm() -> list[int] | None:
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return [int(v) for v in statm.read().split()]
    except (OSError, ValueError):
        return None


def _check_memory(path: Path, decoded: int, shape: tuple[int, ...], itemsize: int) -> None:
    """Refuse, before anything is inflated or read, a file that cannot fit in memory.

    Reading takes the decoded file (``decoded`` bytes) and at most one float64 copy of
    its voxels (:data:`COPY_BYTES` each); more than :func:`memory_budget` is refused
    naming the file (the case is then unreadable: a map scores 0, a label's case is
    skipped), never a MemoryError that ends the run.
    """
    count = int(np.prod(shape, dtype=object))
    needed = decoded + count * COPY_BYTES
    budget = memory_budget()
    if needed > budget:
        raise MoodInputError(
            path,
            f"its header declares shape {shape} of {itemsize}-byte voxels: reading it takes "
            f"about {_gib(needed)}, more than the {_gib(budget)} of memory available",
            "check the file (a damaged header often declares a huge grid), or free memory",
        )


def _gib(size: int) -> str:
    return f"{size / 2**30:,.1f} GiB" if size >= 2**30 else f"{size / 2**20:,.0f} MiB"


def _warn_extra(path: Path, extra: int) -> None:
    if not extra:
        return
    amount = f"{extra:,} extra bytes" if extra <= EXTRA_MARGIN else "more than 1 MiB of data"
    warn_input(
        path,
        f"{amount} after the voxels its header describes (ignored, as nibabel does; "
        "only the voxels were read)",
    )


def load_nifti(path: str | os.PathLike[str]) -> nib.Nifti1Image:
    """Open a ``.nii`` / ``.nii.gz`` file as a nibabel image, decoding gzip with ISA-L.

    Every way a file can fail to decode becomes a :class:`MoodInputError` naming the
    file and what to do, checked before any large allocation: missing, unreadable, empty,
    a folder, a FIFO or a device (never opened: reading could block or never end), not
    gzip although named ``.gz``, damaged gzip, not NIfTI, a header declaring a zero or
    negative dimension or data that would not fit in the file (truncated files, absurd
    dimensions), more than one volume, voxels that are not one real number (RGB,
    complex). A gzip file is decompressed only up to
    the size its header announces (plus :data:`EXTRA_MARGIN`): data after the voxels is
    ignored with a warning, so a small file inflating to gigabytes costs nothing. A file
    whose header declares more than memory holds (the decoded voxels and one float64
    copy beyond :func:`memory_budget`) is refused before anything is inflated or read.
    nibabel's warnings about the file are re-emitted as :class:`MoodInputWarning`
    naming it.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.nii`` or ``.nii.gz`` file.

    Returns
    -------
    nibabel.Nifti1Image
        The image, its data decoded in memory.

    Raises
    ------
    MoodInputError
        See above.
    """
    return _load(Path(path))[0]


def _load(path: Path) -> tuple[nib.Nifti1Image, bytes]:
    """:func:`load_nifti`, also returning the decoded bytes (for :func:`_voxel_view`)."""
    check_regular_file(path, what="NIfTI file")
    if not is_nifti(path):
        raise MoodInputError(path, "is not a NIfTI file", "expected a .nii or .nii.gz file")
    gzipped = path.name.lower().endswith(".gz")
    if not gzipped:
        _check_plain_memory(path)
    raw = _read_bytes(path)
    decoded = _decompress(path, raw) if gzipped else _Decoded(raw, 0)
    with thread_remarks() as said:
        img = _image_from_bytes(path, decoded.content)
    for message in said:
        warn_input(path, message)
    _warn_extra(path, decoded.extra)
    return img, decoded.content


def _check_plain_memory(path: Path) -> None:
    """:func:`_check_memory` for a plain ``.nii``, from its header (before reading it)."""
    try:
        with path.open("rb") as stream:
            head = stream.read(_HEADER_BYTES)
        size = path.stat().st_size
    except OSError:
        return  # reading the file says why
    header = _named_header(head)  # reported when the whole file is read
    announced = None if header is None else _data_size(header)
    if announced is not None and 0 not in announced[1] and min(announced[1], default=0) > 0:
        _check_memory(path, min(size, announced[0]), announced[1], announced[2])


def _voxel_view(img: nib.Nifti1Image, content: bytes) -> np.ndarray | None:
    """Return the stored voxels as a read-only view, or None when the header scales them.

    The stored voxels as a read-only view of the decoded bytes (no copy, no cast), or
    None when the header scales them (then nibabel's reading applies).
    """
    proxy = img.dataobj
    if not isinstance(proxy, nib.arrayproxy.ArrayProxy):
        return None
    if not (proxy.slope == 1 and proxy.inter == 0):
        return None
    dtype = np.dtype(proxy.dtype)
    count = int(np.prod(proxy.shape, dtype=np.int64))
    if int(proxy.offset) + count * dtype.itemsize > len(content):
        return None
    flat = np.frombuffer(content, dtype=dtype, count=count, offset=int(proxy.offset))
    return flat.reshape(proxy.shape, order=proxy.order)


def _image_from_bytes(path: Path, content: bytes) -> nib.Nifti1Image:
    if len(content) < 348:
        raise MoodInputError(path, "is too short to be NIfTI", _REEXPORT)
    sizeof_hdr = int.from_bytes(content[:4], "little")
    klass = nib.Nifti2Image if sizeof_hdr in (540, 469893120) else nib.Nifti1Image
    try:
        img = klass.from_bytes(content)
    except (
        nib.filebasedimages.ImageFileError,
        nib.spatialimages.HeaderDataError,
        ValueError,
        TypeError,
        OverflowError,
    ) as exc:
        raise MoodInputError(path, f"is not a valid NIfTI file ({exc})", "re-export it") from exc
    _check_ndim(path, img.shape)
    _check_voxel_type(path, img)
    _check_size(path, img, len(content))
    return img


def _check_voxel_type(path: Path, img: nib.Nifti1Image) -> None:
    dtype = np.dtype(img.get_data_dtype())
    if dtype.kind in "biuf" and dtype.fields is None:
        return
    what = "RGB (colour) voxels" if dtype.fields else f"{dtype} voxels"
    raise MoodInputError(
        path,
        f"holds {what}",
        "scans, labels and score maps hold one real number per voxel: convert the file",
    )


def _check_size(path: Path, img: nib.Nifti1Image, available: int) -> None:
    """Refuse a header whose data would not fit in the file (before anything is allocated)."""
    header = img.header
    itemsize = np.dtype(img.get_data_dtype()).itemsize
    offset = max(int(header["vox_offset"]), int(header.sizeof_hdr))
    needed = offset + int(np.prod(img.shape, dtype=object)) * itemsize
    if needed > available:
        raise MoodInputError(
            path,
            f"is truncated or its header is wrong: shape {img.shape} of {itemsize}-byte voxels "
            f"needs {needed:,} bytes, the file holds {available:,}",
            _REEXPORT,
        )


def _data(path: Path, read: Callable[[], np.ndarray]) -> np.ndarray:
    """Decode voxel data; any failure becomes a MoodInputError naming the file."""
    try:
        with np.errstate(over="ignore"):
            return np.asarray(read())
    except (ValueError, TypeError, OSError, EOFError, zlib.error, MemoryError) as exc:
        raise MoodInputError(path, f"its voxels cannot be decoded ({exc})", _REEXPORT) from exc


def _check_dims(path: Path, shape: tuple[int, ...]) -> None:
    """Refuse a header that declares no voxels or negative sizes.

    The one check of the dimensions a header declares: none, zero or negative sizes
    are refused (sizes beyond the file are :func:`_check_ratio`'s and :func:`_check_size`'s).
    """
    if not shape or 0 in shape:
        raise MoodInputError(
            path,
            f"its header declares no voxels (shape {shape}): the header is damaged",
            _REEXPORT,
        )
    if min(shape) < 0:
        raise MoodInputError(
            path,
            f"its header declares a negative size (shape {shape}): the header is damaged",
            _REEXPORT,
        )


def _check_ndim(path: Path, shape: tuple[int, ...]) -> None:
    _check_dims(path, shape)
    extra = [s for s in shape[3:] if s != 1]
    if len(shape) < 2 or extra:
        raise MoodInputError(
            path,
            f"has shape {shape}",
            "napari-mood reads 2-D and 3-D volumes (4-D only with a single volume); "
            "split the 4-D file into 3-D volumes first",
        )


def _squeeze(data: np.ndarray) -> np.ndarray:
    while data.ndim > 3 and data.shape[-1] == 1:
        data = data[..., 0]
    return data


@dataclass(frozen=True)
class Grid:
    """The voxel grid a NIfTI header declares: shape (squeezed as the data) and affine."""

    shape: tuple[int, ...]
    affine: np.ndarray


def read_grid(path: str | os.PathLike[str]) -> Grid:
    """Return the voxel grid of a NIfTI file from its header only (cheap: no voxel is read).

    Parameters
    ----------
    path : str or os.PathLike
        A ``.nii`` or ``.nii.gz`` file.

    Returns
    -------
    Grid
        The shape (trailing singleton axes beyond the third dropped) and the affine.

    Raises
    ------
    MoodInputError
        When the file is not a regular file or its header cannot be read.
    """
    path = Path(path)
    check_regular_file(path, what="NIfTI file")
    opener = igzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as stream:
            head = stream.read(_HEADER_BYTES)
    except _GZIP_ERRORS as exc:
        raise MoodInputError(path, f"its header cannot be read ({exc})", _REEXPORT) from exc
    header = _named_header(head, path)
    if header is None:
        raise MoodInputError(path, "its header cannot be read (not NIfTI)", _REEXPORT)
    shape = header_grid(header)
    _check_dims(path, shape)
    with thread_remarks():  # dropped: reported when the file itself is read
        affine = np.asarray(header.get_best_affine(), dtype=np.float64)
    return Grid(shape, affine)


def read_shape(path: str | os.PathLike[str]) -> tuple[int, ...]:
    """Return the voxel-grid shape of a NIfTI file from its header only (see :func:`read_grid`).

    Parameters
    ----------
    path : str or os.PathLike
        A ``.nii`` or ``.nii.gz`` file.

    Returns
    -------
    tuple of int
        The shape the data have once read.

    Raises
    ------
    MoodInputError
        When the header cannot be read.
    """
    return read_grid(path).shape


def read_volume(path: str | os.PathLike[str], *, dtype: type = np.float32) -> Volume:
    """Read a NIfTI volume as floating point, with its affine.

    Parameters
    ----------
    path : path-like
        ``.nii`` or ``.nii.gz`` file (2-D, 3-D, or 4-D with one volume).
    dtype : numpy float type
        Type of the returned data (scaling from the header is applied).

    Returns
    -------
    Volume
        The data (singleton axes beyond the third dropped), the affine and the path.

    Raises
    ------
    MoodInputError
        When the file cannot be read as one real-valued volume (see :func:`load_nifti`).

    Examples
    --------
    >>> vol = read_volume("scan.nii.gz")  # doctest: +SKIP
    >>> vol.data.shape, vol.spacing  # doctest: +SKIP
    ((99, 117, 95), (2.0, 2.0, 2.0))
    """
    path = check_path("path", path)
    img = load_nifti(path)
    data = _squeeze(_data(Path(path), lambda: img.get_fdata(dtype=dtype)))
    return Volume(data=data, affine=np.asarray(img.affine, dtype=np.float64), path=Path(path))


def read_scores(path: str | os.PathLike[str], *, mode: ScoreMode = "mood") -> ScoreRead:
    """Read a score map as the MOOD pixel task does.

    In ``mood`` mode the data are read with ``get_fdata(dtype=np.float16)`` (as the
    official scorer) and clipped to [0, 1]; ``exact`` keeps float32. NaN voxels stay NaN
    and are counted, as are infinities and values outside [0, 1] (before clipping).

    Parameters
    ----------
    path : str or os.PathLike
        A ``.nii`` or ``.nii.gz`` file.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    ScoreRead
        The clipped scores, the affine and the counts of NaN, infinite and out-of-range
        voxels.

    Raises
    ------
    MoodInputError
        When the file cannot be read (see :func:`load_nifti`).

    Examples
    --------
    >>> read = read_scores("method/toy_0.nii.gz")  # doctest: +SKIP
    >>> read.scores.dtype  # doctest: +SKIP
    dtype('float16')
    """
    path = check_path("path", path)
    check_mode(mode)
    img, content = _load(Path(path))
    affine = np.asarray(img.affine, dtype=np.float64)
    stored = _voxel_view(img, content) if mode == "mood" else None
    if stored is not None and _stored_in_unit_range(stored):
        # the common case: the cast cannot leave [0, 1], nothing to count or clip; the
        # codes are bit for bit get_fdata(dtype=np.float16) (tested), without its copies
        scores = stored.copy(order="K") if stored.dtype == np.float16 else to_mood_scores(stored)
        return ScoreRead(_squeeze(scores), affine, Path(path), 0, 0, 0, 0, 0)
    dtype = np.float16 if mode == "mood" else np.float32
    # beyond the float16 range -> inf, clipped to 1 below
    scores = _squeeze(_data(Path(path), lambda: img.get_fdata(dtype=dtype)))
    if _in_unit_range(scores):  # nothing to count or clip
        return ScoreRead(scores, affine, Path(path), 0, 0, 0, 0, 0)
    counts = _range_counts(scores)
    np.clip(scores, 0.0, 1.0, out=scores)
    scores += scores.dtype.type(0.0)  # -0.0 -> +0.0
    return ScoreRead(scores, affine, Path(path), *counts)


def _stored_in_unit_range(stored: np.ndarray) -> bool:
    """Whether every stored value is in [0, 1], decided on the bit patterns.

    True when every stored value is in [0, 1] (no NaN, no -0.0), from the bit patterns:
    a float's pattern read as a signed integer is in [0, pattern(1.0)] exactly then.
    """
    if stored.size == 0 or stored.dtype == np.bool_:
        return True
    if stored.dtype.kind == "f" and stored.dtype.isnative and stored.dtype.itemsize in (2, 4, 8):
        bits = stored.view(f"i{stored.dtype.itemsize}")
        one = int(np.array(1, dtype=stored.dtype).view(bits.dtype))
        return bool(bits.min() >= 0 and bits.max() <= one)
    if stored.dtype.kind in "iu":
        return bool(stored.min() >= 0 and stored.max() <= 1)
    return False


def _in_unit_range(scores: np.ndarray) -> bool:
    """Return whether every value is in [0, 1] (no NaN, no -0.0), checked cheaply."""
    if scores.size == 0:
        return True
    if scores.dtype == np.float16:
        # float16 codes 0..0x3C00 are exactly the values +0.0 .. 1.0
        return int(scores.view(np.uint16).max()) <= ONE_CODE
    return bool(0.0 <= scores.min() and scores.max() <= 1.0) and not np.signbit(scores).any()


def _range_counts(scores: np.ndarray) -> tuple[int, int, int, int, int]:
    n_nan = int(np.count_nonzero(np.isnan(scores)))
    n_posinf = int(np.count_nonzero(np.isposinf(scores)))
    n_neginf = int(np.count_nonzero(np.isneginf(scores)))
    n_below = int(np.count_nonzero(scores < 0))
    n_above = int(np.count_nonzero(scores > 1))
    return n_nan, n_posinf, n_neginf, n_below, n_above


@dataclass(frozen=True)
class LabelRead:
    """A ground-truth mask read as the official scorer reads it.

    ``mask`` is ``clip(rint(data), 0, 1) == 1``; ``n_nonbinary`` counts voxels whose
    rounded value was neither 0 nor 1 (they were clipped).
    """

    mask: np.ndarray
    affine: np.ndarray
    path: Path
    n_nonbinary: int


def read_label(path: str | os.PathLike[str]) -> LabelRead:
    """Read a binary GT mask: ``clip(rint(value), 0, 1) == 1`` as the official scorer.

    Integer files without scaling are compared without a float copy.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.nii`` or ``.nii.gz`` file.

    Returns
    -------
    LabelRead
        The bool mask, the affine and the number of voxels not 0 or 1 after rounding.

    Raises
    ------
    MoodInputError
        When the file cannot be read (see :func:`load_nifti`).

    Examples
    --------
    >>> read_label("toy_label/pixel/toy_0.nii.gz").mask.dtype  # doctest: +SKIP
    dtype('bool')
    """
    path = check_path("path", path)
    img, content = _load(Path(path))
    raw = _data(Path(path), lambda: _label_values(img, content))
    mask = gt_mask(raw)  # equals the official clip(rint(x), 0, 1) == 1
    rounded = np.rint(raw) if raw.dtype.kind == "f" else raw
    n_nonbinary = int(rounded.size - np.count_nonzero((rounded == 0) | (rounded == 1)))
    return LabelRead(
        _squeeze(mask), np.asarray(img.affine, dtype=np.float64), Path(path), n_nonbinary
    )


def _label_values(img: nib.Nifti1Image, content: bytes) -> np.ndarray:
    stored = _voxel_view(img, content)
    if stored is not None and stored.dtype.kind in "iu":
        return stored  # integers without scaling: compared without a copy
    proxy = img.dataobj
    slope, inter = getattr(proxy, "slope", 1.0), getattr(proxy, "inter", 0.0)
    native = np.dtype(img.get_data_dtype())
    if native.kind in "iub" and slope == 1 and inter == 0 and hasattr(proxy, "get_unscaled"):
        return np.asarray(proxy.get_unscaled())
    return np.asarray(img.get_fdata())  # float64, exactly what the official scorer rounds
