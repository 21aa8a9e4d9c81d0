"""What the cache folder holds, and emptying it.

Everything the toolkit keeps between processes lives in one folder,
:func:`~bondgraph.files.cache_dir` (``~/.cache/bondgraph``, or ``$BONDGRAPH_CACHE``):
compiled models and their C sources, derived equations, models kept by a machine's key,
start poses and states, kept figures and layouts, body outlines. Each entry is named
``<kind>_<hash>.<ext>``; a missing entry is only made again (a cold build, a solve, a
drawing), so any entry may be deleted at any time — except while a process is writing
it: files being written (hidden temporaries, ``*.tmp``) are left alone unless they are
more than an hour old (a writer that died). The folder grows with every model variant
built (every parameter value that changes a law, every machine file); nothing is
deleted on its own.

:func:`cache_usage` counts the entries by kind; :func:`clear_cache` deletes them, all or
those written more than some days ago (an entry read again is not rewritten, so a model
in daily use but built long ago is deleted too and built again once).
``hydrobond cache`` shows the same and ``hydrobond cache --clear [--older-than DAYS]``
deletes.

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()         # (without it: the toolkit's own cache folder)
>>> for name in ("bg_1a2b3c4d5e6f.so", "bg_1a2b3c4d5e6f.c", "eq_0f0f0f0f0f0f.pkl"):
...     _ = open(os.path.join(folder, name), "wb").write(b"x" * 1000)
>>> print(cache_usage(folder))                          # doctest: +ELLIPSIS
cache folder /...: 3 files, 3.0 kB
  bg         compiled models (C source and library)       2 files    2.0 kB
  eq         derived equations                            1 file     1.0 kB
>>> clear_cache(folder=folder)
(3, 3000)
>>> cache_usage(folder).files
0
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ParameterError

__all__ = ["CacheUsage", "cache_usage", "clear_cache", "size_text"]

#: what each kind of entry is (a kind not listed is shown by its prefix)
KINDS = {
    "bg": "compiled models (C source and library)",
    "bgsel": "compiled output selections",
    "sel": "output selections",
    "bgn": "the native driver",
    "bg_many": "batched evaluation",
    "bg_raster": "the working range's raster",
    "eq": "derived equations",
    "model": "models kept by a machine's key",
    "start": "start poses and start states",
    "figure": "kept figures (bond graph)",
    "layout": "kept bond-graph page layouts",
    "hull": "body outlines",
    "unit": "unit factors",
}
#: a file being written (tempfile.mkstemp's hidden name, a compiler's partial output)
_WRITING = re.compile(r"^\.|\.tmp$")
#: a temporary older than this (s) was left by a writer that died
_STALE = 3600.0
_ENTRY = re.compile(r"^(?P<kind>.+?)_[0-9a-f]{8,}")


def _kind(name: str) -> str:
    m = _ENTRY.match(name)
    if m:
        return m["kind"]
    stem = name.split(".")[0]
    return stem.split("_")[0] if stem else name


def size_text(n: int) -> str:
    """A size in bytes as people read it (decimal units).

    Parameters
    ----------
    n : int
        Bytes.

    Returns
    -------
    str

    Examples
    --------
    >>> size_text(950), size_text(2000), size_text(3_400_000)
    ('950 B', '2.0 kB', '3.4 MB')
    """
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


@dataclass(frozen=True)
class CacheUsage:
    """The entries of the cache folder by kind.

    Attributes
    ----------
    folder : pathlib.Path
    kinds : dict
        Kind → ``(files, bytes)``, the largest first.

    Examples
    --------
    >>> from pathlib import Path
    >>> u = CacheUsage(Path("/c"), {"eq": (2, 3000), "zz": (1, 10)})
    >>> u.files, u.bytes
    (3, 3010)
    >>> print(u)
    cache folder /c: 3 files, 3.0 kB
      eq         derived equations                            2 files    3.0 kB
      zz         (other)                                      1 file       10 B
    """

    folder: Path
    kinds: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def files(self) -> int:
        """How many entries."""
        return sum(n for n, _ in self.kinds.values())

    @property
    def bytes(self) -> int:
        """Their total size (bytes)."""
        return sum(b for _, b in self.kinds.values())

    def __str__(self) -> str:
        lines = [f"cache folder {self.folder}: {self.files} file{'s' * (self.files != 1)}, {size_text(self.bytes)}"]
        for k, (n, b) in self.kinds.items():
            lines.append(f"  {k:<10} {KINDS.get(k, '(other)'):<40} {n:>5} file{'s' if n != 1 else ' '} "
                         f"{size_text(b):>9}")
        return "\n".join(lines)


def _entries(folder: Path, now: float) -> list[tuple[Path, os.stat_result]]:
    """The folder's files that are entries (a temporary being written is not)."""
    out = []
    if not folder.is_dir():
        return out
    for p in folder.iterdir():
        try:
            st = p.stat()
        except OSError:      # deleted meanwhile by another process
            continue
        if not p.is_file():
            continue
        if _WRITING.search(p.name) and now - st.st_mtime < _STALE:
            continue
        out.append((p, st))
    return out


def cache_usage(folder: str | os.PathLike | None = None) -> CacheUsage:
    """Count the cache folder's entries by kind.

    Parameters
    ----------
    folder : path, optional
        Default: :func:`~bondgraph.files.cache_dir`.

    Returns
    -------
    CacheUsage

    Examples
    --------
    See the module.
    """
    from .files import cache_dir

    root = Path(folder) if folder is not None else cache_dir()
    kinds: dict[str, list[int]] = {}
    for p, st in _entries(root, time.time()):
        c = kinds.setdefault(_kind(p.name), [0, 0])
        c[0] += 1
        c[1] += st.st_size
    ordered = dict(sorted(((k, (n, b)) for k, (n, b) in kinds.items()), key=lambda kv: -kv[1][1]))
    return CacheUsage(root, ordered)


def clear_cache(older_than: float | None = None, *, folder: str | os.PathLike | None = None) -> tuple[int, int]:
    """Delete the cache folder's entries: all, or those written more than ``older_than``
    days ago. Files being written by another process are left (see the module).

    Parameters
    ----------
    older_than : float, optional
        Days; ``None`` deletes every entry.
    folder : path, optional
        Default: :func:`~bondgraph.files.cache_dir`.

    Returns
    -------
    tuple of int
        ``(files, bytes)`` deleted.

    Raises
    ------
    ParameterError
        ``older_than`` negative or not a finite number.

    Examples
    --------
    >>> import os, tempfile, time
    >>> folder = tempfile.mkdtemp()
    >>> for name, age_days in (("eq_aaaaaaaaaaaa.pkl", 40), ("eq_bbbbbbbbbbbb.pkl", 1)):
    ...     path = os.path.join(folder, name)
    ...     _ = open(path, "wb").write(b"x" * 10)
    ...     t = time.time() - age_days * 86400
    ...     os.utime(path, (t, t))
    >>> clear_cache(30, folder=folder)
    (1, 10)
    >>> sorted(os.listdir(folder))
    ['eq_bbbbbbbbbbbb.pkl']
    >>> clear_cache(-1, folder=folder)
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: clear_cache: older_than = -1: expected a number of days ≥ 0 (or None for every entry)
    """
    import math

    from .files import cache_dir

    if older_than is not None and (isinstance(older_than, bool) or not isinstance(older_than, (int, float))
                                   or not math.isfinite(older_than) or older_than < 0):
        raise ParameterError(f"clear_cache: older_than = {older_than!r}: expected a number of days ≥ 0 "
                             "(or None for every entry)")
    root = Path(folder) if folder is not None else cache_dir()
    now = time.time()
    files = size = 0
    for p, st in _entries(root, now):
        if older_than is not None and now - st.st_mtime <= older_than * 86400.0:
            continue
        try:
            p.unlink()
        except FileNotFoundError:      # deleted meanwhile by another process
            continue
        files += 1
        size += st.st_size
    return files, size
