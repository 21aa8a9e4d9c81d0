"""Local worker processes kept between the sweeps of one interpreter.

A sweep on local processes (:func:`~.sweeps.sweep` with ``processes`` ≥ 2) forks its
workers from the interpreter, so they start with what it has built (the study of the
machine, its compiled models). Starting them costs a fork per worker and, in each, the
first touch of the pages it shares with the parent; a sweep of a second or two pays
that every time. :func:`local_workers` keeps the pool once started and hands it to the
next sweep of the same machine file (its path, overrides and text) and worker count,
as a Dask worker keeps its study: the workers keep theirs.

The pool is started again when the machine or the number of workers changes, and shut
down at the interpreter's exit (:mod:`atexit`) or by :func:`close_workers`. A sweep that
ends by an exception — Ctrl-C (:class:`KeyboardInterrupt`) included — sets the workers'
stop flag (each stops at its next point or batch of points; the workers ignore SIGINT
themselves, so that a terminal's Ctrl-C reaches the sweep, not them half-way through a
chunk), cancels what has not started and gives the pool up: the next sweep starts a
fresh one. Two sweeps at once (from two threads) do not share it: the second gets a
pool of its own, shut down at its end. While kept, the pool has two idle threads in the
interpreter (its manager and its queue's feeder), as any live ``ProcessPoolExecutor``.

Where the system lets a process choose its cores (Linux) and the pool has a worker for
every core the interpreter may use, each worker keeps to a core of its own
(:func:`worker_cores`). A worker runs a sweep's points side by side in threads that take
turns (:mod:`.lockstep`); spread over the cores, each turn would wait for the next thread
to be woken on a core the other worker is using (measured on two cores: a tenth of each
worker's time, the two-process sweep 1.75× the serial one instead of 1.9×). A pool with
fewer workers than cores is left to the system: there a hand-over finds a free core, and
pools of two interpreters pinned to the same first cores would share them while the others
idle.

Examples
--------
>>> with local_workers(2, key=("doctest",)) as (pool, stop):
...     sorted(pool.map(abs, [-2, 1]))
[1, 2]
>>> with local_workers(2, key=("doctest",)) as (again, stop):   # the same key: the same pool
...     again is pool
True
>>> close_workers()
"""

from __future__ import annotations

import atexit
import gc
import multiprocessing as mp
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Hashable, Iterator

__all__ = ["local_workers", "close_workers", "stop_requested", "request_stop", "worker_cores"]


class _Kept:
    __slots__ = ("pool", "key", "stop")

    def __init__(self, pool: ProcessPoolExecutor, key: Hashable, stop):
        self.pool, self.key, self.stop = pool, key, stop


_KEPT: list[_Kept] = []            # at most one: the pool kept between sweeps
_BUSY = threading.Lock()           # held while a sweep uses the kept pool
_STOP: list = []                   # in a worker: the stop flag of its pool


def worker_cores(procs: int) -> list[int]:
    """The cores ``procs`` workers keep to, one each: the interpreter's own (its affinity),
    when there are exactly ``procs`` of them and the system lets a process choose;
    otherwise none (the workers go where the system puts them).

    Parameters
    ----------
    procs : int
        Worker processes.

    Returns
    -------
    list of int
        Worker ``k`` (in the order the workers start) keeps to core ``cores[k]``.

    Examples
    --------
    >>> import os
    >>> n = len(os.sched_getaffinity(0))
    >>> worker_cores(n) == sorted(os.sched_getaffinity(0))     # a worker on every core
    True
    >>> worker_cores(n + 1), worker_cores(n - 1) if n > 1 else []   # more or fewer: none pinned
    ([], [])
    """
    if not hasattr(os, "sched_getaffinity") or not hasattr(os, "sched_setaffinity"):
        return []
    cores = sorted(os.sched_getaffinity(0))
    return cores if procs == len(cores) else []


def _worker_init(stop, started=None, cores=()) -> None:
    """In each worker as it starts: Ctrl-C is the parent's to handle; the stop flag kept;
    the worker kept to its core (the k-th worker to start, the k-th of ``cores``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STOP[:] = [stop]
    if cores and started is not None:
        with started.get_lock():
            k = started.value
            started.value += 1
        try:
            os.sched_setaffinity(0, {cores[k % len(cores)]})
        except OSError:     # the core was taken from this process meanwhile: left where it is
            pass


def _ready() -> None:
    """A task that does nothing (makes the pool start its workers)."""


def stop_requested() -> bool:
    """In a worker of :func:`local_workers`: whether its pool's sweep asked it to stop
    (another worker found a bad point, or the sweep was interrupted). Elsewhere ``False``.

    Returns
    -------
    bool

    Examples
    --------
    >>> stop_requested()          # not in a worker
    False
    """
    return bool(_STOP) and _STOP[0].is_set()


def request_stop() -> None:
    """In a worker of :func:`local_workers`: ask every worker of its pool to stop (a bad
    point found). Elsewhere nothing.

    Examples
    --------
    >>> request_stop()            # not in a worker: nothing
    """
    if _STOP:
        _STOP[0].set()


def _start(procs: int, key: Hashable) -> _Kept:
    ctx = mp.get_context("fork")
    stop = ctx.Event()
    started = ctx.Value("i", 0)       # how many workers have taken their core
    pool = ProcessPoolExecutor(max_workers=procs, mp_context=ctx, initializer=_worker_init,
                               initargs=(stop, started, tuple(worker_cores(procs))))
    gc.freeze()      # the parent's objects out of the children's collections: their pages stay shared
    try:
        pool.submit(_ready)   # a fork pool starts all its workers at its first task
    finally:
        gc.unfreeze()
    return _Kept(pool, key, stop)


def _give_up(kept: _Kept, wait: bool) -> None:
    """Stop ``kept``'s workers at their next point, drop what has not started, shut it down."""
    kept.stop.set()
    kept.pool.shutdown(wait=wait, cancel_futures=True)


@contextmanager
def local_workers(procs: int, key: Hashable, keep: bool = True) -> Iterator[tuple[ProcessPoolExecutor, Any]]:
    """A fork pool of ``procs`` workers and its stop flag (cleared), kept for the next call
    with the same ``key`` (see the module).

    Parameters
    ----------
    procs : int
        Worker processes.
    key : hashable
        What the workers were started with (the machine); another key starts a new pool.
    keep : bool
        ``False``: a pool of this call only (a user's function a worker forked earlier
        may not know), shut down at its end.

    Yields
    ------
    (ProcessPoolExecutor, multiprocessing.Event)
        The pool and its stop flag (set it to stop the workers at their next point).

    Examples
    --------
    See the module.
    """
    full = (procs, key)
    if not keep or not _BUSY.acquire(blocking=False):
        own = _start(procs, full)
        try:
            yield own.pool, own.stop
        except BaseException:
            _give_up(own, wait=False)
            raise
        own.pool.shutdown(wait=True)
        return
    try:
        if _KEPT and (_KEPT[0].key != full or getattr(_KEPT[0].pool, "_broken", False)):
            _give_up(_KEPT.pop(), wait=True)
        if not _KEPT:
            _KEPT.append(_start(procs, full))
        kept = _KEPT[0]
        kept.stop.clear()
        try:
            yield kept.pool, kept.stop
        except BaseException:
            _KEPT.clear()
            _give_up(kept, wait=False)
            raise
    finally:
        _BUSY.release()


def close_workers() -> None:
    """Shut down the local worker processes kept between sweeps (if any); the next sweep
    on local processes starts new ones. Called at the interpreter's exit.

    Examples
    --------
    >>> close_workers()
    """
    got = _BUSY.acquire(timeout=10)      # a sweep of another thread using it: not forever
    try:
        while _KEPT:
            _give_up(_KEPT.pop(), wait=True)
    finally:
        if got:
            _BUSY.release()


atexit.register(close_workers)
