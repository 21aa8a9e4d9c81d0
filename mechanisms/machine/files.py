"""Output files written atomically (:mod:`bondgraph.files`), and output folders checked first.

:func:`atomic_write`, :func:`atomic_path` and :func:`current_umask` are those of
:mod:`bondgraph.files` (its docstring shows them at work); what the machine layer adds is
:func:`check_output_dir`, which refuses a folder results cannot be written to *before* a run.

Examples
--------
>>> import os, tempfile
>>> p = atomic_write(os.path.join(tempfile.mkdtemp(), "a.txt"), "hello\\n")
>>> check_output_dir(p)
Traceback (most recent call last):
...
bondgraph.errors.ParameterError: --out ...a.txt: is a file, expected a folder (it is created if missing)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from bondgraph.errors import ParameterError
from bondgraph.files import atomic_path, atomic_write, current_umask

__all__ = ["atomic_write", "atomic_path", "check_output_dir", "current_umask"]


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
