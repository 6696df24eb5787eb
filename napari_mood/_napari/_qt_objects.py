"""Whether a Qt object still exists behind its Python wrapper."""

from __future__ import annotations

from typing import Any

__all__ = ["deleted"]


def deleted(obj: Any) -> bool:
    """Return whether the C++ object behind a Qt wrapper is gone (deleted with its parent).

    Parameters
    ----------
    obj : QObject
        Any Qt wrapper.

    Returns
    -------
    bool
        True once Qt deleted the object: any call into it would raise ``RuntimeError``.
    """
    try:
        obj.objectName()
    except RuntimeError:  # "wrapped C/C++ object ... has been deleted"
        return True
    return False
