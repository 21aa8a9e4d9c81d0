"""The load-sensing signal network: shuttle valves choosing the highest load pressure.

Each valve section of a load-sensing circuit offers its *load pressure* (the
pressure of the work port it feeds, sensed by a :class:`PressureTap`); a chain
of shuttle valves passes the highest one on as the LS pressure ``p_LS`` that
the pump controller and post-compensators read. Two models of the shuttles:

* :class:`SmoothShuttle` (the default) — a smooth maximum. Pairwise
  ``max_ε(a, b) = (a + b + √((a − b)² + ε²))/2``: infinitely smooth, never
  below the true maximum, at most ``ε/2`` above it at a tie and
  ``≈ ε²/(4·|a − b|)`` above it when the pressures differ by ``|a − b| ≫ ε``
  (``ε = 0.5 bar``: 0.25 bar at a tie, 0.006 bar 10 bar apart); ``n`` sections
  chain ``n − 1`` shuttles. No events: the solver never restarts. (A
  branch-free form: the generated code would not accept a switch inside a
  switch's condition.)
* :class:`HybridShuttle` — a discrete mode per section (which one is
  highest), switched by guards with a hysteresis band ``h`` and a dwell
  time; ``p_LS`` is the selected section's pressure exactly, but up to ``h``
  below the true maximum near a crossing, and every crossing is an event
  (an integrator restart). Use it to check the smooth model, or where a
  crossing must be located in time.

The choice of the default is measured in ``benchmarks/hydraulics_ls.py``
(accuracy against the exact maximum, events, wall time).

Examples
--------
>>> a, b = sp.symbols("a b", real=True)
>>> m = smooth_max(a, b, 1e5)
>>> round(float(m.subs({a: 150e5, b: 100e5})) - 150e5, 3), float(m.subs({a: 100e5, b: 100e5})) - 100e5
(499.95, 50000.0)
>>> net = LoadSenseNetwork(SmoothShuttle("0.5 bar"))
>>> net.add("boom", a); net.add("arm", b)
>>> round(float(net.pressure().subs({a: 80e5, b: 120e5})) / 1e5, 4)       # bar
120.0016
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import sympy as sp

from bondgraph.errors import ParameterError
from bondgraph.hybrid import Discrete, Exceeds, HybridModel, Transition, When

from ._values import NONNEGATIVE, POSITIVE, si

__all__ = ["smooth_max", "SmoothShuttle", "HybridShuttle", "LoadSenseNetwork"]


def smooth_max(a: Any, b: Any, eps: float) -> sp.Expr:
    """``(a + b + √((a − b)² + ε²))/2``: above ``max(a, b)`` by at most ``ε/2`` (at a tie).

    Parameters
    ----------
    a, b : number or sympy expression
    eps : float
        Band ε (Pa), > 0.

    Returns
    -------
    sympy expression

    Raises
    ------
    ParameterError
        A band that is not a positive number.

    Examples
    --------
    10 bar apart with ε = 0.5 bar, the excess is ``≈ ε²/(4·|a − b|) = 0.00625`` bar:

    >>> round(float(smooth_max(110e5, 100e5, 0.5e5) - 110e5) / 1e5, 5)
    0.00625
    """
    if not (isinstance(eps, (int, float)) and math.isfinite(eps) and eps > 0):
        raise ParameterError(f"smooth maximum: band ε = {eps!r}, expected a number > 0 (Pa)")
    a, b = sp.sympify(a), sp.sympify(b)
    return (a + b + sp.sqrt((a - b) ** 2 + sp.Float(eps) ** 2)) / 2


@dataclass(frozen=True)
class SmoothShuttle:
    """Shuttle valves as a smooth maximum with regularisation band ``band`` (Pa).

    Parameters
    ----------
    band : float or str
        ε of :func:`smooth_max`.

    Raises
    ------
    ParameterError
        A band that is not a positive pressure.

    Examples
    --------
    Three sections chain two shuttles; each adds at most ε/2, so ``p_LS`` is never below
    the highest load pressure and at most ε above it (here two sections tie):

    >>> s = SmoothShuttle("0.5 bar")
    >>> p = s.combine([sp.Float(80e5), sp.Float(120e5), sp.Float(120e5)], LoadSenseNetwork(s))
    >>> excess = float(p) - 120e5
    >>> 0 < excess <= 2 * 0.25e5, round(excess / 1e5, 4)
    (True, 0.2508)
    """

    band: Any = "0.5 bar"

    def __post_init__(self):
        problems: list[str] = []
        object.__setattr__(self, "band", si(self.band, "Pa", "band", problems, POSITIVE))
        if problems:
            raise ParameterError(problems, subject="smooth shuttle")

    def combine(self, pressures: Sequence[sp.Expr], net: "LoadSenseNetwork") -> sp.Expr:
        """The LS pressure of the sections' ``pressures``: a chain of smooth maxima.

        Parameters
        ----------
        pressures : sequence
        net : 'LoadSenseNetwork'

        Returns
        -------
        sp.Expr
        """
        out = pressures[0]
        for p in pressures[1:]:
            out = smooth_max(out, p, self.band)
        return out


@dataclass(frozen=True)
class HybridShuttle:
    """Shuttle valves as a discrete mode (the selected section), with hysteresis and dwell.

    Parameters
    ----------
    band : float or str
        A section takes over when its load pressure exceeds the selected one's
        by more than ``band`` (Pa).
    dwell : float or str
        Minimum time between two changes (s); bounds the event rate to ``1/dwell``.
    name : str
        Name of the discrete variable (a model parameter).

    Raises
    ------
    ParameterError
        Bad band, dwell or name (all listed).

    Examples
    --------
    ``p_LS`` is exactly the selected section's pressure:

    >>> a, b = sp.symbols("a b", real=True)
    >>> net = LoadSenseNetwork(HybridShuttle(band="1 bar", dwell="5 ms"))
    >>> net.add("boom", a); net.add("arm", b)
    >>> d = net.discrete
    >>> d.labels, net.pressure().subs({d.symbol: d.value("arm"), a: 80e5, b: 120e5})
    (['boom', 'arm'], 12000000.0)
    """

    band: Any = "0.5 bar"
    dwell: Any = "5 ms"
    name: str = "ls_shuttle"

    def __post_init__(self):
        problems: list[str] = []
        object.__setattr__(self, "band", si(self.band, "Pa", "band", problems, POSITIVE))
        object.__setattr__(self, "dwell", si(self.dwell, "s", "dwell", problems, NONNEGATIVE))
        if not (isinstance(self.name, str) and self.name and " " not in self.name):
            problems.append(f"'name': found {self.name!r}, expected a name without spaces")
        if problems:
            raise ParameterError(problems, subject="hybrid shuttle")

    def combine(self, pressures: Sequence[sp.Expr], net: "LoadSenseNetwork") -> sp.Expr:
        """The LS pressure: the selected section's pressure (indicator-weighted sum).

        Parameters
        ----------
        pressures : sequence
        net : 'LoadSenseNetwork'

        Returns
        -------
        sp.Expr
        """
        d = net.discrete
        return sp.Add(*[d.indicator(lab) * p for lab, p in zip(d.labels, pressures)])


class LoadSenseNetwork:
    """The LS signal of a circuit: the highest of the sections' load pressures.

    Sections are added with :meth:`add` (an :class:`LSCircuit` does it);
    :meth:`pressure` is the LS pressure as an expression of the taps' handles.

    Parameters
    ----------
    shuttle : SmoothShuttle or HybridShuttle

    Raises
    ------
    ParameterError
        A shuttle of another type.

    Examples
    --------
    See the module, :class:`SmoothShuttle` and :class:`HybridShuttle`; a section is
    registered once:

    >>> net = LoadSenseNetwork()
    >>> net.add("boom", sp.Symbol("a"))
    >>> net.add("boom", sp.Symbol("b"))
    Traceback (most recent call last):
    ...
    bondgraph.errors.ParameterError: load-sense network: section 'boom' added twice
    """

    def __init__(self, shuttle: SmoothShuttle | HybridShuttle | None = None):
        if shuttle is None:
            shuttle = SmoothShuttle()
        if not isinstance(shuttle, (SmoothShuttle, HybridShuttle)):
            raise ParameterError(f"load-sense network: shuttle = {shuttle!r}, expected a "
                                 "SmoothShuttle or a HybridShuttle")
        self.shuttle = shuttle
        self.sections: dict[str, sp.Expr] = {}

    def add(self, section: str, pressure: Any) -> None:
        """Register a section's load-pressure signal.

        Parameters
        ----------
        section : str
        pressure : sympy expression
            The section's load pressure (a tap's pressure handle).

        Raises
        ------
        ParameterError
            The section was added before.
        """
        if section in self.sections:
            raise ParameterError(f"load-sense network: section {section!r} added twice")
        self.sections[section] = sp.sympify(pressure)

    @property
    def discrete(self) -> Discrete:
        """The discrete variable of a :class:`HybridShuttle` (modes: the section names).

        Raises
        ------
        ParameterError
            A smooth shuttle, or fewer than two sections.
        """
        if not isinstance(self.shuttle, HybridShuttle):
            raise ParameterError("load-sense network: a discrete shuttle mode exists only with "
                                 "a HybridShuttle")
        if len(self.sections) < 2:
            raise ParameterError(f"load-sense network: a hybrid shuttle needs at least 2 "
                                 f"sections, found {len(self.sections)}")
        return Discrete(self.shuttle.name, list(self.sections))

    def pressure(self) -> sp.Expr:
        """``p_LS``: the highest load pressure (expression of the taps' pressure handles).

        Returns
        -------
        sympy expression

        Raises
        ------
        ParameterError
            No section.
        """
        if not self.sections:
            raise ParameterError("load-sense network: no valve section feeds it; add "
                                 "compensated valves to the circuit")
        ps = list(self.sections.values())
        if len(ps) == 1:
            return ps[0]
        return self.shuttle.combine(ps, self)

    # ------------------------------------------------------------------ hybrid shuttle
    def transitions(self, model) -> list[Transition]:
        """Guards of a :class:`HybridShuttle` for a built model: section ``j`` takes
        over from ``i`` when ``p_j > p_i + band`` (after ``dwell``).

        Parameters
        ----------
        model : Model

        Returns
        -------
        list of Transition
            One per ordered pair of sections.

        Raises
        ------
        ParameterError
            A section's pressure reads something that is not a state of the model.
        """
        d = self.discrete
        handles = model.graph.graph.get("handles", {})
        names = model.state_names
        readers = {}
        for lab, expr in self.sections.items():
            g = expr.xreplace(handles)
            syms = sorted(g.free_symbols, key=lambda s: s.name)
            missing = [s.name for s in syms if s.name not in names]
            if missing:
                raise ParameterError(f"load-sense network: section {lab!r} reads "
                                     f"{', '.join(missing)}, not states of {model.name!r}")
            idx = [names.index(s.name) for s in syms]
            fn = sp.lambdify(syms, g, modules="numpy")
            readers[lab] = (fn, idx)

        def diff(j, i):
            fj, ij = readers[j]
            fi, ii = readers[i]
            h = self.shuttle.band
            return lambda t, x: float(fj(*np.asarray(x)[ij]) - fi(*np.asarray(x)[ii]) - h)

        # a section pressure that is a state is compared by name (a guard the native
        # driver evaluates in C); any other expression through a Python callable
        state_of = {lab: (str(g) if isinstance(g, sp.Symbol) and str(g) in names else None)
                    for lab, g in ((lab, e.xreplace(handles)) for lab, e in self.sections.items())}
        out = []
        for i in d.labels:
            for j in d.labels:
                if i == j:
                    continue
                if state_of[i] and state_of[j]:
                    guard = Exceeds(state_of[j], state_of[i], self.shuttle.band)
                else:
                    guard = When(diff(j, i), f"p_LS({j}) > p_LS({i}) + {self.shuttle.band:g} Pa")
                out.append(Transition(d.name, i, j, guard, dwell=self.shuttle.dwell))
        return out

    def hybrid_model(self, bg, *, params: dict | None = None) -> HybridModel:
        """Build ``bg`` with the shuttle mode as a parameter and its transitions.

        Parameters
        ----------
        bg : BondGraph
            The circuit whose sections feed this network.
        params : dict, optional
            Other parameter values for :func:`~bondgraph.build`.

        Returns
        -------
        HybridModel
        """
        from bondgraph import build

        d = self.discrete
        p = dict(params or {})
        p[d.name] = d.value(d.initial)
        model = build(bg, p)
        return HybridModel(model, [d], self.transitions(model))
