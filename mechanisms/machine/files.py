"""Output files written atomically with normal permissions, and output folders checked first.

Every output (CSV, PNG, GIF, report) is written to a hidden temporary file in the
target folder and renamed over the target only when complete, so an interrupted
run never leaves a truncated file; the temporary is removed on any failure. The
file gets the permissions a plain ``open()`` would give (``0666`` less the umask,
usually ``0644``), not the ``0600`` of :func:`tempfile.mkstemp`.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> p = atomic_write(os.path.join(d, "a.txt"), "hello\\n")
>>> open(p).read(), oct(os.stat(p).st_mode & 0o777) == oct(0o666 & ~current_umask())
('hello\\n', True)
>>> check_output_dir(p)
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: --out ...a.txt: is a file, expected a folder (it is created if missing)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

from bondgraph.errors import ParameterError

__all__ = ["atomic_write", "atomic_path", "check_output_dir", "current_umask"]


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path next to ``path``; renamed to ``path`` when the block succeeds.

    Use it for writers that want a file name (``fig.savefig(tmp)``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
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
    """Write text or bytes to ``path`` atomically; returns the path."""
    with atomic_path(path) as tmp:
        if isinstance(data, str):
            tmp.write_text(data)
        else:
            tmp.write_bytes(data)
    return Path(path)


def check_output_dir(out: str | os.PathLike, option: str = "--out") -> Path:
    """Make sure results can be written to folder ``out`` *before* a run.

    Raises
    ------
    ParameterError
        ``out`` is a file, or cannot be created or written to (permissions, read-only).
    """
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise ParameterError(f"{option} {p}: is a file, expected a folder (it is created if missing)")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".write-check.")
        os.close(fd)
        os.unlink(probe)
    except PermissionError:
        raise ParameterError(f"{option} {p}: cannot write there (permission denied)") from None
    except OSError as exc:
        raise ParameterError(f"{option} {p}: cannot write there ({exc.strerror or exc})") from None
    return p
