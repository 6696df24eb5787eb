"""A problem found in an input: what is wrong, where, and what to do (pure data).

The readers and checks of :mod:`napari_mood.io.validate` return them; evaluation results
(:mod:`napari_mood.core.results`) carry them to every front end.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from napari_mood.core.wording import in_words

__all__ = ["Problem", "ProblemKind", "Severity"]

ProblemKind = Literal[
    "missing",
    "extra",
    "shape",
    "affine",
    "nan",
    "inf",
    "range",
    "nonbinary",
    "unreadable",
    "empty",
    "ignored",
]
Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input.

    Attributes
    ----------
    kind : str
        Class of problem (``missing``, ``shape``, ``affine``, ``nan``, ...).
    severity : {"error", "warning"}
        ``error``: the file cannot be scored as it is (the evaluator applies the policy);
        ``warning``: it is scored, but a person should look.
    path : Path or None
        The file or folder concerned.
    message : str
        What is wrong, with numbers.
    hint : str
        What to do about it; an option it names is marked with
        :func:`~napari_mood.core.wording.option` (``str()`` says it in words).
    case, method : str or None
        Where it belongs.
    """

    kind: ProblemKind
    severity: Severity
    path: Path | None
    message: str
    hint: str = ""
    case: str | None = None
    method: str | None = None

    def __str__(self) -> str:
        """Return ``FILE: message -> hint``, options in words (what a panel or a record shows)."""
        return in_words(self.marked())

    def marked(self) -> str:
        """Return the one-line form with its option marks (the command line shows the flags)."""
        where = f"{self.path}: " if self.path is not None else ""
        hint = f" -> {self.hint}" if self.hint else ""
        return f"{where}{self.message}{hint}"
