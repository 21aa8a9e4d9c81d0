"""A simulation's progress bar, made (and tqdm imported) only once the run has lasted.

:func:`~bondgraph.simulate.simulate` shows a bar (``tqdm.auto``: a widget in a notebook, a
line in a terminal) for a run longer than a second. Importing ``tqdm.auto`` costs tens of
milliseconds in a fresh interpreter (it loads asyncio), more than a short native run
takes; :class:`LazyBar` counts the progress itself and makes the real bar at the first
update after ``delay`` seconds — dated from its own start, so the elapsed time and rate
shown are the run's — and a run that ends sooner never imports tqdm.

Examples
--------
>>> bar = LazyBar(2.0, desc="simulating", unit="s")
>>> bar.update(0.5); bar.update(1.5)
>>> bar.n, bar.shown
(2.0, False)
>>> bar.close()
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["LazyBar"]


class LazyBar:
    """``tqdm.auto.tqdm(total, **options)``, made at the first :meth:`update` once ``delay``
    seconds have passed since this object was made; until then only the count is kept.

    Parameters
    ----------
    total : float
    delay : float, optional
        Seconds before a bar is shown (tqdm's own ``delay``).
    **options
        Passed to ``tqdm`` (``desc``, ``unit``, ``bar_format``, ``leave``…).

    Examples
    --------
    With ``delay=0`` the bar is made at the first update, with the count so far:

    >>> import io
    >>> bar = LazyBar(10.0, delay=0.0, file=io.StringIO(), unit="s")
    >>> bar.update(4.0)
    >>> bar.shown, bar.n
    (True, 4.0)
    >>> bar.close()
    """

    def __init__(self, total: float, delay: float = 1.0, **options: Any):
        self.total, self.delay, self.options = total, float(delay), options
        self.start = time.perf_counter()
        self._n = 0.0
        self._bar = None

    @property
    def n(self) -> float:
        """The progress counted so far."""
        return self._n

    @property
    def shown(self) -> bool:
        """Whether the real bar was made."""
        return self._bar is not None

    def update(self, k: float) -> None:
        """Add ``k`` to the progress.

        Parameters
        ----------
        k : float
        """
        self._n += k
        if self._bar is not None:
            self._bar.update(k)
        elif time.perf_counter() - self.start >= self.delay:
            from tqdm.auto import tqdm

            bar = tqdm(total=self.total, **self.options)
            # dated from the run's start: the elapsed time and the rate are the run's
            bar.start_t = bar.last_print_t = time.time() - (time.perf_counter() - self.start)
            bar.update(self._n)
            self._bar = bar

    def close(self) -> None:
        """Close the real bar, if one was made."""
        if self._bar is not None:
            self._bar.close()
