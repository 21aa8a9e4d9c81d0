"""Files written atomically with normal permissions.

A file is written to a hidden temporary next to its target and renamed over the
target only when complete, so an interrupted write never leaves a truncated file;
the temporary is removed on any failure. The file gets the permissions a plain
``open()`` would give (``0666`` less the umask, usually ``0644``), not the ``0600``
of :func:`tempfile.mkstemp`. A target that cannot be written is a
:class:`~bondgraph.errors.ParameterError` naming it.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> p = atomic_write(os.path.join(d, "a.txt"), "hello\\n")
>>> open(p).read(), oct(os.stat(p).st_mode & 0o777) == oct(0o666 & ~current_umask())
('hello\\n', True)
>>> atomic_write(os.path.join(p, "b.txt"), "x")
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: ...a.txt/b.txt: cannot be written (...)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

from .errors import ParameterError

__all__ = ["atomic_write", "atomic_path", "current_umask", "cache_dir"]


def current_umask() -> int:
    """The process umask (read without changing it for long).

    Returns
    -------
    int

    Examples
    --------
    >>> 0 <= current_umask() <= 0o777
    True
    """
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path next to ``path``; renamed to ``path`` when the block succeeds.

    Use it for writers that want a file name (``fig.savefig(tmp)``).

    Parameters
    ----------
    path : str or path-like
        The target; its folder is created if missing.

    Yields
    ------
    pathlib.Path
        The temporary to write to (same folder and suffix).

    Raises
    ------
    ParameterError
        The folder cannot be created or written to, or ``path`` is a folder.

    Examples
    --------
    A failure inside the block leaves no file behind:

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> target = os.path.join(d, "table.csv")
    >>> try:
    ...     with atomic_path(target) as tmp:
    ...         _ = tmp.write_text("half a ta")
    ...         raise KeyboardInterrupt
    ... except KeyboardInterrupt:
    ...     pass
    >>> os.listdir(d)
    []
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("a,b")
    >>> os.listdir(d)
    ['table.csv']
    """
    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"{path}: is a folder, expected a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    except OSError as exc:
        raise ParameterError(f"{path}: cannot be written ({exc.strerror or exc})") from None
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def atomic_write(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write text or bytes to ``path`` atomically; returns the path.

    Parameters
    ----------
    path : str or path-like
    data : str or bytes

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ParameterError
        As :func:`atomic_path`.

    Examples
    --------
    >>> import os, tempfile
    >>> p = atomic_write(os.path.join(tempfile.mkdtemp(), "sub", "x.bin"), b"abc")
    >>> p.read_bytes(), p.parent.name
    (b'abc', 'sub')
    """
    with atomic_path(path) as tmp:
        if isinstance(data, str):
            tmp.write_text(data)
        else:
            tmp.write_bytes(data)
    return Path(path)


def cache_dir() -> Path:
    """Directory of compiled models (``$BONDGRAPH_CACHE`` or ``~/.cache/bondgraph``).

    Created if missing. Deleting it only costs the next builds their compile time.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import os
    >>> d = cache_dir()
    >>> d.is_dir(), (str(d) == os.environ["BONDGRAPH_CACHE"]) if "BONDGRAPH_CACHE" in os.environ else d.name == "bondgraph"
    (True, True)
    """
    root = os.environ.get("BONDGRAPH_CACHE")
    p = Path(root) if root else Path.home() / ".cache" / "bondgraph"
    p.mkdir(parents=True, exist_ok=True)
    return p
