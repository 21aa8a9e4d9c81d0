"""When a run can go native, and the session it then uses.

:func:`native_session` decides for :func:`bondgraph.simulate`,
:func:`bondgraph.simulate_hybrid` and the co-simulation adapter whether CVODE is
driven from C (:class:`~bondgraph.native.driver.Session`) or from Python
(scikit-sundae), by ``backend`` and by what the run needs: a run that calls Python
per step — event functions, continuous controllers, guards that are Python functions
or read external signals, inputs given as callables (rule R11 of
:mod:`bondgraph.stepping`: they must be named when they fail) — stays on the Python
path, with the reason (:func:`native_reasons`); ``backend="native"`` then refuses with
that reason.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, build
>>> bg = BondGraph("m")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
>>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
>>> native_reasons(build(bg), method="LSODA")
["method 'LSODA': the native path integrates with CVODE only (pass method='CVODE')"]
"""

from __future__ import annotations

from typing import Sequence

from ..errors import ParameterError
from .driver import Session, load_driver

__all__ = ["native_reasons", "native_session", "band_of", "cvode_message", "evaluable_in_c", "BACKENDS"]

#: who drives CVODE (``backend=`` of simulate, simulate_hybrid, ModelSubsystem)
BACKENDS = ("auto", "native", "python")


def evaluable_in_c(signal) -> bool:
    """Whether the C driver evaluates this input signal itself (a table, spline or
    piecewise polynomial packs itself; a constant is a number), or it is a Python callable.

    Parameters
    ----------
    signal

    Returns
    -------
    bool

    Examples
    --------
    >>> from bondgraph.signals import Table, as_signal
    >>> evaluable_in_c(as_signal(Table([0.0, 1.0], [0.0, 2.0]), "u")), evaluable_in_c(as_signal(abs, "u"))
    (True, False)
    """
    return hasattr(signal, "pack") or hasattr(signal, "constant")


def native_reasons(model, *, method: str = "CVODE", inputs=None, events=None,
                   controller_continuous: bool = False, python_guards: bool = False,
                   extra: Sequence[str] = ()) -> list[str]:
    """Why the native path cannot run this simulation (empty: it can); ``extra``: the
    caller's own reasons.

    Parameters
    ----------
    model : Model
    method : str
    inputs : InputSet, optional
    events : sequence, optional
        Python event functions of the run.
    controller_continuous, python_guards : bool
        What a hybrid run needs (:func:`bondgraph.simulate_hybrid`).
    extra : sequence of str

    Returns
    -------
    list of str

    Examples
    --------
    >>> from bondgraph import BondGraph, MSe, One, I, Input, build
    >>> from bondgraph.signals import InputSet, Table
    >>> bg = BondGraph("m")
    >>> _ = bg.add(MSe("F", Input("u")), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> model = build(bg)
    >>> native_reasons(model, inputs=InputSet(["u"], [], {"u": Table([0, 1], [0, 1])}))
    []
    >>> native_reasons(model, inputs=InputSet(["u"], [], {"u": abs}))
    ['inputs given as Python callables (u): give a Table, a Spline, a PiecewisePolynomial or a number to run natively']
    """
    why = list(extra)
    if method != "CVODE":
        why.append(f"method {method!r}: the native path integrates with CVODE only "
                   "(pass method='CVODE')")
    if events:
        why.append(f"{len(events)} event function(s) in Python (events=...): they are called "
                   "per step, which the native path does not do")
    if controller_continuous:
        why.append("a continuous controller (Python, called at every right-hand side)")
    if python_guards:
        why.append("a guard that needs Python (When(fn) or an external signal)")
    if inputs is not None and inputs.names and not inputs.constant and inputs.native() is None:
        bad = [s.name for s in inputs.signals if not evaluable_in_c(s)]
        why.append("inputs given as Python callables (" + ", ".join(bad) + "): give a Table, "
                   "a Spline, a PiecewisePolynomial or a number to run natively")
    drv = load_driver()
    if not drv.ok:
        why.append(drv.reason)
    return why


def native_session(model, backend: str, method: str, *, subject: str, energy: bool = False,
                   jacobian: bool = True, **needs) -> Session | None:
    """The session of a native run, or ``None`` for the Python path.

    ``backend="auto"`` goes native with ``method="CVODE"`` whenever
    :func:`native_reasons` (given ``needs``) finds nothing against it (and
    :func:`~bondgraph.native.auto_backend` does not say ``"python"``); else it warns once
    if the driver is missing. ``backend="native"`` where it is impossible is a
    :class:`~bondgraph.errors.ParameterError` listing why.

    Parameters
    ----------
    model : Model
    backend : {"auto", "native", "python"}
    method : str
    subject : str
        Who asks, for the message.
    energy, jacobian : bool
        As for :class:`~bondgraph.native.driver.Session`.
    **needs
        What the run needs (the keyword arguments of :func:`native_reasons`).

    Returns
    -------
    Session or None

    Raises
    ------
    ParameterError
        ``backend="native"`` and the run cannot go native.

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("m")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> model = build(bg)
    >>> native_session(model, "auto", "LSODA", subject="m") is None
    True
    >>> native_session(model, "native", "BDF", subject="m")
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: m: 1 problem
      - backend 'native' cannot run this simulation: method 'BDF': the native path integrates with CVODE only (pass method='CVODE')
    """
    from . import auto_choice, warn_fallback

    if backend == "python" or (backend == "auto" and (method != "CVODE" or auto_choice() == "python")):
        return None
    why = native_reasons(model, method=method, **needs)
    if why:
        warn_fallback()
        if backend == "native":
            raise ParameterError([f"backend 'native' cannot run this simulation: {w}" for w in why],
                                 subject=subject)
        return None
    return Session(load_driver(), model.system, energy=energy, jacobian=jacobian, band=band_of(model))


def band_of(model) -> tuple[int, int] | None:
    """``(mu, ml)`` when the model's Jacobian calls for CVODE's band solver, else ``None``
    (:func:`bondgraph.native.structure.choose_solver`; computed once per model).

    Parameters
    ----------
    model : Model

    Returns
    -------
    tuple of int or None

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("m")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> band_of(build(bg)) is None       # one state: dense
    True
    """
    cached = getattr(model, "_native_band", False)
    if cached is not False:
        return cached
    from .structure import choose_solver, jacobian_pattern

    eqs = getattr(model, "equations", None)
    band = None
    if eqs is not None:
        kind, mu, ml = choose_solver(jacobian_pattern(eqs))
        band = (mu, ml) if kind == "band" else None
    try:
        model._native_band = band
    except AttributeError:
        pass
    return band


_MESSAGES: dict[int, str] = {}


def cvode_message(flag: int) -> str:
    """scikit-sundae's wording of a CVODE flag (the same text as the Python path); its
    table is imported only for a failure (importing scikit-sundae takes ~0.5 s).

    Parameters
    ----------
    flag : int
        A CVODE return flag.

    Returns
    -------
    str

    Examples
    --------
    >>> cvode_message(-999)
    'CVODE flag -999'
    """
    if flag not in _MESSAGES:
        try:
            from sksundae._cy_cvode import CVMESSAGES

            _MESSAGES.update(CVMESSAGES)
        except ImportError:  # pragma: no cover - scikit-sundae brings the libraries we use
            pass
    return _MESSAGES.get(flag, f"CVODE flag {flag}")
