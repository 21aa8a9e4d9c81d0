"""Segments of a simulation integrated by the native driver, as the Python path does them.

:class:`NativeCvode` is what :func:`bondgraph.simulate` and
:func:`bondgraph.simulate_hybrid` call per segment (between input breakpoints,
guard events and samples) instead of scikit-sundae's Python-callback CVODE. It
reproduces that path's choices so that both take the same steps: a fresh start
(``CVodeReInit``) per segment, the first step estimated towards the first output
time, outputs interpolated at requested times (or after every internal step), the
step limit counted per output interval, and failures recorded the same way.

Examples
--------
>>> from bondgraph import BondGraph, Se, One, I, R, build
>>> bg = BondGraph("drag")
>>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0), R("b", 1.0))
>>> for a, b in [("F", "v"), ("v", "m"), ("v", "b")]:
...     _ = bg.connect(a, b)
>>> model = build(bg)
>>> nc = NativeCvode.for_model(model, rtol=1e-10, atol=1e-12)
>>> seg = nc.segment(0.0, 5.0, model.initial_state(), np.array([5.0]))
>>> round(float(seg.y[-1, 0]), 6)          # 1 − exp(−5)
0.993262
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .driver import Session, load_driver

__all__ = ["NativeCvode", "Segment", "native_reasons"]


@dataclass
class Segment:
    """One integrated segment.

    Attributes
    ----------
    ok : bool
        False when the solver or the model failed (``failure`` says what was recorded).
    t, y : arrays
        Output rows (requested times, or every internal step after the start).
    message : str
        The solver's message, as scikit-sundae words it.
    t_end, y_end : float, array
        Where the solver stopped (the root's time and state at an event).
    root : (time, index, state) or None
        The first root function that crossed zero (guards first, then the monitor).
    failure : (time, state, status) or None
        The latest failed model call (status of the compiled function; 0 a stall).
    """

    ok: bool
    t: np.ndarray
    y: np.ndarray
    message: str
    t_end: float
    y_end: np.ndarray
    root: tuple | None
    failure: tuple | None
    code: str


def native_reasons(model, *, method: str = "CVODE", inputs=None, events=None,
                   controller_continuous: bool = False, python_guards: bool = False) -> list[str]:
    """Why the native path cannot run this simulation (empty: it can).

    Examples
    --------
    >>> from bondgraph import BondGraph, Se, One, I, build
    >>> bg = BondGraph("m")
    >>> _ = bg.add(Se("F", 1.0), One("v"), I("m", 1.0))
    >>> _ = bg.connect("F", "v"); _ = bg.connect("v", "m")
    >>> native_reasons(build(bg), method="LSODA")
    ["method 'LSODA': the native path integrates with CVODE only"]
    """
    why = []
    if method != "CVODE":
        why.append(f"method {method!r}: the native path integrates with CVODE only")
    if events:
        why.append(f"{len(events)} event function(s) in Python (events=...): they are called "
                   "per step, which the native path does not do")
    if controller_continuous:
        why.append("a continuous controller (Python, called at every right-hand side)")
    if python_guards:
        why.append("a guard that needs Python (When(fn) or an external signal)")
    if inputs is not None and inputs.names and not inputs.constant and inputs.native() is None:
        bad = [s.name for s in inputs.signals
               if not hasattr(s, "pack") and not hasattr(s, "constant")]
        why.append("inputs given as Python callables (" + ", ".join(bad) + "): give a Table, "
                   "a Spline, a PiecewisePolynomial or a number to run natively")
    drv = load_driver()
    if not drv.ok:
        why.append(drv.reason)
    return why


class NativeCvode:
    """The native CVODE of one run: a :class:`~bondgraph.native.driver.Session` and options.

    Parameters
    ----------
    system : CompiledSystem
    rtol, atol : float or array
    energy : bool
    max_step, first_step : float or None
    max_steps : int
    jacobian : bool
    """

    def __init__(self, system, *, rtol: float, atol, energy: bool = False, max_step=None,
                 first_step=None, max_steps: int = 500_000, jacobian: bool = True,
                 monitor: tuple[int, int] | None = None):
        drv = load_driver()
        if not drv.ok:
            raise ParameterError(f"backend 'native': not available here: {drv.reason}")
        self.session = Session(drv, system, energy, monitor)
        self.system = system
        a = np.atleast_1d(np.asarray(atol, dtype=float))
        if a.ndim != 1 or a.size not in (1, self.session.n):
            raise ParameterError(f"atol: {a.size} values, expected one or {self.session.n} (one per "
                                 f"state: {self.session.n} states"
                                 + (" including the 3 energy integrals" if energy else "") + ")")
        self.rtol, self.atol = float(rtol), a
        self.max_step = float(max_step) if max_step is not None and np.isfinite(max_step) else 0.0
        self.first_step = float(first_step) if first_step is not None else 0.0
        self.max_steps = int(max_steps)
        self.jacobian = bool(jacobian)
        self.n = self.session.n

    @classmethod
    def for_model(cls, model, **kw) -> "NativeCvode":
        return cls(model.system, **kw)

    def set_inputs(self, u: np.ndarray, du: np.ndarray | None = None) -> None:
        self.session.set_inputs(u, du)

    def segment(self, a: float, b: float, y: np.ndarray, t_eval: np.ndarray | None,
                guards=None) -> Segment:
        """Integrate ``[a, b]`` from ``y``; outputs at ``t_eval`` (within ``[a, b]``) or
        after every internal step; stop at the first root of ``guards``
        (``(kind, index, sign, threshold, tolerance)`` tuples) if any."""
        s = self.session
        if guards is not None:
            s.set_guards(guards)
        eps = 1e-12 * max(1.0, abs(a), abs(b))
        y = np.asarray(y, dtype=float)
        flag = s.init(a, y, self.rtol, self.atol, self.first_step, self.max_step, self.max_steps,
                      self.jacobian)
        if flag < 0:
            return self._failed_init(a, y, flag)
        if t_eval is None:
            code, tt, yy, t_end, y_end = s.advance(b, b, np.zeros(0), True, 0)
            if code != "tstop":  # scikit-sundae's one-step mode keeps the solver's
                tt = np.append(tt, t_end)  # return at a root or a failure as a row
                yy = np.vstack([yy, y_end[None, :]])
        else:
            req = np.asarray(t_eval, dtype=float)
            inner = req[(req > a + eps) & (req < b - eps)]
            at_b = bool(np.any(np.abs(req - b) <= eps))
            tout = np.concatenate([inner, [b]]) if at_b else inner
            first = inner[0] if inner.size else b
            code, tc, yc, t_end, y_end = s.advance(b, first, tout, False,
                                                   self.max_steps if inner.size else 0)
            rows_t, rows_y = [], []
            k = 0
            for tr in req:
                if abs(tr - a) <= eps:
                    rows_t.append(tr)
                    rows_y.append(y)
                elif k < len(tc) and (abs(tc[k] - tr) <= eps or (abs(tr - b) <= eps and tc[k] == b)):
                    rows_t.append(tr)
                    rows_y.append(yc[k])
                    k += 1
                else:
                    break
            tt = np.array(rows_t)
            yy = np.array(rows_y).reshape(len(rows_t), self.n)
        root = None
        if code == "root":
            info = s.root_info()
            hit = np.flatnonzero(info)
            root = (t_end, int(hit[0]) if hit.size else -1, y_end.copy())
        fail = s.failure()
        failure = None if fail is None else (fail[1], fail[2], fail[0])
        ok = code in ("tstop", "root")
        if code == "max_steps":
            message = _message(-1)
        elif ok:
            message = _message(2 if code == "root" else 1)
        else:
            message = _message(int(s.lib.bgn_flag(s.h)))
        return Segment(ok, tt, yy, message, t_end, y_end, root, failure, code)

    def _failed_init(self, a, y, flag) -> Segment:
        return Segment(False, np.zeros(0), np.zeros((0, self.n)), _message(flag), a, y.copy(),
                       None, None, "cvode")

    def stats(self) -> dict[str, int]:
        return self.session.stats()


_MESSAGES: dict[int, str] = {1: "Reached specified tstop.", 2: "Detected one or more events."}


def _message(flag: int) -> str:
    """scikit-sundae's wording of a CVODE flag (the same text as the Python path); its
    table is imported only for a failure (importing scikit-sundae takes ~0.5 s)."""
    if flag not in _MESSAGES:
        try:
            from sksundae._cy_cvode import CVMESSAGES

            _MESSAGES.update(CVMESSAGES)
        except ImportError:  # pragma: no cover - scikit-sundae brings the libraries we use
            pass
    return _MESSAGES.get(flag, f"CVODE flag {flag}")
