"""Native integration: SUNDIALS CVODE driven from C on the compiled model.

:func:`bondgraph.simulate`, :func:`bondgraph.simulate_hybrid` and the co-simulation
adapter run CVODE natively (``backend="auto"`` with ``method="CVODE"``) when the
run needs no Python per step: the C driver (:mod:`.driver`, compiled at first use
into the model cache) calls the generated right-hand side and Jacobian by pointer,
input tables and splines are evaluated in C, guards and monitors are root
functions in C, and restarts are ``CVodeReInit``. The SUNDIALS 7 libraries are
those inside the scikit-sundae wheel (:mod:`.sundials`). Without a C compiler or
those libraries everything runs on the Python path, with a warning once.

:func:`auto_backend` changes what ``backend="auto"`` means inside a block — e.g.
to time both paths of a whole machine run side by side.

Examples
--------
>>> from bondgraph import BondGraph, C, One, I, build, simulate
>>> osc = BondGraph("osc")
>>> _ = osc.add(One("v"), I("m", 1.0, initial=1.0), C.spring("k", 4.0))
>>> _ = osc.connect("v", "m"); _ = osc.connect("v", "k")
>>> model = build(osc)
>>> simulate(model, (0, 1), method="CVODE", progress=False).stats["backend"]
'native'
>>> with auto_backend("python"):
...     simulate(model, (0, 1), method="CVODE", progress=False).stats["backend"]
'python'
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import Iterator

from ..errors import ParameterError

__all__ = ["auto_backend", "auto_choice", "available", "warn_fallback"]

_AUTO: list[str] = ["native"]
_WARNED: set[str] = set()


@contextmanager
def auto_backend(choice: str) -> Iterator[None]:
    """Inside the block, ``backend="auto"`` means ``choice``: ``"native"`` (the
    default: natively where possible) or ``"python"`` (always the Python path).

    Blocks nest; the previous meaning comes back at the end of each.

    Parameters
    ----------
    choice : {"native", "python"}

    Raises
    ------
    ParameterError
        Any other choice.

    Examples
    --------
    >>> with auto_backend("python"):
    ...     inside = auto_choice()
    >>> inside, auto_choice()
    ('python', 'native')
    >>> with auto_backend("C"):
    ...     pass
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: auto_backend('C'): expected 'native' or 'python'
    """
    if choice not in ("native", "python"):
        raise ParameterError(f"auto_backend({choice!r}): expected 'native' or 'python'")
    _AUTO.append(choice)
    try:
        yield
    finally:
        _AUTO.pop()


def auto_choice() -> str:
    """What ``backend="auto"`` means now (see :func:`auto_backend`).

    Returns
    -------
    {"native", "python"}

    Examples
    --------
    >>> auto_choice()
    'native'
    """
    return _AUTO[-1]


def available() -> tuple[bool, str]:
    """``(True, "")`` if the native driver loads here, else ``(False, why)``.

    The first call compiles the driver into the model cache (once per cache).

    Returns
    -------
    (bool, str)

    Examples
    --------
    >>> ok, why = available()
    >>> ok == (why == "")
    True
    """
    from .driver import load_driver

    drv = load_driver()
    return drv.ok, drv.reason


def warn_fallback() -> None:
    """Warn once per process when the native path is missing (no compiler, no SUNDIALS).

    Warns
    -----
    RuntimeWarning
        Once per reason: CVODE runs on the slower Python path, and why.

    Examples
    --------
    Where the driver loads (a C compiler and SUNDIALS 7 here), nothing is said:

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_fallback()
    >>> available()[0], len(caught)
    (True, 0)
    """
    ok, why = available()
    if not ok and why not in _WARNED:
        _WARNED.add(why)
        warnings.warn(f"bondgraph: CVODE runs on the slower Python path: {why}", RuntimeWarning,
                      stacklevel=3)
