"""Valves: spool dynamics, the closed-centre 4/3 directional valve, on/off valves.

* :class:`Spool` — a small bond graph whose displacement state is the
  normalised spool position ``x`` (−1 … 1): first order
  (``ẋ = (u − x)/τ``, an MSf on the spool junction) or second order (unit
  mass, damper ``2ζω``, and a position-servo effort ``ω²·(u − x)``: the
  transfer ``ω²/(s² + 2ζωs + ω²)`` from command ``u`` to position).
* :class:`DirectionalValve` — closed-centre 4/3 valve, ports ``P``, ``T``,
  ``A``, ``B``: four metering edges P→A, A→T, P→B, B→T, each a nominal-flow
  orifice (:func:`~components.hydraulics.orifice.nominal_flow`) with opening
  ``max(±x, 0)`` (saturated at 1) plus an optional leakage opening. With
  ``spool=None`` the opening follows the command directly — with a discrete
  mode variable (−1/0/+1) as command that is an on/off (bang-bang) valve.
* :class:`OnOffValve` — a 2/2 seat valve between ``A`` and ``B`` whose opening
  (0…1) is a command or a discrete mode variable.

Flow signs: ``x > 0`` connects P→A and B→T (extends a cylinder whose cap side
is on ``A``).

Examples
--------
>>> from bondgraph import Input
>>> v = DirectionalValve("boom_valve", q_nominal="600 L/min", dp_nominal="3 bar",
...                      command=Input("boom.cmd"), spool=SpoolDynamics(bandwidth=10.0))
>>> sorted(v.ports)
['A', 'B', 'P', 'T']
>>> round(v.q_nominal, 6), v.spool.order
(0.01, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy as sp

from bondgraph import MSe, MSf, BondGraph, I, Law, One, R, Zero
from bondgraph.checks import Check, number_problems
from bondgraph.errors import ParameterError

from ._expr import clip
from ._values import NONNEGATIVE, POSITIVE, raise_all, si
from .orifice import nominal_law

__all__ = ["SpoolDynamics", "Spool", "DirectionalValve", "OnOffValve"]


@dataclass(frozen=True)
class SpoolDynamics:
    """Spool response: ``bandwidth`` (Hz), ``damping`` ζ (second order), ``order`` 1 or 2.

    OpenHydraulics' directional valves: 10 Hz, ζ = 1 (docs/reference/excavator_data.md section C).

    Parameters
    ----------
    bandwidth : float or str
        Natural frequency (Hz, or text with units).
    damping : float
        Damping ratio ζ (second order).
    order : {1, 2}

    Raises
    ------
    ParameterError
        A non-positive bandwidth or damping, another order (all listed).

    Examples
    --------
    An underdamped spool (ζ = 0.5) overshoots a step by ``exp(−πζ/√(1 − ζ²)) ≈ 16.3 %``
    at ``t_p = π/(ω·√(1 − ζ²))``:

    >>> import math
    >>> from bondgraph import BondGraph, Input, build, simulate
    >>> dyn = SpoolDynamics(bandwidth="10 Hz", damping=0.5)
    >>> top = BondGraph("servo")
    >>> _ = top.add(Spool("sp", Input("u"), dyn))
    >>> t_p = math.pi / (dyn.omega * math.sqrt(1 - 0.25))
    >>> res = simulate(build(top), (0.0, 0.2), inputs={"u": 1.0}, t_eval=[t_p], rtol=1e-10,
    ...                atol=1e-12, progress=False)
    >>> bool(abs(res["servo/sp/x.pos"][0] - 1 - math.exp(-math.pi * 0.5 / math.sqrt(0.75))) < 1e-7)
    True
    """

    bandwidth: float
    damping: float = 1.0
    order: int = 2

    def __post_init__(self):
        from ._values import convert_units

        bad = convert_units(self, {"bandwidth": "Hz", "damping": ""}, "spool")
        if bad:
            raise ParameterError(bad)
        problems = number_problems("spool", {
            "bandwidth": (self.bandwidth, Check(">0", "Hz")),
            "damping": (self.damping, Check(">0", "damping ratio"))})
        if isinstance(self.order, bool) or self.order not in (1, 2):
            problems.append(f"spool: order: found {self.order!r}, expected 1 or 2")
        if problems:
            raise ParameterError(problems)

    @property
    def omega(self) -> float:
        """Natural frequency ``2π·bandwidth`` (rad/s)."""
        return 2 * math.pi * self.bandwidth


class Spool(BondGraph):
    """Spool position dynamics driven by ``command``; :attr:`position` is the handle.

    The spool junction ``x`` carries the displacement state ``x.pos``
    (initial ``x0``); with second order the spool velocity is ``m.f``.

    Parameters
    ----------
    name : str
    command : number or sympy expression
        Normalised command (an :func:`~bondgraph.Input`, an expression of ``t``).
    dynamics : SpoolDynamics
    x0 : float
        Initial position.

    Examples
    --------
    >>> from bondgraph import BondGraph, Input, build, simulate, Table
    >>> top = BondGraph("servo")
    >>> _ = top.add(Spool("sp", Input("u"), SpoolDynamics(bandwidth=10.0, order=1)))
    >>> res = simulate(build(top), (0, 0.5), inputs={"u": 1.0}, rtol=1e-9, atol=1e-12)
    >>> round(float(res["servo/sp/x.pos"][-1]), 6)   # 1 − exp(−0.5·2π·10)
    1.0
    """

    def __init__(self, name: str, command: Any, dynamics: SpoolDynamics, *, x0: float = 0.0):
        super().__init__(name)
        j = One("x", displacement="pos", initial=x0)
        self.position = j.displacement
        self.dynamics = dynamics
        self.add(j)
        w = dynamics.omega
        u = sp.sympify(command)
        if dynamics.order == 1:
            self.add(MSf("drive", w * (u - self.position)))
            self.connect("drive", "x")
        else:
            self.add(I("m", 1.0), R("b", 2 * dynamics.damping * w),
                     MSe("drive", w**2 * (u - self.position)))
            self.connect("drive", "x")
            self.connect("x", "m")
            self.connect("x", "b")


def _sat(x: Any) -> sp.Expr:
    return clip(x, 0, 1)


def _leakage_problems(leakage: Any) -> list[str]:
    bad = Check(">=0", "fraction of full opening, below 1").problem("'leakage'", leakage)
    if bad is None and not leakage < 1:
        bad = f"'leakage': found {leakage!r}, expected 0 ≤ leakage < 1"
    return [bad] if bad else []


class DirectionalValve(BondGraph):
    """Proportional closed-centre 4/3 directional valve (ports ``P``, ``T``, ``A``, ``B``).

    Connect the supply node into ``P``, ``T`` into the tank, ``A`` into the cap
    side and the rod side into ``B`` (positive flows P→A and B→T).

    Parameters
    ----------
    name : str
    q_nominal : float or str
        Flow of one fully open metering edge at ``dp_nominal`` (m³/s or with units).
    dp_nominal : float or str
        Pressure drop per metering edge at which ``q_nominal`` is rated (Pa).
    command : expression
        Normalised command −1…1: an :func:`~bondgraph.Input`, an expression of
        ``t``, or a discrete mode symbol (on/off operation).
    spool : SpoolDynamics, optional
        ``None``: the opening follows the command without delay.
    leakage : float
        Opening added to every edge (fraction of full opening), e.g. 1e-4.
    p_tr : float
        Laminar transition pressure of the orifices (Pa).
    makeup : float or str, optional
        Conductance (m³/(s·Pa)) of the anti-cavitation (make-up) check valves from
        ``T`` to ``A`` and to ``B``: when a work port falls ``makeup_crack`` below
        the tank they refill it, as on an excavator's valve block. ``None``: none.
    makeup_crack : float or str
        Their cracking pressure (Pa).

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    Half open (``x = 0.5``) between a 100 bar supply, a cap side at 40 bar and a rod side
    at 20 bar, each edge passes ``Q_N·x·√(Δp/Δp_N)``:

    >>> import math
    >>> import numpy as np
    >>> from bondgraph import BondGraph, Se, Zero, build
    >>> rig = BondGraph("rig")
    >>> _ = rig.add(Se("P", 100e5), DirectionalValve("v", q_nominal="60 L/min", dp_nominal="3 bar",
    ...                                             command=0.5),
    ...             Zero("nA"), Se("cap", 40e5), Zero("nB"), Se("rod", 20e5), Zero("tank"),
    ...             Se("T", 0.0))
    >>> for a, b in [("P", "v/P"), ("v/A", "nA"), ("cap", "nA"), ("nB", "v/B"), ("rod", "nB"),
    ...              ("v/T", "tank"), ("T", "tank")]:
    ...     _ = rig.connect(a, b)
    >>> model = build(rig)
    >>> out = dict(zip(model.system.output_names, model.system.outputs(0.0, np.zeros(0))))
    >>> q_PA, q_BT = out["f[rig/b1]"], out["f[rig/b4]"]         # supply and rod-side bonds
    >>> bool(np.isclose(q_PA, 1e-3 * 0.5 * math.sqrt(60 / 3))), bool(np.isclose(q_BT, 1e-3 * 0.5 * math.sqrt(20 / 3)))
    (True, True)
    """

    def __init__(self, name: str, *, q_nominal: Any, dp_nominal: Any, command: Any,
                 spool: SpoolDynamics | None = None, leakage: float = 0.0, p_tr: Any = 1e5,
                 makeup: Any = None, makeup_crack: Any = 0.3e5):
        super().__init__(name)
        problems: list[str] = []
        self.q_nominal = si(q_nominal, "m^3/s", "q_nominal", problems, POSITIVE)
        self.dp_nominal = si(dp_nominal, "Pa", "dp_nominal", problems, POSITIVE)
        self.p_tr = si(p_tr, "Pa", "p_tr", problems, POSITIVE)
        problems += _leakage_problems(leakage)
        if spool is not None and not isinstance(spool, SpoolDynamics):
            problems.append(f"'spool': found {spool!r}, expected SpoolDynamics or None")
        if makeup is not None:
            g = si(makeup, "m^3/s/Pa", "makeup", problems, POSITIVE)
            crack = si(makeup_crack, "Pa", "makeup_crack", problems, NONNEGATIVE)
        raise_all(problems, f"valve {name!r}")
        self.spool = spool
        if spool is not None:
            sp_ = self.add(Spool("spool", command, spool))
            x = sp_.position
        else:
            x = sp.sympify(command)
        #: spool position (normalised) as an expression
        self.position = x
        for n in ("nP", "nT", "nA", "nB"):
            self.add(Zero(n))
        edges = {"PA": ("nP", "nA", _sat(x)), "AT": ("nA", "nT", _sat(-x)),
                 "PB": ("nP", "nB", _sat(-x)), "BT": ("nB", "nT", _sat(x))}
        for edge, (a, b, opening) in edges.items():
            op = opening + leakage if leakage else opening
            self.add(One(edge), R(f"R_{edge}", flow=self._edge_law(edge, op)))
            self.connect(a, edge)
            self.connect(edge, b)
            self.connect(edge, f"R_{edge}")
        if makeup is not None:
            eps = 0.05e5  # the check valves open along a C¹ ramp over this drop (Pa)
            for side in ("A", "B"):
                law = Law(lambda dp, g=g, c=crack: g * sp.Piecewise(
                    (0, dp - c <= 0), ((dp - c) ** 2 / (2 * eps), dp - c < eps), (dp - c - eps / 2, True)),
                    not_invertible="a check valve passes no flow below its cracking pressure, so its "
                                   "pressure drop is not a function of its flow")
                self.add(One(f"MU_{side}"), R(f"R_MU_{side}", flow=law))
                self.connect("nT", f"MU_{side}")
                self.connect(f"MU_{side}", f"n{side}")
                self.connect(f"MU_{side}", f"R_MU_{side}")
        for port in ("P", "T", "A", "B"):
            self.expose(port, f"n{port}")

    def _edge_law(self, edge: str, opening: Any):
        """Flow law ``Q(Δp)`` of one metering edge (``"PA"``, ``"AT"``, ``"PB"``, ``"BT"``);
        a subclass may meter some edges differently (pressure-compensated valves).

        Parameters
        ----------
        edge : str
        opening : sympy expression
            The edge's opening 0 … 1.

        Returns
        -------
        Law
        """
        return nominal_law(opening, self.q_nominal, self.dp_nominal, self.p_tr)


class OnOffValve(BondGraph):
    """2/2 on/off valve between ports ``A`` and ``B`` (positive flow A→B).

    ``command`` is the opening 0…1 (an input, or a discrete mode symbol whose
    values are 0 and 1); saturated to 0…1.

    Parameters
    ----------
    name : str
    q_nominal, dp_nominal : float or str
        Rated flow at the rated drop.
    command : number or sympy expression
        Opening 0 … 1.
    leakage : float
        Opening added (fraction of full opening).
    p_tr : float or str
        Laminar transition pressure (Pa).

    Raises
    ------
    ParameterError
        Every bad value at once.

    Examples
    --------
    >>> import sympy as sp
    >>> OnOffValve("dump", q_nominal=1e-3, dp_nominal=5e5, command=sp.Symbol("dump.state")).ports["A"].target
    'q'

    Open at 20 bar, a valve rated 60 L/min at 5 bar passes 120 L/min; closed, its
    leakage:

    >>> import numpy as np
    >>> from bondgraph import BondGraph, Se, Zero, Input, build
    >>> rig = BondGraph("rig")
    >>> _ = rig.add(Se("P", 20e5), OnOffValve("v", q_nominal="60 L/min", dp_nominal="5 bar",
    ...                                       command=Input("open"), leakage=1e-3),
    ...             Zero("tank"), Se("T", 0.0))
    >>> for a, b in [("P", "v/A"), ("v/B", "tank"), ("T", "tank")]:
    ...     _ = rig.connect(a, b)
    >>> sysm = build(rig).system
    >>> flow = []
    >>> for u in (1.0, 0.0):
    ...     sysm.set_inputs(np.array([u]))
    ...     flow.append(float(dict(zip(sysm.output_names, sysm.outputs(0.0, np.zeros(0))))["f[rig/b1]"]) * 6e4)
    >>> [round(q, 6) for q in flow]     # L/min
    [120.12, 0.12]
    """

    def __init__(self, name: str, *, q_nominal: Any, dp_nominal: Any, command: Any,
                 leakage: float = 0.0, p_tr: Any = 1e5):
        super().__init__(name)
        problems: list[str] = []
        qn = si(q_nominal, "m^3/s", "q_nominal", problems, POSITIVE)
        dpn = si(dp_nominal, "Pa", "dp_nominal", problems, POSITIVE)
        ptr = si(p_tr, "Pa", "p_tr", problems, POSITIVE)
        problems += _leakage_problems(leakage)
        raise_all(problems, f"valve {name!r}")
        op = _sat(sp.sympify(command)) + leakage
        self.add(One("q"), R("R", flow=nominal_law(op, qn, dpn, ptr)))
        self.connect("q", "R")
        self.expose("A", "q")
        self.expose("B", "q")
