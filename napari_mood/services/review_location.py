"""Where review files go: the default folder, one file per dataset, never among the data.

The default folder is :func:`default_review_dir` (``$NAPARI_MOOD_REVIEW_DIR`` when set),
one file per dataset (:func:`default_review_path`); a location inside the dataset folder,
or in the folder of a scan, ground truth or map file, is refused
(:func:`check_review_location`). What a review file holds is
:mod:`napari_mood.services.review_store`.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import platformdirs

from napari_mood.io.errors import MoodInputError

__all__ = [
    "ENV_REVIEW_DIR",
    "check_review_location",
    "default_review_dir",
    "default_review_path",
]

ENV_REVIEW_DIR = "NAPARI_MOOD_REVIEW_DIR"
APP_NAME = "napari-mood"
_LOCATION_HINT = "choose a folder outside the data, e.g. the default one"


def default_review_dir(environ: Mapping[str, str] | None = None) -> Path:
    r"""Return the folder review files go to by default.

    ``$NAPARI_MOOD_REVIEW_DIR`` when set; else ``reviews`` in napari-mood's user data folder,
    as :func:`platformdirs.user_data_dir` gives it: Linux ``$XDG_DATA_HOME/napari-mood``
    (``~/.local/share/napari-mood``), macOS ``~/Library/Application Support/napari-mood``,
    Windows ``%LOCALAPPDATA%\napari-mood`` (the Known Folder, not only the variable).

    Parameters
    ----------
    environ : mapping of str to str, optional
        Where ``$NAPARI_MOOD_REVIEW_DIR`` is read (default ``os.environ``); the user data
        folder is read from the process's own environment.

    Returns
    -------
    pathlib.Path
        The folder.

    Examples
    --------
    >>> default_review_dir({"NAPARI_MOOD_REVIEW_DIR": "/tmp/r"}).as_posix()
    '/tmp/r'
    >>> default_review_dir({}).parent.name, default_review_dir({}).name
    ('napari-mood', 'reviews')
    """
    env = os.environ if environ is None else environ
    if env.get(ENV_REVIEW_DIR):
        return Path(env[ENV_REVIEW_DIR]).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "reviews"


def default_review_path(dataset: Path | None, *, directory: Path | None = None) -> Path:
    """Return the default review file of a dataset: ``<name>-<hash of its path>.csv``.

    The hash keeps two datasets with the same folder name apart; without a dataset the
    file is ``reviews.csv``.

    Parameters
    ----------
    dataset : pathlib.Path or None
        The dataset reviewed.
    directory : pathlib.Path, optional
        The folder (default :func:`default_review_dir`).

    Returns
    -------
    pathlib.Path
        The file.

    Examples
    --------
    >>> default_review_path(None, directory=Path("/r")).as_posix()
    '/r/reviews.csv'
    >>> default_review_path(Path("/data/mood"), directory=Path("/r")).name.startswith("mood-")
    True
    """
    folder = default_review_dir() if directory is None else directory
    if dataset is None:
        return folder / "reviews.csv"
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset.name) or "dataset"
    digest = hashlib.sha1(str(dataset.resolve()).encode(), usedforsecurity=False).hexdigest()[:8]
    return folder / f"{name}-{digest}.csv"


def check_review_location(
    path: str | os.PathLike[str],
    *,
    datasets: Iterable[str | os.PathLike[str] | None] = (),
    files: Iterable[str | os.PathLike[str] | None] = (),
) -> Path:
    """Return ``path`` resolved, refusing a location among the input data.

    Refused: anywhere inside a dataset folder, and the folder of any input file (scan,
    ground truth, score map). Sub-folders of an input file's folder are allowed, so that
    opening a file from one's home folder does not forbid the user data folder.

    Parameters
    ----------
    path : str or os.PathLike
        The review file asked for.
    datasets : iterable of path or None
        The dataset folders open.
    files : iterable of path or None
        The input files open.

    Returns
    -------
    pathlib.Path
        The resolved path.

    Raises
    ------
    MoodInputError
        Naming the input folder and what to do instead.

    Examples
    --------
    >>> check_review_location("/data/mood/notes/review.csv", datasets=["/data/mood"])
    Traceback (most recent call last):
    ...
    napari_mood.io.errors.MoodInputError: /data/mood/notes/review.csv: is inside the dataset folder /data/mood (choose a folder outside the data, e.g. the default one)
    >>> check_review_location("/home/ana/review.csv", files=["/home/ana/scan.nii.gz"])
    Traceback (most recent call last):
    ...
    napari_mood.io.errors.MoodInputError: /home/ana/review.csv: is in the folder of the input file /home/ana/scan.nii.gz (choose a folder outside the data, e.g. the default one)
    """
    target = Path(path).expanduser().resolve()
    for folder in (Path(d).expanduser().resolve() for d in datasets if d is not None):
        if target.is_relative_to(folder):
            raise MoodInputError(target, f"is inside the dataset folder {folder}", _LOCATION_HINT)
    for file in (Path(f).expanduser().resolve() for f in files if f is not None):
        if target.parent == file.parent:
            problem = f"is in the folder of the input file {file}"
            raise MoodInputError(target, problem, _LOCATION_HINT)
    return target
