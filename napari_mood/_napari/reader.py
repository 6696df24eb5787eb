"""npe2 reader: NIfTI files and MOOD folders -> napari layer data tuples.

What is opened (see :func:`napari_mood.io.layout.find_case_folder_layout`):

* a MOOD dataset folder (holds ``toy/`` or ``toy_label/``): its first anomalous case with
  the ground truth and every method found in ``DATASET/methods/``;
* a case folder (``scan.nii.gz``, optional ``label.nii.gz``, ``<METHOD>.nii.gz`` maps);
* a folder of method folders: the first case they hold, maps only;
* one NIfTI file: a scan inside a dataset's ``toy/`` opens its whole case; otherwise the
  file's role is guessed from where it lives (``*label*`` folder: ground truth; in a
  folder under ``methods/``, in a case folder, or next to ``*.nii.gz.txt`` scores: a
  method's map named after its folder; else a scan);
* several files at once (``viewer.open([...], stack=True)`` or the command line): files
  under a ``*label*`` folder are the ground truth (the first one), the first other file
  is the scan and the remaining files are maps, named after their folder (or after the
  file when several share a folder).

Layers: scan -> gray Image named after the case; each map -> Image named after the method
(colour and threshold display described in :mod:`napari_mood._napari.layers`); ground truth ->
Labels named ``"<case> GT"``, drawn as an outline once the session takes it (filled and
translucent before). Maps and GT are blended over the scan without a depth test
(:data:`~napari_mood._napari.layers.OVER_SCAN_BLENDING`): visible inside the head in 3-D. All layers of a case use the scan's display transform and ``scale``
so they line up voxel for voxel. Problems found while reading (missing maps, shape or
affine mismatches, NaN) are emitted as :class:`~napari_mood.io.errors.MoodInputWarning`.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from napari_mood._napari import layers as layer_rules
from napari_mood._napari.layers import (
    AXIS_LABELS_3D,
    GT_FILL_OPACITY,
    METADATA_KEY,
    OVER_SCAN_BLENDING,
    LayerData,
    display_levels,
    gt_colormap,
    gt_label_data,
    mood_metadata,
)
from napari_mood.io.case import (
    CaseData,
    first_anomalous_case,
    focus_voxel,
    load_case,
    methods_from_files,
)
from napari_mood.io.errors import MoodInputError, MoodInputWarning
from napari_mood.io.layout import PathLayout, check_openable, find_case_folder_layout
from napari_mood.io.methods import MethodFolder, discover_methods, method_folder, methods_beside
from napari_mood.io.mood import MoodDataset, case_stem, discover_dataset, is_nifti
from napari_mood.io.validate import Problem
from napari_mood.services.display import display_range
from napari_mood.services.looks import (
    DEFAULT_THRESHOLD,
    METHOD_OPACITY,
    method_colormap,
    method_colors,
)
from napari_mood.services.options import ScoreMode, threshold_limits

__all__ = [
    "LoadedCase",
    "case_layer_data",
    "get_reader",
    "load_case_layers",
    "read_dataset_case",
    "read_paths",
]

PathOrPaths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
_LOG = logging.getLogger(__name__)


def get_reader(path: PathOrPaths) -> Callable[[PathOrPaths], list[LayerData]] | None:
    """Return :func:`read_paths` when napari-mood can open ``path``, else None.

    Never raises: anything unexpected is logged and answered with None.
    """
    try:
        return read_paths if _can_read(path) else None
    except Exception:  # a reader lookup must never break napari's open dialog
        _LOG.exception("napari-mood could not inspect %r", path)
        return None


def _can_read(path: PathOrPaths) -> bool:
    paths = _as_list(path)
    if len(paths) > 1:
        return all(p.is_file() and is_nifti(p) for p in paths)
    return bool(paths) and find_case_folder_layout(paths[0]).kind != "unknown"


def _as_list(path: PathOrPaths) -> list[Path]:
    if isinstance(path, str | os.PathLike):
        return [Path(path)]
    return [Path(p) for p in path]


def read_paths(
    path: PathOrPaths,
    *,
    preds: Mapping[str, str | os.PathLike[str]] | None = None,
    mode: ScoreMode = "mood",
    on_grid: Callable[[list[LayerData]], None] | None = None,
) -> list[LayerData]:
    """Read files or a folder as layer data tuples (scan, maps, then the ground truth).

    Parameters
    ----------
    path : path-like or sequence of path-likes
        What napari (or the command line) was asked to open.
    preds : Mapping[str, path-like], optional
        Extra methods by name: a method folder (``CASE.nii.gz`` maps) or one map file for
        the case being opened.
    mode : {"mood", "exact"}
        How maps are read (float16 as the MOOD scorer, or float32).
    on_grid : callable, optional
        Called (in the reading thread) with the scan and GT layers as soon as those two
        files are read, while the maps are still being read
        (:func:`~napari_mood.io.case.load_case`); the returned list holds the very same
        tuples, so a caller that showed them adds only the others.

    Raises
    ------
    MoodInputError
        When the path cannot be opened (napari shows the message).
    """
    made: list[LayerData] = []

    def grid_ready(case: CaseData) -> None:
        made.extend(case_layer_data(case))
        if on_grid is not None:
            on_grid(list(made))

    case = _load(_as_list(path), dict(preds or {}), mode, grid_ready if on_grid else None)
    _warn(case)
    return case_layer_data(case, made=made)


def read_dataset_case(
    root: str | os.PathLike[str],
    case: str,
    *,
    preds: Mapping[str, str | os.PathLike[str]] | None = None,
    mode: ScoreMode = "mood",
) -> list[LayerData]:
    """Read one case of a MOOD dataset (scan, GT, methods in ``root/methods/`` and ``preds``).

    Examples
    --------
    >>> layers = read_dataset_case(sample_data_dir(), "brain_001.nii.gz")  # doctest: +SKIP
    """
    data = _load_dataset_case(discover_dataset(root), case, dict(preds or {}), mode)
    _warn(data)
    return case_layer_data(data)


OnGrid = Callable[[CaseData], None] | None
"""What :func:`~napari_mood.io.case.load_case` calls with the scan and GT read."""


def _load(
    paths: list[Path], preds: dict[str, Any], mode: ScoreMode, on_grid: OnGrid = None
) -> CaseData:
    if not paths:
        raise MoodInputError(None, "nothing to open", "give a NIfTI file or a MOOD folder")
    check_openable(paths)
    if len(paths) > 1:
        return _load_files(paths, preds, mode, on_grid)
    layout = find_case_folder_layout(paths[0])
    loaders = {
        "file": _load_file,
        "dataset": _load_dataset,
        "case": _load_case_folder,
        "methods": _load_methods_folder,
    }
    if layout.kind not in loaders:
        raise MoodInputError(
            layout.path,
            "is not a NIfTI file, a MOOD dataset, a case folder or a folder of methods",
            "see the README for the layouts napari-mood opens",
        )
    return loaders[layout.kind](layout, preds, mode, on_grid)


def _with_preds(
    methods: Mapping[str, MethodFolder], preds: Mapping[str, Any], case: str
) -> dict[str, MethodFolder]:
    merged = dict(methods)
    for name, value in preds.items():
        pred = Path(value)
        merged[name] = (
            method_folder(pred, name=name)
            if pred.is_dir()
            else MethodFolder(name, pred.parent, {case: pred})
        )
    return merged


def _load_dataset(
    layout: PathLayout, preds: dict[str, Any], mode: ScoreMode, on_grid: OnGrid = None
) -> CaseData:
    dataset = discover_dataset(layout.path)
    return _load_dataset_case(dataset, first_anomalous_case(dataset), preds, mode, on_grid)


def _load_case(dataset: MoodDataset | None, case: str, **options: Any) -> CaseData:
    """Load a case for display, reading a large scan at reduced precision.

    :func:`~napari_mood.io.case.load_case`, a large scan read small (only shown):
    the scan of a volume the viewer shows multiscale (more than
    :data:`~napari_mood._napari.layers.PYRAMID_MIN_VOXELS` voxels) is float16, or its
    stored integers of up to 16 bits: 268 MB instead of 537 MB at 512^3.
    """
    return load_case(dataset, case, small_scan_above=layer_rules.PYRAMID_MIN_VOXELS, **options)


def _load_dataset_case(
    dataset: MoodDataset,
    case: str,
    preds: dict[str, Any],
    mode: ScoreMode,
    on_grid: OnGrid = None,
) -> CaseData:
    try:
        beside = methods_beside(dataset.root)
    except MoodInputError as exc:  # an empty methods/ folder: show the case without methods
        warnings.warn(f"{exc}; showing the case without methods", MoodInputWarning, stacklevel=2)
        beside = {}
    return _load_case(
        dataset, case, methods=_with_preds(beside, preds, case), mode=mode, on_grid=on_grid
    )


def _load_case_folder(
    layout: PathLayout, preds: dict[str, Any], mode: ScoreMode, on_grid: OnGrid = None
) -> CaseData:
    case = layout.path.name
    methods = _with_preds(methods_from_files(case, layout.maps), preds, case)
    return _load_case(
        None,
        case,
        methods=methods,
        scan_path=layout.scan,
        label_path=layout.label,
        mode=mode,
        on_grid=on_grid,
    )


def _load_methods_folder(
    layout: PathLayout, preds: dict[str, Any], mode: ScoreMode, on_grid: OnGrid = None
) -> CaseData:
    found = discover_methods(layout.path)
    cases = sorted({case for method in found.values() for case in method.pixel})
    if not cases:
        raise MoodInputError(
            layout.path, "its method folders hold no .nii.gz maps", "check the folder"
        )
    return _load_case(
        None, cases[0], methods=_with_preds(found, preds, cases[0]), mode=mode, on_grid=on_grid
    )


def _load_file(
    layout: PathLayout, preds: dict[str, Any], mode: ScoreMode, on_grid: OnGrid = None
) -> CaseData:
    path = layout.path
    in_case_folder = find_case_folder_layout(path.parent).kind == "case"
    case = path.parent.name if in_case_folder else path.name
    if layout.role == "scan" and path.parent.name == "toy":
        dataset = discover_dataset(path.parent.parent)
        if case in dataset.scans:
            return _load_dataset_case(dataset, case, preds, mode, on_grid)
    if layout.role == "gt":
        return _load_case(
            None,
            case,
            methods=_with_preds({}, preds, case),
            label_path=path,
            mode=mode,
            on_grid=on_grid,
        )
    if layout.role == "method":
        name = case_stem(path.name) if in_case_folder else path.parent.name
        methods = methods_from_files(case, {name: path})
        return _load_case(
            None, case, methods=_with_preds(methods, preds, case), mode=mode, on_grid=on_grid
        )
    return _load_case(
        None, case, methods=_with_preds({}, preds, case), scan_path=path, mode=mode, on_grid=on_grid
    )


def _is_label_file(path: Path) -> bool:
    return any("label" in p.name.lower() for p in (path.parent, path.parent.parent))


def _load_files(
    paths: list[Path], preds: dict[str, Any], mode: ScoreMode, on_grid: OnGrid = None
) -> CaseData:
    labels = [p for p in paths if _is_label_file(p)]
    others = [p for p in paths if not _is_label_file(p)]
    scan = others[0] if others else None
    case = (scan or labels[0]).name
    maps = _map_names(others[1:], taken={scan.parent} if scan else set())
    methods = _with_preds(methods_from_files(case, maps), preds, case)
    label = labels[0] if labels else None
    return _load_case(
        None, case, methods=methods, scan_path=scan, label_path=label, mode=mode, on_grid=on_grid
    )


def _map_names(paths: list[Path], *, taken: set[Path]) -> dict[str, Path]:
    folders = [p.parent for p in paths]
    names: dict[str, Path] = {}
    for path in paths:
        shared = path.parent in taken or folders.count(path.parent) > 1
        base = case_stem(path.name) if shared else path.parent.name
        name, k = base, 1
        while name in names:
            k += 1
            name = f"{base} ({k})"
        names[name] = path
    return names


def _warn(case: CaseData) -> None:
    for problem in case.problems:
        warnings.warn(str(problem), MoodInputWarning, stacklevel=3)


@dataclass(frozen=True)
class LoadedCase:
    """A case read for the viewer: its layer data tuples and what was wrong."""

    case: str
    layers: list[LayerData]
    problems: tuple[Problem, ...]


def load_case_layers(
    dataset: MoodDataset, case: str, methods: Mapping[str, MethodFolder]
) -> LoadedCase:
    """Read one case of a dataset (scan, GT, each method's map) as layer data (a worker job)."""
    data = _load_case(dataset, case, methods=methods)
    return LoadedCase(case, case_layer_data(data), data.problems)


def case_layer_data(
    case: CaseData, *, threshold: float = DEFAULT_THRESHOLD, made: Sequence[LayerData] = ()
) -> list[LayerData]:
    """Turn a loaded case into layer data tuples: scan, maps, then the ground truth on top.

    Every array is a display-ordered view (``case.transform.to_display``), never a copy,
    and every layer gets ``scale = case.transform.spacing``. Large volumes are shown
    multiscale (:func:`~napari_mood._napari.layers.display_levels`; level 0 is that view).
    The scan and GT tuples in ``made`` (from the same case's grid, see
    :func:`read_paths`) are returned as they are instead of being made again.

    Examples
    --------
    >>> layers = case_layer_data(load_case(ds, "brain_000.nii.gz"))  # doctest: +SKIP
    >>> [kind for _, _, kind in layers]  # doctest: +SKIP
    ['image', 'labels']
    """
    ready = {_role(layer): layer for layer in made}
    layers: list[LayerData] = []
    if case.scan is not None:
        layers.append(ready.get("scan") or _scan_layer(case))
    colors = method_colors(case.maps)
    for method in case.maps:
        layers.append(_method_layer(case, method, colors[method], threshold))
    if case.gt is not None:
        layers.append(ready.get("gt") or _gt_layer(case))
    return layers


def _role(layer: LayerData) -> str | None:
    return layer[1].get("metadata", {}).get(METADATA_KEY, {}).get("role")


def _grid_kwargs(case: CaseData) -> dict[str, Any]:
    ndim = len(case.transform.display_shape)
    kwargs: dict[str, Any] = {"scale": case.transform.spacing, "units": ("mm",) * ndim}
    if ndim == 3:
        kwargs["axis_labels"] = AXIS_LABELS_3D
    return kwargs


def _scan_layer(case: CaseData) -> LayerData:
    assert case.scan is not None
    meta = mood_metadata(
        "scan",
        case=case.name,
        path=case.scan.path,
        dataset=case.dataset,
        transform=case.transform.to_dict(),
    )
    kwargs = {
        "name": case.stem,
        "colormap": "gray",
        # level 0's finite range: napari would take a pyramid's from its mean-pooled coarsest
        # level (too narrow: bright structures saturate) and a large volume's from 3 planes
        "contrast_limits": list(display_range(case.scan.data)),
        "metadata": meta,
        **_grid_kwargs(case),
    }
    return display_levels(case.transform.to_display(case.scan.data), pool="mean"), kwargs, "image"


def _method_layer(case: CaseData, method: str, color: str, threshold: float) -> LayerData:
    meta = mood_metadata(
        "method",
        case=case.name,
        path=case.map_paths.get(method),
        dataset=case.dataset,
        method=method,
        color=color,
        transform=case.transform.to_dict(),
    )
    kwargs = {
        "name": method,
        "colormap": method_colormap(color),
        "contrast_limits": list(threshold_limits(threshold)),
        "blending": OVER_SCAN_BLENDING,
        "opacity": METHOD_OPACITY,
        "metadata": meta,
        **_grid_kwargs(case),
    }
    return display_levels(case.transform.to_display(case.maps[method]), pool="max"), kwargs, "image"


def _gt_layer(case: CaseData) -> LayerData:
    assert case.gt is not None
    mask = case.transform.to_display(case.gt)
    meta = mood_metadata(
        "gt",
        case=case.name,
        path=case.gt_path,
        dataset=case.dataset,
        transform=case.transform.to_dict(),
        focus=focus_voxel(mask) if mask.ndim == 3 else None,  # here, not in the GUI thread
    )
    kwargs = {
        "name": f"{case.stem} GT",
        "colormap": gt_colormap(),
        "opacity": GT_FILL_OPACITY,
        "blending": OVER_SCAN_BLENDING,
        "metadata": meta,
        **_grid_kwargs(case),
    }
    return display_levels(gt_label_data(mask), pool="max"), kwargs, "labels"
