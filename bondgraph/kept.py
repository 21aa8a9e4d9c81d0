"""Values kept between processes in the cache folder, under the whole key they were made for.

A value that costs time to make and depends only on what its key names (a drawing's
layout, a finished image) is stored in :func:`~bondgraph.files.cache_dir` by
:func:`keep` and read back by :func:`kept`. The file is named by a hash of the key; the
whole key is stored with the value and compared on reading, so two keys never share an
entry. A missing, unreadable, foreign or truncated entry reads as ``None`` (a miss: the
caller makes the value again), and an entry that cannot be written only costs the next
process that work. The caller checks what it reads as far as it can (a layout names its
nodes, an image has its end marker).

Examples
--------
>>> keep("doc", "kept doc: the answer", {"a": 42})
>>> kept("doc", "kept doc: the answer")
{'a': 42}
>>> kept("doc", "kept doc: never stored") is None
True
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Any

__all__ = ["keep", "kept", "kept_file"]


def kept_file(kind: str, key: str) -> Path:
    """The file of the value of ``kind`` kept under ``key`` (it may not exist).

    Parameters
    ----------
    kind : str
        A short name for what is kept (``"figure"``, ``"layout"``): the file's prefix.
    key : str

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> kept_file("layout", "a").name.startswith("layout_")
    True
    >>> kept_file("layout", "a") != kept_file("layout", "b")
    True
    """
    from .files import cache_dir

    return cache_dir() / f"{kind}_{hashlib.sha256(key.encode()).hexdigest()[:32]}.pkl"


def keep(kind: str, key: str, value: Any) -> None:
    """Store ``value`` under ``key`` (atomically; a failure only costs speed).

    Parameters
    ----------
    kind : str
    key : str
    value : picklable

    Examples
    --------
    >>> keep("doc", "kept doc: a list", [1, 2])
    >>> kept_file("doc", "kept doc: a list").exists()
    True
    """
    from .errors import BondGraphError
    from .files import atomic_write

    try:
        atomic_write(kept_file(kind, key), pickle.dumps({"key": key, "value": value}))
    except (OSError, BondGraphError, pickle.PicklingError, TypeError, AttributeError):
        pass


def kept(kind: str, key: str) -> Any:
    """The value stored under exactly ``key``, or ``None``.

    Parameters
    ----------
    kind : str
    key : str

    Returns
    -------
    object or None

    Examples
    --------
    >>> keep("doc", "kept doc: x", 1.5)
    >>> kept("doc", "kept doc: x"), kept("figure", "kept doc: x")
    (1.5, None)
    """
    try:
        entry = pickle.loads(kept_file(kind, key).read_bytes())
        return entry["value"] if entry.get("key") == key else None
    except Exception:   # noqa: BLE001 - missing, unreadable or foreign: a miss
        return None
