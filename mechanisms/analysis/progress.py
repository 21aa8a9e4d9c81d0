"""Progress of the analyses on fine stroke grids: a notebook or terminal bar after one second.

An analysis decorated with :func:`reports_progress` takes ``progress=True`` (the default) or
``False``. While it runs, the stroke-grid continuation (:mod:`.kinematics`) counts the poses
it has solved on one bar per grid, with the number of poses, the rate and the time left
(``tqdm.auto``). The bar appears only once the work has taken a second, so the default grids
show none. An analysis called from inside another, or from a sweep point (which has its own
bar over the points), shows none either.

Examples
--------
>>> with reporting(False, "working range"):
...     bar = grid_bar(1000)
>>> bar.update(10); bar.close()          # a silent stand-in
>>> @reports_progress("a study")
... def study(n, *, progress=True):
...     return enabled()
>>> study(3), study(3, progress=False)
(True, False)
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

__all__ = ["reports_progress", "reporting", "grid_bar", "enabled", "silenced", "DELAY"]

#: seconds of work before a bar appears
DELAY = 1.0

_STATE: ContextVar[tuple[bool, str] | None] = ContextVar("analysis_progress", default=None)


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def enabled() -> bool:
    """Whether the analysis running now shows a bar.

    Returns
    -------
    bool

    Examples
    --------
    >>> enabled()
    False
    """
    state = _STATE.get()
    return bool(state and state[0])


@contextmanager
def reporting(on: bool, what: str) -> Iterator[None]:
    """Show (``on``) or silence the bars of the work inside, named ``what``. Inside an
    analysis that already reports (or is silenced) nothing changes.

    Parameters
    ----------
    on : bool
    what : str

    Examples
    --------
    >>> with reporting(True, "outer"):
    ...     with reporting(True, "inner"):
    ...         print(_STATE.get())
    (True, 'outer')
    """
    if _STATE.get() is not None:
        yield
        return
    token = _STATE.set((bool(on), what))
    try:
        yield
    finally:
        _STATE.reset(token)


@contextmanager
def silenced() -> Iterator[None]:
    """No bars for the analyses inside (a sweep point: the sweep has its own bar).

    Examples
    --------
    >>> with silenced():
    ...     enabled()
    False
    """
    token = _STATE.set((False, ""))
    try:
        yield
    finally:
        _STATE.reset(token)


def grid_bar(total: int, unit: str = "pose") -> Any:
    """A bar over ``total`` grid points for the running analysis, or a silent stand-in.

    Parameters
    ----------
    total : int
    unit : str

    Returns
    -------
    object with ``update(n)`` and ``close()``

    Examples
    --------
    See the module.
    """
    state = _STATE.get()
    if not (state and state[0]):
        return _Silent()
    from tqdm.auto import tqdm

    return tqdm(total=int(total), desc=state[1], unit=unit, delay=DELAY, leave=False)


def reports_progress(what: str) -> Callable:
    """Decorator: the function's ``progress`` keyword (default ``True``) turns its bars on or off.

    Parameters
    ----------
    what : str
        The bar's label.

    Returns
    -------
    callable

    Examples
    --------
    See the module.
    """
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kw: Any) -> Any:
            with reporting(kw.get("progress", True), what):
                return fn(*args, **kw)
        return wrapper
    return deco
