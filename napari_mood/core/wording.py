"""An option named twice in one message: as the command line spells it and in words.

A message that tells what to change is made once, below every front end, and read by
all of them: ``str()`` of an error, a warning or a :class:`~napari_mood.core.problems.Problem`
says the option in words (what a panel, a notebook, a results file or a cache holds); the
command line alone swaps in its flag (:func:`with_flags`). The rules of ``core`` name no
option at all; the readers and jobs above it mark theirs with :func:`option`.
"""

from __future__ import annotations

import re

__all__ = ["in_words", "option", "with_flags"]

_OPTION = re.compile(r"\{\{([^|{}]+)\|([^{}]*)\}\}")


def option(flag: str, words: str) -> str:
    """Name an option in a message both ways: its command-line spelling and in words.

    Parameters
    ----------
    flag : str
        The command line's spelling, with its value's placeholder (``"--toy DATASET"``).
    words : str
        The same in words, for a panel or a notebook (``"a toy dataset"``).

    Returns
    -------
    str
        A marked phrase that :func:`in_words` and :func:`with_flags` render.

    Examples
    --------
    >>> hint = f"give {option('--reader NAME', 'one reader')} to score"
    >>> in_words(hint), with_flags(hint)
    ('give one reader to score', 'give --reader NAME to score')
    """
    return f"{{{{{flag}|{words}}}}}"


def in_words(text: str) -> str:
    """Return ``text`` with each :func:`option` said in words."""
    return _OPTION.sub(lambda match: match[2], text)


def with_flags(text: str) -> str:
    """Return ``text`` with each :func:`option` spelled as its command-line flag."""
    return _OPTION.sub(lambda match: match[1], text)
