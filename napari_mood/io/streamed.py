"""Plain score maps and scans decoded chunk by chunk: never a decoded copy of the file.

Two readers share one pass over a plain map. The gzip stream (ISA-L) is inflated into
one reused buffer of :data:`~napari_mood.core._float16.CHUNK` voxels, which is converted
to float16 codes while it is still in the CPU cache, and then

* :func:`stream_code_histograms` counts the codes against the GT: the pixel task needs
  only these histograms and the largest score, so nothing of the size of the volume is
  allocated and the pass costs about what inflating the file does;
* :func:`read_map` writes them into the map's float16 array (what
  :func:`~napari_mood.io.nifti.read_scores` returns), without holding the compressed
  file or its decoded bytes.

The plain file is: a regular ``.nii`` / ``.nii.gz`` single-file NIfTI-1 or -2 whose header
nibabel reads without a warning, 2-D or 3-D float32/64 voxels (either byte order) without
scaling, every stored value in [0, 1] (no NaN, no -0.0, nothing to clip or count), on the
GT's grid, and nothing after the voxels. For anything else the stream gives up *without
reporting anything*, and the file is read whole by ``read_scores``, which owns every
check, warning and message. The codes are the same bit for bit (same conversion, and the
voxels come in the order of the arrays' Fortran flattening), so the results are too.

:func:`read_scan` reads a plain scan the same way into its float32 array (any real
voxel type without scaling; values are not checked), and leaves anything else to
``read_volume``. A viewer asks for large scans small (``small_above``): integers of up to
16 bits as they are stored, other values as float16 (half the bytes of float32; a
viewer only shows a scan, nothing scores it).
"""

from __future__ import annotations

import io
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import BinaryIO, TypeVar, cast

import nibabel as nib
import numpy as np
from isal import igzip
from isal.igzip_lib import IsalError

from napari_mood.core._float16 import CHUNK, ChunkCoder
from napari_mood.core.curves import count_codes
from napari_mood.core.scores import N_CODES, ScoreMode
from napari_mood.io._pages import empty_kept
from napari_mood.io.nifti import (
    ScoreRead,
    Volume,
    header_grid,
    quiet_header,
    read_scores,
    read_volume,
)

_T = TypeVar("_T")

READ_CHUNK = 1 << 22
"""Voxels per step when :func:`read_map` fills a map's array (16 MB of float32 read at a
time, about 80 MB of work arrays). Each step gives the GIL back a dozen times, and a
busy Python thread (napari building its window) keeps it up to ``sys.getswitchinterval()``
(5 ms) each time, so a read beside such a thread is as many waits as it has steps: few,
large steps keep it near the read alone (``benchmarks/bench_viewer.py`` measures it)."""

INFLATE_BLOCK = 8 << 20
"""Compressed bytes ISA-L inflates per call, without the GIL (``igzip.open`` reads 512 KB
at a time, so a 60 MB file would take the GIL back over a hundred times)."""


class _NotPlain(Exception):
    """Raised inside the stream when the file turns out not to be plain."""


_DECLINE: tuple[type[BaseException], ...] = (
    OSError,  # unreadable, damaged gzip (BadGzipFile), CRC error
    EOFError,  # truncated gzip stream
    cast(type[BaseException], IsalError),  # typed as an instance in its stubs
    zlib.error,
    ValueError,
    TypeError,
    OverflowError,
    nib.spatialimages.HeaderDataError,
    MemoryError,  # the whole-file reader says which file and what to do
    _NotPlain,
)
"""Failures that make the stream give up: the whole-file reader then names them."""


@dataclass(frozen=True)
class StreamedCounts:
    """What the pixel task keeps of one map: histograms over the ``N_CODES`` codes."""

    affine: np.ndarray
    pos: np.ndarray
    total: np.ndarray
    top_code: int  # largest code seen (0 for no voxel)


@dataclass(frozen=True)
class _Layout:
    """Where the voxels are and how they are stored, from a plain file's header."""

    affine: np.ndarray
    shape: tuple[int, ...]  # trailing 1s beyond the third axis dropped, as the reader does
    dtype: np.dtype

    @property
    def count(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


_Work = Callable[[BinaryIO, _Layout], _T]


def stream_code_histograms(
    path: str | os.PathLike[str], labels: np.ndarray
) -> StreamedCounts | None:
    """Float16-code histograms of a plain map against the bool ``labels`` (its GT).

    Parameters
    ----------
    path : path-like
        The map.
    labels : ndarray of bool
        The GT mask, in any memory order; the map must be on its grid.

    Returns
    -------
    StreamedCounts or None
        None when the file is not plain (see the module docstring): read it whole.

    Examples
    --------
    >>> counts = stream_code_histograms("method/toy_0.nii.gz", label.mask)  # doctest: +SKIP
    >>> int(counts.total.sum()) == label.mask.size  # doctest: +SKIP
    True
    """
    flat_labels = labels.ravel(order="F")  # file order; a view for the masks NIfTI gives
    pos = np.zeros(N_CODES, dtype=np.int64)
    total = np.zeros(N_CODES, dtype=np.int64)
    top = [0]

    def count(start: int, codes: np.ndarray) -> None:
        count_codes(codes, flat_labels[start : start + codes.size], pos, total)
        top[0] = max(top[0], int(codes.max()))

    def work(stream: BinaryIO, layout: _Layout) -> StreamedCounts:
        _decode(stream, layout, count)
        return StreamedCounts(layout.affine, pos, total, top[0])

    return _streamed(Path(path), labels.shape, work)


def read_map(path: str | os.PathLike[str], *, mode: ScoreMode = "mood") -> ScoreRead:
    """:func:`~napari_mood.io.nifti.read_scores`, streaming a plain map in ``mood`` mode.

    A plain map is inflated chunk by chunk straight into its float16 array (no decoded
    copy of the file, no compressed copy held); anything else is read by ``read_scores``,
    which reports it. The result is the same either way.

    Parameters
    ----------
    path : str or os.PathLike
        A score map file.
    mode : {"mood", "exact"}
        How scores are read.

    Returns
    -------
    ScoreRead
        As :func:`~napari_mood.io.nifti.read_scores` returns it.

    Examples
    --------
    >>> read_map("method/toy_0.nii.gz").scores.dtype  # doctest: +SKIP
    dtype('float16')
    """
    if mode == "mood":
        streamed = _streamed(Path(path), None, partial(_scores, Path(path)))
        if streamed is not None:
            return streamed
    return read_scores(path, mode=mode)


def read_scan(path: str | os.PathLike[str], *, small_above: int | None = None) -> Volume:
    """:func:`~napari_mood.io.nifti.read_volume` (float32), streaming a plain scan.

    A plain scan (a clean header, 2-D or 3-D voxels of any real type without scaling,
    nothing after them) is inflated :data:`READ_CHUNK` voxels at a time straight into
    its array: no compressed or decoded copy of the file, and ISA-L inflates without the
    GIL in :data:`INFLATE_BLOCK` calls. Anything else is read by ``read_volume``, which
    reports it. The voxels are the same bit for bit (cast to float32 as nibabel's
    ``get_fdata`` casts unscaled data: 64-bit integers through float64).

    Parameters
    ----------
    path : path-like
        The scan.
    small_above : int, optional
        A scan of more voxels is kept small, for display (:func:`small_scan_dtype`):
        integers of up to 16 bits in their own type (the same numbers), any other value
        as float16 (rounded to 11 significant bits). A scan with a finite value beyond
        float16's range (+-65504) stays float32. None: always float32.

    Returns
    -------
    Volume
        The scan, its affine and path.

    Examples
    --------
    >>> read_scan("toy/toy_0.nii.gz").data.dtype  # doctest: +SKIP
    dtype('float32')
    """
    file = Path(path)
    if small_above is not None:
        small = _streamed(file, None, partial(_scan, file, small_above), grid_of=_scan_grid)
        if small is not None:
            return small
    streamed = _streamed(file, None, partial(_scan, file, None), grid_of=_scan_grid)
    volume = streamed if streamed is not None else read_volume(path)
    if small_above is None or volume.data.size <= small_above or streamed is not None:
        return volume
    return _small_copy(volume)  # a scaled or unusual file: read whole, then made small


def small_scan_dtype(stored: np.dtype, voxels: int, small_above: int | None) -> np.dtype:
    """Return the type :func:`read_scan` keeps a scan of ``voxels`` stored as ``stored`` in.

    Parameters
    ----------
    stored : numpy.dtype
        The file's voxel type.
    voxels : int
        The scan's voxel count.
    small_above : int or None
        The voxel count above which a scan is kept small.

    Returns
    -------
    numpy.dtype
        float32, except for a scan of more than ``small_above`` voxels: its own integer
        type when of up to 16 bits, float16 when stored as floats.

    Examples
    --------
    >>> [small_scan_dtype(np.dtype(t), 10, 5).name for t in ("<i2", "u1", "<f4", "<i4")]
    ['int16', 'uint8', 'float16', 'float32']
    >>> small_scan_dtype(np.dtype("<i2"), 10, None).name, small_scan_dtype(np.dtype("<i2"), 5, 5).name
    ('float32', 'float32')
    """
    if small_above is None or voxels <= small_above:
        return np.dtype(np.float32)
    if stored.kind in "iu" and stored.itemsize <= 2:
        return stored.newbyteorder("=")
    return np.dtype(np.float16) if stored.kind == "f" else np.dtype(np.float32)


def _scan(path: Path, small_above: int | None, stream: BinaryIO, layout: _Layout) -> Volume:
    kept = small_scan_dtype(layout.dtype, layout.count, small_above)
    data = empty_kept(layout.shape, kept, order="F")
    flat = data.reshape(-1, order="F")  # a view: F-contiguous
    via = np.promote_types(layout.dtype, np.float32) if kept.kind == "f" else kept
    for start, values in _voxel_steps(stream, layout, READ_CHUNK):
        part = values.astype(via, copy=False)  # 64-bit integers: float64 first, as nibabel
        out = flat[start : start + values.size]
        with np.errstate(over="ignore"):
            out[...] = part
        if kept == np.float16 and _overflowed(out, part):
            raise _NotPlain  # read again as float32
    return Volume(data=data, affine=layout.affine, path=path)


def _overflowed(small: np.ndarray, values: np.ndarray) -> bool:
    """Whether a finite value became infinite in its float16 copy ``small``.

    Looked at on the bit patterns first (no +-inf or NaN: exponent bits never all set),
    20x faster than ``np.isinf`` on float16; only a chunk holding one is compared with
    its ``values``.
    """
    magnitudes = small.reshape(-1, order="A").view(np.uint16) & np.uint16(0x7FFF)
    if not magnitudes.size or int(magnitudes.max()) < 0x7C00:
        return False
    infinite = np.isinf(small)
    return bool(infinite.any() and np.isfinite(values[infinite]).any())


def _small_copy(volume: Volume) -> Volume:
    """``volume`` as float16 when every finite value fits (else as it is)."""
    data = volume.data
    if data.dtype.kind != "f":
        return volume
    small = empty_kept(data.shape, np.float16, order="F" if data.flags.f_contiguous else "C")
    with np.errstate(over="ignore"):
        small[...] = data
    return volume if _overflowed(small, data) else Volume(small, volume.affine, volume.path)


def _scores(path: Path, stream: BinaryIO, layout: _Layout) -> ScoreRead:
    scores = empty_kept(layout.shape, np.float16, order="F")
    codes = scores.reshape(-1, order="F").view(np.uint16)  # a view: F-contiguous
    _decode(stream, layout, lambda start, chunk: None, into=codes, step=READ_CHUNK)
    return ScoreRead(scores, layout.affine, path, 0, 0, 0, 0, 0)


def _streamed(
    path: Path,
    shape: tuple[int, ...] | None,
    work: _Work[_T],
    *,
    grid_of: Callable[[nib.Nifti1Header], tuple[int, ...] | None] | None = None,
) -> _T | None:
    """Run ``work`` on a plain file's voxel stream; None when the file is not plain.

    ``grid_of(header)`` says which voxels are plain (default: a score map's).
    """
    if not _is_regular(path):
        return None
    try:
        with _open(path) as stream:
            layout = _plain_layout(stream, shape, grid_of or _plain_grid)
            return None if layout is None else work(stream, layout)
    except _DECLINE:
        return None


def _is_regular(path: Path) -> bool:
    """Return whether ``path`` is a regular file (a FIFO or device could block a read)."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


@contextmanager
def _open(path: Path) -> Iterator[BinaryIO]:
    name = path.name.lower()
    if name.endswith(".nii.gz"):
        with _inflating(path) as stream:
            yield stream
    elif name.endswith(".nii"):
        with open(path, "rb") as stream:
            yield stream
    else:
        raise _NotPlain


@contextmanager
def _inflating(path: Path) -> Iterator[BinaryIO]:
    """Open a gzip file with ISA-L's reader, fed in fixed-size blocks.

    ISA-L's gzip reader (the one ``igzip.open`` makes) fed :data:`INFLATE_BLOCK` bytes
    at a time; ``igzip.open`` itself with an ISA-L that no longer has it.
    """
    try:
        from isal.isal_zlib import _GzipReader
    except ImportError:  # pragma: no cover - another python-isal
        with igzip.open(path, "rb") as stream:
            yield stream
        return
    with open(path, "rb") as compressed:
        reader = cast(io.RawIOBase, _GzipReader(compressed, INFLATE_BLOCK))
        with io.BufferedReader(reader) as stream:
            yield cast(BinaryIO, stream)


def _plain_layout(
    stream: BinaryIO,
    shape: tuple[int, ...] | None,
    grid_of: Callable[[nib.Nifti1Header], tuple[int, ...] | None],
) -> _Layout | None:
    """Read the header up to the voxels; None unless the file is plain (and on ``shape``)."""
    head = stream.read(4)
    sizeof_hdr = int.from_bytes(head, "little") if len(head) == 4 else 0
    if sizeof_hdr not in (348, 540):  # other byte order or not NIfTI: leave it
        return None
    head += stream.read(sizeof_hdr - len(head))
    header = quiet_header(head)  # without the extensions, to learn where the voxels are
    if header is None or bytes(header["magic"])[:3] not in (b"n+1", b"n+2"):
        return None
    offset = int(header["vox_offset"])
    if offset < len(head) + 4:  # the 4 bytes of the extension flag come first
        return None
    header = quiet_header(head + stream.read(offset - len(head)))  # with its extensions
    if header is None:
        return None
    grid = grid_of(header)
    if grid is None or (shape is not None and grid != tuple(shape)):
        return None
    affine = np.asarray(header.get_best_affine(), dtype=np.float64)
    return _Layout(affine, grid, np.dtype(header.get_data_dtype()))


def _plain_grid(header: nib.Nifti1Header) -> tuple[int, ...] | None:
    """Return the grid of a header with unscaled real float voxels, else None.

    The grid of unscaled real float voxels (trailing 1s dropped as the reader does),
    2-D or 3-D with a voxel; None for anything else.
    """
    dtype = np.dtype(header.get_data_dtype())
    if dtype.kind != "f" or dtype.itemsize not in (4, 8):  # NIfTI has no float16
        return None
    return _unscaled_grid(header)


def _scan_grid(header: nib.Nifti1Header) -> tuple[int, ...] | None:
    """Return the grid of unscaled voxels of one real number (integer or float), 2-D or 3-D."""
    dtype = np.dtype(header.get_data_dtype())
    if dtype.kind not in "iuf" or dtype.itemsize > 8:  # no RGB, complex or float128
        return None
    return _unscaled_grid(header)


def _unscaled_grid(header: nib.Nifti1Header) -> tuple[int, ...] | None:
    slope, inter = header.get_slope_inter()
    if slope not in (None, 1.0) or inter not in (None, 0.0):
        return None
    grid = header_grid(header)
    return grid if 2 <= len(grid) <= 3 and 0 not in grid else None


def _decode(
    stream: BinaryIO,
    layout: _Layout,
    each: Callable[[int, np.ndarray], None],
    *,
    into: np.ndarray | None = None,
    step: int | None = None,
) -> None:
    """Inflate and convert a file's voxels to float16 codes chunk by chunk.

    Inflate and convert the voxels ``step`` (default :data:`CHUNK`) at a time (file order: F order), handing
    each chunk's codes to ``each(start, codes)``; written into ``into`` (flat uint16 of
    every voxel) when given, else into one reused chunk. Raises :class:`_NotPlain`.
    """
    dtype = layout.dtype
    size = min(step or CHUNK, layout.count)
    chunk_codes = np.empty(0 if into is not None else size, dtype=np.uint16)
    coder = ChunkCoder(size)
    one = int(np.array(1, dtype=dtype.newbyteorder("=")).view(f"u{dtype.itemsize}"))
    for start, stored in _voxel_steps(stream, layout, size):
        values = stored if dtype.isnative else stored.astype(dtype.newbyteorder("="))
        if int(values.view(f"u{dtype.itemsize}").max()) > one:
            raise _NotPlain  # NaN, negative (-0.0 too) or above 1: the reader counts, clips
        n = values.size
        out = into[start : start + n] if into is not None else chunk_codes[:n]
        coder.codes(values, out)
        each(start, out)


def _voxel_steps(stream: BinaryIO, layout: _Layout, step: int) -> Iterator[tuple[int, np.ndarray]]:
    """Yield the stored voxels of a stream in chunks of ``step``.

    ``(start, voxels)`` for every ``step`` voxels in file order, as stored (one reused
    buffer: use each before the next). Raises :class:`_NotPlain` when the stream ends
    early or holds data after the voxels.
    """
    count, dtype = layout.count, layout.dtype
    size = min(step, count)
    raw = np.empty(size * dtype.itemsize, dtype=np.uint8)
    for start in range(0, count, size):
        n = min(size, count - start)
        if not _fill(stream, raw[: n * dtype.itemsize]):
            raise _NotPlain  # truncated
        yield start, raw[: n * dtype.itemsize].view(dtype)
    if stream.read(1):
        raise _NotPlain  # data after the voxels: the reader warns about it


def _fill(stream: BinaryIO, buffer: np.ndarray) -> bool:
    """Fill ``buffer`` from ``stream``; False when the stream ends first."""
    view = memoryview(cast(bytearray, buffer)).cast("B")  # an ndarray is a buffer
    filled = 0
    while filled < len(view):
        got = stream.readinto(view[filled:])  # type: ignore[attr-defined]
        if not got:
            return False
        filled += got
    return True
