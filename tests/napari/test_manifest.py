"""The npe2 manifest: what napari-mood contributes, and that it points at real callables."""

from __future__ import annotations

import inspect
from importlib import import_module
from pathlib import Path

import pytest
from napari.errors import MultipleReaderError
from npe2 import PluginManifest

from napari_mood._napari.sample_data import SAMPLE_CASES
from napari_mood.io.mood import case_stem, discover_dataset
from napari_mood.services.datasets import sample_data_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def manifest() -> PluginManifest:
    return PluginManifest.from_file(ROOT / "napari_mood" / "napari.yaml")


def test_names(manifest: PluginManifest):
    assert manifest.name == "napari-mood"
    # napari's "choose reader" dialog for a folder lists readers sorted by display name and
    # preselects the first: ours must come before "napari builtins" (which fails on them)
    assert manifest.display_name == "MOOD anomaly detection"
    assert sorted([manifest.display_name, "napari builtins"])[0] == manifest.display_name


def test_reader_claims_nifti_and_folders_only(manifest: PluginManifest):
    mood, boxes = manifest.contributions.readers
    assert mood.command == "napari-mood.get_reader"
    assert mood.filename_patterns == ["*.nii", "*.nii.gz"]
    assert mood.accepts_directories
    assert boxes.command == "napari-mood.get_box_reader"  # NOVA-style folders only
    assert boxes.filename_patterns == [] and boxes.accepts_directories


def test_one_sample_per_case(manifest: PluginManifest):
    keys = [sample.key for sample in manifest.contributions.sample_data]
    assert tuple(keys) == SAMPLE_CASES
    if (sample_data_dir() / "toy").is_dir():
        assert keys == [case_stem(c) for c in discover_dataset(sample_data_dir()).cases]


def test_every_command_resolves(manifest: PluginManifest):
    for command in manifest.contributions.commands:
        module, name = command.python_name.split(":")
        assert callable(getattr(import_module(module), name)), command.id


def test_napari_reads_a_folder_with_napari_mood_only_when_asked(make_napari_viewer):
    # npe2 matches a folder to every reader that accepts folders, whatever its filename
    # patterns, and viewer.open's default reader is napari's own (which fails on a MOOD
    # folder, at LICENSE_MNI.txt): the README says to pass plugin="napari-mood"
    viewer = make_napari_viewer()
    folder = str(sample_data_dir())
    assert inspect.signature(viewer.open).parameters["plugin"].default == "napari"
    with pytest.raises(MultipleReaderError):
        viewer.open(folder, plugin=None)  # the GUI asks in a dialog here (napari-mood first)
    assert viewer.open(folder, plugin="napari-mood")
