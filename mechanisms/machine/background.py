"""One output written in a second process while this one writes the others.

A run's outputs are independent files: the bond graph and the animation take about as
long as the two plots, so when a core is spare (:func:`spare_core`) :class:`Background`
writes them in a forked child (which shares the run's memory: nothing is pickled but
the result) while the caller draws the plots. Without ``fork`` (Windows, macOS), with one
core, or with the cores busy with other work, the work runs in this process when
:meth:`Background.wait` asks for it, as it always did.

Ctrl-C reaches the child as well (same process group), and :meth:`Background.cancel`
sends it one: the child stops as an interrupted writer does, its atomic write leaving
no file. An error in the child is raised again by :meth:`Background.wait`.

Examples
--------
>>> job = Background(sum, [1, 2, 3])
>>> job.wait()
6
>>> Background(int, "x").wait()
Traceback (most recent call last):
...
ValueError: invalid literal for int() with base 10: 'x'
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
import traceback
from typing import Any, Callable

__all__ = ["Background", "can_fork", "spare_core", "cpu_times"]


def can_fork() -> bool:
    """Whether outputs can be written in a forked process here: Linux, two cores or more.

    Returns
    -------
    bool

    Examples
    --------
    >>> isinstance(can_fork(), bool)
    True
    """
    return sys.platform.startswith("linux") and hasattr(os, "fork") and (os.cpu_count() or 1) > 1


def cpu_times() -> tuple[float, float] | None:
    """The machine's idle and total CPU time so far (``/proc/stat``, in clock ticks), or None.

    Two readings give the share of the cores that stood idle in between
    (:func:`spare_core`).

    Returns
    -------
    (idle, total) or None

    Examples
    --------
    >>> t = cpu_times()
    >>> t is None or 0 <= t[0] <= t[1]
    True
    """
    try:
        with open("/proc/stat", encoding="ascii") as f:
            ticks = [float(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(ticks) < 5:
        return None
    return ticks[3] + ticks[4], sum(ticks[:8])      # idle + iowait; user … steal


def spare_core(since: tuple[float, float] | None = None) -> bool:
    """Whether a second process would find a core of its own.

    :func:`can_fork`, and then: with ``since`` (a :func:`cpu_times` reading taken earlier,
    say when the command started), at least half a core stood idle since then while this
    process worked; without it, the load average of the last minute is at most the core
    count less 1.5 (this process takes one core, the rest is other work).

    On two cores busy with other work a second process only slows both down; with a core
    idle it shortens the output stage of ``hydrobond run excavator`` by about a third
    (``benchmarks/startup.py``).

    Returns
    -------
    bool

    Examples
    --------
    >>> spare_core() <= can_fork() and spare_core(cpu_times()) <= can_fork()
    True
    """
    if not can_fork():
        return False
    cores = os.cpu_count() or 1
    now = cpu_times() if since is not None else None
    if since is not None and now is not None and now[1] - since[1] > 0:
        return (now[0] - since[0]) / (now[1] - since[1]) * cores >= 0.5
    try:
        busy = os.getloadavg()[0]
    except OSError:
        return False
    return busy <= cores - 1.5


def _child(conn, fn, args, kwargs) -> None:
    signal.signal(signal.SIGINT, signal.default_int_handler)   # Ctrl-C and cancel() interrupt it
    try:
        result = ("ok", fn(*args, **kwargs))
    except KeyboardInterrupt:
        result = ("interrupted", None)
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which raises it
        result = ("error", exc)
    try:
        conn.send(result)
    except (pickle.PicklingError, TypeError, AttributeError):   # an unpicklable result or error
        kind, value = result
        conn.send(("error", RuntimeError("".join(traceback.format_exception(value))
                                         if isinstance(value, BaseException) else repr(value))))
    finally:
        conn.close()


class Background:
    """``fn(*args, **kwargs)`` in a forked process, started now; :meth:`wait` for its result.

    Parameters
    ----------
    fn : callable
    *args, **kwargs
        Its arguments (shared with the child by ``fork``, not pickled).
    parallel : bool or None, optional
        None (the default): fork when a core is spare (:func:`spare_core`); True: fork
        whenever possible (:func:`can_fork`); False: run ``fn`` in this process at
        :meth:`wait`.

    Examples
    --------
    >>> Background(max, 3, 7, parallel=False).wait()
    7
    """

    def __init__(self, fn: Callable[..., Any], *args: Any, parallel: bool | None = None, **kwargs: Any):
        self._call = (fn, args, kwargs)
        self._proc = self._conn = None
        self._frozen = False
        if spare_core() if parallel is None else (parallel and can_fork()):
            import multiprocessing

            ctx = multiprocessing.get_context("fork")
            self._conn, child_end = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(child_end, fn, args, kwargs), daemon=True)
            gc.freeze()    # the collector of either process would otherwise touch (and so copy) every page
            try:
                proc.start()
            except OSError:        # no process to be had (limits): the work runs at wait()
                gc.unfreeze()
                self._conn.close()
                self._conn = None
            else:
                self._proc = proc
                self._frozen = True
            finally:
                child_end.close()

    @property
    def forked(self) -> bool:
        """Whether the work runs in a child process.

        Examples
        --------
        >>> Background(abs, -1, parallel=False).forked
        False
        """
        return self._proc is not None

    def wait(self) -> Any:
        """The result (computed now if not forked); the child's error raised here.

        Raises
        ------
        KeyboardInterrupt
            The child was interrupted (Ctrl-C): whatever it wrote atomically is not there.

        Examples
        --------
        >>> Background(len, "abc").wait()
        3
        """
        if self._proc is None:
            fn, args, kwargs = self._call
            return fn(*args, **kwargs)
        try:
            kind, value = self._conn.recv()
        except EOFError:   # the child died without a word (killed)
            self._proc.join()
            self._thaw()
            raise RuntimeError(f"the background writer ended with exit code {self._proc.exitcode}") from None
        finally:
            self._conn.close()
        self._proc.join()
        self._thaw()
        if kind == "interrupted":
            raise KeyboardInterrupt
        if kind == "error":
            raise value
        return value

    def cancel(self, timeout: float = 10.0) -> None:
        """Stop the child as Ctrl-C would (its atomic writes leave nothing) and reap it.

        Examples
        --------
        >>> job = Background(sum, [1, 2])
        >>> job.cancel()
        """
        if self._proc is None or not self._proc.is_alive():
            if self._proc is not None:
                self._proc.join()
                self._thaw()
            return
        self._proc.join(0.5)     # a Ctrl-C at the terminal reached the child too: let it finish
        if not self._proc.is_alive():
            self._proc.join()
            self._thaw()
            return
        try:
            os.kill(self._proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        self._proc.join(timeout)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join()
        self._thaw()

    def _thaw(self) -> None:
        if self._frozen:
            self._frozen = False
            gc.unfreeze()
