"""Formats and datasets: the only package that reads or writes input files.

NIfTI (the one reader, :mod:`.nifti`, streamed into pages by :mod:`.streamed`), MOOD dataset
folders and sample-task text files (:mod:`.mood`), methods' output folders (:mod:`.methods`),
NOVA-style box datasets (:mod:`.boxes`), JSON
inputs, written case files (:mod:`.writers`), input validation (:mod:`.validate`), the
viewer's case assembly (:mod:`.case`) and the input errors and warnings (:mod:`.errors`).
Rules on the arrays read live in :mod:`napari_mood.core`.
"""
