"""Tests of the napari wing. Viewer tests use real napari viewers
(``make_napari_viewer(show=True)``) under xvfb.

Every test here is marked ``gui`` (by ``tests/conftest.py``: it needs napari, so
``-m "not gui"`` leaves it out). Those that use a viewer fixture or say ``@pytest.mark.gui``
are skipped when no display is available (run them with ``xvfb-run -a python -m pytest
tests/napari``); the others (reader, manifest, session on a headless ``ViewerModel``) run
anywhere.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import HEADLESS_GUI, write_nifti

HERE = Path(__file__).parent
# Warnings napari/Qt emit about the environment, not about napari-mood.
ENVIRONMENT_WARNINGS: tuple[str, ...] = ()  # none: napari on Qt6 warns about nothing here
SHAPE = (12, 14, 10)
AFFINE = np.diag([2.0, 1.5, 3.0, 1.0])
LESION = (slice(6, 9), slice(5, 8), slice(3, 6))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # tests/conftest.py (run first) marks every test here `gui`; a display is needed only by
    # those with a viewer fixture or an explicit mark
    no_display = not os.environ.get("DISPLAY")
    for item in items:
        if HERE not in Path(str(item.fspath)).parents or item.stash.get(HEADLESS_GUI, True):
            continue
        for spec in ENVIRONMENT_WARNINGS:
            item.add_marker(pytest.mark.filterwarnings(spec))
        if no_display:
            item.add_marker(pytest.mark.skip(reason="needs a display: run under xvfb-run -a"))


#: The shortest bound of any wait on an event. A wait ends when its event comes; the bound only
#: stops a hung test. The bounds written in the tests (3-60 s) were guesses that a loaded
#: machine outran (at load 10 on 2 cores a case took over 30 s to fill its planes), so a
#: test must never fail for being slow: every qtbot wait is given at least this long.
PATIENCE_MS = 600_000
QTBOT_WAITS = (
    "waitUntil",
    "waitSignal",
    "waitSignals",
    "waitCallback",
    "waitExposed",
    "waitActive",
)


def _patient(wait: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(wait)
    def patient_wait(*args: Any, **kwargs: Any) -> Any:
        # a wait told not to raise lets time pass on purpose: its bound is the test's own
        if kwargs.get("raising", True) is not False:
            kwargs["timeout"] = max(kwargs.get("timeout") or 0, PATIENCE_MS)
        return wait(*args, **kwargs)

    return patient_wait


@pytest.fixture(autouse=True, scope="session")
def _patient_waits() -> Iterator[None]:
    """Every qtbot wait outlasts a loaded machine (see ``PATIENCE_MS``)."""
    from pytestqt.qtbot import QtBot

    patch = pytest.MonkeyPatch()
    for name in QTBOT_WAITS:
        patch.setattr(QtBot, name, _patient(getattr(QtBot, name)))
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _own_settings(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each test has its own QSettings (remembered reviewer, convention), never the machine's:
    a name typed in a real session made a test fail, and tests overwrote the user's."""
    from qtpy.QtCore import QSettings

    folder = tmp_path_factory.mktemp("settings")
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(folder))


@pytest.fixture
def mood_dataset(tmp_path: Path) -> Path:
    """A tiny MOOD dataset: a healthy and an anomalous case, methods ``a`` and ``b``."""
    root = tmp_path / "data"
    rng = np.random.default_rng(0)
    for index in range(2):
        case = f"case_{index}.nii.gz"
        mask = np.zeros(SHAPE, np.uint8)
        if index:
            mask[LESION] = 1
        write_nifti(root / "toy" / case, rng.random(SHAPE, dtype=np.float32), AFFINE)
        write_nifti(root / "toy_label" / "pixel" / case, mask, AFFINE)
        for method, scale in (("a", 0.9), ("b", 0.6)):
            write_nifti(root / "methods" / method / case, (mask * scale).astype(np.float32), AFFINE)
    return root


@pytest.fixture
def notes() -> list[tuple[str, str]]:
    """(severity, message) of every napari notification shown during the test."""
    from napari.utils.notifications import notification_manager

    seen: list[tuple[str, str]] = []

    def record(notification) -> None:
        seen.append((str(notification.severity), notification.message))

    notification_manager.notification_ready.connect(record)
    yield seen
    notification_manager.notification_ready.disconnect(record)


@pytest.fixture
def model_session(mood_dataset: Path):
    """A headless ViewerModel showing ``mood_dataset``'s case_1 in its session."""
    from napari.components import ViewerModel
    from napari.layers import Layer

    from napari_mood._napari.reader import read_dataset_case
    from napari_mood._napari.session import get_session

    viewer = ViewerModel()
    session = get_session(viewer)
    for data in read_dataset_case(mood_dataset, "case_1.nii.gz"):
        viewer.add_layer(Layer.create(*data))
    return viewer, session


@pytest.fixture
def figure_requests(monkeypatch: pytest.MonkeyPatch) -> list:
    """Each figure request a panel sends to the figure job (the figure is still written)."""
    import napari_mood.services.figures as figures

    sent: list = []
    write = figures.write_view_figure

    def recording(request):
        sent.append(request)
        return write(request)

    monkeypatch.setattr(figures, "write_view_figure", recording)
    return sent
