"""One OpenBLAS thread for the command line, unless the user chose a number.

numpy's and scipy's wheels each bundle OpenBLAS, which starts a pool of threads (one per
core) as the library loads; the threads then wait busily for work, about a tenth of a
second, before they sleep. A command loads scipy's copy while it builds the machine (the
compiled model takes its LAPACK from it), so that wait falls on the run that follows; and
a command's linear algebra is the model's blocks of a few rows and the analyses' small
solves (which run in one thread anyway, :mod:`mechanisms.analysis.threads`), which a pool
never speeds up. On a machine whose other core is busy, the waiting threads take the run's
core: the excavator's 10 s valves run, start state and integration as ``hydrobond run``
reports them, took 0.059 s beside one busy core with the pools and 0.029 s without
(``benchmarks/cli_run.py``; 0.029 s either way on an idle machine).

A command started as a program (``hydrobond``, ``excavator``, ``python -m
mechanisms.machine``) therefore sets ``OPENBLAS_NUM_THREADS=1`` before numpy is imported,
unless you set the pool's size yourself (``OPENBLAS_NUM_THREADS``, ``GOTO_NUM_THREADS`` or
``OMP_NUM_THREADS``, which OpenBLAS reads in that order: yours wins) — the processes it
starts (a sweep's workers, the output stage's) inherit it. A command called in-process (:func:`~.cli.main` with
arguments, from a test or a notebook) changes nothing: the interpreter's libraries are
already loaded, and its environment is yours.

Examples
--------
In an interpreter that has loaded numpy it is too late, and nothing is changed:

>>> import numpy
>>> one_blas_thread_for_commands()
False
"""

from __future__ import annotations

import os
import sys

__all__ = ["one_blas_thread_for_commands", "VARIABLE", "USER_VARIABLES"]

#: the environment variable set: OpenBLAS reads it for its pool's size as it loads
VARIABLE = "OPENBLAS_NUM_THREADS"
#: the variables OpenBLAS reads for that size, in its order: any one set is the user's choice
USER_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def one_blas_thread_for_commands() -> bool:
    """Set :data:`VARIABLE` to 1 for this process if numpy is not loaded yet and none of
    :data:`USER_VARIABLES` is set.

    Returns
    -------
    bool
        Whether it was set.
    """
    if "numpy" in sys.modules or any(v in os.environ for v in USER_VARIABLES):
        return False
    os.environ[VARIABLE] = "1"
    return True
