"""One BLAS thread while an analysis runs.

The analyses do many small linear-algebra steps (batched 2 × 2 … 8 × 8 Newton solves, the
optimiser's updates). An OpenBLAS pool of several threads wakes for each of them and, on a
machine whose cores are busy, costs more than the step itself (measured: a 9-point
tool-force sweep 5.2 s with the default pool, 2.2 s with one thread; scipy's L-BFGS-B
alone 2.6 ms per iteration instead of µs). :func:`single_blas_thread` limits every BLAS
pool of the process (numpy's and scipy's) to one thread for the duration, with
threadpoolctl, and restores them after.

Examples
--------
>>> with single_blas_thread():
...     pass
"""

from __future__ import annotations

import contextlib
import functools

__all__ = ["single_blas_thread", "one_blas_thread"]

_CONTROLLER: list = []


def single_blas_thread():
    """A context in which the BLAS thread pools run one thread.

    Returns
    -------
    context manager
        A no-op without threadpoolctl (only slower).

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> with single_blas_thread():
    ...     inside = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
    >>> inside <= {1}
    True
    """
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a declared dependency; without it only slower
        return contextlib.nullcontext()
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def one_blas_thread(fn):
    """Decorator: run ``fn`` in :func:`single_blas_thread`.

    Parameters
    ----------
    fn

    Examples
    --------
    >>> import numpy as np
    >>> @one_blas_thread
    ... def solve(a, b):
    ...     return np.linalg.solve(a, b)
    >>> solve(np.eye(2) * 2, np.ones(2))
    array([0.5, 0.5])
    """
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with single_blas_thread():
            return fn(*args, **kwargs)
    return wrapper
